// Task side of a write: rows buffered in Arrow (Spark's ArrowWriter) in one Lance dataset's column
// order, handed to Lance in the dataset's own Arrow types when written out as fragments.
package lancepart.spark.write

import lancepart.arrow.{ArrowTypes, StoredVectors, UnstorableColumnValue}
import lancepart.lance.{Lance, LeafLayout}
import lancepart.spec.SchemaField
import org.apache.arrow.vector.{FieldVector, VectorSchemaRoot}
import org.apache.arrow.vector.types.pojo.{Field, Schema}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.arrow.ArrowWriter

import scala.collection.mutable
import scala.jdk.CollectionConverters._

/**
 * Rows of the columns `active` (input order) for the dataset at `location` laid out as `layout`
 * says; a dataset column holding none of them is left NULL. Spark writes each column in its own
 * Arrow type; a column the dataset stores in another Arrow type (a fixed-size list, an unsigned
 * integer, another time unit, ...) is copied into that type when written out ([[StoredVectors]]).
 * `table` names the table in errors.
 */
class FragmentBuffer(table: String, location: String, val layout: LeafLayout, active: Seq[SchemaField]) {
  private val ordinals: Array[Int] = layout.fields.map(_._2.fold(-1)(c => active.indexOf(c))).toArray
  private val types = active.map(_.dataType).toArray
  private val identity = ordinals.sameElements(active.indices)
  private val stored = layout.fields.map(_._1)
  private val buffered: Seq[Field] = layout.fields.map { case (f, c) =>
    val dt = c.fold(ArrowTypes.toSpark(f, s"$location: column '${f.getName}'"))(_.dataType)
    val own = ArrowTypes.sparkOwn(f.getName, dt, f.isNullable)
    if (ArrowTypes.sameType(own, f)) f else own
  }
  private val root: VectorSchemaRoot = VectorSchemaRoot.create(new Schema(buffered.asJava), Lance.allocator)
  private val arrow: ArrowWriter = ArrowWriter.create(root)
  private var count = 0

  def rows: Int = count

  def write(row: InternalRow): Unit = {
    arrow.write(if (identity) row
    else InternalRow.fromSeq(ordinals.toSeq.map(o => if (o < 0) null else row.get(o, types(o)))))
    count += 1
  }

  /** True when the buffered rows reach [[FragmentBuffer.MaxRows]] or [[FragmentBuffer.MaxBytes]]. */
  def isFull: Boolean = count >= FragmentBuffer.MaxRows || bufferedBytes >= FragmentBuffer.MaxBytes

  /** The size of the buffered rows' Arrow buffers, as Spark's ArrowWriter.sizeInBytes counts it
   * (which Spark 3.5 lacks): setValueCount first sets a variable-width vector's last offset. */
  private def bufferedBytes: Long = root.getFieldVectors.asScala.iterator.map { v =>
    v.setValueCount(count)
    v.getBufferSizeFor(count).toLong
  }.sum

  /** `f` of the buffered rows in the dataset's own Arrow types, then an empty buffer. */
  def drain[B](f: VectorSchemaRoot => B): B = {
    arrow.finish()
    val copies = mutable.ArrayBuffer.empty[FieldVector]
    try {
      val vectors = stored.zip(buffered).zipWithIndex.map { case ((s, b), i) =>
        if (s eq b) root.getVector(i)
        else {
          val copy = s.createVector(Lance.allocator)
          copies += copy
          try StoredVectors.copy(root.getVector(i), copy, count, s.getName)
          catch {
            case e: UnstorableColumnValue => throw new IllegalArgumentException(s"table $table: ${e.getMessage}", e)
          }
          copy
        }
      }
      f(if (copies.isEmpty) root else new VectorSchemaRoot(stored.asJava, vectors.asJava, count))
    } finally {
      copies.foreach(_.close())
      arrow.reset()
      count = 0
    }
  }

  def close(): Unit = root.close()
}

object FragmentBuffer {

  /** Rows (and Arrow bytes) a task buffers before writing them out as fragments. */
  val MaxRows = 262144
  val MaxBytes: Long = 64L << 20
}
