// Partition values (Spark internal form) as JSON: dates and timestamps ISO-8601, decimals as text.
package lancepart.admin

import java.time.{Instant, LocalDate, ZoneOffset}

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.JsonNodeFactory
import org.apache.spark.sql.types._

object JsonValues {
  private val nodes = JsonNodeFactory.instance

  def toJson(value: Any, dt: DataType): JsonNode = (value, dt) match {
    case (null, _) => nodes.nullNode()
    case (b: Boolean, _) => nodes.booleanNode(b)
    case (d: Int, DateType) => nodes.textNode(LocalDate.ofEpochDay(d).toString)
    case (t: Long, TimestampType) => nodes.textNode(instant(t).toString)
    case (t: Long, TimestampNTZType) => nodes.textNode(instant(t).atOffset(ZoneOffset.UTC).toLocalDateTime.toString)
    case (d: Decimal, _) => nodes.textNode(d.toJavaBigDecimal.toPlainString)
    case (n: Byte, _) => nodes.numberNode(n)
    case (n: Short, _) => nodes.numberNode(n)
    case (n: Int, _) => nodes.numberNode(n)
    case (n: Long, _) => nodes.numberNode(n)
    case (other, _) => nodes.textNode(other.toString)
  }

  private def instant(micros: Long): Instant =
    Instant.ofEpochSecond(Math.floorDiv(micros, 1000000L), Math.floorMod(micros, 1000000L) * 1000L)
}
