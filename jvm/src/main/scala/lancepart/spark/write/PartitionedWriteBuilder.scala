// Write planning: Spark clusters and sorts rows by the partition columns, tasks write Lance
// fragments per partition, the driver commits them (txn.WeakCommit).
package lancepart.spark.write

import lancepart.spark.PartitionedTable
import lancepart.txn.{LeafWrite, WeakCommit}
import org.apache.spark.sql.connector.distributions.{Distribution, Distributions}
import org.apache.spark.sql.connector.expressions.{Expression, Expressions, SortDirection, SortOrder}
import org.apache.spark.sql.connector.write._
import org.apache.spark.sql.lancepart.ArrowBridge

class PartitionedWriteBuilder(table: PartitionedTable, info: LogicalWriteInfo) extends WriteBuilder {
  override def build(): Write = new PartitionedWrite(table, info)
}

class PartitionedWrite(table: PartitionedTable, info: LogicalWriteInfo)
    extends Write with RequiresDistributionAndOrdering {
  private val spec = table.manifest.meta.currentSpec
  private val sourceNames: Seq[String] = spec.fields.map { f =>
    if (!f.field.isIdentity) {
      throw new UnsupportedOperationException(
        s"table ${table.name()}: writing partition field '${f.fieldId}' (${f.field.describe}) is not supported yet")
    }
    f.source.map(_.name).getOrElse(throw new IllegalStateException(
      s"table ${table.name()}: partition field '${f.fieldId}' has no source column in the schema"))
  }

  override def requiredDistribution(): Distribution =
    Distributions.clustered(sourceNames.map(n => Expressions.column(n): Expression).toArray)

  override def requiredOrdering(): Array[SortOrder] =
    sourceNames.map(n => Expressions.sort(Expressions.column(n), SortDirection.ASCENDING)).toArray

  override def toBatch: BatchWrite = new PartitionedBatchWrite(table, info, sourceNames)
}

class PartitionedBatchWrite(table: PartitionedTable, info: LogicalWriteInfo, sourceNames: Seq[String])
    extends BatchWrite {
  private val meta = table.manifest.meta
  private val leafSchema = ArrowBridge.toArrowSchema(meta.schema.sparkSchema)
  private val directory = PartitionDirectory.load(table.store, table.manifest, meta.currentSpec)

  override def createBatchWriterFactory(physical: PhysicalWriteInfo): DataWriterFactory = {
    val inputSchema = info.schema()
    val keyColumns = sourceNames.map { n =>
      val i = inputSchema.fieldIndex(inputSchema.fields.find(_.name.equalsIgnoreCase(n)).map(_.name).getOrElse(n))
      (i, inputSchema(i).dataType)
    }
    new LeafWriterFactory(table.store.tableUri, meta.schema.sparkSchema, keyColumns, directory, table.storage)
  }

  override def commit(messages: Array[WriterCommitMessage]): Unit = {
    val writes: Seq[LeafWrite] = messages.toSeq.flatMap { case m: LeafWriteMessage => m.writes }
    if (writes.nonEmpty) WeakCommit.commit(table.store, leafSchema, table.storage, writes)
  }

  /** Fragments of an aborted write are in no committed leaf version, so no reader sees them. */
  override def abort(messages: Array[WriterCommitMessage]): Unit = ()
}

case class LeafWriteMessage(writes: Seq[LeafWrite]) extends WriterCommitMessage
