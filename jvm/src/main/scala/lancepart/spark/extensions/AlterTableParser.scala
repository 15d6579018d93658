// The parser LancepartSparkSessionExtensions injects: ALTER TABLE ... ADD / DROP / REPLACE
// PARTITION FIELD and CREATE / REPLACE / DROP TAG | BRANCH on tables of lancepart catalogs; every other
// statement, and these on tables of other catalogs, go to the parser it wraps unchanged, but for the statements LineExtensions reads
// on lines whose Spark lacks them. LineParsing (a source folder per Spark line) adds the methods
// only some lines have.
package lancepart.spark.extensions

import lancepart.spark.{PartitionedCatalog, PartitionedSessionCatalog}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.{FunctionIdentifier, TableIdentifier}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.parser.{ParseException, ParserInterface}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.lancepart.CatalogLookup
import org.apache.spark.sql.types.{DataType, StructType}

class AlterTableParser(session: SparkSession, protected val delegate: ParserInterface) extends LineParsing {

  override def parsePlan(sqlText: String): LogicalPlan =
    LineExtensions.statement(session, sqlText, delegate).getOrElse(parse(sqlText)(delegate.parsePlan(sqlText)))

  override def parseExpression(sqlText: String): Expression = delegate.parseExpression(sqlText)

  override def parseTableIdentifier(sqlText: String): TableIdentifier = delegate.parseTableIdentifier(sqlText)

  override def parseFunctionIdentifier(sqlText: String): FunctionIdentifier =
    delegate.parseFunctionIdentifier(sqlText)

  override def parseMultipartIdentifier(sqlText: String): Seq[String] = delegate.parseMultipartIdentifier(sqlText)

  override def parseQuery(sqlText: String): LogicalPlan = delegate.parseQuery(sqlText)

  override def parseTableSchema(sqlText: String): StructType = delegate.parseTableSchema(sqlText)

  override def parseDataType(sqlText: String): DataType = delegate.parseDataType(sqlText)

  /** The statement's plan: ours for a lancepart table, else the wrapped parser's (`delegated`),
   * such as Iceberg's for an Iceberg table when its extension comes before this one. */
  protected def parse(sqlText: String)(delegated: => LogicalPlan): LogicalPlan =
    PartitionFieldSyntax.recognize(sqlText).orElse(RefSyntax.recognize(sqlText)).fold(delegated) { statement =>
      CatalogLookup(session, delegate.parseMultipartIdentifier(statement.table)) match {
        case (catalog: PartitionedCatalog, ident) => statement.command(catalog, ident)
        case (sessionCatalog: PartitionedSessionCatalog, ident) => throw new UnsupportedOperationException(
            s"table ${sessionCatalog.name()}.$ident: ALTER TABLE ... ${statement.clause} runs in a lancepart catalog " +
              s"(${classOf[PartitionedCatalog].getName}) over the session catalog's root, not in the session catalog")
        case (other, ident) =>
          AlterTableParser.delegatedOrExplained(delegated)(
            s"table ${other.name()}.$ident: ALTER TABLE ... ${statement.clause} needs a table of a " +
              s"lancepart catalog (${classOf[PartitionedCatalog].getName}), and catalog ${other.name()} is of class " +
              s"${other.getClass.getName}")
      }
    }
}

object AlterTableParser {

  /** The wrapped parser's plan `delegated` of a statement lancepart reads for its own catalogs
   * alone; when that parser cannot read it either, an error saying why lancepart did not (`why`),
   * caused by the parser's. */
  private[extensions] def delegatedOrExplained(delegated: => LogicalPlan)(why: => String): LogicalPlan =
    try delegated
    catch { case e: ParseException => throw new UnsupportedOperationException(why, e) }
}
