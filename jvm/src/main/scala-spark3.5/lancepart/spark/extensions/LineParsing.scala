// Spark 3.5's parser has no methods beyond those AlterTableParser implements for every line
// (no parseRoutineParam, no parsePlanWithParameters).
package lancepart.spark.extensions

import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

trait LineParsing extends ParserInterface {

  protected def delegate: ParserInterface

  /** The statement's plan: ours for ALTER TABLE ... PARTITION FIELD on a lancepart table, else `delegated`. */
  protected def parse(sqlText: String)(delegated: => LogicalPlan): LogicalPlan
}
