// The transform family: names (spec JSON, DDL), and calendar transforms and truncate on edge values.
package lancepart.transform

import java.time.{Instant, LocalDate, LocalDateTime, ZoneOffset}

import com.fasterxml.jackson.databind.ObjectMapper
import lancepart.transform.Transform._
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

class TransformsSuite extends AnyFunSuite {
  private def t(transform: Transform, v: Any, dt: DataType) = transform(Seq((v, dt)))
  private def micros(s: String) = DateTimeUtils.instantToMicros(Instant.parse(s))
  private def ntz(s: String) = DateTimeUtils.instantToMicros(LocalDateTime.parse(s).toInstant(ZoneOffset.UTC))

  test("calendar fields of dates, UTC timestamps and wall-clock timestamps") {
    val d = LocalDate.of(1969, 12, 31).toEpochDay.toInt
    assert(Seq(Year, Month, Day).map(t(_, d, DateType)) == Seq(1969, 12, 31))
    val ts = micros("1969-12-31T23:59:59.999999Z")
    assert(Seq(Year, Month, Day, Hour).map(t(_, ts, TimestampType)) == Seq(1969, 12, 31, 23))
    val wall = ntz("2024-02-29T07:00:00")
    assert(Seq(Year, Month, Day, Hour).map(t(_, wall, TimestampNTZType)) == Seq(2024, 2, 29, 7))
    assert(t(Year, null, DateType) == null)
  }

  test("truncate: code points for strings, toward zero for numbers") {
    assert(t(Truncate(6), UTF8String.fromString("naïve☃x"), StringType) == UTF8String.fromString("naïve☃"))
    assert(t(Truncate(6), UTF8String.fromString("ab"), StringType) == UTF8String.fromString("ab"))
    assert(Seq(-7, -5, -4, 0, 4, 5, 7).map(t(Truncate(5), _, IntegerType)) == Seq(-5, -5, 0, 0, 0, 5, 5))
    assert(t(Truncate(5), -7L, LongType) == -5L)
    assert(t(Truncate(5), (-7).toByte, ByteType) == (-5).toByte)
    val dec = DecimalType(6, 2)
    assert(t(Truncate(10), Decimal(BigDecimal("12.34"), 6, 2), dec) == Decimal(BigDecimal("10.00"), 6, 2))
    assert(t(Truncate(10), Decimal(BigDecimal("-12.34"), 6, 2), dec) == Decimal(BigDecimal("-10.00"), 6, 2))
  }

  private val mapper = new ObjectMapper()
  private def json(t: Transform): String = {
    val node = mapper.createObjectNode(); t.writeJson(node); mapper.writeValueAsString(node)
  }
  private def parse(text: String): Either[String, Transform] = Transform.fromJson(mapper.readTree(text))

  /** Each kind with a parameter of its own, and its spec JSON (spec: Transform Schema). */
  private val specJson: Seq[(Transform, String)] = Seq(
    Identity -> """{"type":"identity"}""",
    Year -> """{"type":"year"}""",
    Month -> """{"type":"month"}""",
    Day -> """{"type":"day"}""",
    Hour -> """{"type":"hour"}""",
    Bucket(16) -> """{"type":"bucket","num_buckets":16}""",
    MultiBucket(7) -> """{"type":"multi_bucket","num_buckets":7}""",
    Truncate(3) -> """{"type":"truncate","width":3}"""
  )

  test("every kind round trips through its spec JSON") {
    assert(specJson.map(_._1.jsonName).toSet == Transform.Kinds.map(_.jsonName).toSet)
    specJson.foreach { case (transform, text) =>
      assert(json(transform) == text)
      assert(parse(text) == Right(transform))
    }
  }

  test("bad spec JSON is refused with the key and kind") {
    assert(parse("""{"type":"zorder"}""") == Left("unknown transform type 'zorder'"))
    assert(parse("""{"num_buckets":4}""") == Left("transform: 'type' must be a string"))
    assert(parse("""{"type":"bucket"}""") == Left("transform 'bucket' needs a positive integer 'num_buckets'"))
    assert(parse("""{"type":"truncate","width":0}""") == Left("transform 'truncate' needs a positive integer 'width'"))
    assert(parse("""{"type":"identity","width":-1}""") == Left("transform 'identity' needs a positive integer 'width'"))
  }

  test("every kind is named by its DDL and function names; Spark's calendar transforms are runs") {
    specJson.map(_._1).foreach { transform =>
      val columns = if (transform.multiSource) 2 else 1
      assert(Transform.fromDdl(transform.functionName, transform.parameter.toSeq, columns) == Seq(transform))
      transform.sparkName.foreach(n =>
        assert(Transform.fromDdl(n, transform.parameter.toSeq, columns) == Seq(transform)))
    }
    assert(Transform.fromDdl("lance_day", Seq(), 1) == Seq(Day))
    assert(Transform.fromDdl("years", Seq(), 1) == Seq(Year))
    assert(Transform.fromDdl("hours", Seq(), 1) == Seq(Year, Month, Day, Hour))
    assert(Calendar.map(_.runName) == Seq("years", "months", "days", "hours"))
    assert(Transform.fromDdl("bucket", Seq(8), 1) == Seq(Bucket(8)))
    assert(Transform.fromDdl("bucket", Seq(8), 3) == Seq(MultiBucket(8)))
    assert(Transform.fromDdl("lance_multi_bucket", Seq(8), 1) == Seq(MultiBucket(8)))
    assert(Transform.fromDdl("days", Seq(2), 1).isEmpty)
    assert(Transform.fromDdl("zorder", Seq(), 1).isEmpty)
    assert(Transform.fromDdl("lance_identity", Seq(), 1).isEmpty)
  }

  test("what pruning and storage-partitioned joins rely on") {
    assert(specJson.map(_._1).filter(_.preservesOrder) == Seq(Identity, Year, Truncate(3)))
    assert(specJson.map(_._1).filter(_.reportable) == Seq(Identity, Year, Month, Day, Hour, Bucket(16)))
    // year is monotonic across a year boundary; month is not
    val (dec31, jan1) = (LocalDate.of(2023, 12, 31).toEpochDay.toInt, LocalDate.of(2024, 1, 1).toEpochDay.toInt)
    assert(t(Year, dec31, DateType).asInstanceOf[Int] < t(Year, jan1, DateType).asInstanceOf[Int])
    assert(t(Month, dec31, DateType).asInstanceOf[Int] > t(Month, jan1, DateType).asInstanceOf[Int])
  }

  test("result types say why a transform does not apply") {
    assert(Hour.resultType(Seq(DateType)) == Left(
      "transform 'hour' does not apply to DATE (it takes timestamp or timestamp_ntz)"))
    assert(Truncate(2).resultType(Seq(DecimalType(5, 1))) == Right(DecimalType(5, 1)))
    assert(MultiBucket(2).resultType(Seq(IntegerType, StringType)) == Right(IntegerType))
    assert(Bucket(2).resultType(Seq(IntegerType, StringType)).isLeft)
  }
}
