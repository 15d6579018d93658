// Decimals of at most 18 digits read from their low 64 bits equal what Spark's own Arrow vector reads.
package lancepart.spark.read

import java.math.BigDecimal

import lancepart.lance.Lance
import org.apache.arrow.vector.DecimalVector
import org.apache.spark.sql.types.{Decimal, DecimalType}
import org.apache.spark.sql.vectorized.ArrowColumnVector
import org.scalatest.funsuite.AnyFunSuite

class CompactDecimalColumnVectorSuite extends AnyFunSuite {

  private def vector(precision: Int, scale: Int, values: Seq[Option[String]]): DecimalVector = {
    val v = new DecimalVector("d", Lance.allocator, precision, scale)
    v.allocateNew(values.size)
    values.zipWithIndex.foreach {
      case (Some(s), i) => v.setSafe(i, new BigDecimal(s))
      case (None, i) => v.setNull(i)
    }
    v.setValueCount(values.size)
    v
  }

  test("every value, NULLs, signs and the 18-digit extremes read as Spark's Arrow vector reads them") {
    val values = Seq(
      Some("0.00"),
      Some("12.50"),
      Some("-12.50"),
      None,
      Some("-0.01"),
      Some("9999999999999999.99"),
      Some("-9999999999999999.99"),
      Some("42949672.96"),
      Some("-42949672.97")
    )
    val arrow = vector(18, 2, values)
    try {
      val compact = LeafVectors.of(arrow, DecimalType(18, 2), DecimalType(18, 2))
      assert(compact.isInstanceOf[CompactDecimalColumnVector])
      val spark = new ArrowColumnVector(arrow)
      values.indices.foreach { i =>
        val read = compact.getDecimal(i, 18, 2)
        assert(read == spark.getDecimal(i, 18, 2), s"row $i")
        assert(Option(read).map(_.toJavaBigDecimal) == values(i).map(new BigDecimal(_)), s"row $i")
      }
    } finally arrow.close()
  }

  test("decimals of more than 18 digits keep Spark's own Arrow vector") {
    val arrow = vector(19, 0, Seq(Some("9999999999999999999")))
    try {
      val read = LeafVectors.of(arrow, DecimalType(19, 0), DecimalType(19, 0))
      assert(!read.isInstanceOf[CompactDecimalColumnVector])
      assert(read.getDecimal(0, 19, 0) == Decimal(new BigDecimal("9999999999999999999"), 19, 0))
    } finally arrow.close()
  }
}
