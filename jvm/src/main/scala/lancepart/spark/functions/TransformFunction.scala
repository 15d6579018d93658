// One transform kind as a Spark V2 function (`lance_bucket(N, col)`, ...), and the reducer that
// lets bucket functions of different counts join without a shuffle.
package lancepart.spark.functions

import lancepart.spark.line.{Reducer, ReducibleFunction}
import lancepart.transform.Transform
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.functions.{BoundFunction, ScalarFunction, UnboundFunction}
import org.apache.spark.sql.types._

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

  override def reducer(
      thisNumBuckets: Int,
      other: ReducibleFunction[_, _],
      otherNumBuckets: Int): Reducer[Integer, Integer] =
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

  // Reducer's since Spark 4.2 (the reduced key's type); on earlier lines a method of the class only
  def resultType(): DataType = IntegerType
}
