// Arrow types and Spark types (docs/format.md, "Types"): every type Lance stores read as the
// closest Spark type without loss, and the Arrow type a new column of a Spark type is stored as.
package lancepart.arrow

import org.apache.arrow.vector.types.{DateUnit, FloatingPointPrecision, TimeUnit}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType}
import org.apache.spark.sql.lancepart.ArrowBridge
import org.apache.spark.sql.types._

import scala.jdk.CollectionConverters._

/** A stored Arrow type that lancepart cannot read; the message names where it is and why. */
class UnsupportedArrowType(message: String) extends IllegalArgumentException(message)

object ArrowTypes {

  /** Spark field metadata key: an ARRAY column stored as an Arrow `fixed_size_list` of this many
   * elements (set on the columns of a table that has one, and taken by CREATE TABLE). */
  val FixedSizeListKey = "arrow.fixed-size-list.size"

  /**
   * The Spark type values of `field` are read as: unsigned integers as the next wider signed type
   * (uint64 as DECIMAL(20,0)), float16 as FLOAT, date64 as DATE, time32/time64 as BIGINT
   * microseconds since midnight, durations as INTERVAL DAY TO SECOND, timestamps of any unit as
   * TIMESTAMP_NTZ or, zoned, TIMESTAMP, decimal256 as DECIMAL, fixed-size lists as ARRAY and
   * fixed-size binary as BINARY. `what` names the field in the error a type without a Spark
   * form raises.
   */
  def toSpark(field: Field, what: String): DataType = {
    def children = field.getChildren.asScala.toSeq
    def unsupported(reason: String) =
      throw new UnsupportedArrowType(
        s"$what has Arrow type ${name(field.getType)}, which lancepart cannot read: $reason")
    if (field.getDictionary != null) unsupported("it is dictionary-encoded, which Spark has no type for")
    field.getType match {
      case _: ArrowType.Bool => BooleanType
      case i: ArrowType.Int => (i.getIsSigned, i.getBitWidth) match {
          case (true, 8) => ByteType
          case (true, 16) | (false, 8) => ShortType
          case (true, 32) | (false, 16) => IntegerType
          case (true, 64) | (false, 32) => LongType
          case _ => DecimalType(20, 0)
        }
      case f: ArrowType.FloatingPoint =>
        if (f.getPrecision == FloatingPointPrecision.DOUBLE) DoubleType else FloatType
      case d: ArrowType.Decimal =>
        if (d.getPrecision > DecimalType.MAX_PRECISION) {
          unsupported(s"its precision ${d.getPrecision} is above Spark's largest, ${DecimalType.MAX_PRECISION}")
        }
        if (d.getScale < 0) unsupported("Spark has no decimals of negative scale")
        DecimalType(d.getPrecision, d.getScale)
      case _: ArrowType.Utf8 | _: ArrowType.LargeUtf8 => StringType
      case _: ArrowType.Binary | _: ArrowType.LargeBinary | _: ArrowType.FixedSizeBinary => BinaryType
      case _: ArrowType.Date => DateType
      case _: ArrowType.Time => LongType
      case t: ArrowType.Timestamp => if (t.getTimezone == null) TimestampNTZType else TimestampType
      case _: ArrowType.Duration => DayTimeIntervalType()
      case _: ArrowType.List | _: ArrowType.LargeList | _: ArrowType.FixedSizeList =>
        val item = children.head
        ArrayType(toSpark(item, s"$what, element"), item.isNullable)
      case _: ArrowType.Struct =>
        StructType(children.map(c => StructField(c.getName, toSpark(c, s"$what, field '${c.getName}'"), c.isNullable)))
      case _: ArrowType.Map =>
        val Seq(key, value) = children.head.getChildren.asScala.toSeq
        MapType(toSpark(key, s"$what, key"), toSpark(value, s"$what, value"), value.isNullable)
      case _ => unsupported("it has no Spark type (supported: see docs/format.md, \"Types\")")
    }
  }

  /** The first field in `f` (itself or nested) whose values are finer than Spark holds them
   * (nanosecond timestamps, times and durations: Spark reads microseconds), with its path. */
  def finerThanSpark(f: Field, path: String = ""): Option[(String, Field)] = {
    val here = if (path.isEmpty) f.getName else s"$path.${f.getName}"
    val nanos = f.getType match {
      case t: ArrowType.Timestamp => t.getUnit == TimeUnit.NANOSECOND
      case t: ArrowType.Time => t.getUnit == TimeUnit.NANOSECOND
      case t: ArrowType.Duration => t.getUnit == TimeUnit.NANOSECOND
      case _ => false
    }
    if (nanos) Some(here -> f) else f.getChildren.asScala.flatMap(finerThanSpark(_, here)).headOption
  }

