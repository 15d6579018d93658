// Partition expressions evaluated by lance-core's DataFusion (spec: Partition Expression): source
// values become an in-memory batch, murmur3 / murmur3_multi calls are computed first (BucketHash:
// lance-core's SQL lacks Lance's extensions), then one SELECT casts the expression to the result type.
package lancepart.lance

import lancepart.transform.{BucketHash, PartitionExpression}
import org.apache.arrow.vector._
import org.apache.arrow.vector.types.pojo.Schema
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.arrow.ArrowWriter
import org.apache.spark.sql.lancepart.ArrowBridge
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.{ArrowColumnVector, ColumnVector}
import org.apache.spark.unsafe.types.UTF8String

import scala.jdk.CollectionConverters._

/** An expression that cannot be evaluated; `row` is the source values it fails on, when one does. */
class ExpressionException(message: String, val row: Option[IndexedSeq[Any]] = None, cause: Throwable = null)
    extends IllegalArgumentException(message, cause)

/**
 * `expression` over sources of `sources` types (`colK` is source K; None for a source the schema
 * lost, which reads as NULL: spec requirement 4), cast to `resultType` with DataFusion's CAST.
 * Values are Spark's internal forms.
 */
final class ExpressionEval private (
    expression: PartitionExpression,
    sources: Seq[Option[DataType]],
    resultType: DataType) {
  import ExpressionEval._

  /** The sources the batch carries: those it names that the schema has. */
  private val inputs = expression.columns.toSeq.sorted.filter(k => sources(k).isDefined)
  private val text = expression.withNullColumns(expression.columns.filter(k => sources(k).isEmpty))
  private val cast = castType(resultType)

  /** The value of each row (source values by index K); a run of equal rows (writes arrive sorted
   * by the sources) is evaluated once. A failure names the first row it fails on, or none when it
   * fails without rows (it does not plan). */
  def evaluate(rows: Seq[IndexedSeq[Any]]): IndexedSeq[Any] = {
    val keys = rows.map(r => inputs.map(k => identical(r(k))).toIndexedSeq).toIndexedSeq
    val heads = keys.indices.filter(i => i == 0 || keys(i) != keys(i - 1))
    val distinct = heads.map(rows(_).toIndexedSeq)
    val values =
      try run(distinct.map(r => inputs.map(r).toIndexedSeq))
      catch { case e: BatchSqlException => throw culprit(distinct, e) }
    var head = -1
    rows.indices.map { i =>
      if (head + 1 < heads.size && heads(head + 1) == i) head += 1
      values(head)
    }
  }

  /** Plans it over no rows (unknown functions and columns, argument types, a result type it does
   * not cast to), then runs it over one row of NULLs for the row count alone (a set-returning
   * function), whatever that row gives. */
  def check(): Unit = {
    try run(IndexedSeq.empty)
    catch { case e: BatchSqlException => throw failure(e, None) }
    try run(IndexedSeq(IndexedSeq.fill[Any](inputs.size)(null)))
    catch { case _: BatchSqlException => }
  }

  private def failure(e: Exception, row: Option[IndexedSeq[Any]]) = new ExpressionException(
    s"expression '${expression.text}' over ${sources.map(_.fold("NULL")(_.sql)).mkString("(", ", ", ")")} " +
      s"as ${resultType.sql}: ${e.getMessage}",
    row,
    e
  )

  /** The failure of `rows` pinned to its first failing row by halving (one query per step). */
  private def culprit(rows: IndexedSeq[IndexedSeq[Any]], error: BatchSqlException): ExpressionException = {
    def fails(part: IndexedSeq[IndexedSeq[Any]]): Option[BatchSqlException] =
      try { run(part.map(r => inputs.map(r).toIndexedSeq)); None }
      catch { case e: BatchSqlException => Some(e) }
    def search(part: IndexedSeq[IndexedSeq[Any]], e: BatchSqlException): ExpressionException =
      if (part.size == 1) failure(e, Some(part.head))
      else {
        val (a, b) = part.splitAt(part.size / 2)
        fails(a).map(search(a, _)).orElse(fails(b).map(search(b, _))).getOrElse(failure(e, None))
      }
    if (rows.size <= 1 || fails(IndexedSeq.empty).isDefined) failure(error, rows.headOption.filter(_ => rows.size == 1))
    else search(rows, error)
  }

  /** Values of rows holding the [[inputs]], in order. */
  private def run(rows: IndexedSeq[IndexedSeq[Any]]): IndexedSeq[Any] = {
    var expr = text
    var columns = inputs.map(k => s"col$k" -> sources(k).get)
    var values = rows
    while (expr.hashes) {
      val calls = expr.innermostHashCalls
      calls.foreach { c =>
        if (c.args.isEmpty || (c.name == "murmur3" && c.args.size != 1)) {
          throw new ExpressionException(s"expression '${expression.text}': ${c.name} takes " +
            s"${if (c.name == "murmur3") "1 argument" else "1 or more arguments"}, got ${c.args.size}")
        }
      }
      val names = calls.indices.map(i => s"${Internal}hash_${columns.size + i}")
      val args = calls.zipWithIndex.flatMap { case (c, i) => c.args.indices.map(j => s"${Internal}arg_${i}_$j") }
      val items = calls.flatMap(_.args).zip(args).map { case (a, name) => s"($a) AS $name" }
      val hashed = query(columns, values, items) { (vectors, n) =>
        var at = 0
        calls.map { c =>
          val readers = c.args.indices.map(j => hashReader(vectors(at + j), c.args(j)))
          at += c.args.size
          (0 until n).map(r => hashOf(c.name, readers.map(_(r))).getOrElse(null))
        }
      }
      columns ++= names.map(_ -> IntegerType)
      values = values.indices.map(r => values(r) ++ hashed.map(_(r)))
      expr = expr.replacing(calls.zip(names))
    }
    query(columns, values, Seq(s"arrow_cast(($expr), '$cast') AS ${Internal}value")) { (vectors, n) =>
      val v = new ArrowColumnVector(vectors.head)
      Seq((0 until n).map(internal(v, _, resultType)))
    }.head
  }

  /** `items` over `rows` of `columns`, per item in input order: `read` turns each result
   * batch's item vectors (and its row count) into values. */
  private def query(columns: Seq[(String, DataType)], rows: IndexedSeq[IndexedSeq[Any]], items: Seq[String])(
      read: (Seq[FieldVector], Int) => Seq[IndexedSeq[Any]]): Seq[IndexedSeq[Any]] = {
    val fields = (s"${Internal}row" -> IntegerType) +: columns
    val schema = new Schema(fields.map { case (n, dt) => ArrowBridge.toArrowField(n, dt, nullable = true) }.asJava)
    val out = Array.fill(items.size)(new Array[Any](rows.size))
    var seen = 0
    Lance.using(VectorSchemaRoot.create(schema, Lance.allocator)) { root =>
      val writer = ArrowWriter.create(root)
      rows.indices.foreach(r => writer.write(InternalRow.fromSeq(r +: rows(r))))
      writer.finish()
      BatchSql.select(root, s"${Internal}row" +: items) { batch =>
        val n = batch.getRowCount
        val index = batch.getVector(0).asInstanceOf[IntVector]
        read(batch.getFieldVectors.asScala.toSeq.tail, n).zipWithIndex.foreach { case (vs, k) =>
          (0 until n).foreach(i => out(k)(index.get(i)) = vs(i))
        }
        seen += n
      }
    }
    if (seen != rows.size) {
      throw new ExpressionException(s"expression '${expression.text}' gives $seen values for ${rows.size} rows " +
        "(a set-returning function?)")
    }
    out.toSeq.map(_.toIndexedSeq)
  }
}

