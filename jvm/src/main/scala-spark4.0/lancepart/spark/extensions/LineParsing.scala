// Spark 4.0's parser has no methods beyond those AlterTableParser implements for every line
// (no parsePlanWithParameters: statements with parameters come through parsePlan).
package lancepart.spark.extensions

import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.StructType

trait LineParsing extends ParserInterface {

  protected def delegate: ParserInterface

  /** The statement's plan: ours for ALTER TABLE ... PARTITION FIELD on a lancepart table, else `delegated`. */
  protected def parse(sqlText: String)(delegated: => LogicalPlan): LogicalPlan

  override def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
}
