// Driver side of a write: reads the partitions once for the tasks (and those an overwrite or a
// row-level command replaces), ships them with the table's metadata, and commits what the tasks wrote in one transaction.
package lancepart.spark.write

import lancepart.manifest.Naming
import lancepart.spark.PartitionedTable
import lancepart.txn.{CommandRead, LeafWrite, PartitionDirectory, TableWrite}
import org.apache.spark.sql.connector.write.RowLevelOperation.Command
import org.apache.spark.sql.connector.write._

class PartitionedBatchWrite(table: PartitionedTable, info: LogicalWriteInfo, mode: WriteMode) extends BatchWrite {
  private val meta = table.manifest.meta

  /** Planned when the tasks are: a row-level command's scan is planned by then (see [[ReplaceTables]]). */
  private lazy val removal = mode match {
    case OverwriteWhere(filters) => RowRemoval.plan(table, filters)
    case ReplaceTables(scan, _, _) => RowRemoval(scan.tablesRead.map(r => r.objectId -> r).toMap, Map.empty)
    case _ => RowRemoval(Map.empty, Map.empty)
  }
  private lazy val directory =
    PartitionDirectory.load(table.store, table.manifest, meta.currentSpec, Naming.randomName())
      .replacingFor(replaceAll = mode == OverwritePartitions, replacing = removal.removed.keySet)

  override def createBatchWriterFactory(physical: PhysicalWriteInfo): DataWriterFactory =
    LeafWriterFactory.of(table, info.schema(), directory)

  override def commit(messages: Array[WriterCommitMessage]): Unit = {
    val writes: Seq[LeafWrite] = messages.toSeq.flatMap { case m: LeafWriteMessage => m.writes }
    val tx = TableWrite(table.manifest, directory, writes, removal.removed, removal.deletes)
    if (!tx.isEmpty) table.committer.commit(mode match {
      case ReplaceTables(scan, command, isolation) =>
        if (scan.tablesRead.map(_.objectId).toSet != removal.removed.keySet) throw new IllegalStateException(
          s"table ${table.name()}: Spark planned the scan of query ${info.queryId()} again after its tasks wrote; " +
            "nothing was committed")
        val read = CommandRead(
          if (command == Command.MERGE) "MERGE INTO" else command.name(),
          IsolationLevel.property(command),
          scan.manifestFilter,
          scan.tablesSelected.map(r => r.objectId -> r).toMap
        )
        tx.copy(
          reads = if (isolation == IsolationLevel.Serializable) Some(read) else None,
          versionsRead = scan.versionsRead)
      case _ => tx
    })
  }

  /** Fragments of an aborted write are in no committed leaf version, so no reader sees them;
   * `Admin.vacuum` removes them. */
  override def abort(messages: Array[WriterCommitMessage]): Unit = ()
}

case class LeafWriteMessage(writes: Seq[LeafWrite]) extends WriterCommitMessage
