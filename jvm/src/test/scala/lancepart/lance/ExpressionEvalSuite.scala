// Partition expressions through lance-core's DataFusion: values in order, NULL for a lost source,
// the hash extensions (shared vectors), casts to the result type, and failures that name their row.
package lancepart.lance

import java.nio.file.{Files, Paths}

import lancepart.manifest.JsonValues
import lancepart.spec.Json
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import scala.jdk.CollectionConverters._

class ExpressionEvalSuite extends AnyFunSuite {
  private def eval(text: String, sources: Seq[Option[DataType]], result: DataType, rows: Seq[IndexedSeq[Any]]) =
    ExpressionEval(text, sources, result).evaluate(rows)
  private def s(v: String) = UTF8String.fromString(v)

  test("DataFusion's functions, row by row, in input order over several result batches") {
    val rows = (0 until 20000).map(i => IndexedSeq[Any](s(s"Ab-$i"), (i % 7 - 3).toLong))
    val got = eval(
      "concat_ws('/', lower(split_part(col0, '-', 1)), lpad(CAST(abs(col1) AS VARCHAR), 2, '0'))",
      Seq(Some(StringType), Some(LongType)),
      StringType,
      rows)
    assert(got == rows.map(r => s(f"ab/${math.abs(r(1).asInstanceOf[Long])}%02d")))
    assert(eval("encode(sha256(col0), 'hex')", Seq(Some(StringType)), StringType, Seq(IndexedSeq(s("abc")))) ==
      Seq(s("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")))
    assert(eval(
      "date_trunc('month', col0)",
      Seq(Some(TimestampType)),
      TimestampType,
      Seq(IndexedSeq(86400000000L * 40 + 7))) ==
      Seq(86400000000L * 31))
  }

  test("a lost source reads as NULL; the result is DataFusion's CAST to the result type") {
    assert(eval("coalesce(col0, col1 % 3)", Seq(None, Some(LongType)), LongType, Seq(IndexedSeq(null, 7L))) == Seq(1L))
    assert(eval("col0 / 4", Seq(Some(DoubleType)), IntegerType, Seq(IndexedSeq(-10.0), IndexedSeq(null))) == Seq(
      -2,
      null))
    assert(eval("col0 * 2", Seq(Some(DecimalType(8, 2))), DecimalType(10, 1), Seq(IndexedSeq(Decimal("12.34")))) ==
      Seq(Decimal("24.7")))
  }

  test("murmur3 and murmur3_multi give every shared bucket vector's hash, nested calls included") {
    val vectors = Json.mapper.readTree(Files.readString(Paths.get("testdata/bucket_vectors.json"))).elements().asScala
    vectors.foreach { v =>
      val types = v.get("types").elements().asScala.map(t => DataType.fromDDL(t.asText())).toList
      val values = v.get("values").elements().asScala.toList.zip(types).map { case (n, dt) =>
        JsonValues.fromJson(n, dt)
      }
      val call =
        if (types.size == 1) "murmur3(col0)" else types.indices.map(i => s"col$i").mkString("murmur3_multi(", ", ", ")")
      val expected: Any = Option(v.get("hash")).filterNot(_.isNull).map(_.asInt()).getOrElse(null)
      assert(eval(call, types.map(Some(_)), IntegerType, Seq(values.toIndexedSeq)) == Seq(expected), s"$call of $v")
    }
    val h = eval("murmur3(col0)", Seq(Some(IntegerType)), IntegerType, Seq(IndexedSeq(34))).head
    assert(eval("murmur3(murmur3(col0)) + 0 * murmur3(col0)", Seq(Some(IntegerType)), LongType, Seq(IndexedSeq(34))) ==
      eval("murmur3(col0)", Seq(Some(IntegerType)), LongType, Seq(IndexedSeq(h))))
    // equal rows are evaluated once, but 0.0 and -0.0 are not equal rows: their bits hash apart
    val zeros =
      eval("murmur3(col0)", Seq(Some(DoubleType)), IntegerType, Seq(IndexedSeq(0.0), IndexedSeq(-0.0), IndexedSeq(0.0)))
    assert(zeros(0) == zeros(2) && zeros(0) != zeros(1))
    // an argument that is an expression hashes at DataFusion's type for it (int + int64 literal: int64)
    assert(eval("murmur3(col0 + 0)", Seq(Some(IntegerType)), IntegerType, Seq(IndexedSeq(34))) ==
      eval("murmur3(col0)", Seq(Some(LongType)), IntegerType, Seq(IndexedSeq(34L))))
  }

  test("a failing row is named; what does not plan is refused with DataFusion's words") {
    val e = intercept[ExpressionException](
      eval(
        "100 / col0",
        Seq(Some(IntegerType)),
        IntegerType,
        (1 to 50).map(i => IndexedSeq[Any](if (i == 37) 0 else i))))
    assert(e.row.contains(IndexedSeq(0)) && e.getMessage.contains("Divide by zero"), e.getMessage)
    def refused(text: String, sources: Seq[DataType], result: DataType = IntegerType) =
      intercept[ExpressionException](ExpressionEval(text, sources.map(Some(_)), result).check()).getMessage
    assert(refused("no_such_fn(col0)", Seq(IntegerType)).contains("Invalid function 'no_such_fn'"))
    assert(refused("price * 2", Seq(IntegerType)).contains("No field named price"))
    assert(refused("col0 +", Seq(IntegerType)).contains("Expected: an expression"))
    assert(refused("col0 > 1", Seq(IntegerType), DateType).contains("Unsupported CAST from Boolean to Date32"))
    assert(refused("murmur3(col0, col0)", Seq(IntegerType)).contains("murmur3 takes 1 argument, got 2"))
    assert(refused("murmur3(make_array(col0))", Seq(IntegerType)).contains("murmur3 cannot hash 'make_array(col0)'"))
    assert(refused("unnest(make_array(col0, col0))", Seq(IntegerType)).contains("set-returning"))
  }

  test("lance-core's wrapping is taken off its messages") {
    assert(
      BatchSql.message(new IllegalArgumentException("java/io/IOException: LanceError(IO): Error during planning: " +
        "Invalid function 'f'.\nDid you mean 'cosh'?, /workspace/rust/lance/src/dataset/sql.rs:81:18")) ==
        "Error during planning: Invalid function 'f'. Did you mean 'cosh'?")
    assert(BatchSql.message(new java.io.IOException("[errno 22] CDataJniException{errno=22, message=External error: " +
      "LanceError(Arrow): Compute error: Int32Array overflow on abs(-2147483648), /workspace/rust/lance/src/dataset/scanner.rs:4719:66}")) ==
      "Compute error: Int32Array overflow on abs(-2147483648)")
  }
}
