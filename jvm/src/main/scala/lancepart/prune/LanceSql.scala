// Spark V1 filters and values rendered as Lance SQL filter text (DataFusion dialect).
package lancepart.prune

import java.time.{Instant, LocalDate, LocalDateTime, ZoneOffset}

import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.sources._
import org.apache.spark.sql.types._

object LanceSql {
  /** `name` quoted for Lance SQL, or None when it cannot be quoted safely. */
  def column(name: String): Option[String] =
    if (name.contains("`") || name.isEmpty) None else Some(s"`$name`")

  /**
   * A literal comparable with a column of type `dt`, or None when the value has no exact
   * literal form (NaN, a type without one).
   */
  def literal(value: Any, dt: DataType): Option[String] = (value, dt) match {
    case (null, _) => Some("NULL")
    case (b: Boolean, BooleanType) => Some(b.toString)
    case (n: java.lang.Number, ByteType | ShortType | IntegerType | LongType) =>
      Some(n.longValue().toString)
    case (d: java.lang.Double, DoubleType) if !d.isNaN && !d.isInfinite => Some(d.toString)
    case (s: String, StringType) => Some(quote(s))
    case (d: java.sql.Date, DateType) => Some(s"DATE '${d.toLocalDate}'")
    case (d: LocalDate, DateType) => Some(s"DATE '$d'")
    case (t: java.sql.Timestamp, TimestampType) => Some(timestamp(DateTimeUtils.fromJavaTimestamp(t), zoned = true))
    case (t: Instant, TimestampType) => Some(timestamp(DateTimeUtils.instantToMicros(t), zoned = true))
    case (t: LocalDateTime, TimestampNTZType) =>
      Some(timestamp(DateTimeUtils.instantToMicros(t.toInstant(ZoneOffset.UTC)), zoned = false))
    case (d: java.math.BigDecimal, dec: DecimalType) =>
      Some(s"CAST('${d.toPlainString}' AS DECIMAL(${dec.precision}, ${dec.scale}))")
    case _ => None
  }

  private def timestamp(micros: Long, zoned: Boolean): String = {
    val tz = if (zoned) "Some(\"UTC\")" else "None"
    s"arrow_cast($micros, 'Timestamp(Microsecond, $tz)')"
  }

  def quote(s: String): String = "'" + s.replace("'", "''") + "'"

  /**
   * `filter` as Lance SQL over columns named by `target` (Spark column -> Lance column and its
   * type), or None when any part cannot be rendered exactly.
   */
  def render(filter: Filter, target: String => Option[(String, DataType)]): Option[String] = {
    def cmp(attr: String, op: String, v: Any): Option[String] =
      for ((c, dt) <- target(attr); l <- literal(v, dt) if v != null) yield s"$c $op $l"
    filter match {
      case EqualTo(a, v) => cmp(a, "=", v)
      case EqualNullSafe(a, null) => target(a).map { case (c, _) => s"$c IS NULL" }
      case EqualNullSafe(a, v) => cmp(a, "=", v)
      case GreaterThan(a, v) => cmp(a, ">", v)
      case GreaterThanOrEqual(a, v) => cmp(a, ">=", v)
      case LessThan(a, v) => cmp(a, "<", v)
      case LessThanOrEqual(a, v) => cmp(a, "<=", v)
      case In(a, vs) =>
        target(a).flatMap { case (c, dt) =>
          val lits = vs.filter(_ != null).map(literal(_, dt))
          if (lits.exists(_.isEmpty)) None
          else if (lits.isEmpty) Some("false")
          else Some(s"$c IN (${lits.flatten.distinct.mkString(", ")})")
        }
      case IsNull(a) => target(a).map { case (c, _) => s"$c IS NULL" }
      case IsNotNull(a) => target(a).map { case (c, _) => s"$c IS NOT NULL" }
      case StringStartsWith(a, p) =>
        target(a).collect { case (c, StringType) => s"starts_with($c, ${quote(p)})" }
      case And(l, r) => for (ls <- render(l, target); rs <- render(r, target)) yield s"($ls) AND ($rs)"
      case Or(l, r) => for (ls <- render(l, target); rs <- render(r, target)) yield s"($ls) OR ($rs)"
      case Not(c) => render(c, target).map(s => s"NOT ($s)")
      case _ => None
    }
  }
}
