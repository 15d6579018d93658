// DELETE, UPDATE and MERGE INTO as Spark runs them with deltas (merge-on-read): the command's scan
// reads the matching rows with their partition table and Lance row address, tasks write the new
// rows (an UPDATE's are a delete and an insert) and collect the addresses of deleted rows, and one
// commit deletes those rows from their partition tables (Lance deletion files) and appends the rest.
package lancepart.spark.write

import lancepart.manifest.{ManifestRow, Naming}
import lancepart.spark.PartitionedTable
import lancepart.spark.read.{PartitionTableColumn, PartitionedScan, PartitionedScanBuilder, RowAddressColumn}
import lancepart.txn.{CommandRead, LeafWrite, PartitionDirectory, RowAddresses, TableWrite}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.distributions.{Distribution, Distributions}
import org.apache.spark.sql.connector.expressions.{Expression, Expressions, NamedReference, SortOrder}
import org.apache.spark.sql.connector.read.{Scan, ScanBuilder}
import org.apache.spark.sql.connector.write._
import org.apache.spark.sql.connector.write.RowLevelOperation.Command
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import scala.collection.compat._
import scala.collection.mutable

/**
 * One merge-on-read command on `table` (as loaded when Spark planned it). Its scan filters rows
 * as any scan does; a row is identified by `_partition_table` and `_rowaddr`, valid at the
 * partition table version the scan read (the manifest's in strong mode, the one the scan pinned
 * in weak mode).
 */
class MergeOnReadOperation(table: PartitionedTable, info: RowLevelOperationInfo) extends SupportsDelta {
  private var scan: Option[PartitionedScan] = None

  override def command(): Command = info.command()

  override def description(): String = s"merge-on-read ${command()} of ${table.name()}"

  override def rowId(): Array[NamedReference] =
    Array(Expressions.column(PartitionTableColumn.Name), Expressions.column(RowAddressColumn.Name))

  override def representUpdateAsDeleteAndInsert(): Boolean = true

  // Spark checks the row id columns before it asks for a scan: refuse here, naming the column.
  Seq(PartitionTableColumn.Name, RowAddressColumn.Name)
    .find(c => table.manifest.meta.schema.byName(c, caseSensitive = false).isDefined).foreach { c =>
      throw new UnsupportedOperationException(
        s"table ${table.name()}: cannot ${command()} rows in merge-on-read mode: its column '$c' hides the " +
          "metadata column of that name, which identifies the rows to delete; rename the column")
    }

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = {
    RowRewrite.requireExact(
      table.name(),
      command(),
      table.manifest.meta.schema.fields.map(table.manifest.meta.schema.arrow))
    new PartitionedScanBuilder(table, options) {
      override def build(): Scan = {
        val built = partitionedScan()
        scan = Some(built)
        built
      }
    }
  }

  /** Without a scan when Spark's optimizer removed it: the command's condition is always false or
   * NULL (`WHERE false`, `ON 1 != 1`), so it deletes no row and reads none (a MERGE's inserts remain). */
  override def newWriteBuilder(writeInfo: LogicalWriteInfo): DeltaWriteBuilder = new DeltaWriteBuilder {
    override def build(): DeltaWrite = new MergeOnReadWrite(table, writeInfo, scan, command())
  }
}

/**
 * The write of a merge-on-read `command` whose rows `scan` read (None: it read none). Spark gives a deleted row its row
 * id and NULL data columns (a DELETE's rows have no data columns), an inserted row its data and a
 * NULL row id: clustering by the partition columns and then the partition table sends each
 * partition's inserts, and each partition table's deletes, to one task, sorted so that a
 * partition's inserts come together and are written as its fragments at once.
 */
