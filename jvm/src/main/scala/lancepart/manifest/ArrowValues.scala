// Partition values between Arrow vectors and Spark's internal representation (manifest I/O only).
package lancepart.manifest

import org.apache.arrow.vector._
import org.apache.arrow.vector.types.TimeUnit
import org.apache.arrow.vector.types.pojo.ArrowType
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String

/**
 * Values are Spark's internal forms: Boolean, Byte, Short, Int, Long, UTF8String, Int days for
 * dates, Long microseconds for timestamps, Decimal; null for NULL.
 */
object ArrowValues {
  def get(v: ValueVector, i: Int): Any = if (v.isNull(i)) null
  else v match {
    case b: BitVector => b.get(i) == 1
    case t: TinyIntVector => t.get(i)
    case s: SmallIntVector => s.get(i)
    case n: IntVector => n.get(i)
    case n: BigIntVector => n.get(i)
    case n: UInt8Vector => n.get(i)
    case s: VarCharVector => UTF8String.fromBytes(s.get(i))
    case s: LargeVarCharVector => UTF8String.fromBytes(s.get(i))
    case d: DateDayVector => d.get(i)
    case d: DateMilliVector => Math.floorDiv(d.get(i), 86400000L).toInt
    case t: TimeStampVector =>
      val unit = t.getField.getType.asInstanceOf[ArrowType.Timestamp].getUnit
      toMicros(t.get(i), unit)
    case d: DecimalVector =>
      val dt = d.getField.getType.asInstanceOf[ArrowType.Decimal]
      Decimal(d.getObject(i), dt.getPrecision, dt.getScale)
    case other => throw new IllegalArgumentException(
        s"column '${other.getField.getName}' has type ${other.getField.getType}, which a partition value cannot have")
  }

  def set(v: ValueVector, i: Int, value: Any): Unit = if (value == null) {
    v match {
      case f: BaseFixedWidthVector => f.setNull(i); case b: BaseVariableWidthVector => b.setNull(i)
      case b: BaseLargeVariableWidthVector => b.setNull(i); case l: complex.ListVector => l.setNull(i)
    }
  } else (v, value) match {
    case (b: BitVector, x: Boolean) => b.setSafe(i, if (x) 1 else 0)
    case (t: TinyIntVector, x: Byte) => t.setSafe(i, x)
    case (s: SmallIntVector, x: Short) => s.setSafe(i, x)
    case (n: IntVector, x: Int) => n.setSafe(i, x)
    case (n: BigIntVector, x: Long) => n.setSafe(i, x)
    case (n: UInt8Vector, x: Long) => n.setSafe(i, x)
    case (s: VarCharVector, x: UTF8String) => s.setSafe(i, x.getBytes)
    case (s: VarCharVector, x: String) => s.setSafe(i, x.getBytes("UTF-8"))
    case (s: LargeVarCharVector, x: UTF8String) => s.setSafe(i, x.getBytes)
    case (d: DateDayVector, x: Int) => d.setSafe(i, x)
    case (t: TimeStampVector, x: Long) =>
      val unit = t.getField.getType.asInstanceOf[ArrowType.Timestamp].getUnit
      t.setSafe(i, fromMicros(x, unit))
    case (d: DecimalVector, x: Decimal) => d.setSafe(i, x.toJavaBigDecimal.setScale(d.getScale))
    case _ => throw new IllegalArgumentException(
        s"cannot store ${value.getClass.getSimpleName} '$value' in column '${v.getField.getName}' of type ${v.getField.getType}")
  }

  private def toMicros(v: Long, unit: TimeUnit): Long = unit match {
    case TimeUnit.SECOND => Math.multiplyExact(v, 1000000L)
    case TimeUnit.MILLISECOND => Math.multiplyExact(v, 1000L)
    case TimeUnit.MICROSECOND => v
    case TimeUnit.NANOSECOND => Math.floorDiv(v, 1000L)
  }

  private def fromMicros(v: Long, unit: TimeUnit): Long = unit match {
    case TimeUnit.SECOND => Math.floorDiv(v, 1000000L)
    case TimeUnit.MILLISECOND => Math.floorDiv(v, 1000L)
    case TimeUnit.MICROSECOND => v
    case TimeUnit.NANOSECOND => Math.multiplyExact(v, 1000L)
  }
}