  /** `t` as pyarrow names it (`uint8`, `timestamp[ns, tz=UTC]`, `fixed_size_list[3]`), for messages. */
  def name(t: ArrowType): String = {
    def unit(u: TimeUnit) = u match {
      case TimeUnit.SECOND => "s"; case TimeUnit.MILLISECOND => "ms"; case TimeUnit.MICROSECOND => "us"
      case TimeUnit.NANOSECOND => "ns"
    }
    t match {
      case i: ArrowType.Int => s"${if (i.getIsSigned) "" else "u"}int${i.getBitWidth}"
      case f: ArrowType.FloatingPoint => f.getPrecision match {
          case FloatingPointPrecision.HALF => "float16"; case FloatingPointPrecision.SINGLE => "float32"
          case FloatingPointPrecision.DOUBLE => "float64"
        }
      case d: ArrowType.Date => if (d.getUnit == DateUnit.DAY) "date32" else "date64"
      case t: ArrowType.Time => s"time${t.getBitWidth}[${unit(t.getUnit)}]"
      case t: ArrowType.Timestamp =>
        s"timestamp[${unit(t.getUnit)}${Option(t.getTimezone).fold("")(z => s", tz=$z")}]"
      case d: ArrowType.Duration => s"duration[${unit(d.getUnit)}]"
      case d: ArrowType.Decimal => s"decimal${d.getBitWidth}(${d.getPrecision}, ${d.getScale})"
      case b: ArrowType.FixedSizeBinary => s"fixed_size_binary[${b.getByteWidth}]"
      case l: ArrowType.FixedSizeList => s"fixed_size_list[${l.getListSize}]"
      case other => other.toString.toLowerCase(java.util.Locale.ROOT)
    }
  }

  /** The Arrow field Spark itself reads and writes values of `dt` as (zoned timestamps: UTC). */
  def sparkOwn(name: String, dt: DataType, nullable: Boolean): Field = ArrowBridge.toArrowField(name, dt, nullable)

  /** The Arrow field a new column `f` is stored as: Spark's own, but a fixed-size list for an
   * ARRAY (also inside a struct) whose field metadata has [[FixedSizeListKey]]. */
  def stored(f: StructField): Field = (f.dataType, fixedSize(f)) match {
    case (ArrayType(element, containsNull), Some(size)) =>
      val item = sparkOwn("element", element, containsNull)
      new Field(f.name, new FieldType(f.nullable, new ArrowType.FixedSizeList(size), null), Seq(item).asJava)
    case (s: StructType, _) =>
      new Field(f.name, new FieldType(f.nullable, ArrowType.Struct.INSTANCE, null), s.fields.toSeq.map(stored).asJava)
    case _ => sparkOwn(f.name, f.dataType, f.nullable)
  }

  /** The size `f`'s metadata gives its fixed-size list, refused unless positive. */
  private def fixedSize(f: StructField): Option[Int] =
    if (!f.metadata.contains(FixedSizeListKey)) None
    else {
      val size = scala.util.Try(f.metadata.getLong(FixedSizeListKey)).filter(n => n > 0 && n.isValidInt)
      Some(size.getOrElse(throw new IllegalArgumentException(s"column '${f.name}': $FixedSizeListKey must be a " +
        s"positive integer, got ${f.metadata.json}")).toInt)
    }

  /** `f` as a Spark column: a fixed-size list says its size in the field metadata. */
  def sparkField(f: Field, name: String, dt: DataType, nullable: Boolean): StructField = f.getType match {
    case l: ArrowType.FixedSizeList =>
      StructField(name, dt, nullable, new MetadataBuilder().putLong(FixedSizeListKey, l.getListSize).build())
    case _ => StructField(name, dt, nullable)
  }

  /** True when `f` is the Arrow type Spark itself reads and writes for its Spark type, nested
   * fields included (names and nullability aside): Spark's Arrow vectors serve it directly. */
  def isSparkOwn(f: Field, what: String): Boolean = sameType(f, sparkOwn(f.getName, toSpark(f, what), f.isNullable))

  /** Whether Lance can add column `f` to existing rows as NULL: every field in it is nullable (a
   * map's entries and keys are not, so a MAP column is added only by writing rows). */
  def addableAsNull(f: Field): Boolean = f.isNullable && f.getChildren.asScala.forall(addableAsNull)

  /** Equal Arrow types, nested fields included (names and nullability aside). */
  def sameType(a: Field, b: Field): Boolean =
    a.getType == b.getType && a.getChildren.size == b.getChildren.size &&
      a.getChildren.asScala.zip(b.getChildren.asScala).forall { case (x, y) => sameType(x, y) }

  /**
   * True when values of Spark type `a` are those of `b`: equal types, or TIMESTAMP and
   * TIMESTAMP_NTZ (a zoned and a plain Arrow timestamp hold the same number, microseconds since
   * the epoch in UTC), nested types alike, nullability aside.
   */
  def sameValues(a: DataType, b: DataType): Boolean = (a, b) match {
    case (TimestampType | TimestampNTZType, TimestampType | TimestampNTZType) => true
    case (x: ArrayType, y: ArrayType) => sameValues(x.elementType, y.elementType)
    case (x: MapType, y: MapType) => sameValues(x.keyType, y.keyType) && sameValues(x.valueType, y.valueType)
    case (x: StructType, y: StructType) =>
      x.length == y.length && x.fields.zip(y.fields).forall { case (f, g) =>
        f.name == g.name && sameValues(f.dataType, g.dataType)
      }
    case _ => a == b
  }
}
