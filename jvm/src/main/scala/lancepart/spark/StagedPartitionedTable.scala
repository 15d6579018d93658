// CREATE TABLE AS SELECT, REPLACE TABLE and CREATE OR REPLACE TABLE, staged (Spark's StagedTable):
// the new table's rows are committed under a spec version the table metadata does not declare
// yet, so no reader sees them; one table-metadata commit then publishes schema, spec and rows.
package lancepart.spark

import java.util

import lancepart.manifest.{Committed, Manifest, ManifestRow, ManifestStore}
import lancepart.spec.TableMetadata
import org.apache.spark.sql.connector.catalog.{StagedTable, SupportsWrite, TableCapability}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, WriteBuilder}
import org.apache.spark.sql.types.StructType

import scala.util.control.NonFatal

/**
 * `table` is the new table as its writes see it: `meta` (whose newest spec version no stored
 * metadata declares) over the rows of `__manifest`. `replaced` is the stored metadata of the
 * table being replaced and the spec versions it declared, None for a new table; `dropEmpty`
 * removes the directory of a new table that was never published; `published` runs once it is
 * (a plain table it replaces is deleted).
 */
class StagedPartitionedTable(
    table: PartitionedTable,
    replaced: Option[(Map[String, String], Seq[Int])],
    dropEmpty: () => Unit,
    published: () => Unit) extends StagedTable with SupportsWrite {
  private val meta: TableMetadata = table.manifest.meta
  private var done = false

  override def name(): String = table.name()
  override def schema(): StructType = table.schema()
  override def partitioning(): Array[Transform] = table.partitioning()
  override def properties(): util.Map[String, String] = table.properties()
  override def capabilities(): util.Set[TableCapability] = table.capabilities()
  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = table.newWriteBuilder(info)

  /** Publishes the new metadata; the replaced table's rows are then no part of the table and
   * are deleted (its partition tables stay for older manifest versions until vacuum). */
  override def commitStagedChanges(): Unit = {
    table.store.publish(replaced.fold(Map.empty[String, String])(_._1), meta.stored)
    done = true
    // A failure here leaves rows of spec versions the metadata no longer declares, or a plain
    // table the partitioned one hides; the replace itself has happened, so it is not reported as failed.
    try {
      replaced.foreach { case (_, versions) => table.store.deleteSpecVersions(versions) }
      published()
    } catch {
      case NonFatal(e) => StagedPartitionedTable.log.warn(
          s"table ${table.name()}: replaced; removing what the replaced table left failed (no reader reads it)",
          e)
    }
  }

  /** Removes what the statement committed under its own spec version (or the new table's
   * directory); leaf directories a failed write left are removed by vacuum. */
  override def abortStagedChanges(): Unit = if (!done) {
    if (replaced.isDefined) table.store.deleteSpecVersions(Seq(meta.currentSpec.id)) else dropEmpty()
  }
}

object StagedPartitionedTable {
  private val log = org.slf4j.LoggerFactory.getLogger(classOf[StagedPartitionedTable])

  /** `store` as the staged table's writes see it: `meta` is in force at the latest version and
   * at the versions they commit. */
  def view(store: ManifestStore, meta: TableMetadata): ManifestStore =
    new ManifestStore(store.tableUri, store.table, store.lance) {
      override def load(): Manifest = latest(meta)
      override def commit(expected: Long, rows: Seq[ManifestRow], removed: Seq[String]): Committed =
        super.commit(expected, rows, removed).copy(properties = meta.properties)
    }
}
