// The Arrow types Lance stores: their Spark types, their JSON in the namespace schema, and values
// read and written through ArrowValues (docs/format.md, "Types").
package lancepart.arrow

import lancepart.lance.Lance
import lancepart.spec.{FormatException, NamespaceSchema}
import org.apache.arrow.vector.FieldVector
import org.apache.arrow.vector.types.pojo.Field
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

class ArrowTypesSuite extends AnyFunSuite {

  /** A schema of one column per JSON type, as Lance's converter writes them. */
  private val types = Seq(
    """{"type":"uint8"}""" -> ShortType,
    """{"type":"uint16"}""" -> IntegerType,
    """{"type":"uint32"}""" -> LongType,
    """{"type":"uint64"}""" -> DecimalType(20, 0),
    """{"type":"float16"}""" -> FloatType,
    """{"type":"date64"}""" -> DateType,
    """{"type":"time32"}""" -> LongType,
    """{"type":"time64"}""" -> LongType,
    """{"type":"duration"}""" -> DayTimeIntervalType(),
    """{"type":"decimal256","length":40002}""" -> null,
    """{"type":"decimal256","length":38010}""" -> DecimalType(38, 10),
    """{"type":"fixed_size_binary","length":16}""" -> BinaryType,
    """{"type":"large_utf8"}""" -> StringType,
    """{"type":"fixed_size_list","length":3,"fields":[{"name":"item","nullable":true,"type":{"type":"float32"},""" +
      """"metadata":{"lance:field_id":"99"}}]}""" -> ArrayType(FloatType),
    """{"type":"large_list","fields":[{"name":"item","nullable":false,"type":{"type":"uint8"},""" +
      """"metadata":{"lance:field_id":"98"}}]}""" -> ArrayType(ShortType, containsNull = false)
  )

  private def schema(json: String) =
    s"""{"fields":[{"name":"c","nullable":true,"type":$json,"metadata":{"lance:field_id":"0"}}]}"""

  test("every type Lance stores reads as the closest Spark type, or refuses the table naming the column") {
    types.foreach {
      case (json, null) =>
        val e = intercept[FormatException](NamespaceSchema.parse(schema(json), "db.t"))
        assert(e.getMessage == "table db.t: property 'schema', column 'c' has Arrow type decimal256(40, 2), which " +
          "lancepart cannot read: its precision 40 is above Spark's largest, 38")
      case (json, expected) =>
        val parsed = NamespaceSchema.parse(schema(json), "db.t")
        assert(parsed.fields.map(_.dataType) == Seq(expected), json)
    }
  }

  test("a fixed-size list keeps its size in the Spark field metadata and back in the JSON") {
    val parsed = NamespaceSchema.parse(schema(types.find(_._1.contains("fixed_size_list")).get._1), "t")
    val column = parsed.sparkSchema("c")
    assert(column.metadata.getLong(ArrowTypes.FixedSizeListKey) == 3)
    val created = NamespaceSchema.fromSpark(StructType(Seq(column)), "t")
    assert(created.json.contains("\"type\":\"fixed_size_list\""))
    assert(created.json.contains("\"length\":3"))
    assert(created.sparkSchema == parsed.sparkSchema)
  }

  /** A vector of Arrow type `field` holding `values` (Spark internal forms) through ArrowValues. */
  private def roundTrip(field: Field, values: Seq[Any]): Seq[Any] =
    Lance.using(field.createVector(Lance.allocator).asInstanceOf[FieldVector]) { v =>
      v.allocateNew()
      values.zipWithIndex.foreach { case (x, i) => ArrowValues.set(v, i, x) }
      v.setValueCount(values.size)
      values.indices.map(ArrowValues.get(v, _))
    }

  private def field(json: String): Field = NamespaceSchema.parse(schema(json), "t") match {
    case s => s.arrow(s.fields.head)
  }

  test("values round trip at the edges of each stored type; what the type cannot hold is refused") {
    assert(roundTrip(field("""{"type":"uint8"}"""), Seq(0.toShort, 255.toShort, null)) == Seq(0, 255, null))
    val u64 = Seq(Decimal(BigDecimal("18446744073709551615"), 20, 0), Decimal(0L, 20, 0))
    assert(roundTrip(field("""{"type":"uint64"}"""), u64) == u64)
    assert(roundTrip(field("""{"type":"float16"}"""), Seq(65504f, -0.5f, 0.1f)) == Seq(65504f, -0.5f, 0.099975586f))
    assert(roundTrip(field("""{"type":"date64"}"""), Seq(-1, 19782)) == Seq(-1, 19782))
    assert(roundTrip(field("""{"type":"time32"}"""), Seq(0L, 86399999000L)) == Seq(0L, 86399999000L))
    assert(roundTrip(field("""{"type":"large_utf8"}"""), Seq(UTF8String.fromString("é"))) ==
      Seq(UTF8String.fromString("é")))
    def refused(json: String, value: Any): String =
      intercept[UnstorableValue](roundTrip(field(json), Seq(value))).getMessage
    assert(refused("""{"type":"uint8"}""", (-1).toShort) == "uint8 holds 0 to 255")
    assert(refused("""{"type":"uint32"}""", 1L << 32) == "uint32 holds 0 to 4294967295")
    assert(refused("""{"type":"uint64"}""", Decimal(-1L, 20, 0)) ==
      "uint64 holds the integers 0 to 18446744073709551615")
    assert(refused("""{"type":"float16"}""", 65520f) == "float16 holds finite values up to 65504 in magnitude")
    assert(refused("""{"type":"time32"}""", 1500L) == "time32[ms] holds whole milliseconds, not fractions of them")
    assert(refused("""{"type":"time64"}""", -1L) == "a time of day is 0 to 86399999999 microseconds since midnight")
    assert(refused("""{"type":"fixed_size_binary","length":2}""", Array[Byte](1)) ==
      "fixed_size_binary[2] holds exactly 2 bytes, this value has 1")
  }

  test("a Spark TIMESTAMP and TIMESTAMP_NTZ hold the same values; other types only their own") {
    assert(ArrowTypes.sameValues(TimestampType, TimestampNTZType))
    assert(ArrowTypes.sameValues(
      StructType(Seq(StructField("t", ArrayType(TimestampType)))),
      StructType(Seq(StructField("t", ArrayType(TimestampNTZType))))))
    assert(!ArrowTypes.sameValues(IntegerType, LongType))
  }
}
