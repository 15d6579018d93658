// The spec's well-known transforms, one case per kind (spec: Transform Schema, Supported Transforms).
package lancepart.transform

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.catalyst.util.DateTimeConstants.{MICROS_PER_DAY, MICROS_PER_HOUR}
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * A well-known transform: its names (spec JSON, PARTITIONED BY, the catalog's V2 function), the
 * type of its values, how it computes them from Spark internal values, and what partition pruning
 * and storage-partitioned joins may rely on.
 */
sealed trait Transform extends Serializable {

  /** The kind's name in the spec's JSON (`transform.type`). */
  def jsonName: String

  /** The catalog's V2 function computing it, also the PARTITIONED BY name adding this field alone
   * (`lance_day(ts)`: the day of month, not a calendar run). */
  def functionName: String = s"lance_$jsonName"

  /** Spark's own PARTITIONED BY transform that adds this field alone, if there is one. */
  def sparkName: Option[String] = None

  /** The number of buckets or the width, for kinds that take one ([[Transform.Parameterized]]). */
  def parameter: Option[Int] = None

  /** True for kinds over several source columns (the others take exactly one). */
  def multiSource: Boolean = false

  /** The field id PARTITIONED BY gives this field over `columns`. */
  def fieldId(columns: Seq[String]): String

  /** The type of its values over sources of `types`, or a message saying why it does not apply. */
  def resultType(types: Seq[DataType]): Either[String, DataType]

  /** Its value for source values `inputs` (with their types); NULL in, NULL out. */
  def apply(inputs: Seq[(Any, DataType)]): Any

  /** True when `a <= b` implies `t(a) <= t(b)`: a range on the source projects to a range of values. */
  def preservesOrder: Boolean

  /** The code points of a string it keeps, when its value is the string's prefix: `starts_with`
   * projects onto it. */
  def stringPrefix: Option[Int] = None

  /** True when scans may report it for storage-partitioned joins: Spark matches reported
   * transforms by function and column alone, so a width or several sources would go unseen. */
  def reportable: Boolean

  /** Writes it as the spec's `transform` object. */
  def writeJson(node: ObjectNode): Unit = node.put("type", jsonName)

  protected def oneSource(
      types: Seq[DataType],
      accepts: DataType => Boolean,
      result: DataType => DataType,
      accepted: String): Either[String, DataType] = types match {
    case Seq(dt) if accepts(dt) => Right(result(dt))
    case Seq(dt) => Left(s"transform '$jsonName' does not apply to ${dt.sql} (it takes $accepted)")
    case _ => Left(s"transform '$jsonName' needs exactly one source id, got ${types.size}")
  }
}

object Transform {

  /** Spark's own identity transform: the catalog has no function for it. */
  case object Identity extends Transform {
    val jsonName = "identity"
    override def functionName: String = jsonName
    override def sparkName: Option[String] = Some(jsonName)
    def fieldId(columns: Seq[String]): String = columns.head
    def resultType(types: Seq[DataType]): Either[String, DataType] = oneSource(types, _ => true, identity, "any type")
    def apply(inputs: Seq[(Any, DataType)]): Any = inputs.head._1
    val preservesOrder = true
    val reportable = true
  }

  /** year, month (1-12), day of month (1-31) or hour (0-23): from UTC for TIMESTAMP, from the wall
   * clock for TIMESTAMP_NTZ. */
  sealed abstract class CalendarField(val jsonName: String) extends Transform {

    /** Spark's PARTITIONED BY transform of the calendar run from year down to this field
     * (`days(ts)` is year, month and day: one partition per calendar day). */
    def runName: String = s"${jsonName}s"

    /** The calendar run from year down to this field. */
    def run: Seq[CalendarField] = Calendar.take(Calendar.indexOf(this) + 1)

    protected def of(days: Int, microsOfDay: Long): Int

    def fieldId(columns: Seq[String]): String = s"${columns.head}_$jsonName"
    def resultType(types: Seq[DataType]): Either[String, DataType] =
      oneSource(types, isTemporal, _ => IntegerType, "date, timestamp or timestamp_ntz")
    private def isTemporal(dt: DataType): Boolean = dt == DateType || dt == TimestampType || dt == TimestampNTZType

    def apply(inputs: Seq[(Any, DataType)]): Any = inputs.head match {
      case (null, _) => null
      case (days: Int, DateType) => of(days, 0L)
      case (us: Long, TimestampType | TimestampNTZType) =>
        of(Math.floorDiv(us, MICROS_PER_DAY).toInt, Math.floorMod(us, MICROS_PER_DAY))
      case (_, dt) => throw new IllegalArgumentException(s"$jsonName does not apply to ${dt.sql}")
    }
    val reportable = true
  }

  case object Year extends CalendarField("year") {
    protected def of(days: Int, microsOfDay: Long): Int = DateTimeUtils.getYear(days)
    val preservesOrder = true
  }

  case object Month extends CalendarField("month") {
    protected def of(days: Int, microsOfDay: Long): Int = DateTimeUtils.getMonth(days)
    val preservesOrder = false
  }

  case object Day extends CalendarField("day") {
    protected def of(days: Int, microsOfDay: Long): Int = DateTimeUtils.getDayOfMonth(days)
    val preservesOrder = false
  }

  case object Hour extends CalendarField("hour") {
    protected def of(days: Int, microsOfDay: Long): Int = (microsOfDay / MICROS_PER_HOUR).toInt
    override def resultType(types: Seq[DataType]): Either[String, DataType] =
      oneSource(
        types,
        dt => dt == TimestampType || dt == TimestampNTZType,
        _ => IntegerType,
        "timestamp or timestamp_ntz")
    val preservesOrder = false
  }

  /** The calendar fields, from year down. */
  val Calendar: Seq[CalendarField] = Seq(Year, Month, Day, Hour)

  /** A kind with a positive integer parameter, under `jsonKey` in the spec's JSON. */
  sealed abstract class Parameterized(val jsonName: String, val jsonKey: String, val parameterName: String)
      extends Transform {
    def value: Int
    def withParameter(p: Int): Parameterized
    override def parameter: Option[Int] = Some(value)
    override def writeJson(node: ObjectNode): Unit = {
      super.writeJson(node)
      node.put(jsonKey, value)
    }
  }

  case class Bucket(numBuckets: Int) extends Parameterized("bucket", "num_buckets", "number of buckets") {
    def value: Int = numBuckets
    def withParameter(p: Int): Parameterized = Bucket(p)
    override def sparkName: Option[String] = Some(jsonName)
    def fieldId(columns: Seq[String]): String = s"${columns.head}_bucket_$numBuckets"
    def resultType(types: Seq[DataType]): Either[String, DataType] =
      oneSource(types, BucketHash.supports, _ => IntegerType, "a hashable type")
    def apply(inputs: Seq[(Any, DataType)]): Any =
      BucketHash.hash(inputs.head._1, inputs.head._2).map(BucketHash.bucket(_, numBuckets)).orNull
    val preservesOrder = false
    val reportable = true
  }

  case class MultiBucket(numBuckets: Int) extends Parameterized("multi_bucket", "num_buckets", "number of buckets") {
    def value: Int = numBuckets
    def withParameter(p: Int): Parameterized = MultiBucket(p)
    override def sparkName: Option[String] = Some("bucket")
    override def multiSource: Boolean = true
    def fieldId(columns: Seq[String]): String = s"${columns.mkString("_")}_bucket_$numBuckets"
    def resultType(types: Seq[DataType]): Either[String, DataType] =
      if (types.isEmpty) Left("transform 'multi_bucket' needs source ids")
      else types.find(!BucketHash.supports(_)).map(dt => Left(s"multi_bucket cannot hash ${dt.sql}"))
        .getOrElse(Right(IntegerType))
    def apply(inputs: Seq[(Any, DataType)]): Any =
      BucketHash.hashMulti(inputs).map(BucketHash.bucket(_, numBuckets)).orNull
    val preservesOrder = false
    val reportable = false
  }

  /** Strings keep their first `width` code points; numbers become `v - (v % width)`, the
   * remainder taking the dividend's sign (so truncation is toward zero). */
  case class Truncate(width: Int) extends Parameterized("truncate", "width", "width") {
    def value: Int = width
    def withParameter(p: Int): Parameterized = Truncate(p)
    override def sparkName: Option[String] = Some(jsonName)
    def fieldId(columns: Seq[String]): String = s"${columns.head}_trunc_$width"
    def resultType(types: Seq[DataType]): Either[String, DataType] = oneSource(
      types,
      {
        case StringType | ByteType | ShortType | IntegerType | LongType | _: DecimalType => true
        case _ => false
      },
      identity,
      "string, integer or decimal")
    def apply(inputs: Seq[(Any, DataType)]): Any = inputs.head match {
      case (null, _) => null
      case (s: UTF8String, StringType) => if (s.numChars() <= width) s else s.substring(0, width)
      case (n: Byte, ByteType) => (n - n % width).toByte
      case (n: Short, ShortType) => (n - n % width).toShort
      case (n: Int, IntegerType) => n - n % width
      case (n: Long, LongType) => n - n % width
      case (d: Decimal, t: DecimalType) =>
        val v = d.toJavaBigDecimal
        Decimal(v.subtract(v.remainder(java.math.BigDecimal.valueOf(width.toLong))), t.precision, t.scale)
      case (_, dt) => throw new IllegalArgumentException(s"truncate does not apply to ${dt.sql}")
    }
    val preservesOrder = true
    override def stringPrefix: Option[Int] = Some(width)
    val reportable = false
  }

  /** One transform of each kind, 1 standing in for a parameter. */
  val Kinds: Seq[Transform] = Seq(Identity) ++ Calendar ++ Seq(Bucket(1), MultiBucket(1), Truncate(1))

  /** The transform a spec's `transform` object describes, or a message saying what is wrong. Every
   * parameter key present must hold a positive integer, also one the kind does not take. */
  def fromJson(node: JsonNode): Either[String, Transform] = {
    val keys = Kinds.collect { case p: Parameterized => p.jsonKey }.distinct
    val present = keys.flatMap(key => Option(node.get(key)).filterNot(_.isNull).map(key -> _))
    for {
      name <- Option(node.get("type")).filter(_.isTextual).map(_.asText()).toRight("transform: 'type' must be a string")
      kind <- Kinds.find(_.jsonName == name).toRight(s"unknown transform type '$name'")
      _ <- present.collectFirst { case (key, n) if !n.isIntegralNumber || n.asInt() <= 0 => key }
        .map(key => s"transform '$name' needs a positive integer '$key'").toLeft(())
      transform <- kind match {
        case p: Parameterized => present.collectFirst { case (p.jsonKey, n) => p.withParameter(n.asInt()) }
            .toRight(s"transform '$name' needs a positive integer '${p.jsonKey}'")
        case other => Right(other)
      }
    } yield transform
  }

  /** The fields of a PARTITIONED BY item `name(params..., columns)`, none when it names no
   * transform: Spark's years ... hours add a calendar run ([[CalendarField.runName]]); Spark's
   * identity, bucket (of one column: bucket, of several: multi_bucket) and truncate, and the
   * catalog's functions (`lance_day`) add one field. */
  def fromDdl(name: String, params: Seq[Int], columns: Int): Seq[Transform] =
    Calendar.find(_.runName == name).filter(_ => params.isEmpty).map(_.run).getOrElse {
      val named =
        Kinds.filter(k => (k.functionName == name || k.sparkName.contains(name)) && k.parameter.size == params.size)
      named.find(k => if (k.multiSource) columns >= 1 else columns == 1).orElse(named.headOption).toSeq.map {
        case p: Parameterized => p.withParameter(params.head)
        case other => other
      }
    }
}
