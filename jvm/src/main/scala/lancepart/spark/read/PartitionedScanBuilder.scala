// Scan planning inputs: filters (for pruning and leaf pushdown) and the columns the query needs.
package lancepart.spark.read

import lancepart.prune.{LanceSql, ManifestFilter}
import lancepart.spark.PartitionedTable
import org.apache.spark.sql.connector.expressions.aggregate.{Aggregation, CountStar}
import org.apache.spark.sql.connector.read.{Scan, ScanBuilder, SupportsPushDownAggregates, SupportsPushDownFilters, SupportsPushDownRequiredColumns}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

class PartitionedScanBuilder(table: PartitionedTable, options: CaseInsensitiveStringMap)
    extends ScanBuilder with SupportsPushDownFilters with SupportsPushDownRequiredColumns
    with SupportsPushDownAggregates {
  private val pruning = options.getBoolean(PartitionedScanBuilder.PruningOption, true)
  private var filters: Array[Filter] = Array.empty
  private var required: StructType = table.schema()
  private var countStar = false

  /**
   * Spark evaluates every filter again after the scan, except those that pruning answers
   * exactly (identity partition columns): Lance's leaf filters only narrow what is read.
   */
  override def pushFilters(filters: Array[Filter]): Array[Filter] = {
    this.filters = filters
    if (pruning) filters.filterNot(ManifestFilter.isExact(table.manifest.meta, _)) else filters
  }

  /** COUNT(*) with no grouping, when no filter is left for Spark: answered from Lance metadata
   * (leaf row counts) without reading data. */
  override def pushAggregation(aggregation: Aggregation): Boolean = {
    countStar = isCountStar(aggregation)
    countStar
  }

  override def supportCompletePushDown(aggregation: Aggregation): Boolean = isCountStar(aggregation)

  private def isCountStar(aggregation: Aggregation): Boolean =
    aggregation.groupByExpressions().isEmpty && aggregation.aggregateExpressions().toSeq.forall(_.isInstanceOf[CountStar])

  /** Filters that reach the manifest or the leaf scans, shown by EXPLAIN. */
  override def pushedFilters(): Array[Filter] = {
    val schema = table.schema()
    filters.filter(f => LanceSql.render(f, PartitionedScan.leafColumn(schema)).isDefined)
  }

  override def pruneColumns(requiredSchema: StructType): Unit = required = requiredSchema

  /** Read option `pruning=false` scans every partition table (for comparisons and debugging). */
  override def build(): Scan = {
    val scan = new PartitionedScan(table, required, filters.toSeq, pruning)
    if (countStar) scan.countScan else scan
  }
}

object PartitionedScanBuilder {
  val PruningOption = "pruning"
}
