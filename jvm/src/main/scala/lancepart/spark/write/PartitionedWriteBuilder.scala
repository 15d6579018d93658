// Write planning: Spark clusters and sorts rows by the partition columns, tasks write Lance
// fragments per partition, the driver commits them (txn.Committer). INSERT OVERWRITE replaces
// the partitions a filter selects (static) or the partitions the data touches (dynamic).
package lancepart.spark.write

import lancepart.manifest.Naming
import lancepart.prune.V2Predicates
import lancepart.spark.{DdlPartitioning, PartitionedTable}
import lancepart.txn.{LeafWrite, PartitionDirectory, TableWrite}
import org.apache.spark.sql.connector.distributions.{Distribution, Distributions}
import org.apache.spark.sql.connector.expressions.{Expression, Expressions, SortDirection, SortOrder}
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.connector.write._
import org.apache.spark.sql.sources.Filter

/** How a write treats what the table holds: append, replace what `filters` select, or replace
 * the partitions written. */
sealed trait WriteMode
case object AppendRows extends WriteMode
case class OverwriteWhere(filters: Seq[Filter]) extends WriteMode
case object OverwritePartitions extends WriteMode

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

class PartitionedWrite(table: PartitionedTable, info: LogicalWriteInfo, mode: WriteMode)
    extends Write with RequiresDistributionAndOrdering {
  /** Rows cluster and sort by each field's value; an expression field by its source columns. */
  private val clustering: Array[Expression] = table.manifest.meta.currentSpec.fields.flatMap { f =>
    if (f.field.expression.isDefined) f.sources.flatten.map(s => DdlPartitioning.column(s.name): Expression)
    else Seq(DdlPartitioning.expressionOf(f))
  }.distinct.toArray

  override def requiredDistribution(): Distribution = Distributions.clustered(clustering)

  override def requiredOrdering(): Array[SortOrder] = clustering.map(e => Expressions.sort(e, SortDirection.ASCENDING))

  override def toBatch: BatchWrite = new PartitionedBatchWrite(table, info, mode)
}

class PartitionedBatchWrite(table: PartitionedTable, info: LogicalWriteInfo, mode: WriteMode) extends BatchWrite {
  private val meta = table.manifest.meta
  private val removal = mode match {
    case OverwriteWhere(filters) => RowRemoval.plan(table, filters)
    case _ => RowRemoval(Map.empty, Map.empty)
  }
  private val directory = PartitionDirectory.load(table.store, table.manifest, meta.currentSpec, Naming.randomName())
    .replacingFor(replaceAll = mode == OverwritePartitions, replacing = removal.removed.keySet)

  override def createBatchWriterFactory(physical: PhysicalWriteInfo): DataWriterFactory = {
    val input = info.schema()
    val sourceOrdinals = meta.currentSpec.fields.map(_.sources.map(_.flatMap { s =>
      input.fields.indexWhere(_.name.equalsIgnoreCase(s.name)) match { case -1 => None; case i => Some(i) }
    }))
    new LeafWriterFactory(table.name(), meta.properties, table.store.tableUri, sourceOrdinals, directory, table.storage)
  }

  override def commit(messages: Array[WriterCommitMessage]): Unit = {
    val writes: Seq[LeafWrite] = messages.toSeq.flatMap { case m: LeafWriteMessage => m.writes }
    val tx = TableWrite(table.manifest, directory, writes, removal.removed, removal.deletes)
    if (!tx.isEmpty) table.committer.commit(tx)
  }

  /** Fragments of an aborted write are in no committed leaf version, so no reader sees them;
   * `Admin.vacuum` removes them. */
  override def abort(messages: Array[WriterCommitMessage]): Unit = ()
}

case class LeafWriteMessage(writes: Seq[LeafWrite]) extends WriterCommitMessage
