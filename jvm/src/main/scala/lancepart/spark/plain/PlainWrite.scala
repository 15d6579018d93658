// Writes to a plain Lance table: tasks write fragments in the dataset's column order and Arrow
// types, the driver commits them in one Lance transaction (Append, or Overwrite for INSERT
// OVERWRITE, TRUNCATE and a staged CREATE/REPLACE ... AS SELECT; the Update of a row-level command,
// or its rows deleted and appended when it runs merge-on-read).
package lancepart.spark.plain

import lancepart.lance.{Lance, LanceAccess}
import lancepart.spark.write.FragmentBuffer
import org.apache.arrow.vector.types.pojo.Schema
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write._
import org.lance.{FragmentMetadata, Transaction}
import lancepart.txn.{RowDeletion, TransactionConflict}
import org.lance.operation.{Append, Overwrite, Update}

import scala.collection.mutable
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

class PlainWriteBuilder(table: PlainTable, info: LogicalWriteInfo)
    extends WriteBuilder with SupportsTruncate with SupportsDynamicOverwrite {
  private var overwrite = false

  override def truncate(): WriteBuilder = { overwrite = true; this }

  /** The table has no partitions: every row is replaced, as Iceberg does for an unpartitioned table. */
  override def overwriteDynamicPartitions(): WriteBuilder = truncate()

  override def build(): Write =
    new PlainWrite(table.tableName, table.filesUri, table.writtenColumns, table.fileVersion, table.lance)({ fragments =>
      table.requireSameBranch()
      if (overwrite)
        PlainWrite.overwrite(
          table.lance,
          table.uri,
          table.lanceVersion,
          table.writtenColumns.schema,
          fragments,
          branch = table.branch)
      else PlainWrite.append(table.lance, table.uri, table.lanceVersion, fragments, table.branch)
    })
}

/** Writes rows of `columns` as fragments of the dataset at `uri`; `commit` takes them all. */
class PlainWrite(table: String, uri: String, columns: PlainColumns, fileVersion: String, lance: LanceAccess)(
    commit: Seq[FragmentMetadata] => Unit) extends Write with BatchWrite {
  override def toBatch: BatchWrite = this

  override def createBatchWriterFactory(info: PhysicalWriteInfo): DataWriterFactory =
    new PlainWriterFactory(table, uri, columns.schema.toJson, fileVersion, lance)

  override def commit(messages: Array[WriterCommitMessage]): Unit =
    commit(messages.toSeq.flatMap { case m: PlainWriteMessage => m.fragments })

  /** Fragments of an aborted write are in no version; Lance's cleanup removes them. */
  override def abort(messages: Array[WriterCommitMessage]): Unit = ()
}

object PlainWrite {

  /** Appends `fragments` to the dataset at `uri` (of its branch `branch`, None: main). */
  def append(
      lance: LanceAccess,
      uri: String,
      readVersion: Long,
      fragments: Seq[FragmentMetadata],
      branch: Option[String] = None): Unit =
    if (fragments.nonEmpty)
      commit(lance, uri, readVersion, Append.builder().fragments(fragments.asJava).build(), branch)

  /** Replaces every row (and the schema, for REPLACE TABLE), setting `config` in the Lance config
   * (other keys stay); `readVersion` 0 creates the dataset. */
  def overwrite(
      lance: LanceAccess,
      uri: String,
      readVersion: Long,
      schema: Schema,
      fragments: Seq[FragmentMetadata],
      config: Map[String, String] = Map.empty,
      branch: Option[String] = None): Unit =
    commit(
      lance,
      uri,
      readVersion,
      Overwrite.builder().fragments(fragments.asJava).schema(schema).configUpsertValues(config.asJava).build(),
      branch)

  /** Replaces fragments `removed` of `table` (at the version it was loaded at) by `added`: the
   * commit of a copy-on-write `command`. */
  def replace(table: PlainTable, command: String, removed: Seq[Int], added: Seq[FragmentMetadata]): Unit =
    if (removed.nonEmpty || added.nonEmpty) {
      table.requireSameBranch()
      val update = Update.builder().removedFragmentIds(removed.map(id => java.lang.Long.valueOf(id.toLong)).asJava)
        .newFragments(added.asJava).build()
      failingOnConflict(table, command, removed)(
        commit(table.lance, table.uri, table.lanceVersion, update, table.branch))
    }

  /**
   * Deletes the rows at `addresses` (Lance row addresses at the version `table` was loaded at) and
   * adds fragments `added`, in one Lance commit: the commit of a merge-on-read `command`, made as a
   * weak-mode partition table's ([[lancepart.txn.LeafCommits.update]]): on the latest version, once the fragments
   * holding deleted rows are found as the command read them (appends since commute).
   */
  def delta(table: PlainTable, command: String, addresses: Seq[Long], added: Seq[FragmentMetadata]): Unit = {
    val deletion = if (addresses.isEmpty) None else Some(RowDeletion.At(table.lanceVersion, addresses))
    val fragments = addresses.map(a => (a >>> 32).toInt).distinct.sorted
    table.requireSameBranch()
    failingOnConflict(table, command, fragments)(
      table.commits.update(table.uri, None, deletion, added))
  }

  /** `commit`, a `command`'s commit on `table`, as a [[TransactionConflict]] when a write since the
   * version the command read changed its `fragments` (Lance refused it, or [[lancepart.txn.LeafCommits]] did). */
  private def failingOnConflict(table: PlainTable, command: String, fragments: Seq[Int])(commit: => Unit): Unit =
    try commit
    catch {
      case NonFatal(e) if e.isInstanceOf[TransactionConflict] || Lance.isConflict(e) =>
        throw new TransactionConflict(
          s"table ${table.name()}: $command conflicts with a write that changed fragments " +
            s"${fragments.mkString(", ")} after version ${table.lanceVersion}, which the command read; nothing " +
            s"was committed, run it again (${e.getMessage})",
          e
        )
    }

  private def commit(
      lance: LanceAccess,
      uri: String,
      readVersion: Long,
      op: org.lance.operation.Operation,
      branch: Option[String]): Unit =
    Lance.using(new Transaction.Builder().readVersion(readVersion).operation(op).build())(lance.commit(uri, _, branch))
}

/** `schemaJson`: the dataset's Arrow schema (Arrow fields are not serializable). */
class PlainWriterFactory(table: String, uri: String, schemaJson: String, fileVersion: String, lance: LanceAccess)
    extends DataWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long): DataWriter[InternalRow] = {
    Lance.loadNative()
    val columns = PlainColumns(table, Schema.fromJSON(schemaJson).getFields.asScala.toSeq)
    new PlainDataWriter(new FragmentBuffer(table, s"table $table ($uri)", columns.layout(fileVersion), columns.fields))
  }

  private class PlainDataWriter(buffer: FragmentBuffer) extends DataWriter[InternalRow] {
    private val written = mutable.ArrayBuffer.empty[FragmentMetadata]

    override def write(row: InternalRow): Unit = {
      buffer.write(row)
      if (buffer.isFull) flush()
    }

    private def flush(): Unit =
      if (buffer.rows > 0) written ++= buffer.drain(lance.writeFragments(uri, _, fileVersion))

    override def commit(): WriterCommitMessage = {
      flush()
      PlainWriteMessage(written.toSeq)
    }

    override def abort(): Unit = ()

    override def close(): Unit = buffer.close()
  }
}

case class PlainWriteMessage(fragments: Seq[FragmentMetadata]) extends WriterCommitMessage
