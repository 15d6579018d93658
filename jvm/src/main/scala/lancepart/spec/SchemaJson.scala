// JsonArrowField encoding of one field (name, nullability, type, field id) for the namespace schema.
package lancepart.spec

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.arrow.vector.types.pojo.{ArrowType, Field}

/** JsonArrowField encoding shared by the schema and by nested types. */
object SchemaJson {

  /** The field's name, its Arrow field (of that name) and its `lance:field_id`. */
  def fieldFromJson(node: JsonNode, what: => String): (String, Field, Int) = {
    Json.requireObject(node, what)
    val name = Json.string(node, "name", what)
    val fieldWhat = s"$what, field '$name'"
    val metadata = Json.stringMap(node.get("metadata"))
    val id = metadata.get(NamespaceSchema.FieldIdKey) match {
      case Some(v) if v.nonEmpty && v.forall(_.isDigit) => v.toInt
      case Some(v) =>
        throw new FormatException(s"$fieldWhat: ${NamespaceSchema.FieldIdKey} '$v' is not a non-negative integer")
      case None => throw new FormatException(s"$fieldWhat: missing ${NamespaceSchema.FieldIdKey}")
    }
    val nullable = Option(node.get("nullable")).forall(_.asBoolean(true))
    val zone = metadata.get(ArrowJsonType.TimeZoneKey).filter(_.nonEmpty)
    // calendar transforms of a zoned timestamp take its fields in the stored zone (as DataFusion's
    // date_part does); lancepart stores and computes UTC only
    zone.filterNot(_ == "UTC").foreach { z =>
      throw new FormatException(
        s"$fieldWhat: ${ArrowJsonType.TimeZoneKey} '$z' is not supported; zoned timestamps are UTC")
    }
    (name, ArrowJsonType.toArrow(name, node.get("type"), nullable, zone.isDefined, fieldWhat), id)
  }

  /** The JsonArrowField of Arrow field `f` with field id `id`; nested fields get ids from `nextId`. */
  def fieldToJson(f: Field, id: Int, nextId: () => Int): ObjectNode = {
    val node = Json.obj()
    node.put("name", f.getName)
    node.put("nullable", f.isNullable)
    node.set[JsonNode]("type", ArrowJsonType.fromArrow(f, nextId))
    val md = node.putObject("metadata")
    md.put(NamespaceSchema.FieldIdKey, id.toString)
    f.getType match {
      case t: ArrowType.Timestamp if t.getTimezone != null => md.put(ArrowJsonType.TimeZoneKey, "UTC")
      case _ =>
    }
    node
  }
}
