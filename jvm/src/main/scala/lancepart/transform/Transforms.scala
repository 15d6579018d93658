// The spec's well-known transforms evaluated on Spark internal values (spec: Partition Transform).
// Calendar fields come from UTC for TIMESTAMP and from the wall clock for TIMESTAMP_NTZ.
package lancepart.transform

import org.apache.spark.sql.catalyst.util.DateTimeConstants.{MICROS_PER_DAY, MICROS_PER_HOUR}
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

object Transforms {
  /** The value of `transform` for source values `inputs` (with their types); NULL in, NULL out. */
  def apply(transform: Transform, inputs: Seq[(Any, DataType)]): Any = transform.kind match {
    case Transform.Identity => inputs.head._1
    case "year" | "month" | "day" | "hour" => calendar(transform.kind, inputs.head._1, inputs.head._2)
    case "bucket" =>
      BucketHash.hash(inputs.head._1, inputs.head._2).map(BucketHash.bucket(_, transform.numBuckets.get)).orNull
    case "multi_bucket" =>
      BucketHash.hashMulti(inputs).map(BucketHash.bucket(_, transform.numBuckets.get)).orNull
    case "truncate" => truncate(inputs.head._1, inputs.head._2, transform.width.get)
  }

  /** year, month (1-12), day of month (1-31) or hour (0-23) of a date or timestamp value. */
  def calendar(kind: String, value: Any, dt: DataType): Any = if (value == null) null else {
    val (days, micros) = dt match {
      case DateType => (value.asInstanceOf[Int], 0L)
      case TimestampType | TimestampNTZType =>
        val us = value.asInstanceOf[Long]
        (Math.floorDiv(us, MICROS_PER_DAY).toInt, Math.floorMod(us, MICROS_PER_DAY))
    }
    kind match {
      case "year" => DateTimeUtils.getYear(days)
      case "month" => DateTimeUtils.getMonth(days)
      case "day" => DateTimeUtils.getDayOfMonth(days)
      case "hour" => (micros / MICROS_PER_HOUR).toInt
    }
  }

  /** Strings keep their first `width` code points; numbers become `v - (v % width)`, the
   * remainder taking the dividend's sign (so truncation is toward zero). */
  def truncate(value: Any, dt: DataType, width: Int): Any = (value, dt) match {
    case (null, _) => null
    case (s: UTF8String, StringType) => if (s.numChars() <= width) s else s.substring(0, width)
    case (n: Byte, ByteType) => (n - n % width).toByte
    case (n: Short, ShortType) => (n - n % width).toShort
    case (n: Int, IntegerType) => n - n % width
    case (n: Long, LongType) => n - n % width
    case (d: Decimal, t: DecimalType) =>
      val v = d.toJavaBigDecimal
      Decimal(v.subtract(v.remainder(java.math.BigDecimal.valueOf(width.toLong))), t.precision, t.scale)
    case _ => throw new IllegalArgumentException(s"truncate does not apply to ${dt.sql}")
  }
}
