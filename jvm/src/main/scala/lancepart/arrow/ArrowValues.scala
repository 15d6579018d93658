// Values between Arrow vectors of every type Lance stores and Spark's internal representation:
// the one place stored numbers become Spark's (microseconds, days) and back (docs/format.md, "Types").
package lancepart.arrow

import java.math.{BigDecimal => JBigDecimal, BigInteger}

import org.apache.arrow.memory.util.Float16
import org.apache.arrow.vector._
import org.apache.arrow.vector.types.TimeUnit
import org.apache.arrow.vector.types.pojo.ArrowType
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String

/** A value that the stored Arrow type cannot hold; the message says why, the caller says where. */
class UnstorableValue(message: String) extends IllegalArgumentException(message)

/**
 * Values are Spark's internal forms of [[ArrowTypes.toSpark]]'s types: Boolean, Byte, Short, Int,
 * Long, Float, Double, UTF8String, Array[Byte], Int days for dates, Long microseconds for
 * timestamps, times of day and durations, Decimal; null for NULL. Reading floors what is finer
 * than a microsecond (or a day, for date64); writing refuses a value the stored type cannot hold
 * exactly, naming the type and the reason, and never wraps.
 */
object ArrowValues {
  private val MillisPerDay = 86400000L
  private val MicrosPerDay = 86400000000L
  private val MaxUInt64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE)

  def get(v: ValueVector, i: Int): Any = if (v.isNull(i)) null
  else v match {
    case b: BitVector => b.get(i) == 1
    case t: TinyIntVector => t.get(i)
    case s: SmallIntVector => s.get(i)
    case n: IntVector => n.get(i)
    case n: BigIntVector => n.get(i)
    case n: UInt1Vector => UInt1Vector.getNoOverflow(n.getDataBuffer, i)
    case n: UInt2Vector => n.get(i).toInt
    case n: UInt4Vector => Integer.toUnsignedLong(n.get(i))
    case n: UInt8Vector => Decimal(new JBigDecimal(n.getObjectNoOverflow(i)), 20, 0)
    case f: Float2Vector => f.getValueAsFloat(i)
    case f: Float4Vector => f.get(i)
    case d: Float8Vector => d.get(i)
    case s: VarCharVector => UTF8String.fromBytes(s.get(i))
    case s: LargeVarCharVector => UTF8String.fromBytes(s.get(i))
    case b: VarBinaryVector => b.get(i)
    case b: LargeVarBinaryVector => b.get(i)
    case b: FixedSizeBinaryVector => b.get(i)
    case d: DateDayVector => d.get(i)
    case d: DateMilliVector => Math.floorDiv(d.get(i), MillisPerDay).toInt
    case t: TimeSecVector => toMicros(t.get(i), TimeUnit.SECOND)
    case t: TimeMilliVector => toMicros(t.get(i), TimeUnit.MILLISECOND)
    case t: TimeMicroVector => t.get(i)
    case t: TimeNanoVector => toMicros(t.get(i), TimeUnit.NANOSECOND)
    case t: TimeStampVector => toMicros(t.get(i), timestampUnit(t))
    case d: DurationVector => toMicros(DurationVector.get(d.getDataBuffer, i), d.getUnit)
    case d: DecimalVector => decimal(d.getObject(i), d.getField.getType)
    case d: Decimal256Vector => decimal(d.getObject(i), d.getField.getType)
    case other => throw new UnsupportedArrowType(
        s"column '${other.getField.getName}' has type ${ArrowTypes.name(other.getField.getType)}, which has no scalar value")
  }

  def set(v: FieldVector, i: Int, value: Any): Unit = if (value == null) v.setNull(i)
  else (v, value) match {
    case (b: BitVector, x: Boolean) => b.setSafe(i, if (x) 1 else 0)
    case (t: TinyIntVector, x: Byte) => t.setSafe(i, x)
    case (s: SmallIntVector, x: Short) => s.setSafe(i, x)
    case (n: IntVector, x: Int) => n.setSafe(i, x)
    case (n: BigIntVector, x: Long) => n.setSafe(i, x)
    case (n: UInt1Vector, x: Short) => n.setSafe(i, unsigned(x, 0xffL, "uint8").toInt)
    case (n: UInt2Vector, x: Int) => n.setSafe(i, unsigned(x, 0xffffL, "uint16").toInt)
    case (n: UInt4Vector, x: Long) => n.setSafe(i, unsigned(x, 0xffffffffL, "uint32").toInt)
    case (n: UInt8Vector, x: Long) => n.setSafe(i, x) // a Lance version number: its unsigned 64 bits
    case (n: UInt8Vector, x: Decimal) =>
      val big = x.toJavaBigDecimal
      if (big.signum < 0 || big.compareTo(new JBigDecimal(MaxUInt64)) > 0 || big.stripTrailingZeros.scale > 0) {
        throw new UnstorableValue(s"uint64 holds the integers 0 to $MaxUInt64")
      }
      n.setSafe(i, big.toBigIntegerExact.longValue)
    case (f: Float2Vector, x: Float) =>
      val half = Float16.toFloat16(x) // rounded to the nearest float16, as every cast to it is
      if (!x.isInfinite && Float16.toFloat(half).isInfinite) {
        throw new UnstorableValue("float16 holds finite values up to 65504 in magnitude")
      }
      f.setSafe(i, half)
    case (f: Float4Vector, x: Float) => f.setSafe(i, x)
    case (d: Float8Vector, x: Double) => d.setSafe(i, x)
    case (s: VarCharVector, x: UTF8String) => s.setSafe(i, x.getBytes)
    case (s: VarCharVector, x: String) => s.setSafe(i, x.getBytes("UTF-8"))
    case (s: LargeVarCharVector, x: UTF8String) => s.setSafe(i, x.getBytes)
    case (b: VarBinaryVector, x: Array[Byte]) => b.setSafe(i, x)
    case (b: LargeVarBinaryVector, x: Array[Byte]) => b.setSafe(i, x)
    case (b: FixedSizeBinaryVector, x: Array[Byte]) =>
      if (x.length != b.getByteWidth) throw new UnstorableValue(s"fixed_size_binary[${b.getByteWidth}] holds " +
        s"exactly ${b.getByteWidth} bytes, this value has ${x.length}")
      b.setSafe(i, x)
    case (d: DateDayVector, x: Int) => d.setSafe(i, x)
    case (d: DateMilliVector, x: Int) => d.setSafe(i, x * MillisPerDay)
    case (t: TimeSecVector, x: Long) => t.setSafe(i, fromMicros(timeOfDay(x), TimeUnit.SECOND, "time32[s]").toInt)
    case (t: TimeMilliVector, x: Long) =>
      t.setSafe(i, fromMicros(timeOfDay(x), TimeUnit.MILLISECOND, "time32[ms]").toInt)
    case (t: TimeMicroVector, x: Long) => t.setSafe(i, timeOfDay(x))
    case (t: TimeNanoVector, x: Long) => t.setSafe(i, fromMicros(timeOfDay(x), TimeUnit.NANOSECOND, "time64[ns]"))
    case (t: TimeStampVector, x: Long) =>
      t.setSafe(i, fromMicros(x, timestampUnit(t), ArrowTypes.name(t.getField.getType)))
    case (d: DurationVector, x: Long) => d.setSafe(i, fromMicros(x, d.getUnit, ArrowTypes.name(d.getField.getType)))
    case (d: DecimalVector, x: Decimal) => d.setSafe(i, x.toJavaBigDecimal.setScale(d.getScale))
    case (d: Decimal256Vector, x: Decimal) => d.setSafe(i, x.toJavaBigDecimal.setScale(d.getScale))
    case _ => throw new IllegalArgumentException(
        s"cannot store ${value.getClass.getSimpleName} '$value' in column '${v.getField.getName}' of type ${v.getField.getType}")
  }

  private def decimal(d: JBigDecimal, t: ArrowType): Decimal = {
    val dt = t.asInstanceOf[ArrowType.Decimal]
    Decimal(d, dt.getPrecision, dt.getScale)
  }

  private def timestampUnit(t: TimeStampVector): TimeUnit = t.getField.getType.asInstanceOf[ArrowType.Timestamp].getUnit

  private def unsigned(x: Long, max: Long, name: String): Long =
    if (x < 0 || x > max) throw new UnstorableValue(s"$name holds 0 to $max") else x

  private def timeOfDay(micros: Long): Long =
    if (micros < 0 || micros >= MicrosPerDay) {
      throw new UnstorableValue(s"a time of day is 0 to ${MicrosPerDay - 1} microseconds since midnight")
    } else micros

  /** Microseconds of a stored count of `unit`s; finer units are floored. */
  private def toMicros(v: Long, unit: TimeUnit): Long = unit match {
    case TimeUnit.SECOND => Math.multiplyExact(v, 1000000L)
    case TimeUnit.MILLISECOND => Math.multiplyExact(v, 1000L)
    case TimeUnit.MICROSECOND => v
    case TimeUnit.NANOSECOND => Math.floorDiv(v, 1000L)
  }

  /** The count of `unit`s of type `name` holding `micros` exactly, refused when there is none. */
  private def fromMicros(micros: Long, unit: TimeUnit, name: String): Long = {
    def coarser(per: Long, unitName: String): Long =
      if (micros % per != 0) throw new UnstorableValue(s"$name holds whole $unitName, not fractions of them")
      else micros / per
    unit match {
      case TimeUnit.SECOND => coarser(1000000L, "seconds")
      case TimeUnit.MILLISECOND => coarser(1000L, "milliseconds")
      case TimeUnit.MICROSECOND => micros
      case TimeUnit.NANOSECOND =>
        try Math.multiplyExact(micros, 1000L)
        catch {
          case _: ArithmeticException => throw new UnstorableValue(
              s"$name holds nanoseconds as a 64-bit number, which ends within the years 1677 to 2262")
        }
    }
  }
}
