// Scan planning inputs: filters (for pruning and leaf pushdown) and the columns the query needs.
package lancepart.spark.read

import lancepart.prune.{LanceSql, V2Predicates}
import lancepart.spark.PartitionedTable
import org.apache.spark.sql.connector.expressions.aggregate.{Aggregation, CountStar}
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.connector.read.{
  Scan, ScanBuilder, SupportsPushDownAggregates, SupportsPushDownRequiredColumns, SupportsPushDownV2Filters
}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import scala.util.Try

/** `wholeTables`: builds the scan of a copy-on-write operation; `search`: of a search (see
 * [[PartitionedScan]]). */
class PartitionedScanBuilder(
    table: PartitionedTable,
    options: CaseInsensitiveStringMap,
    wholeTables: Boolean = false,
    search: Option[LeafSearch] = None)
    extends ScanBuilder with SupportsPushDownV2Filters with SupportsPushDownRequiredColumns
    with SupportsPushDownAggregates {
  private val pruning = Option(options.get(PartitionedScanBuilder.PruningOption)).fold(true)(v =>
    Try(v.trim.toBoolean).getOrElse(throw new IllegalArgumentException(
      s"table ${table.name()}: read option ${PartitionedScanBuilder.PruningOption} must be true or false, not '$v'")))

  /** The predicates Spark offered that have a V1 form, with that form. */
  private var pushed: Array[(Predicate, Filter)] = Array.empty
  private var required: StructType = table.schema()
  private var countStar = false

  /**
   * Spark evaluates every predicate again after the scan, except those that pruning answers
   * ([[PartitionedScan.answeredByPruning]]): Lance's leaf filters only narrow what is read.
   * Predicates are taken in V2 form for their exact literals (see [[V2Predicates]]).
   */
  override def pushPredicates(predicates: Array[Predicate]): Array[Predicate] = {
    pushed = predicates.flatMap(p => V2Predicates.toFilter(p).map(p -> _))
    predicates.filterNot(p =>
      pushed.exists { case (q, f) => (q eq p) && PartitionedScan.answeredByPruning(table.manifest.meta, pruning, f) })
  }

  /** COUNT(*) with no grouping, when no filter is left for Spark: answered from Lance metadata
   * (leaf row counts) without reading data. */
  override def pushAggregation(aggregation: Aggregation): Boolean = {
    countStar = search.isEmpty && isCountStar(aggregation)
    countStar
  }

  override def supportCompletePushDown(aggregation: Aggregation): Boolean = search.isEmpty && isCountStar(aggregation)

  private def isCountStar(aggregation: Aggregation): Boolean =
    aggregation.groupByExpressions().isEmpty && aggregation.aggregateExpressions().toSeq.forall(
      _.isInstanceOf[CountStar])

  /** Predicates that reach the manifest or the leaf scans, shown by EXPLAIN. */
  override def pushedPredicates(): Array[Predicate] = {
    val column = PartitionedScan.leafColumn(table.manifest.meta.schema)
    pushed.collect { case (p, f) if LanceSql.render(f, column).isDefined => p }
  }

  override def pruneColumns(requiredSchema: StructType): Unit = required = requiredSchema

  /** Read option `pruning=false` scans every partition table (for comparisons and debugging);
   * `split-size` and `file-open-cost` size the input partitions (see [[SplitSizing]]). */
  override def build(): Scan = if (countStar) partitionedScan().countScan else partitionedScan()

  def partitionedScan(): PartitionedScan = {
    val sizing = SplitSizing.of(table.name(), options, table.manifest.meta.tableProperties, SQLConf.get)
    new PartitionedScan(table, required, pushed.map(_._2).toSeq, pruning, sizing, wholeTables, search, options)
  }
}

object PartitionedScanBuilder {
  val PruningOption = "pruning"
}
