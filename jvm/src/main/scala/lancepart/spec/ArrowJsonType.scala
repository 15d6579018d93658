// JsonArrowDataType <-> Arrow types: the type names of the namespace `schema` and of `result_type`.
package lancepart.spec

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import lancepart.arrow.{ArrowTypes, UnsupportedArrowType}
import org.apache.arrow.vector.types.{DateUnit, FloatingPointPrecision, TimeUnit}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType}
import org.apache.spark.sql.types._

import scala.jdk.CollectionConverters._
import scala.util.Try

/**
 * Type names follow Lance's own JsonArrowSchema converter (lance-namespace): `bool`,
 * `int8`..`int64`, `uint8`..`uint64`, `float16`..`float64`, `utf8`/`large_utf8`,
 * `binary`/`large_binary`, `fixed_size_binary` (`length` bytes), `date32`, `date64`, `time32`,
 * `time64`, `timestamp`, `duration`, `decimal128`/`decimal256` with `length = precision * 1000 +
 * scale`, `list`, `large_list`, `fixed_size_list` (`length` elements), `struct`, `map`.
 * JsonArrowDataType has no slot for a unit or a time zone: as Lance's converter reads them,
 * `timestamp` and `duration` are microseconds, and `time32` / `time64` are taken as milliseconds
 * / microseconds (Lance's converter reads neither). A zoned timestamp is written as `timestamp`
 * with field metadata [[ArrowJsonType.TimeZoneKey]] = "UTC" (docs/format.md).
 */
object ArrowJsonType {
  val TimeZoneKey = "lancepart:timezone"

