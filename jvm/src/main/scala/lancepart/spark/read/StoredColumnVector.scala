// A column of an Arrow type Spark does not read itself (unsigned integers, float16, date64, time,
// durations and timestamps in other units, decimal256, fixed-size binary), read through ArrowValues.
package lancepart.spark.read

import lancepart.arrow.ArrowValues
import org.apache.arrow.vector.ValueVector
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarArray, ColumnarMap}
import org.apache.spark.unsafe.types.UTF8String

/** `arrow`'s values as Spark type `dataType`, the one [[lancepart.arrow.ArrowTypes.toSpark]] gives
 * them (or, for a timestamp, the other of TIMESTAMP and TIMESTAMP_NTZ). */
class StoredColumnVector(arrow: ValueVector, dataType: DataType) extends ColumnVector(dataType) {
  private def value[T](rowId: Int): T = ArrowValues.get(arrow, rowId).asInstanceOf[T]

  override def close(): Unit = ()
  override def hasNull: Boolean = arrow.getNullCount > 0
  override def numNulls(): Int = arrow.getNullCount
  override def isNullAt(rowId: Int): Boolean = arrow.isNull(rowId)
  override def getBoolean(rowId: Int): Boolean = value[Boolean](rowId)
  override def getByte(rowId: Int): Byte = value[Byte](rowId)
  override def getShort(rowId: Int): Short = value[Short](rowId)
  override def getInt(rowId: Int): Int = value[Int](rowId)
  override def getLong(rowId: Int): Long = value[Long](rowId)
  override def getFloat(rowId: Int): Float = value[Float](rowId)
  override def getDouble(rowId: Int): Double = value[Double](rowId)
  override def getDecimal(rowId: Int, precision: Int, scale: Int): Decimal = value[Decimal](rowId)
  override def getUTF8String(rowId: Int): UTF8String = value[UTF8String](rowId)
  override def getBinary(rowId: Int): Array[Byte] = value[Array[Byte]](rowId)

  private def unsupported = throw new UnsupportedOperationException(s"${dataType.sql} has no nested values")
  override def getArray(rowId: Int): ColumnarArray = unsupported
  override def getMap(ordinal: Int): ColumnarMap = unsupported
  override def getChild(ordinal: Int): ColumnVector = unsupported
}