object ExpressionEval {

  /** A value's key for evaluating equal rows once: floats by their bits (0.0 and -0.0 hash apart). */
  private def identical(v: Any): Any = v match {
    case d: Double => java.lang.Double.doubleToRawLongBits(d)
    case f: Float => java.lang.Float.floatToRawIntBits(f)
    case other => other
  }

  /** Prefix of the batch's own columns. */
  private val Internal = "__lancepart_"

  /** `text` over sources of `sources` types (None: lost, NULL) cast to `resultType`; parsed here. */
  def apply(text: String, sources: Seq[Option[DataType]], resultType: DataType): ExpressionEval =
    new ExpressionEval(PartitionExpression.parse(text, sources.size), sources, resultType)

  /** The Arrow type DataFusion's `arrow_cast` gives the result type (Spark's own Arrow mapping). */
  private def castType(dt: DataType): String = dt match {
    case BooleanType => "Boolean"
    case ByteType => "Int8"
    case ShortType => "Int16"
    case IntegerType => "Int32"
    case LongType => "Int64"
    case FloatType => "Float32"
    case DoubleType => "Float64"
    case StringType => "Utf8"
    case BinaryType => "Binary"
    case DateType => "Date32"
    case TimestampType => """Timestamp(Microsecond, Some("UTC"))"""
    case TimestampNTZType => "Timestamp(Microsecond, None)"
    case d: DecimalType => s"Decimal128(${d.precision}, ${d.scale})"
    case other => throw new ExpressionException(s"an expression cannot give ${other.sql}")
  }

