// One partitioned namespace as a Spark table: schema, partitioning, and the read/write entry points.
package lancepart.spark

import java.util

import lancepart.manifest.{Manifest, ManifestStore, TableFiles}
import lancepart.spark.read.PartitionedScanBuilder
import lancepart.spark.write.{PartitionedWriteBuilder, RowRemoval}
import lancepart.txn.{Committer, PartitionDirectory, TableWrite}
import org.apache.spark.sql.connector.catalog.{SupportsDelete, SupportsRead, SupportsWrite, Table, TableCapability, TableCatalog}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, WriteBuilder}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import scala.jdk.CollectionConverters._

/** `name` is the catalog-qualified name used in messages; `manifest` is the version it loaded;
 * `reportPartitioning` lets scans report their partitioning (catalog option `spj.enabled`);
 * `commitAttempts` bounds a write's commit attempts (catalog option `commit.attempts`). */
class PartitionedTable(
    val tableName: String,
    val store: ManifestStore,
    val files: TableFiles,
    val manifest: Manifest,
    val storage: Map[String, String],
    val reportPartitioning: Boolean,
    commitAttempts: Int) extends Table with SupportsRead with SupportsWrite with SupportsDelete {

  override def name(): String = tableName

  /** This table as manifest version `older` recorded it (time travel). */
  def at(older: Manifest): PartitionedTable =
    new PartitionedTable(tableName, store, files, older, storage, reportPartitioning, commitAttempts)

  override def schema(): StructType = manifest.meta.schema.sparkSchema

  /** The current spec's fields, with lancepart's function names for non-identity transforms. */
  override def partitioning(): Array[Transform] = DdlPartitioning.transforms(manifest.meta.currentSpec)

  override def properties(): util.Map[String, String] =
    (manifest.meta.properties - "schema" ++ manifest.meta.tableProperties +
      (TableCatalog.PROP_LOCATION -> store.tableUri) +
      ("format" -> "lance-partitioned-namespace") +
      ("manifest_version" -> manifest.version.toString)).asJava

  override def capabilities(): util.Set[TableCapability] =
    util.EnumSet.of(TableCapability.BATCH_READ, TableCapability.BATCH_WRITE, TableCapability.TRUNCATE,
      TableCapability.OVERWRITE_BY_FILTER, TableCapability.OVERWRITE_DYNAMIC)

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = new PartitionedScanBuilder(this, options)

  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = new PartitionedWriteBuilder(this, info)

  /** Commits writes to this table; new leaves get the namespace's columns. */
  def committer: Committer =
    new Committer(store, files, LeafSchema.arrow(manifest.meta.schema), storage, commitAttempts)

  override def canDeleteWhere(filters: Array[Filter]): Boolean = RowRemoval.supports(this, filters.toSeq)

  /** DELETE FROM: whole partitions as a metadata change when the condition is on identity
   * partition columns only, otherwise row deletions in the partition tables that may match. */
  override def deleteWhere(filters: Array[Filter]): Unit = {
    val removal = RowRemoval.plan(this, filters.toSeq)
    val tx = TableWrite(manifest, PartitionDirectory.empty(manifest.meta.currentSpec), Seq.empty, removal.removed, removal.deletes)
    if (!tx.isEmpty) committer.commit(tx)
  }
}
