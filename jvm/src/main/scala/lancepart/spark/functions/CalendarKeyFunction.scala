// Calendar fields over one column (year, month, day, hour) as one joinable key function, and the
// reducer that coarsens such a key for storage-partitioned joins.
package lancepart.spark.functions

import lancepart.spark.line.{Reducer, ReducibleFunction}
import lancepart.transform.Transform
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.functions.{BoundFunction, ScalarFunction, UnboundFunction}
import org.apache.spark.sql.types._

/**
 * A run of calendar fields year, month, day, hour (the first `levels` of them) over one column,
 * reported to Spark as one key: y, y*100+m, (y*100+m)*100+d, ... A finer key reduces to a coarser
 * one by dropping its last digits, so (year, month, day) joins (year, month) without a shuffle.
 */
object CalendarKey {
  val Levels: Seq[Int] = 1 to 4
  def name(levels: Int): String = s"lance_calendar_${Transform.Calendar.take(levels).map(_.jsonName).mkString("_")}"

  /** The key of calendar values `values` (year first); NULL when any is NULL. */
  def combine(values: Seq[Any]): Any =
    if (values.contains(null)) null else values.map(_.asInstanceOf[Int].toLong).reduce(_ * 100 + _)
}

class CalendarKeyFunction(levels: Int) extends UnboundFunction {
  override def name(): String = CalendarKey.name(levels)
  override def description(): String =
    s"$name: ${Transform.Calendar.take(levels).map(_.jsonName).mkString(", ")} as one number"
  override def bind(inputType: StructType): BoundFunction = inputType.fields.map(_.dataType).toSeq match {
    case Seq(dt @ (DateType | TimestampType | TimestampNTZType)) if levels < 4 || dt != DateType =>
      new BoundCalendarKey(levels, dt)
    case other => throw new UnsupportedOperationException(
        s"$name takes one date or timestamp, got ${other.map(_.sql).mkString(", ")}")
  }
}

class BoundCalendarKey(val levels: Int, source: DataType)
    extends ScalarFunction[java.lang.Long] with ReducibleFunction[java.lang.Long, java.lang.Long] with Serializable {
  override def inputTypes(): Array[DataType] = Array(source)
  override def resultType(): DataType = LongType
  override def name(): String = CalendarKey.name(levels)
  override def canonicalName(): String = s"lancepart.calendar_$levels"
  override def produceResult(input: InternalRow): java.lang.Long = {
    val v = input.get(0, source)
    CalendarKey.combine(Transform.Calendar.take(levels).map(_(Seq((v, source))))).asInstanceOf[java.lang.Long]
  }
  override def reducer(other: ReducibleFunction[_, _]): Reducer[java.lang.Long, java.lang.Long] = other match {
    case o: BoundCalendarKey if o.levels < levels => new CalendarReducer(levels - o.levels)
    case _ => null
  }
}

/** Drops the last `levels` two-digit calendar components of a key. */
class CalendarReducer(levels: Int) extends Reducer[java.lang.Long, java.lang.Long] with Serializable {
  private val divisor = math.pow(100, levels).toLong
  override def reduce(key: java.lang.Long): java.lang.Long =
    if (key == null) null else Long.box(Math.floorDiv(key.longValue(), divisor))

  // Reducer's since Spark 4.2 (the reduced key's type); on earlier lines a method of the class only
  def resultType(): DataType = LongType
}
