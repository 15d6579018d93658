// Binding and evaluation of partition expressions, with DataFusion's semantics for the supported
// subset: integer arithmetic in 64 bits (division truncates, % takes the dividend's sign), float
// and exact decimal arithmetic, three-valued logic, concat() ignoring NULLs, casts toward zero.
package lancepart.transform

import java.math.{MathContext, RoundingMode, BigDecimal => JBigDecimal}
import java.time.{LocalDate, LocalDateTime, ZoneOffset}

import lancepart.transform.Expr._
import org.apache.spark.sql.catalyst.util.DateTimeConstants.{
  MICROS_PER_DAY, MICROS_PER_HOUR, MICROS_PER_MINUTE, MICROS_PER_SECOND
}
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * An expression bound to its sources' types. `eval` takes source values in Spark's internal form
 * (NULL for a source missing from the schema) and returns the value in the evaluation form:
 * Long for integers, Double for floats, java.math.BigDecimal for decimals, UTF8String, Boolean,
 * Int days for dates, Long microseconds for timestamps.
 */
final class BoundExpr(val dataType: DataType, run: IndexedSeq[Any] => Any) {
  def eval(inputs: IndexedSeq[Any]): Any = run(inputs)
}

class ExprTypeException(message: String) extends IllegalArgumentException(message)

object ExprEval {
  val Functions: Set[String] = Set(
    "date_part",
    "left",
    "right",
    "substr",
    "substring",
    "abs",
    "coalesce",
    "lower",
    "upper",
    "concat",
    "char_length",
    "character_length",
    "length",
    "murmur3",
    "murmur3_multi"
  )
  private val DecimalMath = MathContext.DECIMAL128
  private val SystemDecimal = DecimalType(38, 18)

  /** A compiled partition expression: source values in, result_type value (internal form) out. */
  def compile(text: String, sources: Seq[Option[DataType]], resultType: DataType): IndexedSeq[Any] => Any = {
    val bound = bind(ExprParser.parse(text), sources)
    if (!castable(bound.dataType, resultType)) {
      throw new ExprTypeException(
        s"expression '$text' returns ${bound.dataType.sql}, which cannot be stored as ${resultType.sql}")
    }
    inputs => toInternal(cast(bound.eval(inputs), bound.dataType, resultType), resultType)
  }

  def bind(expr: Expr, sources: Seq[Option[DataType]]): BoundExpr = expr match {
    case Col(i) =>
      if (i >= sources.size)
        throw new ExprTypeException(s"col$i has no source (the field has ${sources.size} source ids)")
      sources(i) match {
        case Some(dt) => new BoundExpr(evalType(dt), in => fromInternal(in(i), dt))
        case None => new BoundExpr(NullType, _ => null) // spec requirement 4: a removed source reads as NULL
      }
    case Lit(v, dt) => new BoundExpr(dt, _ => v)
    case Neg(c) =>
      val b = bind(c, sources)
      requireNumeric(b.dataType, "unary -")
      new BoundExpr(b.dataType, in => arith("-", 0L, LongType, b.eval(in), b.dataType, b.dataType))
    case Not(c) =>
      val b = bind(c, sources)
      new BoundExpr(BooleanType, in => b.eval(in) match { case null => null; case x: Boolean => !x })
    case Binary(op @ ("AND" | "OR"), l, r) =>
      val (a, b) = (bind(l, sources), bind(r, sources))
      new BoundExpr(BooleanType, in => logic(op, a.eval(in), b.eval(in)))
    case Binary(op @ ("=" | "!=" | "<" | "<=" | ">" | ">="), l, r) =>
      val (a, b) = (bind(l, sources), bind(r, sources))
      val common = comparisonType(a.dataType, b.dataType)
      new BoundExpr(
        BooleanType,
        in => {
          val (x, y) = (a.eval(in), b.eval(in))
          if (x == null || y == null) null
          else {
            val c = compare(cast(x, a.dataType, common), cast(y, b.dataType, common))
            op match {
              case "=" => c == 0; case "!=" => c != 0; case "<" => c < 0; case "<=" => c <= 0
              case ">" => c > 0; case ">=" => c >= 0
            }
          }
        }
      )
    case Binary(op, l, r) =>
      val (a, b) = (bind(l, sources), bind(r, sources))
      val t = numericType(a.dataType, b.dataType, op)
      new BoundExpr(t, in => arith(op, a.eval(in), a.dataType, b.eval(in), b.dataType, t))
    case IsNull(c, negated) =>
      val b = bind(c, sources)
      new BoundExpr(BooleanType, in => (b.eval(in) == null) != negated)
    case InList(c, items, negated) =>
      val eqs = items.map(i => bind(Binary("=", c, i), sources))
      new BoundExpr(
        BooleanType,
        in => {
          val results = eqs.map(_.eval(in))
          val r: Any = if (results.contains(true)) true else if (results.contains(null)) null else false
          if (negated && r != null) !r.asInstanceOf[Boolean] else r
        }
      )
    case Case(operand, branches, otherwise) =>
      val conds = branches.map { case (w, _) => bind(operand.fold(w)(o => Binary("=", o, w)), sources) }
      val values = branches.map { case (_, t) => bind(t, sources) } ++ otherwise.map(bind(_, sources))
      val t = values.map(_.dataType).reduce(commonType)
      new BoundExpr(
        t,
        in => {
          val hit = conds.indexWhere(_.eval(in) == true)
          val chosen = if (hit >= 0) Some(values(hit)) else otherwise.map(_ => values.last)
          chosen.map(v => cast(v.eval(in), v.dataType, t)).orNull
        }
      )
    case Cast(c, to) =>
      val b = bind(c, sources)
      val target = evalType(to)
      if (!castable(b.dataType, to)) throw new ExprTypeException(s"cannot CAST ${b.dataType.sql} AS ${to.sql}")
      new BoundExpr(target, in => cast(b.eval(in), b.dataType, to))
    case Call(name @ ("murmur3" | "murmur3_multi"), args) => hash(name, args.map(hashInput(_, sources)))
    case Call(name, args) => call(name, args.map(bind(_, sources)))
  }

