// PARTITIONED BY <-> partition specs: Spark's DDL transforms and expression fields become spec
// fields with stable, readable field ids; spec fields become Spark transforms for DESCRIBE and SHOW
// CREATE TABLE (which CREATE TABLE reads back as the same fields) and for the write's distribution.
package lancepart.spark

import com.fasterxml.jackson.databind.JsonNode
import lancepart.spec.{
  BoundField, BoundSpec, CalendarRun, Json, NamespaceSchema, PartitionField, PartitionSpec, SchemaField, SpecEvolution
}
import lancepart.transform.Transform
import org.apache.spark.sql.catalyst.util.QuotingUtils
import org.apache.spark.sql.connector.expressions.{
  Expression, Expressions, Literal, NamedReference, Transform => SparkTransform
}
import org.apache.spark.sql.types.{DataType, IntegerType, StringType}

import scala.jdk.CollectionConverters._

object DdlPartitioning {

  /** Table property with extra expression fields: a JSON array of
   * `{"field_id", "expression", "sources": [column, ...], "result_type": "<Spark type>"}`. */
  val ExpressionsProperty = "lancepart.partition-expressions"

  /** A partition item: a PARTITIONED BY transform, or an expression field's JSON object. */
  type Item = Either[SparkTransform, JsonNode]

  /** The transform that places an expression field of the table property among the others:
   * `lance_expression('<field_id>', <its sources>...)`, as DESCRIBE shows it. */
  val ExpressionTransform = "lance_expression"

  /** Spec v1 from `PARTITIONED BY` transforms and the table property's expression fields: those
   * a `lance_expression` transform names take its place, the others follow the transforms. With
   * neither, a spec without fields: a plain table's, made partitioned
   * (see [[PartitionedCatalog.evolvePartitionSpecWith]]). */
  def spec(
      table: String,
      schema: NamespaceSchema,
      transforms: Seq[SparkTransform],
      expressions: Option[String]): PartitionSpec = if (transforms.isEmpty && expressions.isEmpty) {
    PartitionSpec(1, Seq.empty)
  } else {
    val property = expressions.toSeq.flatMap(json => jsonArray(json, s"table $table: property '$ExpressionsProperty'"))
    val items: Seq[Item] = transforms.map { t =>
      if (t.name() == ExpressionTransform) Right(placedExpression(table, t, property)) else Left(t)
    }
    val placed = items.collect { case Right(node) => node }
    PartitionSpec(1, fields(table, schema, items ++ property.filterNot(placed.contains).map(Right(_))).map(_.field))
  }

  private def placedExpression(table: String, t: SparkTransform, property: Seq[JsonNode]): JsonNode = {
    val what = s"table $table: '${t.describe()}'"
    val (fieldId, sources) = t.arguments().toSeq match {
      case (l: Literal[_]) +: refs if l.dataType() == StringType && refs.forall(_.isInstanceOf[NamedReference]) =>
        (l.value().toString, refs.map(_.asInstanceOf[NamedReference].fieldNames().mkString(".")))
      case _ => throw new IllegalArgumentException(s"$what needs an expression field's id and then its source columns")
    }
    val node = property.find(n => Option(n.get("field_id")).exists(_.asText() == fieldId)).getOrElse(
      throw new IllegalArgumentException(
        s"$what names expression field '$fieldId', which property '$ExpressionsProperty' does not define"))
    val defined = Option(node.get("sources")).toSeq.flatMap(_.elements().asScala.map(_.asText()))
    if (defined != sources) {
      throw new IllegalArgumentException(s"$what names the sources ${sources.mkString(", ")}, but expression field " +
        s"'$fieldId' has ${defined.mkString(", ")}")
    }
    node
  }

  /** The fields of `items`, in order; expression fields name their own ids. */
  def fields(table: String, schema: NamespaceSchema, items: Seq[Item]): Seq[SpecEvolution.Requested] = {
    val fields = items.flatMap {
      case Left(t) => fromTransform(table, schema, t).map(SpecEvolution.Requested(_, explicitId = false))
      case Right(node) => Seq(SpecEvolution.Requested(expressionField(table, schema, node), explicitId = true))
    }
    if (fields.isEmpty) {
      throw new IllegalArgumentException(s"table $table: no partition field given (an empty list of fields, or an " +
        s"empty '$ExpressionsProperty' property); a spec without fields is made by DROP PARTITION FIELD of the last one")
    }
    fields.groupBy(_.field.fieldId).collectFirst { case (fid, fs) if fs.size > 1 => fid }.foreach { fid =>
      throw new IllegalArgumentException(s"table $table: partition field '$fid' appears twice (years, months, days " +
        "and hours(col) each add the calendar fields from year down to their unit; lance_year, lance_month, lance_day " +
        "and lance_hour(col) add that field alone)")
    }
    fields
  }

