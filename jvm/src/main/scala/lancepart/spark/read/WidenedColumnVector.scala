// A column read at a wider type than a partition table stores it (after ALTER COLUMN TYPE):
// int to bigint, float to double, decimal to a larger precision.
package lancepart.spark.read

import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarArray, ColumnarMap}
import org.apache.spark.unsafe.types.UTF8String

class WidenedColumnVector(child: ColumnVector, from: DataType, to: DataType) extends ColumnVector(to) {
  override def close(): Unit = child.close()
  override def hasNull: Boolean = child.hasNull
  override def numNulls(): Int = child.numNulls()
  override def isNullAt(rowId: Int): Boolean = child.isNullAt(rowId)

  private def integral(rowId: Int): Long = from match {
    case ByteType => child.getByte(rowId).toLong
    case ShortType => child.getShort(rowId).toLong
    case IntegerType => child.getInt(rowId).toLong
    case LongType => child.getLong(rowId)
  }

  override def getShort(rowId: Int): Short = integral(rowId).toShort
  override def getInt(rowId: Int): Int = integral(rowId).toInt
  override def getLong(rowId: Int): Long = integral(rowId)
  override def getDouble(rowId: Int): Double = child.getFloat(rowId).toDouble
  override def getDecimal(rowId: Int, precision: Int, scale: Int): Decimal = {
    val f = from.asInstanceOf[DecimalType]
    val d = child.getDecimal(rowId, f.precision, f.scale)
    if (d == null) null else Decimal(d.toJavaBigDecimal, precision, scale)
  }

  private def unsupported = throw new UnsupportedOperationException(s"${from.sql} read as ${to.sql}")
  override def getBoolean(rowId: Int): Boolean = unsupported
  override def getByte(rowId: Int): Byte = unsupported
  override def getFloat(rowId: Int): Float = unsupported
  override def getUTF8String(rowId: Int): UTF8String = unsupported
  override def getBinary(rowId: Int): Array[Byte] = unsupported
  override def getArray(rowId: Int): ColumnarArray = unsupported
  override def getMap(ordinal: Int): ColumnarMap = unsupported
  override def getChild(ordinal: Int): ColumnVector = unsupported
}
