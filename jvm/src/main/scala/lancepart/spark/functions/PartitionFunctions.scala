// The spec's transforms as Spark V2 functions, so Spark can cluster writes by partition and, later,
// resolve reported partitioning. Canonical names are `lancepart.*`: a Lance bucket is never taken
// for Spark's or Iceberg's bucket, whose hashes differ.
package lancepart.spark.functions

import lancepart.transform.Transform
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.functions.{BoundFunction, Reducer, ReducibleFunction, ScalarFunction, UnboundFunction}
import org.apache.spark.sql.types._

object PartitionFunctions {
  /** Every kind but identity (Spark's own) under its function name; the single-column bucket
   * also under Spark's name `bucket`, which Spark looks up for a reported `bucket(N, col)`
   * transform (its canonical name stays `lancepart.bucket`, so it never matches another engine's
   * bucket). */
  val all: Map[String, UnboundFunction] = {
    val kinds = Transform.Kinds.filter(_ != Transform.Identity)
    val reportedBucket = Transform.Bucket(1)
    kinds.map(k => k.functionName -> new TransformFunction(k)).toMap ++
      reportedBucket.sparkName.map(_ -> new TransformFunction(reportedBucket)) ++
      CalendarKey.Levels.map(n => CalendarKey.name(n) -> new CalendarKeyFunction(n)).toMap
  }
}

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
  override def description(): String = s"$name: ${Transform.Calendar.take(levels).map(_.jsonName).mkString(", ")} as one number"
  override def bind(inputType: StructType): BoundFunction = inputType.fields.map(_.dataType).toSeq match {
    case Seq(dt @ (DateType | TimestampType | TimestampNTZType)) if levels < 4 || dt != DateType => new BoundCalendarKey(levels, dt)
    case other => throw new UnsupportedOperationException(s"$name takes one date or timestamp, got ${other.map(_.sql).mkString(", ")}")
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
  override def reduce(key: java.lang.Long): java.lang.Long = if (key == null) null else Long.box(Math.floorDiv(key.longValue(), divisor))
}

/**
 * `lance_year(ts)`, `lance_month`, `lance_day`, `lance_hour`; `lance_bucket(N, col)`,
 * `lance_multi_bucket(N, col, ...)` and `lance_truncate(W, col)` take the parameter first.
 */
class TransformFunction(kind: Transform) extends UnboundFunction {
  private val parameterized = kind.parameter.isDefined

  override def name(): String = kind.functionName

  override def description(): String = s"$name: the Lance partition transform '${kind.jsonName}' (spec semantics)"

  override def bind(inputType: StructType): BoundFunction = {
    val types = inputType.fields.map(_.dataType).toSeq
    val (param, sources) = if (parameterized) (types.headOption, types.drop(1)) else (None, types)
    kind match {
      case p: Transform.Parameterized if !param.exists(t => t == IntegerType || t == LongType) =>
        throw new UnsupportedOperationException(s"$name takes an integer ${p.parameterName} first")
      case _ =>
    }
    // Bucket counts and widths are checked when a row supplies them; `kind` has 1 for binding.
    val result = kind.resultType(sources).fold(e => throw new UnsupportedOperationException(s"$name: $e"), identity)
    new BoundTransform(kind, sources, result)
  }
}

/** Bucket functions reduce to a common divisor for storage-partitioned joins:
 * `abs(h) % N % g == abs(h) % g` when g divides N. */
class BoundTransform(kind: Transform, sources: Seq[DataType], result: DataType)
    extends ScalarFunction[Any] with ReducibleFunction[Integer, Integer] with Serializable {
  private val parameterized = kind.parameter.isDefined
  private val offset = if (parameterized) 1 else 0

  override def inputTypes(): Array[DataType] =
    ((if (parameterized) Seq(IntegerType) else Seq.empty) ++ sources).toArray

  override def resultType(): DataType = result

  override def name(): String = kind.functionName

  override def canonicalName(): String = s"lancepart.${kind.jsonName}"

  override def reducer(thisNumBuckets: Int, other: ReducibleFunction[_, _], otherNumBuckets: Int): Reducer[Integer, Integer] =
    (other, kind) match {
      case (o: BoundTransform, _: Transform.Bucket) if o.canonicalName() == canonicalName() =>
        val gcd = BigInt(thisNumBuckets).gcd(BigInt(otherNumBuckets)).toInt
        if (gcd == thisNumBuckets) null else new BucketReducer(gcd)
      case _ => null
    }

  /** Calendar fields (month of year, day of month, ...) do not determine one another: no reducer.
   * (Spark calls this for every pair of reported non-bucket transforms; its default throws.) */
  override def reducer(other: ReducibleFunction[_, _]): Reducer[Integer, Integer] = null

  override def produceResult(input: InternalRow): Any = {
    val transform = kind match {
      case p: Transform.Parameterized =>
        val n = input.getInt(0)
        if (n <= 0) throw new IllegalArgumentException(s"$name: the ${p.parameterName} must be positive, got $n")
        p.withParameter(n)
      case other => other
    }
    transform(sources.indices.map(i => (input.get(i + offset, sources(i)), sources(i))))
  }
}

/** Maps a bucket of a finer bucketing to the bucket of `divisor` buckets that contains it. */
class BucketReducer(divisor: Int) extends Reducer[Integer, Integer] with Serializable {
  override def reduce(bucket: Integer): Integer = if (bucket == null) null else Int.box(bucket % divisor)
}
