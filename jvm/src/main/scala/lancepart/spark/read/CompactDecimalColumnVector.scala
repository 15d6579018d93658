// A decimal column of at most 18 digits read as Spark's long-backed Decimal, as Spark's own Parquet
// reader gives them: Spark's Arrow vector builds a BigDecimal for every value, about 8% of the CPU
// of a full scan + aggregate over one decimal column (bench/profiles, docs/benchmarks.md).
package lancepart.spark.read

import java.nio.ByteOrder

import org.apache.arrow.vector.DecimalVector
import org.apache.spark.sql.types.Decimal
import org.apache.spark.sql.vectorized.ArrowColumnVector

/** An Arrow decimal128 holds its unscaled value as a 128-bit little-endian two's complement
 * integer; a value of at most 18 digits is its low 64 bits, sign included. */
final class CompactDecimalColumnVector(arrow: DecimalVector) extends ArrowColumnVector(arrow) {
  override def getDecimal(rowId: Int, precision: Int, scale: Int): Decimal =
    if (arrow.isNull(rowId)) null
    else Decimal.createUnsafe(arrow.getDataBuffer.getLong(rowId.toLong * DecimalVector.TYPE_WIDTH), precision, scale)
}

object CompactDecimalColumnVector {

  /** Whether `arrow`'s values can be read this way: at most 18 digits, on a little-endian machine
   * (where Arrow's buffers are read in native order). */
  def fits(arrow: DecimalVector): Boolean =
    arrow.getPrecision <= Decimal.MAX_LONG_DIGITS && ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN
}
