// The one JVM entry point for Python (py4j): admin operations taking and returning JSON text.
package lancepart.admin

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ArrayNode
import lancepart.lance.ExpressionEval
import lancepart.manifest.{JsonValues, ManifestQuery, Naming}
import lancepart.spark.{DdlPartitioning, PartitionedCatalog, PartitionedTable, PartitionsTable}
import lancepart.spark.procedures.BaseProcedure
import lancepart.spark.plain.PlainTable
import lancepart.spec.Json
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.{Column, Identifier}
import org.apache.spark.sql.types.{DataType, StructType}

import scala.jdk.CollectionConverters._

object AdminApi {

  /**
   * Creates `name` with `schemaJson` (Spark StructType JSON). `partitionByJson` is a JSON array
   * whose strings are PARTITIONED BY items (`col`, `years(ts)`, `bucket(16, id)`, ...) and whose
   * objects are expression fields (see [[DdlPartitioning.ExpressionsProperty]]). Unlike SQL DDL,
   * several fields may use the same column. `propertiesJson` is a JSON object of table properties.
   */
  def createTable(
      spark: SparkSession,
      catalog: String,
      name: String,
      schemaJson: String,
      partitionByJson: String,
      propertiesJson: String): String = inSession(spark) {
    val schema = DataType.fromJson(schemaJson) match {
      case s: StructType => s
      case other => throw new IllegalArgumentException(s"schema must be a struct, got ${other.sql}")
    }
    val (transforms, expressions) = partitionItems(partitionByJson).partitionMap(identity)
    val stated = Json.parse(propertiesJson, "table properties").properties().asScala.map(e =>
      e.getKey -> e.getValue.asText()).toMap
    val properties = if (expressions.isEmpty) stated
    else stated + (DdlPartitioning.ExpressionsProperty -> expressions.map(Json.write).mkString("[", ",", "]"))
    val columns = schema.fields.map(f => Column.create(f.name, f.dataType, f.nullable))
    catalogOf(spark, catalog).createTable(identifier(catalog, name), columns, transforms.toArray, properties.asJava)
    describe(spark, catalog, name)
  }

  /** Adds the next partition spec version; `fieldsJson` is as `partitionByJson` of [[createTable]]. */
  def evolvePartitionSpec(spark: SparkSession, catalog: String, name: String, fieldsJson: String): String =
    inSession(spark) {
      catalogOf(spark, catalog).evolvePartitionSpec(identifier(catalog, name), partitionItems(fieldsJson))
      describe(spark, catalog, name)
    }

  /** A JSON array of PARTITIONED BY strings and expression-field objects, as items. */
  private def partitionItems(json: String): Seq[DdlPartitioning.Item] =
    DdlPartitioning.items(Json.parse(json, "partition fields").elements().asScala.toSeq
      .map(n => if (n.isTextual) n.asText() else Json.write(n)))

  def describe(spark: SparkSession, catalog: String, name: String): String = inSession(spark) {
    catalogOf(spark, catalog).loadTable(identifier(catalog, name)) match {
      case plain: PlainTable => describePlain(plain)
      case partitioned: PartitionedTable => describePartitioned(partitioned)
      case _ => describePartitioned(load(spark, catalog, name)) // a metadata table: refused with the reason
    }
  }

  /** A plain Lance table: location, Lance version and schema, no partition fields. */
  private def describePlain(table: PlainTable): String = {
    val out = Json.obj()
    out.put("name", table.name())
    out.put("location", table.uri)
    out.put("partitioned", false)
    out.put("lance_version", table.lanceVersion)
    out.put("schema", table.schema().json)
    out.putArray("partition_fields")
    Json.write(out)
  }

  private def describePartitioned(table: PartitionedTable): String = {
    val meta = table.manifest.meta
    val out = Json.obj()
    out.put("name", table.name())
    out.put("location", table.store.tableUri)
    out.put("partitioned", true)
    out.put("manifest_version", table.manifest.version)
    out.put("schema", meta.schema.sparkSchema.json)
    out.put("current_spec_id", meta.currentSpec.id)
    val specs = out.putObject("specs")
    meta.specs.foreach(s => specs.set[JsonNode](s.id.toString, Json.parse(s.spec.toJson, s.spec.key)))
    val fields = out.putArray("partition_fields")
    meta.allFields.foreach { f =>
      val n = fields.addObject()
      n.put("field_id", f.fieldId)
      n.put("source", f.source.map(_.name).orNull)
      n.put("transform", f.field.describe)
      n.put("type", f.valueType.simpleString)
    }
    Json.write(out)
  }

