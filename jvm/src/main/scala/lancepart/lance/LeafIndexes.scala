// The Lance indexes of a partition table as Lance describes them: name, type, the namespace
// columns they cover and Lance's statistics (rows left unindexed, the options of their build).
package lancepart.lance

import lancepart.spec.SchemaField
import org.lance.Dataset

import scala.jdk.CollectionConverters._

/** A field an index covers: its Lance field id, the leaf column with that id and the namespace
 * column that leaf column holds, where they are found. */
case class IndexedField(id: Int, leafColumn: Option[LeafColumn], column: Option[SchemaField]) {

  /** The namespace column's name, else the leaf column's, else the field id. */
  def shown: String = column.map(_.name).orElse(leafColumn.map(_.name)).getOrElse(s"<field $id>")
}

/** Index `name` of a partition table: Lance's type name `kind`, the fields it covers and Lance's
 * statistics of it. */
case class DescribedIndex(
    name: String,
    kind: String,
    fields: Seq[IndexedField],
    statistics: java.util.Map[String, Object]) {

  /** Rows written after the index was built, which Lance searches without it. */
  def unindexedRows: Long = statistics.get("num_unindexed_rows").asInstanceOf[Number].longValue()
}

object LeafIndexes {

  /** The indexes of `ds` by name, with the columns of `namespace` they cover. */
  def of(ds: Dataset, namespace: Seq[SchemaField]): Seq[DescribedIndex] = {
    lazy val leaf = LeafSchema.columns(ds)
    ds.describeIndices().asScala.toSeq.sortBy(_.getName).map { d =>
      val fields = d.getFieldIds.asScala.toSeq.map { id =>
        val leafColumn = leaf.find(_.lanceId == id)
        IndexedField(id, leafColumn, leafColumn.flatMap(LeafSchema.holder(leaf, _, namespace)))
      }
      DescribedIndex(d.getName, d.getIndexType, fields, ds.getIndexStatistics(d.getName))
    }
  }
}
