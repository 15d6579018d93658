// PARTITIONED BY <-> partition specs: Spark's DDL transforms and expression fields become spec
// fields with stable, readable field ids; spec fields become Spark transforms for DESCRIBE and for
// the write's required distribution.
package lancepart.spark

import com.fasterxml.jackson.databind.JsonNode
import lancepart.spark.functions.PartitionFunctions
import lancepart.spec.{BoundField, BoundSpec, Json, NamespaceSchema, PartitionField, PartitionSpec, SchemaField, SpecEvolution}
import lancepart.transform.Transform
import org.apache.spark.sql.catalyst.util.QuotingUtils
import org.apache.spark.sql.connector.expressions.{Expression, Expressions, Literal, NamedReference, Transform => SparkTransform}
import org.apache.spark.sql.types.DataType

import scala.jdk.CollectionConverters._

object DdlPartitioning {
  /** Table property with extra expression fields: a JSON array of
   * `{"field_id", "expression", "sources": [column, ...], "result_type": "<Spark type>"}`. */
  val ExpressionsProperty = "lancepart.partition-expressions"

  /** A partition item: a PARTITIONED BY transform, or an expression field's JSON object. */
  type Item = Either[SparkTransform, JsonNode]

  /** Spec v1 from `PARTITIONED BY` transforms followed by the table property's expression fields. */
  def spec(table: String, schema: NamespaceSchema, transforms: Seq[SparkTransform], expressions: Option[String]): PartitionSpec = {
    val property = expressions.toSeq.flatMap(json => jsonArray(json, s"table $table: property '$ExpressionsProperty'"))
    PartitionSpec(1, fields(table, schema, transforms.map(Left(_)) ++ property.map(Right(_))).map(_.field))
  }

  /** The fields of `items`, in order; expression fields name their own ids. */
  def fields(table: String, schema: NamespaceSchema, items: Seq[Item]): Seq[SpecEvolution.Requested] = {
    val fields = items.map {
      case Left(t) => SpecEvolution.Requested(fromTransform(table, schema, t), explicitId = false)
      case Right(node) => SpecEvolution.Requested(expressionField(table, schema, node), explicitId = true)
    }
    if (fields.isEmpty) {
      throw new IllegalArgumentException(s"table $table: a partitioned namespace needs PARTITIONED BY (column, ...)")
    }
    fields.groupBy(_.field.fieldId).collectFirst { case (fid, fs) if fs.size > 1 => fid }.foreach { fid =>
      throw new IllegalArgumentException(s"table $table: partition field '$fid' appears twice")
    }
    fields
  }

  private def fromTransform(table: String, schema: NamespaceSchema, t: SparkTransform): PartitionField = {
    val args = t.arguments().toSeq
    val columns = args.collect { case r: NamedReference => column(table, schema, r) }
    val ints = args.collect { case l: Literal[_] => l.value() }.map {
      case n: Integer => n.intValue()
      case n: java.lang.Long if n.longValue().isValidInt => n.intValue()
      case other => throw new IllegalArgumentException(s"table $table: '${t.describe()}' needs an integer parameter, got $other")
    }
    def field(id: String, transform: Transform, result: DataType) =
      PartitionField(id.replaceAll("[^A-Za-z0-9_]", "_"), columns.map(_.id), Some(transform), None, PartitionSpec.resultTypeJson(result))
    def one(): SchemaField = columns match {
      case Seq(c) => c
      case _ => throw new IllegalArgumentException(s"table $table: '${t.describe()}' needs exactly one column")
    }
    (t.name(), ints) match {
      case ("identity", Seq()) => field(one().name, Transform(Transform.Identity), one().dataType)
      case (calendar @ ("years" | "months" | "days" | "hours"), Seq()) =>
        val kind = calendar.stripSuffix("s")
        field(s"${one().name}_$kind", Transform(kind), org.apache.spark.sql.types.IntegerType)
      case ("bucket", Seq(n)) if columns.size == 1 =>
        field(s"${one().name}_bucket_$n", Transform("bucket", numBuckets = Some(n)), org.apache.spark.sql.types.IntegerType)
      case ("bucket", Seq(n)) =>
        field(s"${columns.map(_.name).mkString("_")}_bucket_$n", Transform("multi_bucket", numBuckets = Some(n)),
          org.apache.spark.sql.types.IntegerType)
      case ("truncate", Seq(w)) => field(s"${one().name}_trunc_$w", Transform("truncate", width = Some(w)), one().dataType)
      case _ => throw new IllegalArgumentException(
        s"table $table: unsupported partition transform '${t.describe()}' (use col, identity(col), years, months, " +
          "days, hours, bucket(N, col, ...), truncate(W, col), or an expression field)")
    }
  }

