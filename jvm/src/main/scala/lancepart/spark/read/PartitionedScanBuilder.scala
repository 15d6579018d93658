// Scan planning inputs: filters (for pruning and leaf pushdown) and the columns the query needs.
package lancepart.spark.read

import lancepart.prune.LanceSql
import lancepart.spark.PartitionedTable
import org.apache.spark.sql.connector.read.{Scan, ScanBuilder, SupportsPushDownFilters, SupportsPushDownRequiredColumns}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

class PartitionedScanBuilder(table: PartitionedTable, options: CaseInsensitiveStringMap)
    extends ScanBuilder with SupportsPushDownFilters with SupportsPushDownRequiredColumns {
  private var filters: Array[Filter] = Array.empty
  private var required: StructType = table.schema()

  /**
   * Every filter is kept for Spark to evaluate after the scan: pruning and Lance's filters only
   * narrow what is read, so a filter rendered loosely can never change the answer.
   */
  override def pushFilters(filters: Array[Filter]): Array[Filter] = {
    this.filters = filters
    filters
  }

  /** Filters that reach the manifest or the leaf scans, shown by EXPLAIN. */
  override def pushedFilters(): Array[Filter] = {
    val schema = table.schema()
    filters.filter(f => LanceSql.render(f, PartitionedScan.leafColumn(schema)).isDefined)
  }

  override def pruneColumns(requiredSchema: StructType): Unit = required = requiredSchema

  /** Read option `pruning=false` scans every partition table (for comparisons and debugging). */
  override def build(): Scan =
    new PartitionedScan(table, required, filters.toSeq, pruning = options.getBoolean(PartitionedScanBuilder.PruningOption, true))
}

object PartitionedScanBuilder {
  val PruningOption = "pruning"
}
