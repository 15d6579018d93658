// Values (Spark internal form) as JSON: dates and timestamps ISO-8601, decimals as text, binary as hex.
package lancepart.manifest

import java.time.{Instant, LocalDate, LocalDateTime, ZoneOffset}

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.JsonNodeFactory
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

object JsonValues {
  private val nodes = JsonNodeFactory.instance

  def toJson(value: Any, dt: DataType): JsonNode = (value, dt) match {
    case (null, _) => nodes.nullNode()
    case (b: Boolean, _) => nodes.booleanNode(b)
    case (d: Int, DateType) => nodes.textNode(LocalDate.ofEpochDay(d).toString)
    case (t: Long, TimestampType) => nodes.textNode(instant(t).toString)
    case (t: Long, TimestampNTZType) => nodes.textNode(instant(t).atOffset(ZoneOffset.UTC).toLocalDateTime.toString)
    case (d: Decimal, _) => nodes.textNode(d.toJavaBigDecimal.toPlainString)
    case (b: Array[Byte], BinaryType) => nodes.textNode(b.map(x => f"${x & 0xff}%02x").mkString)
    case (f: Float, _) => nodes.numberNode(f)
    case (d: Double, _) => nodes.numberNode(d)
    case (n: Byte, _) => nodes.numberNode(n)
    case (n: Short, _) => nodes.numberNode(n)
    case (n: Int, _) => nodes.numberNode(n)
    case (n: Long, _) => nodes.numberNode(n)
    case (other, _) => nodes.textNode(other.toString)
  }

  /** The inverse of [[toJson]]. */
  def fromJson(node: JsonNode, dt: DataType): Any = if (node == null || node.isNull) null
  else dt match {
    case BooleanType => node.asBoolean()
    case ByteType => node.asInt().toByte
    case ShortType => node.asInt().toShort
    case IntegerType => node.asInt()
    case LongType => node.asLong()
    case FloatType => node.asText().toFloat
    case DoubleType => node.asText().toDouble
    case DateType => LocalDate.parse(node.asText()).toEpochDay.toInt
    case TimestampType => DateTimeUtils.instantToMicros(Instant.parse(node.asText()))
    case TimestampNTZType => DateTimeUtils.instantToMicros(LocalDateTime.parse(node.asText()).toInstant(ZoneOffset.UTC))
    case d: DecimalType => Decimal(new java.math.BigDecimal(node.asText()), d.precision, d.scale)
    case StringType => UTF8String.fromString(node.asText())
    case BinaryType => node.asText().grouped(2).map(Integer.parseInt(_, 16).toByte).toArray
    case other => throw new IllegalArgumentException(s"no JSON form for ${other.sql}")
  }

  private def instant(micros: Long): Instant =
    Instant.ofEpochSecond(Math.floorDiv(micros, 1000000L), Math.floorMod(micros, 1000000L) * 1000L)
}
