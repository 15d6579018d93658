// Rows written in Spark's own Arrow types copied into the Arrow types a partition table stores
// (fixed-size lists, unsigned integers, other time units, ...), refusing what the stored type cannot hold.
package lancepart.arrow

import org.apache.arrow.vector.{FieldVector, ValueVector}
import org.apache.arrow.vector.complex.{FixedSizeListVector, LargeListVector, ListVector, StructVector}
import org.apache.spark.sql.catalyst.CatalystTypeConverters

import scala.jdk.CollectionConverters._

/** A value that a column's stored type cannot hold; the message names the column path and value. */
class UnstorableColumnValue(message: String) extends IllegalArgumentException(message)

object StoredVectors {

  /** Copies rows 0 until `rows` of `from` (the Spark-own vector of column `column`) into `to`, a
   * new vector of the stored type; same-typed parts are copied as they are. */
  def copy(from: FieldVector, to: FieldVector, rows: Int, column: String): Unit = {
    to.allocateNew()
    for (i <- 0 until rows) value(from, i, to, i, column)
    to.setValueCount(rows)
  }

  private def value(from: FieldVector, i: Int, to: FieldVector, j: Int, path: String): Unit =
    if (from.isNull(i)) to.setNull(j)
    else if (ArrowTypes.sameType(from.getField, to.getField)) to.copyFromSafe(i, j, from)
    else (from, to) match {
      case (f: StructVector, t: StructVector) =>
        t.setIndexDefined(j)
        t.getChildrenFromFields.asScala.zip(f.getChildrenFromFields.asScala).foreach { case (tc, fc) =>
          value(fc, i, tc, j, s"$path.${tc.getName}")
        }
      case (f, t: FixedSizeListVector) =>
        val (start, length) = elements(f, i)
        if (length != t.getListSize) throw new UnstorableColumnValue(
          s"column '$path' is a fixed_size_list of ${t.getListSize} elements " +
            s"(${ArrowTypes.name(t.getDataVector.getField.getType)}): an array of $length elements cannot be stored in it")
        val at = t.startNewValue(j)
        (0 until length).foreach(k => value(dataOf(f), start + k, t.getDataVector, at + k, s"$path.element"))
      case (f, t: ListVector) => // a map too: a list of key-value structs
        val (start, length) = elements(f, i)
        val at = t.startNewValue(j)
        (0 until length).foreach(k => value(dataOf(f), start + k, t.getDataVector, at + k, s"$path.element"))
        t.endValue(j, length)
      case (f, t: LargeListVector) =>
        val (start, length) = elements(f, i)
        val at = t.startNewValue(j.toLong)
        (0 until length).foreach(k =>
          value(dataOf(f), start + k, t.getDataVector, Math.toIntExact(at + k), s"$path.element"))
        t.endValue(j, length.toLong)
      case _ =>
        val v = ArrowValues.get(from, i)
        try ArrowValues.set(to, j, v)
        catch {
          case e: UnstorableValue => throw new UnstorableColumnValue(
              s"column '$path' cannot store ${literal(v, from)}: ${e.getMessage}")
        }
    }

  /** The first element and the number of elements of list `v` at row `i`. */
  private def elements(v: ValueVector, i: Int): (Int, Int) = v match {
    case l: ListVector => (l.getElementStartIndex(i), l.getElementEndIndex(i) - l.getElementStartIndex(i))
    case other => throw new IllegalStateException(s"${other.getField} is written as a list by Spark")
  }

  private def dataOf(v: ValueVector): FieldVector = v.asInstanceOf[ListVector].getDataVector

  /** `v` (Spark's internal value of the Spark-own vector `from`) as text: bytes in hex, others
   * as their Java value prints (`-1`, `2300-01-01T00:00`, `PT0.5S`). */
  private def literal(v: Any, from: ValueVector): String = v match {
    case b: Array[Byte] => b.map(x => f"${x & 0xff}%02X").mkString("X'", "", "'")
    case _ => String.valueOf(CatalystTypeConverters.convertToScala(v, ArrowTypes.toSpark(from.getField, "value")))
  }
}