class MergeOnReadWrite(
    table: PartitionedTable,
    info: LogicalWriteInfo,
    scan: Option[PartitionedScan],
    command: Command)
    extends DeltaWrite with DeltaBatchWrite with RequiresDistributionAndOrdering {
  private val clustering = {
    val inserts = if (command == Command.DELETE) Array.empty[Expression] else PartitionedWrite.clustering(table)
    inserts :+ Expressions.column(PartitionTableColumn.Name)
  }
  private lazy val directory =
    PartitionDirectory.load(table.store, table.manifest, table.manifest.meta.currentSpec, Naming.randomName())

  override def requiredDistribution(): Distribution = Distributions.clustered(clustering)

  override def requiredOrdering(): Array[SortOrder] = PartitionedWrite.ascending(clustering)

  override def toBatch: DeltaBatchWrite = this

  override def createBatchWriterFactory(physical: PhysicalWriteInfo): DeltaWriterFactory = {
    val rows = LeafWriterFactory.of(table, info.schema(), directory)
    (partitionId: Int, taskId: Long) =>
      new MergeOnReadWriter(rows.createWriter(partitionId, taskId).asInstanceOf[LeafDataWriter])
  }

  override def commit(messages: Array[WriterCommitMessage]): Unit = {
    val done = messages.toSeq.map { case m: MergeOnReadMessage => m }
    val what = if (command == Command.MERGE) "MERGE INTO" else command.name()
    val read = scan.fold(Map.empty[String, ManifestRow])(_.tablesRead.map(r => r.objectId -> r).toMap)
    val deletes = done.flatMap(_.deletes).groupMapReduce(_._1)(_._2)(_ ++ _).map { case (id, addresses) =>
      val row = read.getOrElse(
        id,
        throw new IllegalStateException(
          s"table ${table.name()}: $what deletes rows of partition table $id, which its scan did not read"))
      val pinned = scan.flatMap(_.versionsRead.get(id))
      val version = pinned.orElse(row.readVersion).getOrElse(throw new IllegalStateException(
        s"table ${table.name()}: $what read partition table $id at no known version"))
      id -> RowAddresses(row, version, addresses.distinct, what)
    }
    val isolation = IsolationLevel.of(table.name(), command, table.manifest.meta.tableProperties)
    val tx = TableWrite(
      table.manifest,
      directory,
      done.flatMap(_.writes),
      reads = scan.filter(_ => isolation == IsolationLevel.Serializable).map(s =>
        CommandRead(
          what,
          IsolationLevel.property(command),
          s.manifestFilter,
          s.tablesSelected.map(r => r.objectId -> r).toMap)),
      addressDeletes = deletes
    )
    if (!tx.isEmpty) table.committer.commit(tx)
  }

  /** Fragments of an aborted write are in no committed leaf version; `Admin.vacuum` removes them. */
  override def abort(messages: Array[WriterCommitMessage]): Unit = ()
}

/** Task side: inserted rows go to their partitions as any write's ([[LeafDataWriter]]); deleted
 * rows are collected by partition table and row address. */
class MergeOnReadWriter(rows: LeafDataWriter) extends DeltaWriter[InternalRow] {
  private val deleted = mutable.Map.empty[String, mutable.ArrayBuffer[Long]]

  override def delete(metadata: InternalRow, id: InternalRow): Unit =
    deleted.getOrElseUpdate(id.getUTF8String(0).toString, mutable.ArrayBuffer.empty) += id.getLong(1)

  override def update(metadata: InternalRow, id: InternalRow, row: InternalRow): Unit =
    throw new IllegalStateException("merge-on-read writes an update as a delete and an insert")

  override def insert(row: InternalRow): Unit = rows.write(row)

  override def commit(): WriterCommitMessage = {
    val written = rows.commit().asInstanceOf[LeafWriteMessage].writes
    MergeOnReadMessage(written, deleted.map { case (id, addresses) => id -> addresses.toSeq }.toMap)
  }

  override def abort(): Unit = rows.abort()

  override def close(): Unit = rows.close()
}

case class MergeOnReadMessage(writes: Seq[LeafWrite], deletes: Map[String, Seq[Long]]) extends WriterCommitMessage
