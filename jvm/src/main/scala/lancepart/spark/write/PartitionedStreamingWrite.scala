// Driver side of a Structured Streaming write (micro-batches): each micro-batch is one transaction
// on the table as its latest manifest version has it, committed at most once for its streaming
// query (txn.Committer, manifest.StreamMarks): a replay after a restart from the checkpoint commits
// nothing that is there already.
package lancepart.spark.write

import lancepart.manifest.{Naming, StreamEpoch}
import lancepart.spark.PartitionedTable
import lancepart.txn.{LeafWrite, PartitionDirectory, TableWrite}
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, PhysicalWriteInfo, WriterCommitMessage}
import org.apache.spark.sql.connector.write.streaming.{StreamingDataWriterFactory, StreamingWrite}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.lancepart.TypeFit
import org.apache.spark.sql.types.StructType

/** `table` as the micro-batch's planning loaded it; `mode` appends, or (output mode complete)
 * replaces every row. */
class PartitionedStreamingWrite(table: PartitionedTable, info: LogicalWriteInfo, mode: WriteMode)
    extends StreamingWrite {
  PartitionedStreamingWrite.requireFits(table, info)

  private val removal = mode match {
    case OverwriteWhere(filters) => RowRemoval.plan(table, filters)
    case AppendRows => RowRemoval(Map.empty, Map.empty)
    case other => throw new UnsupportedOperationException(
        s"table ${table.name()}: a streaming write appends or (output mode complete) replaces every row, not $other")
  }
  private val directory =
    PartitionDirectory.load(table.store, table.manifest, table.manifest.meta.currentSpec, Naming.randomName())
      .replacingFor(replaceAll = false, replacing = removal.removed.keySet)

  override def createStreamingWriterFactory(physical: PhysicalWriteInfo): StreamingDataWriterFactory =
    LeafWriterFactory.of(table, info.schema(), directory)

  /** The commit is the driver's alone (one `__manifest` commit), as Iceberg's streaming writes. */
  override def useCommitCoordinator(): Boolean = false

  override def commit(epochId: Long, messages: Array[WriterCommitMessage]): Unit = {
    val writes: Seq[LeafWrite] = messages.toSeq.flatMap { case m: LeafWriteMessage => m.writes }
    val tx = TableWrite(
      table.manifest,
      directory,
      writes,
      removal.removed,
      removal.deletes,
      stream = Some(StreamEpoch(info.queryId(), epochId)))
    // committed empty too: __manifest records the micro-batch (and drops a begun record of it)
    table.committer.commit(tx)
  }

  /** Nothing to undo: the tasks' fragments are in no leaf version until the commit, and a commit
   * that failed part way is finished by the micro-batch's replay (see [[lancepart.txn.Committer]]). */
  override def abort(epochId: Long, messages: Array[WriterCommitMessage]): Unit = ()
}

object PartitionedStreamingWrite {

  /**
   * A stream's rows must have the table's columns (names compared as `spark.sql.caseSensitive`
   * says), in its order, of its types, with no NULL where it takes none: Spark checks a batch
   * write's rows against the table but not a stream's. A streaming write neither casts nor
   * merges schemas.
   */
  private def requireFits(table: PartitionedTable, info: LogicalWriteInfo): Unit = {
    val columns = table.schema()
    val input = info.schema()
    def describe(s: StructType) = s.fields.map(f => s"${f.name} ${f.dataType.sql}").mkString(", ")
    def fail(problem: String): Nothing = throw new IllegalArgumentException(
      s"table ${table.name()}: streaming query ${info.queryId()} $problem; a stream's rows must have the table's " +
        s"columns in its order and of its types (select and cast them so): table (${describe(columns)}), stream " +
        s"(${describe(input)})")
    input.fields.zipAll(columns.fields, null, null).foreach {
      case (null, c) => fail(s"writes no column '${c.name}'")
      case (f, null) => fail(s"writes column '${f.name}', which the table does not have")
      case (f, c) if !SQLConf.get.resolver(f.name, c.name) =>
        fail(s"writes column '${f.name}' where the table has '${c.name}'")
      case (f, c) if !TypeFit(f.dataType, c.dataType) || (f.nullable && !c.nullable) =>
        fail(s"writes column '${f.name}' as ${f.dataType.sql}${if (f.nullable) " (nullable)" else ""}, which does " +
          s"not fit the table's ${c.dataType.sql}${if (c.nullable) "" else " NOT NULL"}")
      case _ =>
    }
  }
}
