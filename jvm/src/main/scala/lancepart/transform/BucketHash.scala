// The bucket hash (spec: Hash Functions): Lance's murmur3 / murmur3_multi DataFusion extensions,
// murmur3 x86_32 with seed 0 over each value's native bytes (docs/format.md, "Bucket hash").
package lancepart.transform

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.{ByteBuffer, ByteOrder}

import org.apache.spark.sql.types._
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.hash.Murmur3_x86_32
import org.apache.spark.unsafe.types.UTF8String

object BucketHash {

  /** murmur3 x86_32 with seed 0 of `bytes`: Spark's (hashUnsafeBytes2 is the standard algorithm;
   * Guava's, which Spark 4 ships, is missing from the Guava 14 of Spark 3.5). */
  private def murmur3(bytes: Array[Byte]): Int =
    Murmur3_x86_32.hashUnsafeBytes2(bytes, Platform.BYTE_ARRAY_OFFSET, bytes.length, 0)

  /** True when values of `dt` have an encoding. */
  def supports(dt: DataType): Boolean = dt match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | DateType | TimestampType |
        TimestampNTZType | FloatType | DoubleType | StringType | BinaryType | _: DecimalType => true
    case _ => false
  }

  /** The bytes hashed for a non-null value of type `dt` (Spark internal form): the Arrow value's
   * little-endian bytes at its own width (dates as int32 days, timestamps as int64 microseconds,
   * floats by their raw IEEE 754 bits), UTF-8 for strings, raw binary, and the UTF-8 of Arrow's
   * display string for the rest (`true`, decimals in plain notation with the type's scale). */
  def encode(value: Any, dt: DataType): Array[Byte] = (value, dt) match {
    case (b: Boolean, BooleanType) => b.toString.getBytes(UTF_8)
    case (n: Byte, ByteType) => Array(n)
    case (n: Short, ShortType) => buffer(2).putShort(n).array()
    case (n: Int, IntegerType | DateType) => buffer(4).putInt(n).array()
    case (n: Long, LongType | TimestampType | TimestampNTZType) => buffer(8).putLong(n).array()
    case (f: Float, FloatType) => buffer(4).putInt(java.lang.Float.floatToRawIntBits(f)).array()
    case (d: Double, DoubleType) => buffer(8).putLong(java.lang.Double.doubleToRawLongBits(d)).array()
    case (d: Decimal, t: DecimalType) => d.toJavaBigDecimal.setScale(t.scale).toPlainString.getBytes(UTF_8)
    case (s: UTF8String, StringType) => s.getBytes
    case (b: Array[Byte], BinaryType) => b
    case _ => throw new IllegalArgumentException(s"cannot hash ${value.getClass.getSimpleName} as ${dt.sql}")
  }

  /** murmur3 of one value; None for NULL. */
  def hash(value: Any, dt: DataType): Option[Int] =
    if (value == null) None else Some(murmur3(encode(value, dt)))

  /** murmur3_multi: the concatenated encodings of the non-null inputs; None when all are NULL. */
  def hashMulti(values: Seq[(Any, DataType)]): Option[Int] = {
    val parts = values.collect { case (v, dt) if v != null => encode(v, dt) }
    if (parts.isEmpty) None else Some(murmur3(parts.reduce(_ ++ _)))
  }

  /** abs(h) % N with abs taken in 64 bits, so h = -2^31 gives 2^31 % N (DataFusion's Int32
   * `abs` fails on -2^31 instead). */
  def bucket(hash: Int, numBuckets: Int): Int = (Math.abs(hash.toLong) % numBuckets).toInt

  /** True when a value of `from` and the same value as `to` hash differently: every change but a
   * decimal's precision (its display string keeps the scale). */
  def encodingChanges(from: DataType, to: DataType): Boolean = (from, to) match {
    case (a: DecimalType, b: DecimalType) => a.scale != b.scale
    case (a, b) => a != b
  }

  /** The values Spark's `=` treats as equal to `v` that hash differently: -0.0 with 0.0; None
   * for NaN, whose payload bits are not known. */
  def equalValues(v: Any): Option[Seq[Any]] = v match {
    case d: Double if d.isNaN => None
    case f: Float if f.isNaN => None
    case d: Double if d == 0.0 => Some(Seq(0.0, -0.0))
    case f: Float if f == 0.0f => Some(Seq(0.0f, -0.0f))
    case other => Some(Seq(other))
  }

  private def buffer(width: Int): ByteBuffer = ByteBuffer.allocate(width).order(ByteOrder.LITTLE_ENDIAN)
}
