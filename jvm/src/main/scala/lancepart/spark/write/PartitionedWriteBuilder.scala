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

  override def overwriteDynamicPartitions(): WriteBuilder = { mode = OverwritePartitions; this }

  override def build(): Write = new PartitionedWrite(table, info, mode)
}
