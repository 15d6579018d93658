// Calendar transforms and truncate on edge values.
package lancepart.transform

import java.time.{Instant, LocalDate, LocalDateTime, ZoneOffset}

import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

class TransformsSuite extends AnyFunSuite {
  private def t(kind: String, v: Any, dt: DataType, width: Option[Int] = None) =
    Transforms(Transform(kind, width = width), Seq((v, dt)))
  private def micros(s: String) = DateTimeUtils.instantToMicros(Instant.parse(s))
  private def ntz(s: String) = DateTimeUtils.instantToMicros(LocalDateTime.parse(s).toInstant(ZoneOffset.UTC))

  test("calendar fields of dates, UTC timestamps and wall-clock timestamps") {
    val d = LocalDate.of(1969, 12, 31).toEpochDay.toInt
    assert(Seq("year", "month", "day").map(t(_, d, DateType)) == Seq(1969, 12, 31))
    val ts = micros("1969-12-31T23:59:59.999999Z")
    assert(Seq("year", "month", "day", "hour").map(t(_, ts, TimestampType)) == Seq(1969, 12, 31, 23))
    val wall = ntz("2024-02-29T07:00:00")
    assert(Seq("year", "month", "day", "hour").map(t(_, wall, TimestampNTZType)) == Seq(2024, 2, 29, 7))
    assert(t("year", null, DateType) == null)
  }

  test("truncate: code points for strings, toward zero for numbers") {
    assert(t("truncate", UTF8String.fromString("naïve☃x"), StringType, Some(6)) == UTF8String.fromString("naïve☃"))
    assert(t("truncate", UTF8String.fromString("ab"), StringType, Some(6)) == UTF8String.fromString("ab"))
    assert(Seq(-7, -5, -4, 0, 4, 5, 7).map(t("truncate", _, IntegerType, Some(5))) == Seq(-5, -5, 0, 0, 0, 5, 5))
    assert(t("truncate", -7L, LongType, Some(5)) == -5L)
    assert(t("truncate", (-7).toByte, ByteType, Some(5)) == (-5).toByte)
    val dec = DecimalType(6, 2)
    assert(t("truncate", Decimal(BigDecimal("12.34"), 6, 2), dec, Some(10)) == Decimal(BigDecimal("10.00"), 6, 2))
    assert(t("truncate", Decimal(BigDecimal("-12.34"), 6, 2), dec, Some(10)) == Decimal(BigDecimal("-10.00"), 6, 2))
  }
}