  private def internal(v: ColumnVector, r: Int, dt: DataType): Any = if (v.isNullAt(r)) null
  else dt match {
    case BooleanType => v.getBoolean(r)
    case ByteType => v.getByte(r)
    case ShortType => v.getShort(r)
    case IntegerType | DateType => v.getInt(r)
    case LongType | TimestampType | TimestampNTZType => v.getLong(r)
    case FloatType => v.getFloat(r)
    case DoubleType => v.getDouble(r)
    case StringType => v.getUTF8String(r).copy()
    case BinaryType => v.getBinary(r)
    case d: DecimalType => v.getDecimal(r, d.precision, d.scale)
  }

  private def hashOf(name: String, inputs: Seq[(Any, DataType)]): Option[Int] =
    if (name == "murmur3") BucketHash.hash(inputs.head._1, inputs.head._2) else BucketHash.hashMulti(inputs)

  /**
   * The values of hash argument `v` (the text `arg`) as BucketHash encodes them: their native
   * bytes at their Arrow width (unsigned integers by their bits, date64 and timestamps of any
   * unit as the stored int64), strings and binaries of every layout by their bytes, booleans and
   * decimals by their display strings (docs/format.md, "Bucket hash"). Other types are refused.
   */
  private def hashReader(v: FieldVector, arg: String): Int => (Any, DataType) = {
    def of(dt: DataType)(get: Int => Any): Int => (Any, DataType) = r => (if (v.isNull(r)) null else get(r), dt)
    v match {
      case _: NullVector => _ => (null, NullType)
      case x: TinyIntVector => of(ByteType)(x.get)
      case x: UInt1Vector => of(ByteType)(x.get)
      case x: SmallIntVector => of(ShortType)(x.get)
      case x: UInt2Vector => of(ShortType)(x.get(_).toShort)
      case x: IntVector => of(IntegerType)(x.get)
      case x: UInt4Vector => of(IntegerType)(x.get)
      case x: BigIntVector => of(LongType)(x.get)
      case x: UInt8Vector => of(LongType)(x.get)
      case x: Float4Vector => of(FloatType)(x.get)
      case x: Float8Vector => of(DoubleType)(x.get)
      case x: DateDayVector => of(DateType)(x.get)
      case x: DateMilliVector => of(LongType)(x.get)
      case x: TimeStampVector => of(LongType)(x.get)
      case x: BitVector => of(BooleanType)(x.get(_) == 1)
      case x: DecimalVector =>
        of(DecimalType(x.getPrecision, x.getScale))(r => Decimal(x.getObject(r), x.getPrecision, x.getScale))
      case x: VarCharVector => of(StringType)(r => UTF8String.fromBytes(x.get(r)))
      case x: LargeVarCharVector => of(StringType)(r => UTF8String.fromBytes(x.get(r)))
      case x: ViewVarCharVector => of(StringType)(r => UTF8String.fromBytes(x.get(r)))
      case x: VarBinaryVector => of(BinaryType)(x.get)
      case x: LargeVarBinaryVector => of(BinaryType)(x.get)
      case x: ViewVarBinaryVector => of(BinaryType)(x.get)
      case other =>
        throw new ExpressionException(s"murmur3 cannot hash '$arg', of Arrow type ${other.getField.getType}")
    }
  }
}
