// Spark's V2 predicates as the V1 filters pruning and LanceSql work on, keeping their typed literals exact.
package lancepart.prune

import java.time.LocalDate

import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.connector.expressions.{Expression, Literal, NamedReference}
import org.apache.spark.sql.connector.expressions.filter.{
  Predicate, And => V2And, AlwaysFalse => V2AlwaysFalse, AlwaysTrue => V2AlwaysTrue, Not => V2Not, Or => V2Or
}
import org.apache.spark.sql.sources._
import org.apache.spark.sql.types.{DataType, DateType, TimestampNTZType, TimestampType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * V2 predicates carry literals in Spark's internal form. V1 filters that Spark translates itself
 * carry dates and timestamps as `java.sql.Date` / `Timestamp` (the hybrid Julian calendar, so
 * DATE'1582-10-10' arrives as another day); converted here they carry `LocalDate`, `Instant` and
 * `LocalDateTime` (proleptic Gregorian, exact), strings as `UTF8String` and other values as Spark
 * holds them, all of which [[LanceSql.internal]] reads back exactly.
 */
object V2Predicates {

  /** Every predicate as a filter, or None when one of them has no V1 form. */
  def toFilters(predicates: Seq[Predicate]): Option[Seq[Filter]] = {
    val filters = predicates.map(toFilter)
    if (filters.forall(_.isDefined)) Some(filters.flatten) else None
  }

  /** `p` as a filter on top-level columns, or None when it has another form. */
  def toFilter(p: Predicate): Option[Filter] = p match {
    case _: V2AlwaysTrue => Some(AlwaysTrue)
    case _: V2AlwaysFalse => Some(AlwaysFalse)
    case a: V2And => for (l <- toFilter(a.left()); r <- toFilter(a.right())) yield And(l, r)
    case o: V2Or => for (l <- toFilter(o.left()); r <- toFilter(o.right())) yield Or(l, r)
    case n: V2Not => toFilter(n.child()).map(Not)
    case _ =>
      val args = p.children().toSeq
      (p.name(), args) match {
        case ("IS_NULL", Seq(c)) => column(c).map(IsNull)
        case ("IS_NOT_NULL", Seq(c)) => column(c).map(IsNotNull)
        case ("STARTS_WITH", Seq(c, prefix)) =>
          for (a <- column(c); v <- value(prefix); s <- text(v)) yield StringStartsWith(a, s)
        case ("IN", c +: values) =>
          val vs = values.map(value)
          for (a <- column(c) if vs.forall(_.isDefined)) yield In(a, vs.flatten.toArray)
        case (op, Seq(l, r)) if Comparisons.contains(op) =>
          (column(l), value(r), column(r), value(l)) match {
            case (Some(a), Some(v), _, _) => Some(comparison(op, a, v))
            case (_, _, Some(a), Some(v)) => Some(comparison(Mirrored(op), a, v))
            case _ => None
          }
        case _ => None
      }
  }

  private val Mirrored = Map("=" -> "=", "<=>" -> "<=>", "<" -> ">", "<=" -> ">=", ">" -> "<", ">=" -> "<=")
  private val Comparisons = Mirrored.keySet

  private def comparison(op: String, a: String, v: Any): Filter = op match {
    case "=" => EqualTo(a, v)
    case "<=>" => EqualNullSafe(a, v)
    case "<" => LessThan(a, v)
    case "<=" => LessThanOrEqual(a, v)
    case ">" => GreaterThan(a, v)
    case ">=" => GreaterThanOrEqual(a, v)
  }

  private def column(e: Expression): Option[String] = e match {
    case r: NamedReference if r.fieldNames().length == 1 => Some(r.fieldNames()(0))
    case _ => None
  }

  /** A literal's value in the form described above (Some(null) for NULL). */
  private def value(e: Expression): Option[Any] = e match {
    case l: Literal[_] => Some(external(l.value(), l.dataType()))
    case _ => None
  }

  private def external(v: Any, dt: DataType): Any = (v, dt) match {
    case (d: Int, DateType) => LocalDate.ofEpochDay(d)
    case (t: Long, TimestampType) => DateTimeUtils.microsToInstant(t)
    case (t: Long, TimestampNTZType) => DateTimeUtils.microsToLocalDateTime(t)
    case _ => v
  }

  /** A string literal as Java text, when that text holds exactly its bytes. */
  private def text(v: Any): Option[String] = v match {
    case s: UTF8String if UTF8String.fromString(s.toString) == s => Some(s.toString)
    case _ => None
  }
}
