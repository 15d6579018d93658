// Partition specs (spec: Partition Spec, Partition Field Schema, Partition Transform): parse, validate, write.
package lancepart.spec

import com.fasterxml.jackson.databind.JsonNode
import lancepart.arrow.ArrowTypes
import lancepart.transform.Transform
import org.apache.arrow.vector.types.pojo.Field
import org.apache.spark.sql.types.DataType

/**
 * One partition field. Exactly one of `transform` and `expression` is set. `resultTypeJson` is
 * the stored JsonArrowDataType; the Spark type of the value is resolved against the schema by
 * [[TableMetadata]] because `timestamp` alone does not say whether it is zoned.
 */
case class PartitionField(
    fieldId: String,
    sourceIds: Seq[Int],
    transform: Option[Transform],
    expression: Option[String],
    resultTypeJson: JsonNode) {
  def manifestColumn: String = PartitionField.ColumnPrefix + fieldId
  def isIdentity: Boolean = transform.contains(Transform.Identity)

  /** What makes two fields one field across spec versions (spec: Field ID Reuse): sources,
   * transform and expression, whatever their field ids. */
  def definition: (Seq[Int], Option[Transform], Option[String]) = (sourceIds, transform, expression)
  def describe: String = transform match {
    case Some(t) => s"${t.jsonName}(source ${sourceIds.mkString(",")})"
    case None => s"expression '${expression.getOrElse("")}'"
  }
}

object PartitionField {
  val ColumnPrefix = "partition_field_"
}

case class PartitionSpec(id: Int, fields: Seq[PartitionField]) {
  def key: String = PartitionSpec.keyOf(id)
  def namespace: String = s"v$id"

  def toJson: String = {
    val root = Json.obj()
    root.put("id", id)
    val arr = root.putArray("fields")
    fields.foreach { f =>
      val node = arr.addObject()
      node.put("field_id", f.fieldId)
      val ids = node.putArray("source_ids")
      f.sourceIds.foreach(i => ids.add(i))
      f.transform.foreach(t => t.writeJson(node.putObject("transform")))
      f.expression.foreach(e => node.put("expression", e))
      node.set[JsonNode]("result_type", f.resultTypeJson)
    }
    Json.write(root)
  }
}

object PartitionSpec {
  val KeyPrefix = "partition_spec_v"

  /** The metadata key `partition_spec_v<N>` of spec version `version`. */
  def keyOf(version: Int): String = KeyPrefix + version

  /** The spec version N of a metadata key `partition_spec_v<N>`, if it is one. */
  def versionOfKey(key: String): Option[Int] =
    if (key.startsWith(KeyPrefix) && key.length > KeyPrefix.length &&
      key.drop(KeyPrefix.length).forall(_.isDigit)) Some(key.drop(KeyPrefix.length).toInt)
    else None

  /** Parses the value stored under `key` for table `table`, with errors naming both. */
  def parse(text: String, key: String, table: String): PartitionSpec = {
    val what = s"table $table: property '$key'"
    val root = Json.requireObject(Json.parse(text, what), what)
    val id = Json.int(root, "id", what)
    versionOfKey(key).filter(_ != id).foreach { n =>
      throw new FormatException(s"$what: id $id does not match the key's version $n")
    }
    val fields = Json.array(root, "fields", what).zipWithIndex.map { case (f, i) =>
      parseField(f, s"$what, field #$i")
    }
    val dup = fields.groupBy(_.fieldId).collectFirst { case (fid, fs) if fs.size > 1 => fid }
    dup.foreach(fid => throw new FormatException(s"$what: field_id '$fid' appears twice"))
    PartitionSpec(id, fields)
  }

  private def parseField(node: JsonNode, what0: String): PartitionField = {
    Json.requireObject(node, what0)
    val fieldId = Json.string(node, "field_id", what0)
    val what = s"$what0 ('$fieldId')"
    // any text names a __manifest column partition_field_<field_id>, which Lance quotes where
    // needed; Lance refuses '.' in a top-level column name (it separates nested fields)
    if (fieldId.isEmpty || fieldId.contains('.')) {
      throw new FormatException(
        s"$what: field_id must be non-empty text without '.' (Lance column names cannot hold one)")
    }
    val sourceIds = Json.array(node, "source_ids", what).map { n =>
      if (!n.isIntegralNumber) throw new FormatException(s"$what: source_ids must be integers")
      n.asInt()
    }
    val transform = Option(node.get("transform")).filterNot(_.isNull).map(parseTransform(_, what))
    val expression = Option(node.get("expression")).filterNot(_.isNull).map { e =>
      if (!e.isTextual) throw new FormatException(s"$what: expression must be a string")
      e.asText()
    }
    if (transform.isDefined == expression.isDefined) {
      throw new FormatException(s"$what: exactly one of 'transform' and 'expression' must be given")
    }
    val resultType = Json.requireObject(node.get("result_type"), s"$what: 'result_type'")
    ArrowJsonType.toSpark(resultType, zoned = false, s"$what: result_type")
    PartitionField(fieldId, sourceIds, transform, expression, resultType)
  }

  private def parseTransform(node: JsonNode, what: String): Transform =
    Transform.fromJson(Json.requireObject(node, s"$what: 'transform'"))
      .fold(e => throw new FormatException(s"$what: $e"), identity)

  /** The JsonArrowDataType of values of Arrow field `f`, for `result_type`. */
  def resultTypeJson(f: Field): JsonNode = ArrowJsonType.fromArrow(f, () => 0)

  /** The JsonArrowDataType of values of Spark type `dt` as Spark stores them. */
  def resultTypeJson(dt: DataType): JsonNode = resultTypeJson(ArrowTypes.sparkOwn("value", dt, nullable = true))
}
