// Write planning: Spark clusters and sorts rows by the partition columns, tasks write Lance
// fragments per partition, the driver commits them (txn.WeakCommit).
package lancepart.spark.write

import lancepart.spark.{DdlPartitioning, LeafSchema, PartitionedTable}
import lancepart.txn.{LeafWrite, WeakCommit}
import org.apache.spark.sql.connector.distributions.{Distribution, Distributions}
import org.apache.spark.sql.connector.expressions.{Expression, Expressions, SortDirection, SortOrder}
import org.apache.spark.sql.connector.write._

class PartitionedWriteBuilder(table: PartitionedTable, info: LogicalWriteInfo) extends WriteBuilder {
  override def build(): Write = new PartitionedWrite(table, info)
}

class PartitionedWrite(table: PartitionedTable, info: LogicalWriteInfo)
    extends Write with RequiresDistributionAndOrdering {
  /** Rows cluster and sort by each field's value; an expression field by its source columns. */
  private val clustering: Array[Expression] = table.manifest.meta.currentSpec.fields.flatMap { f =>
    if (f.field.expression.isDefined) f.sources.flatten.map(s => Expressions.column(s.name): Expression)
    else Seq(DdlPartitioning.expressionOf(f))
  }.distinct.toArray

  override def requiredDistribution(): Distribution = Distributions.clustered(clustering)

  override def requiredOrdering(): Array[SortOrder] = clustering.map(e => Expressions.sort(e, SortDirection.ASCENDING))

  override def toBatch: BatchWrite = new PartitionedBatchWrite(table, info)
}

class PartitionedBatchWrite(table: PartitionedTable, info: LogicalWriteInfo) extends BatchWrite {
  private val meta = table.manifest.meta
  private val leafSchema = LeafSchema.arrow(meta.schema)
  private val directory = PartitionDirectory.load(table.store, table.manifest, meta.currentSpec)

  override def createBatchWriterFactory(physical: PhysicalWriteInfo): DataWriterFactory = {
    val input = info.schema()
    val sourceOrdinals = meta.currentSpec.fields.map(_.sources.map(_.flatMap { s =>
      input.fields.indexWhere(_.name.equalsIgnoreCase(s.name)) match { case -1 => None; case i => Some(i) }
    }))
    new LeafWriterFactory(table.name(), meta.properties, table.store.tableUri, sourceOrdinals, directory, table.storage)
  }

  override def commit(messages: Array[WriterCommitMessage]): Unit = {
    val writes: Seq[LeafWrite] = messages.toSeq.flatMap { case m: LeafWriteMessage => m.writes }
    if (writes.nonEmpty) WeakCommit.commit(table.store, leafSchema, table.storage, writes)
  }

  /** Fragments of an aborted write are in no committed leaf version, so no reader sees them. */
  override def abort(messages: Array[WriterCommitMessage]): Unit = ()
}

case class LeafWriteMessage(writes: Seq[LeafWrite]) extends WriterCommitMessage