  // ---- murmur3 ----

  /** murmur3 / murmur3_multi (docs/format.md, "Bucket hash") over (type, internal value) inputs. */
  private def hash(name: String, inputs: Seq[(DataType, IndexedSeq[Any] => Any)]): BoundExpr = name match {
    case "murmur3" =>
      if (inputs.size != 1) throw new ExprTypeException(s"function murmur3 takes 1 arguments, got ${inputs.size}")
      val (dt, value) = inputs.head
      new BoundExpr(LongType, in => BucketHash.hash(value(in), dt).map(_.toLong).orNull)
    case _ =>
      if (inputs.isEmpty) throw new ExprTypeException("murmur3_multi needs arguments")
      new BoundExpr(
        LongType,
        in => BucketHash.hashMulti(inputs.map { case (dt, value) => (value(in), dt) }).map(_.toLong).orNull)
  }

  /** A hash argument as its Arrow type has it: a column at its own type (an int column as 4
   * bytes), any other expression at its evaluation type (integers as int64, as DataFusion's). */
  private def hashInput(e: Expr, sources: Seq[Option[DataType]]): (DataType, IndexedSeq[Any] => Any) = {
    val bound = bind(e, sources)
    e match {
      case Col(i) if sources(i).isDefined => (sources(i).get, in => in(i))
      case _ => (hashType(bound.dataType), in => toInternal(bound.eval(in), bound.dataType))
    }
  }

  // ---- functions ----

