// CALL on Spark 3.5, from the statement CallSyntax reads to the procedure's result rows: once the
// arguments are resolved the procedure is bound to their types, the arguments are put in its
// parameters' order (by name or position, omitted ones from their defaults) and, once those are
// resolved too, cast to the parameters' types in a command that runs the procedure when the
// statement runs, as Iceberg's CallExec does on Spark 3.5.
package lancepart.spark.extensions

import lancepart.spark.line.{BoundProcedure, ProcedureCatalog}
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.{CatalystTypeConverters, InternalRow}
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, AttributeReference, Cast, EvalMode, Expression, RuntimeReplaceable
}
import org.apache.spark.sql.catalyst.plans.logical.{LeafNode, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.connector.catalog.Identifier
import org.apache.spark.sql.connector.read.LocalScan
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types.{StructField, StructType}

import scala.jdk.CollectionConverters._

/** CALL as written: the procedure's catalog and name, and the arguments with their names if named. */
case class CallStatement(
    catalog: ProcedureCatalog,
    ident: Identifier,
    argumentNames: Seq[Option[String]],
    arguments: Seq[Expression])
    extends LeafNode {
  override def output: Seq[Attribute] = Nil
  override lazy val resolved: Boolean = false
  def name: String = s"${catalog.name()}.$ident"
}

/** A CALL bound to its procedure, one argument per parameter in order. */
case class BoundCall(name: String, procedure: BoundProcedure, arguments: Seq[Expression]) extends LeafNode {
  override def output: Seq[Attribute] = Nil
  override lazy val resolved: Boolean = false
}

case class ResolveCall(session: SparkSession) extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperators {
    case call: CallStatement if call.arguments.forall(_.resolved) => bind(call)
    case call: BoundCall if call.arguments.forall(_.resolved) => command(call)
  }

  private def bind(call: CallStatement): BoundCall = {
    val inputType = StructType(call.arguments.zip(call.argumentNames).zipWithIndex.map { case ((a, n), i) =>
      StructField(n.getOrElse(s"_$i"), a.dataType, a.nullable)
    })
    val procedure = call.catalog.loadProcedure(call.ident).bind(inputType)
    val parameters = procedure.parameters().toSeq
    def fail(problem: String): Nothing = throw new IllegalArgumentException(
      s"CALL ${call.name}: $problem (its parameters: ${parameters.map(_.name).mkString(", ")})")
    val positional = call.argumentNames.takeWhile(_.isEmpty).size
    if (call.argumentNames.drop(positional).exists(_.isEmpty)) fail("an argument by position follows a named one")
    if (positional > parameters.size) fail(s"${call.arguments.size} arguments given for ${parameters.size} parameters")
    val resolver = session.sessionState.conf.resolver
    val named = call.argumentNames.zip(call.arguments).drop(positional).map { case (n, a) =>
      val name = n.get
      val index = parameters.indexWhere(p => resolver(p.name, name))
      if (index < 0) fail(s"no parameter named '$name'")
      if (index < positional) fail(s"parameter '$name' is given twice")
      index -> a
    }
    named.groupBy(_._1).collectFirst {
      case (i, twice) if twice.size > 1 => fail(s"parameter '${parameters(i).name}' is given twice")
    }
    val supplied = call.arguments.take(positional).zipWithIndex.map(_.swap).toMap ++ named
    val arguments = parameters.zipWithIndex.map { case (p, i) =>
      supplied.get(i).orElse(p.default.map(session.sessionState.sqlParser.parseExpression))
        .getOrElse(fail(s"no value for parameter '${p.name}', which has no default"))
    }
    BoundCall(call.name, procedure, arguments)
  }

  /** The command that runs `call` once its arguments are constants that cast to the parameters'
   * types (ANSI casts: a value that does not cast fails instead of becoming NULL). */
  private def command(call: BoundCall): CallCommand = {
    val timeZone = Option(session.sessionState.conf.sessionLocalTimeZone)
    val parameters = call.procedure.parameters().toSeq
    val arguments = parameters.zip(call.arguments).map { case (p, written) =>
      def fail(problem: String): Nothing =
        throw new IllegalArgumentException(s"CALL ${call.name}: argument '${p.name}' ($problem)")
      // as the optimizer would have it (`ts - INTERVAL 1 DAY` is replaced by a foldable TimeAdd)
      val a = written.transform { case r: RuntimeReplaceable => r.replacement }
      if (!a.foldable) fail(s"${written.sql} is not a constant")
      if (!Cast.canCast(a.dataType, p.dataType))
        fail(s"${a.sql} is of type ${a.dataType.sql}, which does not cast to ${p.dataType.sql}")
      Cast(a, p.dataType, timeZone, EvalMode.ANSI)
    }
    CallCommand(call.name, call.procedure, arguments)
  }
}

/** A bound CALL as Spark runs a command: once, when the statement runs (not when it is analyzed or
 * explained), its result rows of the procedure's output type. */
case class CallCommand(name: String, procedure: BoundProcedure, arguments: Seq[Expression])
    extends LeafRunnableCommand {

  override lazy val output: Seq[Attribute] =
    procedure.outputType.map(f => AttributeReference(f.name, f.dataType, f.nullable, f.metadata)())

  override def run(session: SparkSession): Seq[Row] = {
    val values = procedure.parameters().toSeq.zip(arguments).map { case (p, a) =>
      val value = a.eval()
      // a NULL where the parameter's default is not NULL would read as false or 0
      if (value == null && !p.default.exists(_.trim.equalsIgnoreCase("NULL")))
        throw new IllegalArgumentException(s"CALL $name: argument '${p.name}' is NULL")
      value
    }
    val toRow = CatalystTypeConverters.createToScalaConverter(procedure.outputType)
    procedure.call(InternalRow.fromSeq(values)).asScala.toList match {
      case List(scan: LocalScan) => scan.rows().toSeq.map(toRow(_).asInstanceOf[Row])
      case scans => throw new IllegalStateException(
          s"CALL $name: the procedure returned ${scans.size} results; lancepart's return one local scan")
    }
  }
}
