// Write planning: Spark clusters and sorts rows by the partition columns, tasks write Lance
// fragments per partition, the driver commits them (txn.Committer): a batch write or a streaming
// query's micro-batches.
package lancepart.spark.write

import lancepart.spark.{DdlPartitioning, PartitionedTable, TableBranches}
import org.apache.spark.sql.connector.distributions.{Distribution, Distributions}
import org.apache.spark.sql.connector.expressions.{Expression, Expressions, SortDirection, SortOrder}
import org.apache.spark.sql.connector.write.{BatchWrite, LogicalWriteInfo, RequiresDistributionAndOrdering, Write}
import org.apache.spark.sql.connector.write.streaming.StreamingWrite

class PartitionedWrite(table: PartitionedTable, info: LogicalWriteInfo, mode: WriteMode)
    extends Write with RequiresDistributionAndOrdering {
  private val clustering = PartitionedWrite.clustering(table)

  override def requiredDistribution(): Distribution = Distributions.clustered(clustering)

  override def requiredOrdering(): Array[SortOrder] = PartitionedWrite.ascending(clustering)

  override def toBatch: BatchWrite = new PartitionedBatchWrite(table, info, mode)

  /** A micro-batch of a streaming query, which plans each on the table object it loaded when it
   * started (its rows clustered by that object's spec): the micro-batch writes the table as its
   * latest manifest version has it, refused when the schema, specs or mode changed since. */
  override def toStreaming: StreamingWrite = {
    TableBranches.requireMain(table, "stream to")
    new PartitionedStreamingWrite(
      table.latestSince(s"streaming query ${info.queryId()}", "restart the query (it goes on from its checkpoint)"),
      info,
      mode)
  }
}

object PartitionedWrite {

  /** What rows cluster and sort by, so that a task gets each partition's rows together
   * ([[LeafDataWriter]] writes a partition's run of rows as its fragments): each field's value; an
   * expression field by its source columns. */
  def clustering(table: PartitionedTable): Array[Expression] =
    table.manifest.meta.currentSpec.fields.flatMap { f =>
      if (f.field.expression.isDefined) f.sources.flatten.map(s => DdlPartitioning.column(s.name): Expression)
      else Seq(DdlPartitioning.expressionOf(f))
    }.distinct.toArray

  def ascending(expressions: Array[Expression]): Array[SortOrder] =
    expressions.map(e => Expressions.sort(e, SortDirection.ASCENDING))
}
