// CALL <name>(<argument>, ...) of a lancepart catalog's procedure, read by hand on Spark 3.5 (Spark
// 4's grammar has it): each argument an expression or `<parameter> => <expression>`, the name and
// the expressions read by the parser lancepart's wraps. A CALL in another catalog goes to that parser.
package lancepart.spark.extensions

import lancepart.spark.{PartitionedCatalog, PartitionedSessionCatalog}
import lancepart.spark.extensions.SqlTokens.{#::, Token, Tokens}
import lancepart.spark.line.ProcedureCatalog
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.lancepart.CatalogLookup

import scala.annotation.tailrec

private[extensions] object CallSyntax {

  /** The plan of statement `sql` if it is a CALL: a [[CallStatement]] for a procedure of a
   * lancepart catalog, else what `parser` makes of it. */
  def recognize(session: SparkSession, sql: String, parser: ParserInterface): Option[LogicalPlan] =
    new Tokens(sql, 0) match {
      case call #:: rest if call.is("CALL") =>
        val (name, afterName) = procedureName(sql, rest, Vector.empty)
        val nameParts = parser.parseMultipartIdentifier(sql.substring(name.head.offset, name.last.end))
        Some(CatalogLookup(session, nameParts) match {
          case (catalog: ProcedureCatalog, ident) =>
            val (arguments, afterArguments) = split(sql, afterName, depth = 0, Vector.empty, Vector.empty)
            end(sql, afterArguments)
            val read = arguments.map(argument(sql, parser, _))
            CallStatement(catalog, ident, read.map(_._1), read.map(_._2))
          case (sessionCatalog: PartitionedSessionCatalog, ident) => throw new UnsupportedOperationException(
              s"CALL ${sessionCatalog.name()}.$ident: the session catalog has no procedures; call them in a " +
                s"lancepart catalog (${classOf[PartitionedCatalog].getName}) over the same root")
          case (other, ident) =>
            AlterTableParser.delegatedOrExplained(parser.parsePlan(sql))(
              s"CALL ${other.name()}.$ident: on Spark 3.5 lancepart runs CALL for the procedures of its own " +
                s"catalogs, and catalog ${other.name()} is of class ${other.getClass.getName}")
        })
      case _ => None
    }

  /** The procedure name's tokens up to '(', and the tokens after it. */
  @tailrec
  private def procedureName(sql: String, ts: Tokens, name: Vector[Token]): (Vector[Token], Tokens) = ts match {
    case t #:: rest if t.text == "(" && name.nonEmpty => (name, rest)
    case t #:: rest if t.text != "(" => procedureName(sql, rest, name :+ t)
    case _ => fail(sql, ts.next.map(_._1), "a procedure name and '('")
  }

  @tailrec
  private def end(sql: String, ts: Tokens): Unit = ts match {
    case t #:: rest if t.text == ";" => end(sql, rest)
    case t #:: _ => fail(sql, Some(t), "the end of the statement")
    case _ =>
  }

  /** The arguments' tokens up to the closing parenthesis, and the tokens after it. */
  @tailrec
  private def split(
      sql: String,
      ts: Tokens,
      depth: Int,
      current: Vector[Token],
      done: Vector[Vector[Token]]): (Vector[Vector[Token]], Tokens) = ts match {
    case t #:: rest if depth == 0 && t.text == ")" =>
      if (current.isEmpty && done.nonEmpty) fail(sql, Some(t), "an argument")
      (if (current.isEmpty) done else done :+ current, rest)
    case t #:: rest if depth == 0 && t.text == "," =>
      if (current.isEmpty) fail(sql, Some(t), "an argument")
      split(sql, rest, depth, Vector.empty, done :+ current)
    case t #:: rest =>
      val inner = t.text match {
        case "(" | "[" => depth + 1
        case ")" | "]" => depth - 1
        case _ => depth
      }
      split(sql, rest, inner, current :+ t, done)
    case _ => fail(sql, None, "')'")
  }

  /** One argument: its parameter's name when it has one, and its expression. */
  private def argument(sql: String, parser: ParserInterface, ts: Vector[Token]) = ts match {
    case name +: eq +: gt +: value if name.isName && eq.text == "=" && gt.text == ">" && gt.offset == eq.end =>
      if (value.isEmpty) fail(sql, None, s"an expression after '${name.text} =>'")
      (Some(name.name), parser.parseExpression(sql.substring(value.head.offset, value.last.end)))
    case _ => (None, parser.parseExpression(sql.substring(ts.head.offset, ts.last.end)))
  }

  private def fail(sql: String, at: Option[Token], expected: String): Nothing = {
    val where = at.fold("at the end")(t => s"at '${t.text}' (character ${t.offset + 1})")
    throw new IllegalArgumentException(s"cannot read CALL statement: expected $expected $where in: $sql")
  }
}