  private def call(name: String, args: Seq[BoundExpr]): BoundExpr = {
    def arity(n: Int*): Unit =
      if (!n.contains(args.size))
        throw new ExprTypeException(s"function $name takes ${n.mkString(" or ")} arguments, got ${args.size}")
    def str(i: Int, in: IndexedSeq[Any]) = cast(args(i).eval(in), args(i).dataType, StringType).asInstanceOf[UTF8String]
    def long(i: Int, in: IndexedSeq[Any]) =
      cast(args(i).eval(in), args(i).dataType, LongType).asInstanceOf[java.lang.Long]
    name match {
      case "date_part" =>
        arity(2)
        new BoundExpr(
          LongType,
          in => {
            val part = str(0, in)
            val v = args(1).eval(in)
            if (part == null || v == null) null else datePart(part.toString.toLowerCase, v, args(1).dataType)
          })
      case "left" | "right" =>
        arity(2)
        new BoundExpr(
          StringType,
          in => {
            val (s, n) = (str(0, in), long(1, in))
            if (s == null || n == null) null
            else {
              val len = s.numChars()
              val keep = if (n >= 0) math.min(n.toLong, len.toLong).toInt else math.max(0L, len + n.toLong).toInt
              if (name == "left") s.substring(0, keep) else s.substring(len - keep, len)
            }
          }
        )
      case "substr" | "substring" =>
        arity(2, 3)
        new BoundExpr(
          StringType,
          in => {
            val (s, start) = (str(0, in), long(1, in))
            val count = if (args.size == 3) long(2, in) else java.lang.Long.valueOf(Int.MaxValue.toLong)
            if (s == null || start == null || count == null) null
            else if (count < 0) throw new ArithmeticException(s"negative substring length $count")
            else {
              val from = math.max(start.toLong, 1L)
              val to = math.min(start.toLong + count.toLong, s.numChars().toLong + 1)
              if (to <= from) UTF8String.EMPTY_UTF8 else s.substring((from - 1).toInt, (to - 1).toInt)
            }
          }
        )
      case "abs" =>
        arity(1)
        requireNumeric(args.head.dataType, "abs")
        new BoundExpr(
          args.head.dataType,
          in =>
            args.head.eval(in) match {
              case null => null
              case x: Long => math.abs(x)
              case x: Double => math.abs(x)
              case x: JBigDecimal => x.abs()
            })
      case "coalesce" =>
        if (args.isEmpty) throw new ExprTypeException("coalesce needs arguments")
        val t = args.map(_.dataType).reduce(commonType)
        new BoundExpr(t, in => args.iterator.map(a => cast(a.eval(in), a.dataType, t)).find(_ != null).orNull)
      case "lower" | "upper" =>
        arity(1)
        new BoundExpr(
          StringType,
          in => Option(str(0, in)).map(s => if (name == "lower") s.toLowerCase else s.toUpperCase).orNull)
      case "concat" =>
        new BoundExpr(StringType, in => UTF8String.concat(args.indices.map(str(_, in)).filter(_ != null): _*))
      case "concat_op" =>
        new BoundExpr(
          StringType,
          in => {
            val parts = args.indices.map(str(_, in))
            if (parts.contains(null)) null else UTF8String.concat(parts: _*)
          })
      case "char_length" | "character_length" | "length" =>
        arity(1)
        new BoundExpr(LongType, in => Option(str(0, in)).map(_.numChars().toLong).orNull)
      case other => throw new ExprTypeException(
          s"unsupported function '$other' (supported: ${Functions.toSeq.sorted.mkString(", ")})")
    }
  }

  private def datePart(part: String, v: Any, dt: DataType): Any = {
    val (days, micros) = dt match {
      case DateType => (v.asInstanceOf[Int], 0L)
      case TimestampType | TimestampNTZType =>
        val us = v.asInstanceOf[Long]
        (Math.floorDiv(us, MICROS_PER_DAY).toInt, Math.floorMod(us, MICROS_PER_DAY))
      case other => throw new ExprTypeException(s"date_part of ${other.sql}")
    }
    val date = LocalDate.ofEpochDay(days)
    part match {
      case "year" => date.getYear.toLong
      case "quarter" => ((date.getMonthValue - 1) / 3 + 1).toLong
      case "month" => date.getMonthValue.toLong
      case "day" => date.getDayOfMonth.toLong
      case "doy" => date.getDayOfYear.toLong
      case "dow" => (date.getDayOfWeek.getValue % 7).toLong
      case "hour" => micros / MICROS_PER_HOUR
      case "minute" => (micros % MICROS_PER_HOUR) / MICROS_PER_MINUTE
      case "second" => (micros % MICROS_PER_MINUTE) / MICROS_PER_SECOND
      case other => throw new ExprTypeException(s"unsupported date_part '$other'")
    }
  }

  // ---- types ----

  /** The evaluation type of a Spark type: integers as LongType, floats as DoubleType. */
  def evalType(dt: DataType): DataType = dt match {
    case ByteType | ShortType | IntegerType | LongType => LongType
    case FloatType | DoubleType => DoubleType
    case _: DecimalType | StringType | BooleanType | DateType | TimestampType | TimestampNTZType | BinaryType | NullType =>
      dt
    case other => throw new ExprTypeException(s"type ${other.sql} is not supported in partition expressions")
  }

