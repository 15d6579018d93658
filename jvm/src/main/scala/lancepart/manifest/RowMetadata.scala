// The `metadata` JSON of a __manifest row: the row's partition values as `partition.<field_id>`
// (spec: Runtime Namespace Properties) and a table's `read_version`, so that a manifest another
// client rewrote without the partition and read_version columns can be repaired from it.
package lancepart.manifest

import com.fasterxml.jackson.databind.JsonNode
import lancepart.spec.{FormatException, Json}
import org.apache.spark.sql.types.DataType

import scala.util.control.NonFatal

object RowMetadata {
  val PartitionPrefix = "partition."
  val ReadVersionKey = "read_version"

  /** The JSON for `row`, values as text and NULL values as JSON null (so that a partition whose
   * values are all NULL can be restored too), or None when there is nothing to keep. */
  def json(row: ManifestRow, types: Map[String, DataType]): Option[String] = {
    val node = Json.obj()
    for ((fieldId, value) <- row.values.toSeq.sortBy(_._1); dt <- types.get(fieldId)) {
      if (value == null) node.putNull(PartitionPrefix + fieldId)
      else node.put(PartitionPrefix + fieldId, JsonValues.toJson(value, dt).asText())
    }
    row.readVersion.foreach(v => node.put(ReadVersionKey, java.lang.Long.toUnsignedString(v)))
    Option.when(!node.isEmpty)(Json.write(node))
  }

  /** Partition values and read_version kept in `text`, typed by `types` (field id to value type):
   * the fields `text` names, NULL ones included. */
  def parse(text: String, types: Map[String, DataType], table: String, objectId: String): (Map[String, Any], Option[Long]) = {
    val node = try Json.mapper.readTree(text) catch {
      case NonFatal(e) => throw new FormatException(s"table $table: __manifest row $objectId has metadata that is not JSON: ${e.getMessage}")
    }
    def textOf(n: JsonNode): Option[String] = Option(n).filterNot(_.isNull).map(_.asText())
    val values = types.collect { case (fieldId, dt) if node.has(PartitionPrefix + fieldId) =>
      fieldId -> textOf(node.get(PartitionPrefix + fieldId)).map(v => JsonValues.fromJson(Json.mapper.getNodeFactory.textNode(v), dt)).orNull
    }
    (values, textOf(node.get(ReadVersionKey)).map(java.lang.Long.parseUnsignedLong))
  }
}
