// The searches each partition table runs in its scan (nearest vectors, full-text matches) and the
// column each adds (_distance, _score).
package lancepart.spark.read

import lancepart.lance.Lance
import lancepart.spark.{FixedSizeLists, PartitionedTable}
import lancepart.spec.SchemaField
import org.apache.arrow.vector.types.pojo.ArrowType
import org.apache.spark.sql.types.{FloatType, StructField}
import org.lance.ipc.{FullTextQuery, Query, ScanOptions}

/**
 * The `k` best rows of each partition table for a query on namespace column `column`, ranked by
 * the column the search adds ([[field]]). `prefilter`: the query's conditions choose the rows that
 * compete (Lance's prefilter; the k best matching rows), else they are applied to the k best rows
 * found (fewer may remain).
 */
sealed trait LeafSearch {
  def column: SchemaField
  def k: Int
  def prefilter: Boolean

  /** The SQL function the search comes from, for messages. */
  def function: String

  /** The column the search adds; the best rows come first in its [[ascending]] order. */
  def field: StructField
  def ascending: Boolean

  /** The search as EXPLAIN shows it. */
  def description: String

  /** Sets the search of a partition table whose column `leafColumn` holds [[column]]. */
  def configure(options: ScanOptions.Builder, leafColumn: String): Unit
}

/** Nearest rows to `key` in a vector column by `distance` (a [[lancepart.lance.Lance.Distances]]
 * name): Lance's flat search, or its index where the table has one, tuned by `tuning`. */
case class VectorQuery(
    column: SchemaField,
    key: Array[Float],
    k: Int,
    distance: String,
    tuning: VectorTuning = VectorTuning(),
    prefilter: Boolean = true) extends LeafSearch {
  override def function: String = "lance_vector_search"
  override def field: StructField = VectorQuery.distanceField
  override def ascending: Boolean = true

  override def description: String = s"nearest $k by $distance on ${column.name}" +
    Seq("nprobes" -> tuning.nprobes, "refine_factor" -> Some(tuning.refineFactor).filter(_ != 1), "ef" -> tuning.ef)
      .collect { case (name, Some(v)) => s" $name=$v" }.mkString + (if (tuning.useIndex) "" else " flat") +
    (if (prefilter) "" else " postfilter")

  override def configure(options: ScanOptions.Builder, leafColumn: String): Unit = {
    val query = new Query.Builder().setColumn(leafColumn).setKey(key).setK(k)
      .setDistanceType(Lance.Distances(distance))
    tuning.nprobes.foreach(query.setNprobes)
    query.setRefineFactor(tuning.refineFactor)
    tuning.ef.foreach(query.setEf)
    query.setUseIndex(tuning.useIndex)
    options.nearest(query.build()).prefilter(prefilter)
  }
}

/** Lance's search settings of an index: partitions probed (IVF), candidates re-ranked by their
 * exact distance (`refineFactor` times k; at least the k found, so that `_distance` is exact and
 * the k best of several tables merge by it, not by each index's approximation), candidates kept
 * while searching a graph (HNSW); without `useIndex`, the exact (flat) search even where there
 * is an index. */
case class VectorTuning(
    nprobes: Option[Int] = None,
    refineFactor: Int = 1,
    ef: Option[Int] = None,
    useIndex: Boolean = true)

/** Rows whose text column matches `text` (Lance's match query: any of its terms, BM25-scored with
 * the statistics of each partition table's INVERTED index). */
case class TextQuery(column: SchemaField, text: String, k: Int, prefilter: Boolean = true) extends LeafSearch {
  override def function: String = "lance_text_search"
  override def field: StructField = StructField(TextQuery.ScoreColumn, FloatType, nullable = true)
  override def ascending: Boolean = false

  override def description: String =
    s"best $k text matches on ${column.name}${if (prefilter) "" else " postfilter"}"

  override def configure(options: ScanOptions.Builder, leafColumn: String): Unit =
    options.fullTextQuery(FullTextQuery.`match`(text, leafColumn)).limit(k.toLong).prefilter(prefilter)
}

object TextQuery {

  /** The column holding each row's relevance (Lance's own name for it). */
  val ScoreColumn = "_score"
}

object VectorQuery {

  /** The namespace column `column` of `table`, checked to be a vector column (a fixed-size list
   * of floating-point numbers), and its number of elements; `fail` reports what is wrong. */
  def vectorColumn(table: PartitionedTable, column: String, fail: String => Nothing): (SchemaField, Int) = {
    val schema = table.manifest.meta.schema
    val field = table.column(column, fail)
    schema.arrow(field).getType match {
      case l: ArrowType.FixedSizeList
          if l.getListSize > 0 &&
            schema.arrow(field).getChildren.get(0).getType.isInstanceOf[ArrowType.FloatingPoint] =>
        (field, l.getListSize)
      case _ => fail(s"column '${field.name}' of table ${table.name()} is not a vector column (an ARRAY of FLOAT or " +
          s"DOUBLE declared with TBLPROPERTIES '${FixedSizeLists.Prefix}${field.name}'); " +
          s"it has type ${field.dataType.sql}")
    }
  }

  /** The column holding each row's distance to the query (Lance's own name for it). */
  val DistanceColumn = "_distance"
  val distanceField: StructField = StructField(DistanceColumn, FloatType, nullable = true)
}
