// One partitioned namespace as a Spark table: schema, partitioning, and the read/write entry points.
package lancepart.spark

import java.util

import lancepart.manifest.{Manifest, ManifestStore}
import lancepart.spark.read.PartitionedScanBuilder
import lancepart.spark.write.PartitionedWriteBuilder
import org.apache.spark.sql.connector.catalog.{SupportsRead, SupportsWrite, Table, TableCapability, TableCatalog}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, WriteBuilder}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import scala.jdk.CollectionConverters._

/** `name` is the catalog-qualified name used in messages; `manifest` is the version it loaded;
 * `reportPartitioning` lets scans report their partitioning (catalog option `spj.enabled`). */
class PartitionedTable(
    val tableName: String,
    val store: ManifestStore,
    val manifest: Manifest,
    val storage: Map[String, String],
    val reportPartitioning: Boolean) extends Table with SupportsRead with SupportsWrite {

  override def name(): String = tableName

  override def schema(): StructType = manifest.meta.schema.sparkSchema

  /** The current spec's fields, with lancepart's function names for non-identity transforms. */
  override def partitioning(): Array[Transform] = DdlPartitioning.transforms(manifest.meta.currentSpec)

  override def properties(): util.Map[String, String] =
    (manifest.meta.properties - "schema" +
      (TableCatalog.PROP_LOCATION -> store.tableUri) +
      ("format" -> "lance-partitioned-namespace") +
      ("manifest_version" -> manifest.version.toString)).asJava

  override def capabilities(): util.Set[TableCapability] =
    util.EnumSet.of(TableCapability.BATCH_READ, TableCapability.BATCH_WRITE)

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = new PartitionedScanBuilder(this, options)

  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = new PartitionedWriteBuilder(this, info)
}