  private def hashType(dt: DataType): DataType = dt match {
    case NullType => StringType
    case other => other
  }

  private def isNumeric(dt: DataType) =
    dt == LongType || dt == DoubleType || dt.isInstanceOf[DecimalType] || dt == NullType

  private def requireNumeric(dt: DataType, what: String): Unit =
    if (!isNumeric(dt)) throw new ExprTypeException(s"$what needs a number, got ${dt.sql}")

  private def numericType(a: DataType, b: DataType, op: String): DataType = {
    if (!isNumeric(a) || !isNumeric(b)) throw new ExprTypeException(s"'$op' needs numbers, got ${a.sql} and ${b.sql}")
    (a, b) match {
      case (DoubleType, _) | (_, DoubleType) => DoubleType
      case (_: DecimalType, _) | (_, _: DecimalType) => SystemDecimal
      case (NullType, NullType) => NullType
      case _ => LongType
    }
  }

  private def commonType(a: DataType, b: DataType): DataType = (a, b) match {
    case (NullType, t) => t
    case (t, NullType) => t
    case (x, y) if x == y => x
    case (x, y) if isNumeric(x) && isNumeric(y) => numericType(x, y, "common type")
    case (_: DecimalType, _: DecimalType) => SystemDecimal
    case (x, y) => throw new ExprTypeException(s"no common type for ${x.sql} and ${y.sql}")
  }

  private def comparisonType(a: DataType, b: DataType): DataType = (a, b) match {
    case (DateType | TimestampType | TimestampNTZType, StringType) => a
    case (StringType, DateType | TimestampType | TimestampNTZType) => b
    case (DateType, TimestampType | TimestampNTZType) => b
    case (TimestampType | TimestampNTZType, DateType) => a
    case _ => commonType(a, b)
  }

  private def castable(from: DataType, to: DataType): Boolean = (evalType(from), evalType(to)) match {
    case (x, y) if x == y => true
    case (NullType, _) => true
    case (LongType | DoubleType | _: DecimalType, LongType | DoubleType | _: DecimalType) => true
    case (_, StringType) => true
    case (StringType, _) => true
    case (BooleanType, LongType) | (LongType, BooleanType) => true
    case (DateType, TimestampType | TimestampNTZType) | (TimestampType | TimestampNTZType, DateType) => true
    case (TimestampType, TimestampNTZType) | (TimestampNTZType, TimestampType) => true
    case _ => false
  }

  // ---- values ----

  private def fromInternal(v: Any, dt: DataType): Any = (v, dt) match {
    case (null, _) => null
    case (n: Byte, ByteType) => n.toLong
    case (n: Short, ShortType) => n.toLong
    case (n: Int, IntegerType) => n.toLong
    case (f: Float, FloatType) => f.toDouble
    case (d: Decimal, _: DecimalType) => d.toJavaBigDecimal
    case (x, _) => x
  }

  /** A value in evaluation form as Spark's internal value of `to`. */
  def toInternal(v: Any, to: DataType): Any = (v, to) match {
    case (null, _) => null
    case (n: Long, ByteType) => n.toByte
    case (n: Long, ShortType) => n.toShort
    case (n: Long, IntegerType) => n.toInt
    case (d: Double, FloatType) => d.toFloat
    case (d: JBigDecimal, t: DecimalType) => Decimal(d.setScale(t.scale, RoundingMode.HALF_UP), t.precision, t.scale)
    case (x, _) => x
  }

