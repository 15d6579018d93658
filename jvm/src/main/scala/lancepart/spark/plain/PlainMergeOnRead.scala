// DELETE, UPDATE and MERGE INTO of a plain Lance table as Spark runs them with deltas
// (merge-on-read): the command's scan reads the matching rows with their Lance row address, tasks
// write the new rows (an UPDATE's are a delete and an insert) as fragments and collect the
// addresses of deleted rows, and one Lance commit deletes those rows (deletion files) and adds the
// fragments.
package lancepart.spark.plain

import lancepart.spark.read.RowAddressColumn
import lancepart.spark.write.{RowLevelMode, RowRewrite}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.expressions.{Expressions, NamedReference}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write._
import org.apache.spark.sql.connector.write.RowLevelOperation.Command
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.lance.FragmentMetadata

import scala.collection.mutable

/**
 * One merge-on-read command on `table` (as loaded when Spark planned it: the version every scan of
 * the statement reads). Its scan filters rows as any scan does; a row is identified by `_rowaddr`,
 * valid at that version.
 */
class PlainMergeOnRead(table: PlainTable, info: RowLevelOperationInfo) extends SupportsDelta {
  override def command(): Command = info.command()

  override def description(): String = s"merge-on-read ${command()} of ${table.name()}"

  override def rowId(): Array[NamedReference] = Array(Expressions.column(RowAddressColumn.Name))

  override def representUpdateAsDeleteAndInsert(): Boolean = true

  // Spark checks the row id column before it asks for a scan: refuse here, naming the column.
  if (table.plainColumns.fields.exists(_.name.equalsIgnoreCase(RowAddressColumn.Name))) {
    throw new UnsupportedOperationException(
      s"table ${table.name()}: cannot ${command()} rows in merge-on-read mode: its column '${RowAddressColumn.Name}' " +
        "hides the metadata column of that name, which identifies the rows to delete; rename the column or run the " +
        s"command copy-on-write (table property ${RowLevelMode.property(command())})")
  }

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = {
    RowRewrite.requireExact(table.name(), command(), table.plainColumns.arrow)
    new PlainScanBuilder(table, options)
  }

  override def newWriteBuilder(writeInfo: LogicalWriteInfo): DeltaWriteBuilder = new DeltaWriteBuilder {
    override def build(): DeltaWrite = new PlainMergeOnReadWrite(table, command())
  }
}

/** The write of a merge-on-read `command`: Spark gives a deleted row its row id, an inserted row
 * its data; any task takes either (the dataset has no partitions to cluster rows by). */
class PlainMergeOnReadWrite(table: PlainTable, command: Command) extends DeltaWrite with DeltaBatchWrite {
  override def toBatch: DeltaBatchWrite = this

  override def createBatchWriterFactory(physical: PhysicalWriteInfo): DeltaWriterFactory = {
    val rows = new PlainWriterFactory(
      table.tableName,
      table.filesUri,
      table.writtenColumns.schema.toJson,
      table.fileVersion,
      table.lance)
    (partitionId: Int, taskId: Long) => new PlainMergeOnReadWriter(rows.createWriter(partitionId, taskId))
  }

  override def commit(messages: Array[WriterCommitMessage]): Unit = {
    val done = messages.toList.map { case m: PlainMergeOnReadMessage => m }
    val what = if (command == Command.MERGE) "MERGE INTO" else command.name()
    PlainWrite.delta(table, what, done.flatMap(_.deleted).distinct, done.flatMap(_.fragments))
  }

  /** Fragments of an aborted write are in no version; Lance's cleanup removes them. */
  override def abort(messages: Array[WriterCommitMessage]): Unit = ()
}

/** Task side: inserted rows go to fragments as any write's ([[PlainWriterFactory]]); deleted rows
 * are collected by row address. */
class PlainMergeOnReadWriter(rows: DataWriter[InternalRow]) extends DeltaWriter[InternalRow] {
  private val deleted = mutable.ArrayBuffer.empty[Long]

  override def delete(metadata: InternalRow, id: InternalRow): Unit = deleted += id.getLong(0)

  override def update(metadata: InternalRow, id: InternalRow, row: InternalRow): Unit =
    throw new IllegalStateException("merge-on-read writes an update as a delete and an insert")

  override def insert(row: InternalRow): Unit = rows.write(row)

  override def commit(): WriterCommitMessage =
    PlainMergeOnReadMessage(rows.commit().asInstanceOf[PlainWriteMessage].fragments, deleted.toList)

  override def abort(): Unit = rows.abort()

  override def close(): Unit = rows.close()
}

case class PlainMergeOnReadMessage(fragments: Seq[FragmentMetadata], deleted: Seq[Long]) extends WriterCommitMessage
