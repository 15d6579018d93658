// The shared bucket vectors (testdata/bucket_vectors.json; Python checks them against mmh3).
package lancepart.transform

import java.nio.file.{Files, Paths}

import lancepart.manifest.JsonValues
import lancepart.spec.Json
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import scala.jdk.CollectionConverters._

class BucketVectorsSuite extends AnyFunSuite {
  private val vectors = Json.mapper.readTree(Files.readString(Paths.get("testdata/bucket_vectors.json")))
    .elements().asScala.toList

  test(s"the JVM computes every shared vector's hash and buckets (${vectors.size} vectors)") {
    vectors.foreach { v =>
      val types = v.get("types").elements().asScala.map(t => DataType.fromDDL(t.asText())).toList
      val inputs = v.get("values").elements().asScala.toList.zip(types).map { case (n, dt) =>
        (JsonValues.fromJson(n, dt), dt)
      }
      val expected = Option(v.get("hash")).filterNot(_.isNull).map(_.asInt())
      val hash = if (inputs.size == 1) BucketHash.hash(inputs.head._1, inputs.head._2) else BucketHash.hashMulti(inputs)
      assert(hash == expected, s"hash of $v")
      v.get("buckets").properties().asScala.foreach { e =>
        val n = e.getKey.toInt
        val transform = if (inputs.size == 1) Transform.Bucket(n) else Transform.MultiBucket(n)
        val bucket = transform(inputs)
        assert(Option(bucket) == Option(e.getValue).filterNot(_.isNull).map(_.asInt()), s"bucket $n of $v")
      }
    }
  }

  test("abs(h) % N is computed in 64 bits") {
    assert(BucketHash.bucket(Int.MinValue, 7) == ((1L << 31) % 7).toInt)
  }
}
