// Executor side of a read: scan one partition table with lance-core and hand Arrow batches to Spark.
package lancepart.spark.read

import lancepart.arrow.ArrowTypes
import lancepart.lance.{LeafColumn, LeafSchema}
import lancepart.spec.{SchemaEvolution, SchemaField}
import org.apache.arrow.vector.types.pojo.Field
import org.apache.arrow.vector.ipc.ArrowReader
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.PartitionReader
import org.apache.arrow.vector.UInt8Vector
import org.apache.spark.sql.execution.vectorized.{ColumnVectorUtils, ConstantColumnVector, OnHeapColumnVector}
import org.apache.spark.sql.types.{DataType, LongType}
import org.apache.spark.sql.vectorized.{ArrowColumnVector, ColumnVector, ColumnarBatch}
import org.lance.Dataset
import org.lance.index.IndexType
import org.lance.ipc.{LanceScanner, ScanOptions}

import scala.jdk.CollectionConverters._

/**
 * Reads `dataset`, the leaf `part` opened at its pinned version (or the dataset of a
 * [[lancepart.lance.LeafUnion]] of leaves of `part`'s schema, `part` being the first), and closes it
 * (with each row's Lance row address after the columns when `rowAddress`), following the schema
 * consistency rules: a column is found
 * as [[LeafSchema.find]] says (by the field id lancepart tagged it with, else by name, else by its
 * Lance field id; renames are followed before and after they reach the leaf) among the columns
 * of `namespace`, the whole namespace schema; it is read as the scan's
 * type ([[LeafVectors]]: nested fields by name, a narrower stored type widened, an Arrow type
 * Spark does not read itself converted, a nested field the leaf lacks as NULL); a namespace column the leaf does not store reads as the partition's
 * identity value when it is an identity source (writers such as Daft's omit those columns), else
 * as NULL; leaf-only columns are ignored. Whole top-level columns are read: Lance reads a nested
 * path ("st.b") as a flat column without the NULLs of its parents.
 *
 * Filters go to Lance only for columns stored under the same name and type, and only when no
 * struct, array or map column is read: lance-core 7.0.0's filtered scans, which read the other
 * columns after filtering, return a NULL struct as a struct of NULLs and a NULL array of structs
 * as an empty array (Spark applies the filters again in any case).
 *
 * With `search`, the leaf returns its best rows instead (Lance's nearest or full-text search; with
 * a prefilter, every filter applied before the search, nested columns or not, since they decide
 * which rows compete, and refused where the leaf cannot apply one) with the search's column after
 * the columns; a leaf without the searched column returns no rows.
 */
