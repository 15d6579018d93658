// A partitioned table seen through a search: its columns plus the search's column (_distance or
// _score), read by a search scan.
package lancepart.spark.search

import lancepart.spark.PartitionedTable
import lancepart.spark.read.LeafSearch
import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import java.util

/** What `lance_vector_search` and `lance_text_search` read: each partition table the filters
 * select returns its `search.k` best rows (see [[lancepart.spark.read.PartitionedScan]]). */
class SearchTable(val table: PartitionedTable, val search: LeafSearch) extends Table with SupportsRead {
  override def name(): String = table.name()

  override def schema(): StructType = table.schema().add(search.field)

  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.BATCH_READ)

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder =
    table.searchScanBuilder(search, options)
}
