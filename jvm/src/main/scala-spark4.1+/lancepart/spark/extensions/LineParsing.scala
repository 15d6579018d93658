// The parser methods of Spark 4.1 and later that Spark 4.0 lacks: a statement with parameters
// (spark.sql(text, args)) goes through AlterTableParser's recognition too.
package lancepart.spark.extensions

import org.apache.spark.sql.catalyst.parser.{ParameterContext, ParserInterface}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.StructType

trait LineParsing extends ParserInterface {

  protected def delegate: ParserInterface

  /** The statement's plan: ours for ALTER TABLE ... PARTITION FIELD on a lancepart table, else `delegated`. */
  protected def parse(sqlText: String)(delegated: => LogicalPlan): LogicalPlan

  override def parsePlanWithParameters(sqlText: String, parameterContext: ParameterContext): LogicalPlan =
    parse(sqlText)(delegate.parsePlanWithParameters(sqlText, parameterContext))

  override def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
}