  /** The Arrow field `name` of a JsonArrowDataType node; `zoned` comes from the enclosing
   * field's metadata. */
  def toArrow(name: String, node: JsonNode, nullable: Boolean, zoned: Boolean, what: => String): Field = {
    Json.requireObject(node, what)
    def field(t: ArrowType, children: Seq[Field] = Seq.empty) =
      new Field(name, new FieldType(nullable, t, null), children.asJava)
    def item(kind: String): Field = children(node, what).headOption.map(SchemaJson.fieldFromJson(_, what)._2)
      .getOrElse(throw new FormatException(s"$what: $kind type without an item field"))
    def length = Json.int(node, "length", what)
    def decimal(bits: Int) = {
      val precision = (length + 128) / 1000
      field(new ArrowType.Decimal(precision, length - precision * 1000, bits))
    }
    Json.string(node, "type", what).toLowerCase match {
      case "bool" | "boolean" => field(ArrowType.Bool.INSTANCE)
      case Integer(unsigned, bits) => field(new ArrowType.Int(bits.toInt, unsigned == null))
      case "float16" => field(new ArrowType.FloatingPoint(FloatingPointPrecision.HALF))
      case "float32" => field(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))
      case "float64" => field(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))
      case "utf8" => field(ArrowType.Utf8.INSTANCE)
      case "large_utf8" => field(ArrowType.LargeUtf8.INSTANCE)
      case "binary" => field(ArrowType.Binary.INSTANCE)
      case "large_binary" => field(ArrowType.LargeBinary.INSTANCE)
      case "fixed_size_binary" => field(new ArrowType.FixedSizeBinary(length))
      case "date32" => field(new ArrowType.Date(DateUnit.DAY))
      case "date64" => field(new ArrowType.Date(DateUnit.MILLISECOND))
      case "time32" => field(new ArrowType.Time(TimeUnit.MILLISECOND, 32))
      case "time64" => field(new ArrowType.Time(TimeUnit.MICROSECOND, 64))
      case "timestamp" => field(new ArrowType.Timestamp(TimeUnit.MICROSECOND, if (zoned) "UTC" else null))
      case "duration" => field(new ArrowType.Duration(TimeUnit.MICROSECOND))
      case "decimal128" => decimal(128)
      case "decimal256" => decimal(256)
      case "list" => field(ArrowType.List.INSTANCE, Seq(item("list")))
      case "large_list" => field(ArrowType.LargeList.INSTANCE, Seq(item("large_list")))
      case "fixed_size_list" =>
        if (length <= 0) throw new FormatException(s"$what: fixed_size_list length must be positive, got $length")
        field(new ArrowType.FixedSizeList(length), Seq(item("fixed_size_list")))
      case "struct" => field(ArrowType.Struct.INSTANCE, children(node, what).map(SchemaJson.fieldFromJson(_, what)._2))
      case "map" =>
        val entries = item("map")
        if (entries.getChildren.size != 2 || !entries.getType.isInstanceOf[ArrowType.Struct]) {
          throw new FormatException(s"$what: map entries must be a 2-field struct, got ${entries.getType}")
        }
        field(new ArrowType.Map(false), Seq(entries))
      case other => throw new FormatException(s"$what: unsupported Arrow type '$other'")
    }
  }

  private val Integer = "(u)?int(8|16|32|64)".r

  /** The Spark type of a JsonArrowDataType node (see [[toArrow]], [[ArrowTypes.toSpark]]). */
  def toSpark(node: JsonNode, zoned: Boolean, what: => String): DataType = {
    val field = toArrow("value", node, nullable = true, zoned, what)
    try ArrowTypes.toSpark(field, what)
    catch { case e: UnsupportedArrowType => throw new FormatException(e.getMessage) }
  }

  private def children(node: JsonNode, what: => String): Seq[JsonNode] =
    if (node.has("fields")) Json.array(node, "fields", what) else Seq.empty

  /**
   * Refuses a new column `column` of `table`, whose datasets are written in Lance file format
   * `fileVersion`, when its type holds, at any depth, a type lancepart cannot store there: a MAP
   * below file format 2.2 (Lance stores maps only from 2.2 on, and every data file of a table has
   * one format version, see docs/format.md), VOID (an untyped NULL), intervals other than INTERVAL
   * DAY TO SECOND (a duration, which reads back as that), variants.
   */
  def requireWritable(table: String, column: String, dt: DataType, fileVersion: String): Unit = {
    def unstorable(t: DataType): Option[DataType] = t match {
      case ArrayType(element, _) => unstorable(element)
      case StructType(fields) => fields.flatMap(f => unstorable(f.dataType)).headOption
      case MapType(key, value, _) if storesMaps(fileVersion) => unstorable(key).orElse(unstorable(value))
      case BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType | StringType |
          BinaryType | DateType | TimestampType | TimestampNTZType | _: DecimalType => None
      case DayTimeIntervalType(DayTimeIntervalType.DAY, DayTimeIntervalType.SECOND) => None
      case other => Some(other)
    }
    unstorable(dt).foreach {
      case _: MapType =>
        throw new UnsupportedOperationException(s"table $table: column '$column' has type ${dt.sql}; " +
          s"Lance stores maps only in file format $MapFileVersion+, and this table's datasets are written in file format " +
          s"$fileVersion (chosen at CREATE TABLE: $MapFileVersion when a column is a MAP or TBLPROPERTIES" +
          s"('data_storage_version'='$MapFileVersion') asks for it). Store the entries as ARRAY<STRUCT<key: ..., value: ...>> instead")
      case NullType => throw new UnsupportedOperationException(s"table $table: column '$column' has type ${dt.sql}; " +
          "VOID (an untyped NULL) cannot be stored, give it a type (e.g. CAST(NULL AS STRING))")
      case other: DayTimeIntervalType => throw new UnsupportedOperationException(
          s"table $table: column '$column' has type ${dt.sql}; ${other.sql} cannot be stored in Lance: a duration " +
            "reads back as INTERVAL DAY TO SECOND, CAST it to that")
      case other => throw new UnsupportedOperationException(
          s"table $table: column '$column' has type ${dt.sql}; ${other.sql} cannot be stored in Lance")
    }
  }

  /** The first Lance file format version that stores MAP columns. */
  val MapFileVersion = "2.2"

  /** Whether Lance file format `version` ("2.1") stores MAP columns. */
  def storesMaps(version: String): Boolean = Ordering[(Int, Int)].gteq(majorMinor(version), majorMinor(MapFileVersion))

  private def majorMinor(version: String): (Int, Int) =
    version.split('.').map(s => Try(s.toInt).getOrElse(0)).padTo(2, 0) match { case a => (a(0), a(1)) }

  /** The JsonArrowDataType node of Arrow field `f`; nested fields get ids from `nextId`. */
  def fromArrow(f: Field, nextId: () => Int): ObjectNode = {
    val node = Json.obj()
    def named(name: String): ObjectNode = { node.put("type", name); node }
    def withChildren(name: String, children: Seq[Field]): ObjectNode = {
      val arr = named(name).putArray("fields")
      children.foreach(c => arr.add(SchemaJson.fieldToJson(c, nextId(), nextId)))
      node
    }
    def unit(u: TimeUnit, expected: TimeUnit, name: String): ObjectNode =
      if (u == expected) named(name)
      else throw new UnsupportedOperationException(s"${f.getType} has no JsonArrowDataType form ($name is $expected)")
    val children = f.getChildren.asScala.toSeq
    f.getType match {
      case _: ArrowType.Bool => named("bool")
      case i: ArrowType.Int => named(s"${if (i.getIsSigned) "" else "u"}int${i.getBitWidth}")
      case p: ArrowType.FloatingPoint => named(p.getPrecision match {
          case FloatingPointPrecision.HALF => "float16"
          case FloatingPointPrecision.SINGLE => "float32"
          case FloatingPointPrecision.DOUBLE => "float64"
        })
      case _: ArrowType.Utf8 => named("utf8")
      case _: ArrowType.LargeUtf8 => named("large_utf8")
      case _: ArrowType.Binary => named("binary")
      case _: ArrowType.LargeBinary => named("large_binary")
      case b: ArrowType.FixedSizeBinary => named("fixed_size_binary").put("length", b.getByteWidth)
      case d: ArrowType.Date => named(if (d.getUnit == DateUnit.DAY) "date32" else "date64")
      case t: ArrowType.Time =>
        if (t.getBitWidth == 32) unit(t.getUnit, TimeUnit.MILLISECOND, "time32")
        else unit(t.getUnit, TimeUnit.MICROSECOND, "time64")
      case t: ArrowType.Timestamp => unit(t.getUnit, TimeUnit.MICROSECOND, "timestamp")
      case d: ArrowType.Duration => unit(d.getUnit, TimeUnit.MICROSECOND, "duration")
      case d: ArrowType.Decimal =>
        named(s"decimal${d.getBitWidth}").put("length", d.getPrecision * 1000 + d.getScale)
      case _: ArrowType.List => withChildren("list", children)
      case _: ArrowType.LargeList => withChildren("large_list", children)
      case l: ArrowType.FixedSizeList => withChildren("fixed_size_list", children).put("length", l.getListSize)
      case _: ArrowType.Struct => withChildren("struct", children)
      case _: ArrowType.Map => withChildren("map", children)
      case other => throw new UnsupportedOperationException(s"$other has no JsonArrowDataType form")
    }
  }
}