  /** The fields of one transform: Spark's (identity, years ... hours, bucket, truncate) or a
   * catalog function's name for the spec transform itself (`lance_day(ts)`: day of month alone). */
  private def fromTransform(table: String, schema: NamespaceSchema, t: SparkTransform): Seq[PartitionField] = {
    val args = t.arguments().toSeq
    val columns = args.collect { case r: NamedReference => column(table, schema, r) }
    val ints = args.collect { case l: Literal[_] => l.value() }.map {
      case n: Integer => n.intValue()
      case n: java.lang.Long if n.longValue().isValidInt => n.intValue()
      case other =>
        throw new IllegalArgumentException(s"table $table: '${t.describe()}' needs an integer parameter, got $other")
    }
    def one(): SchemaField = columns match {
      case Seq(c) => c
      case _ => throw new IllegalArgumentException(s"table $table: '${t.describe()}' needs exactly one column")
    }
    def field(transform: Transform): PartitionField = {
      val sources = if (transform.multiSource && columns.nonEmpty) columns else Seq(one())
      // identity and truncate keep the source's stored type (uint8 stays uint8)
      val result = transform match {
        case Transform.Identity | _: Transform.Truncate => PartitionSpec.resultTypeJson(schema.arrow(one()))
        case _: Transform.CalendarField | _: Transform.Bucket | _: Transform.MultiBucket =>
          PartitionSpec.resultTypeJson(IntegerType)
      }
      PartitionField(
        transform.fieldId(sources.map(_.name)).replaceAll("[^A-Za-z0-9_]", "_"),
        sources.map(_.id),
        Some(transform),
        None,
        result)
    }
    val transforms = Transform.fromDdl(t.name(), ints, columns.size)
    if (transforms.isEmpty) throw new IllegalArgumentException(
      s"table $table: unsupported partition transform '${t.describe()}' (use col, identity(col), years, months, " +
        "days, hours, bucket(N, col, ...), truncate(W, col), lance_year, lance_month, lance_day, lance_hour(col) " +
        "for one calendar field alone, or an expression field)")
    transforms.collectFirst { case p: Transform.Parameterized if p.value <= 0 => p }.foreach { p =>
      throw new IllegalArgumentException(s"table $table: '${t.describe()}' needs a positive ${p.parameterName}")
    }
    transforms.map(field)
  }

  private def column(table: String, schema: NamespaceSchema, ref: NamedReference): SchemaField = {
    val name = ref.fieldNames().mkString(".")
    schema.byName(name).getOrElse(throw new IllegalArgumentException(
      s"table $table: PARTITIONED BY column '$name' is not a column of the table (columns: ${schema.fields.map(_.name).mkString(", ")})"))
  }

  private def jsonArray(json: String, what: String): Seq[JsonNode] = {
    val root = Json.parse(json, what)
    if (!root.isArray) throw new IllegalArgumentException(s"$what must be a JSON array")
    root.elements().asScala.toList
  }

  private def expressionField(table: String, schema: NamespaceSchema, node: JsonNode): PartitionField = {
    val what = s"table $table: expression field"
    Json.requireObject(node, what)
    val fieldId = Json.string(node, "field_id", what)
    val sources = Json.array(node, "sources", s"$what '$fieldId'").map(n =>
      schema.byName(n.asText()).getOrElse(
        throw new IllegalArgumentException(s"$what '$fieldId': source '${n.asText()}' is not a column of the table")))
    val resultType =
      try DataType.fromDDL(Json.string(node, "result_type", what))
      catch {
        case e: Exception => throw new IllegalArgumentException(s"$what '$fieldId': bad result_type: ${e.getMessage}")
      }
    PartitionField(
      fieldId,
      sources.map(_.id),
      None,
      Some(Json.string(node, "expression", what)),
      PartitionSpec.resultTypeJson(resultType))
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
      // year(ts) ... hour(ts) stand for the calendar runs years(ts) ... hours(ts)
      val name = fn.toLowerCase
      Expressions.apply(Transform.Calendar.find(_.jsonName == name).fold(name)(_.runName), parsed: _*)
    case column => Expressions.identity(column)
  }

  /** A reference to top-level column `name`, whatever characters it holds. */
  def column(name: String): NamedReference = Expressions.column(QuotingUtils.quoteIdentifier(name))

  /** The Spark expression a field's value follows: for distribution, ordering and DESCRIBE. */
  def expressionOf(f: BoundField): Expression = {
    val cols = f.sources.flatten.map(s => column(s.name): Expression)
    f.field.transform match {
      case Some(Transform.Identity) => cols.head
      case Some(t) =>
        val params = t.parameter.map(p => Expressions.literal(Int.box(p)): Expression).toSeq
        Expressions.apply(t.functionName, (params ++ cols): _*)
      case None => Expressions.apply(ExpressionTransform, (Expressions.literal(f.fieldId): Expression) +: cols: _*)
    }
  }

  /** The current spec as PARTITIONED BY transforms (DESCRIBE, SHOW CREATE TABLE; Spark 4.2 asks
   * for them on every pushed filter), which CREATE TABLE reads back as the same fields, given
   * [[expressionsProperty]]: a calendar run is years ... hours(col), every other field the catalog
   * function of its transform. A field whose source column left the schema (it reads as null) has
   * no column to name, and no transform. */
  def transforms(spec: BoundSpec): Array[SparkTransform] =
    CalendarRun.group(spec.fields).flatMap(group => transform(group)).toArray

  /** The PARTITIONED BY transform of a group of [[CalendarRun.group]] (see [[transforms]]). */
  def transform(group: Seq[BoundField]): Option[SparkTransform] =
    if (group.exists(_.sources.exists(_.isEmpty))) None
    else Some(group match {
      case run if CalendarRun.isRun(run) =>
        Expressions.apply(Transform.Calendar(run.size - 1).runName, column(run.head.source.get.name))
      case Seq(f) => expressionOf(f) match {
          case t: SparkTransform => t
          case r: NamedReference => Expressions.identity(QuotingUtils.quoted(r.fieldNames()))
        }
    })

  /** [[ExpressionsProperty]] holding the expression fields of `spec`, if it has any. */
  def expressionsProperty(spec: BoundSpec): Option[String] = {
    val fields = spec.fields.filter(_.field.expression.isDefined)
    if (fields.isEmpty) None
    else Some(fields.map { f =>
      val node = Json.obj()
      node.put("field_id", f.fieldId)
      node.put("expression", f.field.expression.get)
      val sources = node.putArray("sources")
      f.sources.foreach(s => sources.add(s.map(_.name).orNull))
      node.put("result_type", f.valueType.sql)
      Json.write(node)
    }.mkString("[", ",", "]"))
  }
}
