// The month, day-of-month or hour values that instants in [lo, hi] can have.
package lancepart.prune

import java.time.{LocalDate, LocalDateTime, YearMonth, ZoneOffset}
import java.time.temporal.ChronoUnit

import lancepart.transform.Transform
import org.apache.spark.sql.catalyst.util.DateTimeConstants.MICROS_PER_SECOND
import org.apache.spark.sql.types.{DataType, DateType}

object CalendarRanges {

  /** `lo`, `hi` are days (dates) or microseconds (timestamps, UTC or wall clock); None when the
   * range covers every value of the field, or is empty, or the field is the year (which does not
   * repeat: bounds project through its order). */
  def covered(field: Transform.CalendarField, lo: Long, hi: Long, dt: DataType): Option[Set[Int]] = {
    if (hi < lo) return None
    val (from, to) = (time(lo, dt), time(hi, dt))
    val (all, values) = field match {
      case Transform.Year => return None
      case Transform.Month =>
        (12, steps(YearMonth.from(from), YearMonth.from(to), 12)(_.plusMonths(1), !_.isAfter(_))(_.getMonthValue))
      case Transform.Day =>
        (31, steps(from.toLocalDate, to.toLocalDate, 31)(_.plusDays(1), !_.isAfter(_))(_.getDayOfMonth))
      case Transform.Hour =>
        (24, steps(from.truncatedTo(ChronoUnit.HOURS), to, 24)(_.plusHours(1), !_.isAfter(_))(_.getHour))
    }
    values.filter(_.size < all)
  }

  private def steps[T](start: T, end: T, limit: Int)(
      next: T => T,
      notAfter: (T, T) => Boolean)(value: T => Int): Option[Set[Int]] = {
    var t = start
    val out = Set.newBuilder[Int]
    var n = 0
    while (notAfter(t, end)) {
      if (n >= limit) return None
      out += value(t)
      t = next(t)
      n += 1
    }
    Some(out.result())
  }

  private def time(v: Long, dt: DataType): LocalDateTime =
    if (dt == DateType) LocalDate.ofEpochDay(v).atStartOfDay()
    else LocalDateTime.ofEpochSecond(
      Math.floorDiv(v, MICROS_PER_SECOND),
      (Math.floorMod(v, MICROS_PER_SECOND) * 1000).toInt,
      ZoneOffset.UTC)

}
