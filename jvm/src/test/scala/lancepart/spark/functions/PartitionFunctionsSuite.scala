// Partition functions as Spark sees them: calendar keys, their reducers, bucket reducers.
package lancepart.spark.functions

import java.time.Instant

import lancepart.transform.Transform
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

class PartitionFunctionsSuite extends AnyFunSuite {
  private def calendar(levels: Int, dt: DataType) =
    new CalendarKeyFunction(levels).bind(StructType(Seq(StructField("c", dt)))).asInstanceOf[BoundCalendarKey]

  test("calendar keys combine year, month, day, hour and reduce to coarser keys") {
    val ts = DateTimeUtils.instantToMicros(Instant.parse("2025-12-10T23:30:00Z"))
    val ymdh = calendar(4, TimestampType)
    assert(ymdh.produceResult(InternalRow(ts)) == 2025121023L)
    assert(ymdh.produceResult(InternalRow(null)) == null)
    val ym = calendar(2, TimestampType)
    assert(ymdh.reducer(ym).reduce(2025121023L) == 202512L)
    assert(ym.reducer(ymdh) == null, "a coarser key does not reduce to a finer one")
    val day = java.time.LocalDate.of(2025, 12, 10).toEpochDay.toInt
    assert(calendar(3, DateType).produceResult(InternalRow(day)) == 20251210L)
  }

  test("bucket(N) reduces to the common divisor; other pairs have no reducer") {
    val b16 =
      PartitionFunctions.all("bucket").bind(StructType(Seq(StructField("n", IntegerType), StructField("k", LongType))))
        .asInstanceOf[BoundTransform]
    val b12 = PartitionFunctions.all("lance_bucket").bind(StructType(Seq(
      StructField("n", IntegerType),
      StructField("k", LongType))))
      .asInstanceOf[BoundTransform]
    assert(b16.canonicalName() == "lancepart.bucket")
    assert(b16.reducer(16, b12, 12).reduce(13) == 1)
    assert(b16.reducer(16, b12, 32) == null)
    val year = PartitionFunctions.all("lance_year").bind(StructType(Seq(StructField(
      "d",
      DateType)))).asInstanceOf[BoundTransform]
    assert(year.reducer(year) == null)
  }

  test("every kind but identity is a function under its name that computes the transform") {
    val ts = DateTimeUtils.instantToMicros(Instant.parse("2025-12-10T23:30:00Z"))
    Transform.Kinds.filter(_ != Transform.Identity).foreach { kind =>
      val transform = kind match {
        case p: Transform.Parameterized => p.withParameter(3)
        case other => other
      }
      val sources = kind match {
        case _: Transform.Truncate => Seq(LongType)
        case _: Transform.MultiBucket => Seq(TimestampType, LongType)
        case _ => Seq(TimestampType)
      }
      val values = if (kind.multiSource) Seq(ts, 42L) else Seq(ts)
      val params = transform.parameter.map(_ => IntegerType).toSeq
      val bound = PartitionFunctions.all(kind.functionName)
        .bind(StructType((params ++ sources).zipWithIndex.map { case (dt, i) => StructField(s"c$i", dt) }))
        .asInstanceOf[BoundTransform]
      val row = InternalRow.fromSeq(transform.parameter.toSeq ++ values)
      assert(bound.produceResult(row) == transform(values.zip(sources)), kind.jsonName)
      assert(bound.canonicalName() == s"lancepart.${kind.jsonName}")
    }
  }
}