  /** Casts a value in evaluation form from `from` to `to` (result also in evaluation form). */
  def cast(v: Any, from: DataType, to: DataType): Any = if (v == null) null
  else (v, evalType(to)) match {
    case (x, t) if evalType(from) == t && !t.isInstanceOf[DecimalType] => x
    case (x: Long, DoubleType) => x.toDouble
    case (x: Double, LongType) => x.toLong
    case (x: JBigDecimal, LongType) => x.longValue()
    case (x: JBigDecimal, DoubleType) => x.doubleValue()
    case (x: Long, t: DecimalType) => JBigDecimal.valueOf(x).setScale(t.scale)
    case (x: Double, t: DecimalType) => new JBigDecimal(x, DecimalMath).setScale(t.scale, RoundingMode.HALF_UP)
    case (x: JBigDecimal, t: DecimalType) => x.setScale(t.scale, RoundingMode.HALF_UP)
    case (x: Boolean, LongType) => if (x) 1L else 0L
    case (x: Long, BooleanType) => x != 0L
    case (x: UTF8String, t) => parse(x.toString.trim, t)
    case (x, StringType) => UTF8String.fromString(render(x, from))
    case (x: Int, TimestampType | TimestampNTZType) => x.toLong * MICROS_PER_DAY
    case (x: Long, DateType) if from == TimestampType || from == TimestampNTZType =>
      Math.floorDiv(x, MICROS_PER_DAY).toInt
    case (x: Long, TimestampType | TimestampNTZType) => x
    case _ => throw new ExprTypeException(s"cannot cast ${from.sql} to ${to.sql}")
  }

  private def parse(s: String, to: DataType): Any = to match {
    case LongType => s.toLong
    case DoubleType => s.toDouble
    case t: DecimalType => new JBigDecimal(s).setScale(t.scale, RoundingMode.HALF_UP)
    case BooleanType => s.toBoolean
    case DateType => LocalDate.parse(s).toEpochDay.toInt
    case TimestampType | TimestampNTZType =>
      DateTimeUtils.instantToMicros(LocalDateTime.parse(s.replace(' ', 'T')).toInstant(ZoneOffset.UTC))
    case StringType => UTF8String.fromString(s)
  }

  private def render(v: Any, from: DataType): String = (v, from) match {
    case (d: Int, DateType) => LocalDate.ofEpochDay(d).toString
    case (t: Long, TimestampType | TimestampNTZType) =>
      LocalDateTime.ofEpochSecond(
        Math.floorDiv(t, MICROS_PER_SECOND),
        (Math.floorMod(t, MICROS_PER_SECOND) * 1000).toInt,
        ZoneOffset.UTC).toString
    case (d: JBigDecimal, _) => d.toPlainString
    case (x, _) => x.toString
  }

  private def compare(x: Any, y: Any): Int = (x, y) match {
    case (a: Long, b: Long) => java.lang.Long.compare(a, b)
    case (a: Double, b: Double) => java.lang.Double.compare(a, b)
    case (a: JBigDecimal, b: JBigDecimal) => a.compareTo(b)
    case (a: UTF8String, b: UTF8String) => a.binaryCompare(b)
    case (a: Int, b: Int) => Integer.compare(a, b)
    case (a: Boolean, b: Boolean) => java.lang.Boolean.compare(a, b)
    case _ => throw new ExprTypeException(s"cannot compare $x and $y")
  }

  private def logic(op: String, a: Any, b: Any): Any = op match {
    case "AND" => if (a == false || b == false) false else if (a == null || b == null) null else true
    case "OR" => if (a == true || b == true) true else if (a == null || b == null) null else false
  }

  private def arith(op: String, x: Any, xt: DataType, y: Any, yt: DataType, t: DataType): Any =
    if (x == null || y == null) null
    else t match {
      case LongType =>
        val (a, b) = (x.asInstanceOf[Long], y.asInstanceOf[Long])
        op match {
          case "+" => a + b; case "-" => a - b; case "*" => a * b
          case "/" => if (b == 0) throw new ArithmeticException("division by zero") else a / b
          case "%" => if (b == 0) throw new ArithmeticException("division by zero") else a % b
        }
      case DoubleType =>
        val (a, b) = (cast(x, xt, DoubleType).asInstanceOf[Double], cast(y, yt, DoubleType).asInstanceOf[Double])
        op match { case "+" => a + b; case "-" => a - b; case "*" => a * b; case "/" => a / b; case "%" => a % b }
      case _: DecimalType =>
        def big(v: Any, vt: DataType) = v match { case d: JBigDecimal => d; case l: Long => JBigDecimal.valueOf(l) }
        val (a, b) = (big(x, xt), big(y, yt))
        op match {
          case "+" => a.add(b); case "-" => a.subtract(b); case "*" => a.multiply(b)
          case "/" => a.divide(b, DecimalMath); case "%" => a.remainder(b)
        }
    }
}
