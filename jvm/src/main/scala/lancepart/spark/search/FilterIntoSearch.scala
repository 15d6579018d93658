// Analyzer rule: a WHERE written on lance_vector_search's result restricts the search itself.
package lancepart.spark.search

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.catalyst.plans.logical.{
  Filter, GlobalLimit, LocalLimit, LogicalPlan, Project, Sort, SubqueryAlias
}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation

/**
 * `Filter(c, Limit(k, Sort(_distance, search)))`, as [[VectorSearch]] builds it (possibly under an
 * alias or a projection of its columns, as `df.where` on `SELECT a, b FROM lance_vector_search(...)` has), becomes `Limit(k, Sort(_distance, Filter(c, search)))`: the k nearest rows among those
 * matching `c`. Spark then pushes `c` into the search scan (partition pruning, Lance prefilter).
 * Nondeterministic conditions stay above the limit.
 */
object FilterIntoSearch extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case Filter(condition, search) if condition.deterministic && isSearch(search) => into(condition, search)
  }

  private def into(condition: Expression, plan: LogicalPlan): LogicalPlan =
    plan match {
      case a: SubqueryAlias => a.copy(child = into(condition, a.child))
      case p: Project => p.copy(child = into(condition, p.child))
      case g: GlobalLimit => g.copy(child = into(condition, g.child))
      case l: LocalLimit => l.copy(child = into(condition, l.child))
      case s: Sort => s.copy(child = Filter(condition, s.child))
    }

  private def isSearch(plan: LogicalPlan): Boolean = plan match {
    case SubqueryAlias(_, child) => isSearch(child)
    case Project(columns, child) => columns.forall(_.isInstanceOf[Attribute]) && isSearch(child)
    case GlobalLimit(_, LocalLimit(_, sort: Sort)) if sort.global => isRelation(sort.child)
    case _ => false
  }

  private def isRelation(plan: LogicalPlan): Boolean = plan match {
    case r: DataSourceV2Relation => r.table.isInstanceOf[SearchTable]
    case Filter(_, child) => isRelation(child)
    case _ => false
  }
}
