// What the catalog's metadata tables (`<table>.partitions`, `.snapshots`, `.history`, `.refs`) share: a
// read-only table of rows computed on the driver from the table's metadata, and their registry.
package lancepart.spark

import java.util

import lancepart.manifest.{ManifestCommit, ManifestHistory}
import lancepart.spark.plain.{PlainHistory, PlainTable}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.{LocalScan, ScanBuilder}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

abstract class MetadataTable(table: Table, suffix: String) extends Table with SupportsRead {

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
  private val bySuffix: Map[String, Table => MetadataTable] = Map(
    PartitionsTable.Name -> {
      case t: PartitionedTable => new PartitionsTable(t)
      case t => throw new UnsupportedOperationException(
          s"table ${t.name()} is a plain Lance table (created without PARTITIONED BY): it has no partitions")
    },
    SnapshotsTable.Name -> (new SnapshotsTable(_)),
    HistoryTable.Name -> (new HistoryTable(_)),
    RefsTable.Name -> (new RefsTable(_))
  )

  /** Whether `suffix` names a metadata table (`<table>.<suffix>`). */
  def exists(suffix: String): Boolean = bySuffix.contains(suffix)

  /** Metadata table `suffix` of `table`, a partitioned or a plain Lance table. */
  def of(suffix: String, table: Table): MetadataTable = {
    TableBranches.requireMain(table, "read metadata tables of")
    bySuffix(suffix)(table)
  }

  /** The versions of `table`: its manifest's, or a plain table's own Lance versions. */
  def commits(table: Table): Seq[ManifestCommit] = table match {
    case t: PartitionedTable => ManifestHistory.read(t.store)
    case t: PlainTable => PlainHistory.read(t.lance, t.uri)
    case t => throw new IllegalArgumentException(s"${t.name()} has no versions")
  }
}
