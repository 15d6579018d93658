// Spark keeps its translation of Catalyst filters to connector predicates package-private; this
// bridge gives a condition the form Spark's filter pushdown gives it.
package org.apache.spark.sql.lancepart

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Strategy

object V2Translation {

  /** `condition` as the predicate Spark pushes to a scan, or None when Spark pushes none for it. */
  def predicate(condition: Expression): Option[Predicate] = DataSourceV2Strategy.translateFilterV2(condition)
}
