// JsonArrowDataType <-> Spark DataType: the type names of the namespace `schema` and of `result_type`.
package lancepart.spec

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.types._

/**
 * Type names follow Lance's own JsonArrowSchema converter (lance-namespace): `bool`, `int8`..`int64`,
 * `float32`, `float64`, `utf8`/`large_utf8`, `binary`/`large_binary`, `date32`,
 * `decimal128` with `length = precision * 1000 + scale`, `timestamp` (microseconds), `list`,
 * `struct`, `map`. JsonArrowDataType has no time-zone slot, so a zoned timestamp is written as
 * `timestamp` with field metadata [[ArrowJsonType.TimeZoneKey]] = "UTC" (docs/format.md).
 */
object ArrowJsonType {
  val TimeZoneKey = "lancepart:timezone"

  /** Spark type of a JsonArrowDataType node; `zoned` comes from the enclosing field's metadata. */
  def toSpark(node: JsonNode, zoned: Boolean, what: => String): DataType = {
    Json.requireObject(node, what)
    Json.string(node, "type", what).toLowerCase match {
      case "bool" | "boolean" => BooleanType
      case "int8" => ByteType
      case "int16" => ShortType
      case "int32" => IntegerType
      case "int64" => LongType
      case "float32" => FloatType
      case "float64" => DoubleType
      case "utf8" | "large_utf8" => StringType
      case "binary" | "large_binary" => BinaryType
      case "date32" => DateType
      case "timestamp" => if (zoned) TimestampType else TimestampNTZType
      case "decimal128" =>
        val encoded = Json.int(node, "length", what)
        val precision = (encoded + 128) / 1000
        DecimalType(precision, encoded - precision * 1000)
      case "list" | "large_list" =>
        val item = children(node, what).headOption.getOrElse(
          throw new FormatException(s"$what: list type without an item field"))
        val (_, itemType, itemNullable, _) = SchemaJson.fieldFromJson(item, what)
        ArrayType(itemType, itemNullable)
      case "struct" =>
        StructType(children(node, what).map { f =>
          val (name, dt, nullable, _) = SchemaJson.fieldFromJson(f, what)
          StructField(name, dt, nullable)
        })
      case "map" =>
        val entries = children(node, what).headOption.getOrElse(
          throw new FormatException(s"$what: map type without an entries field"))
        SchemaJson.fieldFromJson(entries, what)._2 match {
          case StructType(Array(k, v)) => MapType(k.dataType, v.dataType, v.nullable)
          case other => throw new FormatException(s"$what: map entries must be a 2-field struct, got $other")
        }
      case other => throw new FormatException(s"$what: unsupported Arrow type '$other'")
    }
  }

  private def children(node: JsonNode, what: => String): Seq[JsonNode] =
    if (node.has("fields")) Json.array(node, "fields", what) else Seq.empty

  /**
   * Refuses a new column `column` of `table` whose type holds, at any depth, a type lancepart
   * cannot store: a MAP (Lance stores maps only in file format 2.2+, and lancepart writes
   * partition tables in Lance's default format, 2.1; every data file of a table must have one
   * format version, see docs/format.md), VOID (an untyped NULL), intervals, variants.
   */
  def requireWritable(table: String, column: String, dt: DataType): Unit = {
    def unstorable(t: DataType): Option[DataType] = t match {
      case ArrayType(element, _) => unstorable(element)
      case StructType(fields) => fields.iterator.flatMap(f => unstorable(f.dataType)).nextOption()
      case BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType | StringType |
          BinaryType | DateType | TimestampType | TimestampNTZType | _: DecimalType => None
      case other => Some(other)
    }
    unstorable(dt).foreach {
      case _: MapType =>
        throw new UnsupportedOperationException(s"table $table: column '$column' has type ${dt.sql}; " +
          "MAP columns are not supported: Lance stores maps only in file format 2.2+, and lancepart writes partition " +
          "tables in file format 2.1. Store the entries as ARRAY<STRUCT<key: ..., value: ...>> instead")
      case NullType => throw new UnsupportedOperationException(s"table $table: column '$column' has type ${dt.sql}; " +
          "VOID (an untyped NULL) cannot be stored, give it a type (e.g. CAST(NULL AS STRING))")
      case other => throw new UnsupportedOperationException(
          s"table $table: column '$column' has type ${dt.sql}; ${other.sql} cannot be stored in Lance")
    }
  }

  /** JsonArrowDataType node of a Spark type; nested fields get ids from `nextId`. */
  def fromSpark(dt: DataType, nextId: () => Int): ObjectNode = {
    val node = Json.obj()
    def named(name: String): ObjectNode = { node.put("type", name); node }
    dt match {
      case BooleanType => named("bool")
      case ByteType => named("int8")
      case ShortType => named("int16")
      case IntegerType => named("int32")
      case LongType => named("int64")
      case FloatType => named("float32")
      case DoubleType => named("float64")
      case StringType => named("utf8")
      case BinaryType => named("binary")
      case DateType => named("date32")
      case TimestampType | TimestampNTZType => named("timestamp")
      case d: DecimalType =>
        named("decimal128").put("length", d.precision * 1000 + d.scale)
      case ArrayType(elementType, containsNull) =>
        named("list").putArray("fields")
          .add(SchemaJson.fieldToJson("item", elementType, containsNull, nextId(), nextId))
        node
      case StructType(fields) =>
        val arr = named("struct").putArray("fields")
        fields.foreach(f => arr.add(SchemaJson.fieldToJson(f.name, f.dataType, f.nullable, nextId(), nextId)))
        node
      case MapType(k, v, valueContainsNull) =>
        val entries = StructType(Seq(
          StructField("key", k, nullable = false),
          StructField("value", v, valueContainsNull)))
        named("map").putArray("fields")
          .add(SchemaJson.fieldToJson("entries", entries, nullable = false, nextId(), nextId))
        node
      case other => throw new UnsupportedOperationException(s"type ${other.sql} cannot be stored in Lance")
    }
  }
}
