// What lancepart's session extension adds on Spark 4: nothing beyond the shared parts, since Spark
// 4 parses and runs CALL itself (on Spark 3.5 lancepart does: scala-spark3.5).
package lancepart.spark.extensions

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

object LineExtensions {

  /** Injects the rules this line's Spark lacks: none. */
  def inject(extensions: SparkSessionExtensions): Unit = ()

  /** The plan of a statement this line's Spark cannot parse: none. */
  def statement(session: SparkSession, sqlText: String, delegate: ParserInterface): Option[LogicalPlan] = None
}
