// What lancepart's session extension adds on Spark 3.5, which has no CALL statement: CALL
// <catalog>.system.<procedure>(...) is read by CallSyntax and run by ResolveCall, as Iceberg's
// extensions do on Spark 3.5, so the procedures and lancepart.Admin work as on Spark 4.
package lancepart.spark.extensions

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

object LineExtensions {

  /** Injects the rule that binds and runs CALL statements. */
  def inject(extensions: SparkSessionExtensions): Unit = extensions.injectResolutionRule(ResolveCall)

  /** A CALL statement's plan; None for every other statement. */
  def statement(session: SparkSession, sqlText: String, delegate: ParserInterface): Option[LogicalPlan] =
    CallSyntax.recognize(session, sqlText, delegate)
}