  private def column(table: String, schema: NamespaceSchema, ref: NamedReference): SchemaField = {
    val name = ref.fieldNames().mkString(".")
    schema.byName(name).getOrElse(throw new IllegalArgumentException(
      s"table $table: PARTITIONED BY column '$name' is not a column of the table (columns: ${schema.fields.map(_.name).mkString(", ")})"))
  }

  private def jsonArray(json: String, what: String): Seq[JsonNode] = {
    val root = Json.parse(json, what)
    if (!root.isArray) throw new IllegalArgumentException(s"$what must be a JSON array")
    root.elements().asScala.toSeq
  }

  private def expressionField(table: String, schema: NamespaceSchema, node: JsonNode): PartitionField = {
    val what = s"table $table: expression field"
    Json.requireObject(node, what)
    val fieldId = Json.string(node, "field_id", what)
    val sources = Json.array(node, "sources", s"$what '$fieldId'").map(n => schema.byName(n.asText()).getOrElse(
      throw new IllegalArgumentException(s"$what '$fieldId': source '${n.asText()}' is not a column of the table")))
    val resultType =
      try DataType.fromDDL(Json.string(node, "result_type", what))
      catch { case e: Exception => throw new IllegalArgumentException(s"$what '$fieldId': bad result_type: ${e.getMessage}") }
    PartitionField(fieldId, sources.map(_.id), None, Some(Json.string(node, "expression", what)), PartitionSpec.resultTypeJson(resultType))
  }

  private val Call = """(\w+)\s*\((.*)\)""".r

  /**
   * Partition items as given to Admin and procedures: PARTITIONED BY strings (`col`,
   * `years(ts)`, `bucket(16, id)`, ...) become transforms as Spark's parser would make them;
   * strings holding a JSON object are expression fields.
   */
  def items(items: Seq[String]): Seq[Item] = items.map(_.trim).map { item =>
    if (item.startsWith("{")) Right(Json.parse(item, "expression field")) else Left(transform(item))
  }

  private def transform(item: String): SparkTransform = item match {
    case Call(fn, args) =>
      val parsed = args.split(",").map(_.trim).toSeq.map { a =>
        if (a.nonEmpty && a.forall(_.isDigit)) Expressions.literal(Integer.valueOf(a)): Expression
        else Expressions.column(a): Expression
      }
      Expressions.apply(fn.toLowerCase match {
        case "year" => "years"; case "month" => "months"; case "day" => "days"; case "hour" => "hours"
        case other => other
      }, parsed: _*)
    case column => Expressions.identity(column)
  }

  /** A reference to top-level column `name`, whatever characters it holds. */
  def column(name: String): NamedReference = Expressions.column(QuotingUtils.quoteIdentifier(name))

  /** The Spark expression a field's value follows: for distribution, ordering and DESCRIBE. */
  def expressionOf(f: BoundField): Expression = {
    val cols = f.sources.flatten.map(s => column(s.name): Expression)
    f.field.transform match {
      case Some(t) if t.isIdentity => cols.head
      case Some(t) =>
        val params = (t.numBuckets ++ t.width).map(p => Expressions.literal(Int.box(p)): Expression).toSeq
        Expressions.apply(PartitionFunctions.nameOf(t.kind), (params ++ cols): _*)
      case None => Expressions.apply("lance_expression", (Expressions.literal(f.fieldId): Expression) +: cols: _*)
    }
  }

  /** The current spec as Spark transforms (DESCRIBE's partition information). */
  def transforms(spec: BoundSpec): Array[SparkTransform] = spec.fields.map(expressionOf).map {
    case t: SparkTransform => t
    case r: NamedReference => Expressions.identity(QuotingUtils.quoted(r.fieldNames()))
  }.toArray
}
