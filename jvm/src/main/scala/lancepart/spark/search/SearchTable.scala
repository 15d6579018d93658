// A partitioned table seen through a vector search: its columns plus _distance, read by a search scan.
package lancepart.spark.search

import lancepart.spark.PartitionedTable
import lancepart.spark.read.VectorQuery
import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import java.util

/** What `lance_vector_search` reads: each partition table the filters select returns its
 * `query.k` nearest rows (see [[lancepart.spark.read.PartitionedScan]]). */
class SearchTable(val table: PartitionedTable, val query: VectorQuery) extends Table with SupportsRead {
  override def name(): String = table.name()

  override def schema(): StructType = table.schema().add(VectorQuery.distanceField)

  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.BATCH_READ)

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder =
    table.searchScanBuilder(query, options)
}
