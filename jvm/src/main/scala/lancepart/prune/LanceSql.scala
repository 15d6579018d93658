// Spark V1 filters and values rendered as Lance SQL filter text (DataFusion dialect).
package lancepart.prune

import java.time.LocalDate

import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.sources._
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

object LanceSql {
  /** `name` quoted for Lance SQL, or None when it cannot be quoted safely. */
  def column(name: String): Option[String] =
    if (name.contains("`") || name.isEmpty) None else Some(s"`$name`")

  /**
   * A filter value (Spark's external form: String, java.sql.Date or LocalDate, Timestamp or
   * Instant, LocalDateTime, BigDecimal, boxed numbers) as Spark's internal value of type `dt`, or
   * None when it is not exactly a value of that type.
   */
  def internal(value: Any, dt: DataType): Option[Any] = {
    val v = CatalystTypeConverters.convertToCatalyst(value)
    (v, dt) match {
      case (null, _) => Some(null)
      case (n @ (_: java.lang.Byte | _: java.lang.Short | _: java.lang.Integer | _: java.lang.Long),
            ByteType | ShortType | IntegerType | LongType) =>
        val l = n.asInstanceOf[java.lang.Number].longValue()
        dt match {
          case ByteType if l.isValidByte => Some(l.toByte)
          case ShortType if l.isValidShort => Some(l.toShort)
          case IntegerType if l.isValidInt => Some(l.toInt)
          case LongType => Some(l)
          case _ => None
        }
      case (b: Boolean, BooleanType) => Some(b)
      case (d: Double, DoubleType) => Some(d)
      case (s: UTF8String, StringType) => Some(s)
      case (d: Int, DateType) => Some(d)
      case (t: Long, TimestampType | TimestampNTZType) => Some(t)
      case (d: Decimal, t: DecimalType) =>
        val scaled = d.clone()
        if (scaled.changePrecision(t.precision, t.scale) && scaled.toJavaBigDecimal.compareTo(d.toJavaBigDecimal) == 0) Some(scaled)
        else None
      case _ => None
    }
  }

  /** A literal for Spark internal value `v` of type `dt`, or None when it has no exact form. */
  def literal(v: Any, dt: DataType): Option[String] = (v, dt) match {
    case (null, _) => Some("NULL")
    case (b: Boolean, BooleanType) => Some(b.toString)
    case (n: Byte, ByteType) => Some(n.toString)
    case (n: Short, ShortType) => Some(n.toString)
    case (n: Int, IntegerType) => Some(n.toString)
    case (n: Long, LongType) => Some(n.toString)
    case (d: Double, DoubleType) if !d.isNaN && !d.isInfinite => Some(d.toString)
    case (s: UTF8String, StringType) => Some(quote(s.toString))
    case (d: Int, DateType) => Some(s"DATE '${LocalDate.ofEpochDay(d)}'")
    case (t: Long, TimestampType) => Some(s"arrow_cast($t, 'Timestamp(Microsecond, Some(\"UTC\"))')")
    case (t: Long, TimestampNTZType) => Some(s"arrow_cast($t, 'Timestamp(Microsecond, None)')")
    case (d: Decimal, t: DecimalType) => Some(s"CAST('${d.toJavaBigDecimal.toPlainString}' AS DECIMAL(${t.precision}, ${t.scale}))")
    case _ => None
  }

  def quote(s: String): String = "'" + s.replace("'", "''") + "'"

  /** `column IN (...)` over internal values; NULLs become `OR column IS NULL`. */
  def in(column: String, values: Seq[Any], dt: DataType): Option[String] = {
    val (nulls, present) = values.distinct.partition(_ == null)
    val lits = present.map(literal(_, dt))
    if (lits.exists(_.isEmpty)) None
    else {
      val parts = (if (lits.nonEmpty) Seq(s"$column IN (${lits.flatten.mkString(", ")})") else Seq.empty) ++
        (if (nulls.nonEmpty) Seq(s"$column IS NULL") else Seq.empty)
      Some(if (parts.isEmpty) "false" else parts.mkString(" OR "))
    }
  }

  /**
   * `filter` as Lance SQL over columns named by `target` (Spark column -> Lance column and its
   * type), or None when any part cannot be rendered exactly.
   */
  def render(filter: Filter, target: String => Option[(String, DataType)]): Option[String] = {
    def cmp(attr: String, op: String, v: Any): Option[String] =
      for ((c, dt) <- target(attr) if v != null; iv <- internal(v, dt); l <- literal(iv, dt)) yield s"$c $op $l"
    filter match {
      case EqualTo(a, v) => cmp(a, "=", v)
      case EqualNullSafe(a, null) => target(a).map { case (c, _) => s"$c IS NULL" }
      // `<=>` is never NULL: a NULL column must make it false (not NULL), or its negation would
      // drop rows whose column is NULL.
      case EqualNullSafe(a, v) => for ((c, _) <- target(a); eq <- cmp(a, "=", v)) yield s"($c IS NOT NULL AND $eq)"
      case GreaterThan(a, v) => cmp(a, ">", v)
      case GreaterThanOrEqual(a, v) => cmp(a, ">=", v)
      case LessThan(a, v) => cmp(a, "<", v)
      case LessThanOrEqual(a, v) => cmp(a, "<=", v)
      case In(a, vs) =>
        target(a).flatMap { case (c, dt) =>
          val values = vs.toSeq.filter(_ != null).map(internal(_, dt))
          if (values.exists(_.isEmpty)) None else in(c, values.flatten, dt)
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
