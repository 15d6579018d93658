// CALL on Spark 3.5, from the statement CallSyntax reads to the procedure's result rows, as Spark 4
// runs it: once the arguments are resolved the procedure is bound to their types, the arguments
// are put in its parameters' order (by name or position, omitted ones from their defaults) and,
// once those are resolved too, cast to the parameters' types and the procedure runs, its rows
// becoming the statement's result.
package lancepart.spark.extensions

import lancepart.spark.line.{BoundProcedure, ProcedureCatalog}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, Cast, Expression, RuntimeReplaceable}
import org.apache.spark.sql.catalyst.plans.logical.{LeafNode, LocalRelation, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.connector.catalog.Identifier
import org.apache.spark.sql.connector.read.LocalScan
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
    case call: BoundCall if call.arguments.forall(_.resolved) => run(call)
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

  private def run(call: BoundCall): LogicalPlan = {
    val timeZone = Option(session.sessionState.conf.sessionLocalTimeZone)
    val values = call.procedure.parameters().toSeq.zip(call.arguments).map { case (p, written) =>
      def fail(problem: String): Nothing =
        throw new IllegalArgumentException(s"CALL ${call.name}: argument '${p.name}' ($problem)")
      // as the optimizer would have it (`ts - INTERVAL 1 DAY` is replaced by a foldable TimeAdd)
      val a = written.transform { case r: RuntimeReplaceable => r.replacement }
      if (!a.foldable) fail(s"${written.sql} is not a constant")
      if (!Cast.canCast(a.dataType, p.dataType))
        fail(s"${a.sql} is of type ${a.dataType.sql}, which does not cast to ${p.dataType.sql}")
      Cast(a, p.dataType, timeZone).eval()
    }
    call.procedure.call(InternalRow.fromSeq(values)).asScala.toList match {
      case Seq(scan: LocalScan) =>
        val output = scan.readSchema().map(f => AttributeReference(f.name, f.dataType, f.nullable, f.metadata)())
        LocalRelation(output, scan.rows().toSeq)
      case scans => throw new IllegalStateException(
          s"CALL ${call.name}: the procedure returned ${scans.size} results; lancepart's return one local scan")
    }
  }
}