  /**
   * Runtime properties of a namespace inside the table (spec: Runtime Namespace Properties,
   * Appendix E): `v<N>` gives `partition_spec`; a partition namespace gives
   * `partition.<field_id>` for its own level. `pathJson` is a JSON array such as `["v1", "k7m2..."]`.
   */
  def describeNamespace(spark: SparkSession, catalog: String, name: String, pathJson: String): String =
    inSession(spark) {
      val table = load(spark, catalog, name)
      val path = Json.parse(pathJson, "namespace path").elements().asScala.map(_.asText()).toSeq
      val objectId = Naming.objectId(path)
      val spec = Naming.specVersion(objectId).flatMap(v => table.manifest.meta.specs.find(_.id == v))
      val rows = table.store.rows(table.manifest, ManifestQuery.namespaceRow(objectId))
      if (rows.isEmpty || spec.isEmpty) {
        throw new IllegalArgumentException(s"table ${table.name()} has no namespace ${path.mkString("[", ", ", "]")}")
      }
      val properties = Json.obj()
      if (path.size == 1) properties.put("partition_spec", spec.get.spec.toJson)
      else {
        val field = spec.get.fields.lift(path.size - 2).getOrElse(throw new IllegalArgumentException(
          s"table ${table.name()}: namespace ${path.mkString("[", ", ", "]")} is deeper than ${spec.get.spec.key} has fields"))
        val value = JsonValues.toJson(rows.head.values.getOrElse(field.fieldId, null), field.valueType)
        properties.set[JsonNode](
          s"partition.${field.fieldId}",
          if (value.isNull) value else Json.mapper.getNodeFactory.textNode(value.asText()))
      }
      val out = Json.obj()
      out.set[JsonNode]("properties", properties)
      Json.write(out)
    }

  /** One object per partition table (the rows of its `.partitions` table): ids, spec, partition
   * values, location, version, row count. */
  def partitions(spark: SparkSession, catalog: String, name: String): String = inSession(spark) {
    val out: ArrayNode = Json.mapper.createArrayNode()
    new PartitionsTable(load(spark, catalog, name)).partitions().foreach { partition =>
      val row = partition.row
      val n = out.addObject()
      n.put("object_id", row.objectId)
      row.specVersion.foreach(v => n.put("spec_id", v))
      val values = n.putObject("values")
      for (spec <- partition.spec; f <- spec.fields) {
        values.set[JsonNode](f.fieldId, JsonValues.toJson(row.values.getOrElse(f.fieldId, null), f.valueType))
      }
      n.put("location", row.location.orNull)
      row.readVersion.fold(n.putNull("read_version"))(v =>
        n.put("read_version", new java.math.BigInteger(java.lang.Long.toUnsignedString(v))))
      n.put("row_count", partition.rowCount)
    }
    Json.write(out)
  }

  /**
   * Evaluates a partition `expression` over rows of source values, as a write would: `sourceTypes`
   * and `resultType` are Spark DDL types, `rowsJson` a JSON array of arrays of values in the
   * [[JsonValues]] form. Returns the results as a JSON array. For checks against DataFusion.
   */
  def evaluateExpression(expression: String, sourceTypesJson: String, resultType: String, rowsJson: String): String = {
    val types =
      Json.parse(sourceTypesJson, "source types").elements().asScala.map(n => DataType.fromDDL(n.asText())).toSeq
    val result = DataType.fromDDL(resultType)
    val rows = Json.parse(rowsJson, "rows").elements().asScala.map { row =>
      row.elements().asScala.toSeq.zip(types).map { case (v, dt) => JsonValues.fromJson(v, dt) }.toIndexedSeq
    }.toSeq
    val out: ArrayNode = Json.mapper.createArrayNode()
    ExpressionEval(expression, types.map(Some(_)), result).evaluate(rows).foreach(v =>
      out.add(JsonValues.toJson(v, result)))
    Json.write(out)
  }

  def dropTable(spark: SparkSession, catalog: String, name: String): Boolean = inSession(spark) {
    catalogOf(spark, catalog).dropTable(identifier(catalog, name))
  }

  /** Partitioned table `name` (not a metadata table such as `<table>.partitions`). */
  private def load(spark: SparkSession, catalog: String, name: String): PartitionedTable =
    catalogOf(spark, catalog).loadPartitioned(identifier(catalog, name))

  /**
   * Runs `body` with `spark` as the thread's active session, restoring the thread's own after.
   * Spark reads settings through the active session (SQLConf.get), its catalog manager too when it
   * loads a catalog on first use; a py4j call may come on a thread that has none (py4j serves
   * calls from Python threads on JVM threads of its own), where every `spark.sql.catalog.*` setting
   * is unset.
   */
  private def inSession[T](spark: SparkSession)(body: => T): T = {
    val previous = SparkSession.getActiveSession
    SparkSession.setActiveSession(spark)
    try body
    finally previous match {
        case Some(session) => SparkSession.setActiveSession(session)
        case None => SparkSession.clearActiveSession()
      }
  }

  /** The session's own instance of catalog `catalog` (Spark's catalog manager creates one per session). */
  private def catalogOf(spark: SparkSession, catalog: String): PartitionedCatalog = {
    val key = s"spark.sql.catalog.$catalog"
    if (spark.conf.getOption(key).isEmpty) {
      throw new IllegalArgumentException(s"catalog '$catalog' is not configured: set $key")
    }
    spark.sessionState.catalogManager.catalog(catalog) match {
      case c: PartitionedCatalog => c
      case other => throw new IllegalArgumentException(
          s"catalog '$catalog' is ${other.getClass.getName}, not ${classOf[PartitionedCatalog].getName}")
    }
  }

  private def identifier(catalog: String, name: String): Identifier = BaseProcedure.identifier(catalog, name)
}