class LeafReader(
    part: LeafPartition,
    columns: Seq[SchemaField],
    namespace: Seq[SchemaField],
    filters: Seq[LeafFilter],
    dataset: Dataset,
    rowAddress: Boolean = false,
    search: Option[LeafSearch] = None) extends PartitionReader[ColumnarBatch] {
  private val leaf =
    try LeafSchema.columns(dataset)
    catch { case e: Throwable => dataset.close(); throw e }
  private val stored: Seq[Option[(Field, DataType)]] =
    try {
      columns.map { c =>
        LeafSchema.find(leaf, c, namespace).map(_.field).map { field =>
          val leafType = ArrowTypes.toSpark(field, s"partition table ${part.uri}: column '${field.getName}'")
          SchemaEvolution.mismatch(leafType, c.dataType, field.getName).foreach { reason =>
            throw new IllegalStateException(
              s"partition table ${part.uri}: column $reason (namespace column '${c.name}')")
          }
          (field, leafType)
        }
      }
    } catch { case e: Throwable => dataset.close(); throw e }

  /** The leaf column `search` queries; None: no search, or no such column in this leaf. */
  private val searched: Option[LeafColumn] = search.flatMap(q => LeafSchema.find(leaf, q.column, namespace))
  private val scanner: Option[LanceScanner] =
    try
      if (search.isDefined && (searched.isEmpty || !searchable(search.get, searched.get))) None
      else {
        // Lance compares a literal with a column in the column's own type: only Spark's own types
        val direct = columns.zip(stored).collect {
          case (c, Some((f, t)))
              if f.getName == c.name && t == c.dataType && ArrowTypes.isSparkOwn(f, f.getName) => c.name
        }.toSet
        val nested = stored.flatten.exists { case (_, t) => LeafVectors.isNested(t) }
        val (applicable, skipped) =
          if (nested && search.isEmpty) (Seq.empty, filters) else filters.partition(_.columns.forall(direct))
        for (q <- search if q.prefilter && skipped.nonEmpty) throw new IllegalArgumentException(
          s"${q.function}: partition table ${part.uri}${part.shownValues} does not store the columns of ${skipped.map(_.sql)
              .mkString(" AND ")} under their names and types, so they cannot choose the rows its search ranks; " +
            "set option prefilter to 'false' to apply them to the rows the search finds")
        val names = stored.flatten.map(_._1.getName).distinct
        val options = new ScanOptions.Builder().columns((names ++ search.map(_.field.name)).asJava)
          .batchSize(LeafReader.BatchRows)
        if (applicable.nonEmpty) options.filter(applicable.map(f => s"(${f.sql})").mkString(" AND "))
        if (names.isEmpty) options.withRowId(true)
        if (rowAddress) options.withRowAddress(true)
        part.fragments.foreach(ids => options.fragmentIds(ids.map(Int.box).asJava))
        for (q <- search; c <- searched) q.configure(options, c.name)
        Some(dataset.newScan(options.build()))
      }
    catch { case e: Throwable => dataset.close(); throw e }

  /** Whether the leaf can run `q` on its column `c`: a full-text search needs an INVERTED index on
   * it, except in a leaf with no rows (which has none to find). */
  private def searchable(q: LeafSearch, c: LeafColumn): Boolean = q match {
    case _: VectorQuery => true
    case t: TextQuery =>
      val indexed =
        dataset.getIndexes.asScala.exists(i => i.indexType() == IndexType.INVERTED && i.fields().contains(c.lanceId))
      if (!indexed && dataset.countRows() > 0) throw new IllegalArgumentException(
        s"${t.function}: partition table ${part.uri}${part.shownValues} has no INVERTED index on column " +
          s"'${t.column.name}'; build one with CALL <catalog>.system.create_index(table => ..., column => " +
          s"'${t.column.name}', type => 'INVERTED', where => <a condition selecting this partition>)")
      indexed
  }
  private val reader: Option[ArrowReader] = scanner.map(_.scanBatches())
  private var batch: ColumnarBatch = _

  override def next(): Boolean = {
    if (!reader.exists(_.loadNextBatch())) return false
    val root = reader.get.getVectorSchemaRoot
    val rows = root.getRowCount
    val vectors: Array[ColumnVector] = columns.zip(stored).map {
      case (c, Some((field, leafType))) => LeafVectors.of(root.getVector(field.getName), leafType, c.dataType)
      case (c, None) =>
        val constant = new ConstantColumnVector(rows, c.dataType)
        ColumnVectorUtils.populate(constant, InternalRow(part.identityValues.getOrElse(c.name, null)), 0)
        constant
    }.toArray
    val withScore = vectors ++ search.map(q => new ArrowColumnVector(root.getVector(q.field.name)))
    batch = new LeafBatch(
      if (rowAddress) withScore :+ addresses(root.getVector(LeafReader.RowAddress), rows) else withScore,
      rows)
    true
  }

  override def get(): ColumnarBatch = batch

  /** Lance's unsigned row addresses as LONG (they stay below 2^63: fragment ids are 32-bit). */
  private def addresses(vector: org.apache.arrow.vector.FieldVector, rows: Int): ColumnVector = {
    val source = vector.asInstanceOf[UInt8Vector]
    val column = new OnHeapColumnVector(rows, LongType)
    for (i <- 0 until rows) column.putLong(i, source.get(i))
    column
  }

  override def close(): Unit = {
    reader.foreach(_.close())
    scanner.foreach(_.close())
    dataset.close()
  }
}

/** Spark closes a batch's vectors after using it (`closeIfFreeable`), which for Arrow vectors
 * releases the reader's VectorSchemaRoot, reused by the next batch: a struct vector loses its
 * children and the next batch fails to load. The root is the reader's to close. */
class LeafBatch(vectors: Array[ColumnVector], rows: Int) extends ColumnarBatch(vectors, rows) {
  override def closeIfFreeable(): Unit = ()
}

object LeafReader {
  val BatchRows = 8192L

  /** The column Lance adds for `withRowAddress`. */
  val RowAddress = "_rowaddr"
}
