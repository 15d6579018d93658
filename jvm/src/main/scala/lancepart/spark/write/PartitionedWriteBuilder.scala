// How Spark configures a write: append, INSERT OVERWRITE of what a filter selects (static) or of
// the partitions the data touches (dynamic).
package lancepart.spark.write

import lancepart.prune.V2Predicates
import lancepart.spark.PartitionedTable
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.connector.write._

class PartitionedWriteBuilder(table: PartitionedTable, info: LogicalWriteInfo)
    extends WriteBuilder with SupportsOverwriteV2 with SupportsDynamicOverwrite {
  private var mode: WriteMode = AppendRows

  override def canOverwrite(predicates: Array[Predicate]): Boolean =
    V2Predicates.toFilters(predicates.toSeq).exists(RowRemoval.supports(table, _))

  override def overwrite(predicates: Array[Predicate]): WriteBuilder = {
    mode = OverwriteWhere(V2Predicates.toFilters(predicates.toSeq).getOrElse(throw new UnsupportedOperationException(
      s"table ${table.name()}: cannot overwrite where ${predicates.mkString(" AND ")}")))
    this
  }

  /** Refused while the table has partition tables without partition values: which partitions
   * their rows belong to is unknown, so their rows of a replaced partition would stay. */
  override def overwriteDynamicPartitions(): WriteBuilder = {
    val unpartitioned = table.manifest.meta.unpartitioned
    if (unpartitioned.nonEmpty) throw new UnsupportedOperationException(
      s"table ${table.name()}: cannot overwrite partitions dynamically while partition tables have no partition " +
        s"values (${unpartitioned.toSeq.sorted.mkString(", ")}; another client created them): their rows of the " +
        "replaced partitions would stay. Overwrite with a condition instead (a static INSERT OVERWRITE, " +
        "DataFrameWriterV2.overwrite), or remove those tables with that client and run Admin.repair")
    mode = OverwritePartitions
    this
  }

  override def build(): Write = new PartitionedWrite(table, info, mode)
}
