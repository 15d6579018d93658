// What the catalog's metadata tables (`<table>.partitions`, `.snapshots`, `.history`) share: a
// read-only table of rows computed on the driver from the table's metadata, and their registry.
package lancepart.spark

import java.util

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.{LocalScan, ScanBuilder}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

abstract class MetadataTable(table: PartitionedTable, suffix: String) extends Table with SupportsRead {

  /** The table's columns. */
  protected def rowSchema: StructType

  /** The table's rows, computed when a query scans it. */
  protected def rows(): Array[InternalRow]

  override def schema(): StructType = rowSchema

  override def name(): String = s"${table.name()}.$suffix"

  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.BATCH_READ)

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = () =>
    new LocalScan {
      override def readSchema(): StructType = rowSchema
      override def rows(): Array[InternalRow] = MetadataTable.this.rows()
    }
}

object MetadataTable {
  private val bySuffix: Map[String, PartitionedTable => MetadataTable] = Map(
    PartitionsTable.Name -> (new PartitionsTable(_)),
    SnapshotsTable.Name -> (new SnapshotsTable(_)),
    HistoryTable.Name -> (new HistoryTable(_)))

  /** Whether `suffix` names a metadata table (`<table>.<suffix>`). */
  def exists(suffix: String): Boolean = bySuffix.contains(suffix)

  /** Metadata table `suffix` of `table`. */
  def of(suffix: String, table: PartitionedTable): MetadataTable = bySuffix(suffix)(table)
}
