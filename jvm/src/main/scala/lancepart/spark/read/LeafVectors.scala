// Spark column vectors over a partition table's Arrow vectors, shaped exactly as the scan's read
// type, which Spark may have pruned to some nested fields (st STRUCT<b INT> of a stored st STRUCT<a, b, d>).
package lancepart.spark.read

import lancepart.arrow.ArrowTypes
import org.apache.arrow.vector.{DecimalVector, ValueVector}
import org.apache.arrow.vector.complex.{FixedSizeListVector, LargeListVector, ListVector, MapVector, StructVector}
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.{ArrowColumnVector, ColumnVector, ColumnarArray, ColumnarMap}
import org.apache.spark.unsafe.types.UTF8String

/**
 * Struct children are matched by name (nested fields carry no id tag in leaves, and only
 * top-level columns can be renamed); a child the leaf lacks reads as NULL; a narrower stored type
 * is widened ([[WidenedColumnVector]]); an Arrow type that Spark does not read itself is
 * converted ([[StoredColumnVector]]; lists of every kind are arrays); recursively through
 * structs, array elements and map keys and values. A vector whose stored type already is the
 * read type, in Spark's own Arrow type, is Spark's own [[ArrowColumnVector]] (a decimal of at most
 * 18 digits: [[CompactDecimalColumnVector]]).
 */
object LeafVectors {

  /** `vector` (holding values of type `stored`) read as `read`; check `SchemaEvolution.mismatch` first. */
  def of(vector: ValueVector, stored: DataType, read: DataType): ColumnVector = {
    lazy val own = ArrowTypes.isSparkOwn(vector.getField, vector.getField.getName)
    (vector, stored, read) match {
      case (v: DecimalVector, s: DecimalType, r: DecimalType) if s == r && own && CompactDecimalColumnVector.fits(v) =>
        new CompactDecimalColumnVector(v)
      case _ if nullable(stored) == nullable(read) && own => new ArrowColumnVector(vector)
      case (v: StructVector, s: StructType, r: StructType) => new StructVectorAs(v, s, r)
      case (v: MapVector, s: MapType, r: MapType) => new MapVectorAs(v, s, r)
      case (v, s: ArrayType, r: ArrayType) => new ArrayVectorAs(v, s, r)
      case _ if own && stored == read => new ArrowColumnVector(vector)
      case _ if ArrowTypes.sameValues(stored, read) => new StoredColumnVector(vector, read)
      case _ => new WidenedColumnVector(
          if (own) new ArrowColumnVector(vector) else new StoredColumnVector(vector, stored),
          stored,
          read)
    }
  }

  /** `t` with every nested field, element and value nullable: types that differ only in
   * nullability are read alike. */
  private def nullable(t: DataType): DataType = t match {
    case s: StructType => StructType(s.fields.map(f => f.copy(dataType = nullable(f.dataType), nullable = true)))
    case a: ArrayType => ArrayType(nullable(a.elementType), containsNull = true)
    case m: MapType => MapType(nullable(m.keyType), nullable(m.valueType), valueContainsNull = true)
    case other => other
  }

  /** Whether `t` is a struct, array or map. */
  def isNested(t: DataType): Boolean =
    t.isInstanceOf[StructType] || t.isInstanceOf[ArrayType] || t.isInstanceOf[MapType]

  /** A column of NULLs of type `t` (any number of rows). */
  def nulls(t: DataType): ColumnVector = {
    val vector = new ConstantColumnVector(1, t)
    vector.setNull()
    vector
  }
}

/** A struct, array or map column whose NULLs are those of Arrow vector `arrow`; values are read
 * through the children, so scalar getters are not supported. */
abstract class NestedVectorAs(arrow: ValueVector, read: DataType) extends ColumnVector(read) {
  protected def children: Seq[ColumnVector]
  override def close(): Unit = children.foreach(_.close())
  override def hasNull: Boolean = arrow.getNullCount > 0
  override def numNulls(): Int = arrow.getNullCount
  override def isNullAt(rowId: Int): Boolean = arrow.isNull(rowId)

  private def unsupported = throw new UnsupportedOperationException(s"${read.sql} has no scalar values")
  override def getBoolean(rowId: Int): Boolean = unsupported
  override def getByte(rowId: Int): Byte = unsupported
  override def getShort(rowId: Int): Short = unsupported
  override def getInt(rowId: Int): Int = unsupported
  override def getLong(rowId: Int): Long = unsupported
  override def getFloat(rowId: Int): Float = unsupported
  override def getDouble(rowId: Int): Double = unsupported
  override def getDecimal(rowId: Int, precision: Int, scale: Int): Decimal = unsupported
  override def getUTF8String(rowId: Int): UTF8String = unsupported
  override def getBinary(rowId: Int): Array[Byte] = unsupported
  override def getArray(rowId: Int): ColumnarArray = unsupported
  override def getMap(ordinal: Int): ColumnarMap = unsupported
  override def getChild(ordinal: Int): ColumnVector = unsupported
}

/** The read struct's fields, each from the stored child of the same name, else NULL. */
class StructVectorAs(arrow: StructVector, stored: StructType, read: StructType) extends NestedVectorAs(arrow, read) {
  protected val children: Seq[ColumnVector] = read.fields.toSeq.map { f =>
    stored.fieldNames.indexOf(f.name) match {
      case -1 => LeafVectors.nulls(f.dataType)
      case i => LeafVectors.of(arrow.getChildByOrdinal(i), stored.fields(i).dataType, f.dataType)
    }
  }
  override def getChild(ordinal: Int): ColumnVector = children(ordinal)
}

/** A list, large list or fixed-size list. */
class ArrayVectorAs(arrow: ValueVector, stored: ArrayType, read: ArrayType) extends NestedVectorAs(arrow, read) {
  private val (data, bounds): (ValueVector, Int => (Int, Int)) = arrow match {
    case l: ListVector =>
      (l.getDataVector, i => (l.getElementStartIndex(i), l.getElementEndIndex(i) - l.getElementStartIndex(i)))
    case l: LargeListVector =>
      (
        l.getDataVector,
        i => (l.getElementStartIndex(i).toInt, (l.getElementEndIndex(i) - l.getElementStartIndex(i)).toInt))
    case l: FixedSizeListVector => (l.getDataVector, i => (i * l.getListSize, l.getListSize))
  }
  private val elements = LeafVectors.of(data, stored.elementType, read.elementType)
  protected val children: Seq[ColumnVector] = Seq(elements)
  override def getArray(rowId: Int): ColumnarArray = {
    val (start, length) = bounds(rowId)
    new ColumnarArray(elements, start, length)
  }
}

/** An Arrow map is a list of (key, value) structs. */
class MapVectorAs(arrow: MapVector, stored: MapType, read: MapType) extends NestedVectorAs(arrow, read) {
  private val entries = arrow.getDataVector.asInstanceOf[StructVector]
  private val keys = LeafVectors.of(entries.getChildByOrdinal(0), stored.keyType, read.keyType)
  private val values = LeafVectors.of(entries.getChildByOrdinal(1), stored.valueType, read.valueType)
  protected val children: Seq[ColumnVector] = Seq(keys, values)
  override def getMap(rowId: Int): ColumnarMap = {
    val start = arrow.getElementStartIndex(rowId)
    new ColumnarMap(keys, values, start, arrow.getElementEndIndex(rowId) - start)
  }
}
