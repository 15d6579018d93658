// Planner check: a search's WHERE must be applied before each partition table ranks its rows.
package lancepart.spark.search

import lancepart.prune.V2Predicates
import lancepart.spark.read.{LeafSearch, PartitionedScan}
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, Cast, Expression, GreaterThan, GreaterThanOrEqual, IsNotNull, LessThan, LessThanOrEqual
}
import org.apache.spark.sql.catalyst.planning.PhysicalOperation
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}
import org.apache.spark.sql.lancepart.V2Translation

/**
 * Each partition table returns its k best rows; a condition Spark applies to those rows afterwards
 * (one Lance cannot take) would leave fewer than the k best matching rows, or other ones. With a
 * prefilter, the plan is refused unless every condition on the search's scan is applied before
 * the ranking ([[PartitionedScan.appliedBeforeSearch]]) or keeps a prefix of it (`_distance < x`,
 * `_score > x`). Spark offers a strategy each logical plan it plans, so this check sees the
 * optimized plan, with the conditions left after pushdown; it plans nothing itself.
 */
object SearchConditions extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = {
    plan match {
      case PhysicalOperation(_, conditions, PartitionedScan.Planned(scan))
          if scan.search.exists(_.prefilter) =>
        val search = scan.search.get
        val after = conditions.filterNot(c =>
          keepsBest(c, search) ||
            V2Translation.predicate(c).flatMap(V2Predicates.toFilter).exists(scan.appliedBeforeSearch))
        if (after.nonEmpty) throw new IllegalArgumentException(
          s"${search.function} over table ${scan.table.name()}: ${after.map(_.sql).mkString(" AND ")} cannot " +
            "choose the rows each partition table's search ranks (Lance takes comparisons of a column with a " +
            "constant, IN, IS [NOT] NULL, LIKE 'prefix%' and AND, OR, NOT of those; of " +
            s"${search.field.name}, ${if (search.ascending) "upper" else "lower"} bounds); write the condition in " +
            "those terms, or set option prefilter to 'false' to apply it to the rows the search finds")
      case _ =>
    }
    Nil
  }

  /** Whether `c` keeps the best rows of a ranking by `search`'s column, down to a bound. */
  private def keepsBest(c: Expression, search: LeafSearch): Boolean = {
    object Score {
      def unapply(e: Expression): Boolean = e match {
        case a: Attribute => a.name == search.field.name
        case Cast(a: Attribute, _, _, _) => a.name == search.field.name
        case _ => false
      }
    }
    c match {
      case IsNotNull(Score()) => true
      case LessThan(Score(), b) => search.ascending && b.foldable
      case LessThanOrEqual(Score(), b) => search.ascending && b.foldable
      case GreaterThan(b, Score()) => search.ascending && b.foldable
      case GreaterThanOrEqual(b, Score()) => search.ascending && b.foldable
      case GreaterThan(Score(), b) => !search.ascending && b.foldable
      case GreaterThanOrEqual(Score(), b) => !search.ascending && b.foldable
      case LessThan(b, Score()) => !search.ascending && b.foldable
      case LessThanOrEqual(b, Score()) => !search.ascending && b.foldable
      case _ => false
    }
  }
}
