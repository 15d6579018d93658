// The bucket hash (spec: Hash Functions): murmur3 x86_32, seed 0, over this project's value
// encodings (docs/format.md, "Bucket hash"), and the bucket number abs(h) % N in 64 bits.
package lancepart.transform

import java.nio.{ByteBuffer, ByteOrder}

import com.google.common.hash.Hashing
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

object BucketHash {
  private val murmur3 = Hashing.murmur3_32_fixed(0)

  /** True when values of `dt` have an encoding. */
  def supports(dt: DataType): Boolean = dt match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | DateType | TimestampType |
         TimestampNTZType | FloatType | DoubleType | StringType | BinaryType | _: DecimalType => true
    case _ => false
  }

  /** The bytes hashed for a non-null value of type `dt` (Spark internal form). */
  def encode(value: Any, dt: DataType): Array[Byte] = (value, dt) match {
    case (b: Boolean, BooleanType) => long(if (b) 1L else 0L)
    case (n: Byte, _) => long(n.toLong)
    case (n: Short, _) => long(n.toLong)
    case (n: Int, _) => long(n.toLong)
    case (n: Long, _) => long(n)
    case (f: Float, FloatType) => double(f.toDouble)
    case (d: Double, DoubleType) => double(d)
    case (d: Decimal, _: DecimalType) => d.toJavaBigDecimal.unscaledValue().toByteArray
    case (s: UTF8String, StringType) => s.getBytes
    case (b: Array[Byte], BinaryType) => b
    case _ => throw new IllegalArgumentException(s"cannot hash ${value.getClass.getSimpleName} as ${dt.sql}")
  }

  /** murmur3 of one value; None for NULL. */
  def hash(value: Any, dt: DataType): Option[Int] =
    if (value == null) None else Some(murmur3.hashBytes(encode(value, dt)).asInt())

  /** murmur3_multi: the concatenated encodings of the non-null inputs; None when all are NULL. */
  def hashMulti(values: Seq[(Any, DataType)]): Option[Int] = {
    val parts = values.collect { case (v, dt) if v != null => encode(v, dt) }
    if (parts.isEmpty) None else Some(murmur3.hashBytes(parts.reduce(_ ++ _)).asInt())
  }

  def bucket(hash: Int, numBuckets: Int): Int = (Math.abs(hash.toLong) % numBuckets).toInt

  private def long(v: Long): Array[Byte] =
    ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array()

  private def double(v: Double): Array[Byte] = {
    val canonical = if (v == 0.0) 0.0 else if (v.isNaN) Double.NaN else v
    long(java.lang.Double.doubleToLongBits(canonical))
  }
}
