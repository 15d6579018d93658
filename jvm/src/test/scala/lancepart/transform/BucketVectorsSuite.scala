// The shared bucket vectors (testdata/bucket_vectors.json; Python checks them against mmh3).
package lancepart.transform

import java.nio.file.{Files, Paths}
import java.time.{Instant, LocalDate, LocalDateTime, ZoneOffset}

import com.fasterxml.jackson.databind.JsonNode
import lancepart.spec.Json
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import scala.jdk.CollectionConverters._

class BucketVectorsSuite extends AnyFunSuite {
  private val vectors = Json.mapper.readTree(Files.readString(Paths.get("testdata/bucket_vectors.json")))
    .elements().asScala.toSeq

  private def value(node: JsonNode, dt: DataType): Any = if (node.isNull) null else dt match {
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
  }

  test(s"the JVM computes every shared vector's hash and buckets (${vectors.size} vectors)") {
    vectors.foreach { v =>
      val types = v.get("types").elements().asScala.map(t => DataType.fromDDL(t.asText())).toSeq
      val inputs = v.get("values").elements().asScala.toSeq.zip(types).map { case (n, dt) => (value(n, dt), dt) }
      val expected = Option(v.get("hash")).filterNot(_.isNull).map(_.asInt())
      val hash = if (inputs.size == 1) BucketHash.hash(inputs.head._1, inputs.head._2) else BucketHash.hashMulti(inputs)
      assert(hash == expected, s"hash of $v")
      v.get("buckets").properties().asScala.foreach { e =>
        val n = e.getKey.toInt
        val kind = if (inputs.size == 1) "bucket" else "multi_bucket"
        val bucket = Transforms(Transform(kind, numBuckets = Some(n)), inputs)
        assert(Option(bucket) == Option(e.getValue).filterNot(_.isNull).map(_.asInt()), s"bucket $n of $v")
      }
    }
  }

  test("abs(h) % N is computed in 64 bits") {
    assert(BucketHash.bucket(Int.MinValue, 7) == ((1L << 31) % 7).toInt)
  }
}
