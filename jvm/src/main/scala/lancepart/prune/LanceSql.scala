// Spark V1 filters and values rendered as Lance SQL filter text (DataFusion dialect).
package lancepart.prune

import lancepart.arrow.ArrowTypes
import lancepart.manifest.SqlLiteral.quote
import org.apache.arrow.vector.types.pojo.{ArrowType, Field}
import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.sources._
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

object LanceSql {

  /** `name` quoted for Lance SQL, or None when it cannot be quoted safely (a backtick, or a
   * character lance-core's JNI cannot pass: see [[string]]). */
  def column(name: String): Option[String] =
    if (name.contains("`") || name.isEmpty || !name.codePoints().allMatch(passesJni)) None else Some(s"`$name`")

  /**
   * lance-core's JNI reads filter text as modified UTF-8 and rejects what it encodes differently
   * from UTF-8 (NUL, characters outside the Basic Multilingual Plane): those go through `chr`.
   */
  private def passesJni(codePoint: Int): Boolean = codePoint != 0 && codePoint < Character.MIN_SUPPLEMENTARY_CODE_POINT

  /**
   * Partition column `column` (quoted) of stored Arrow type `stored` as a Lance SQL expression of
   * the value Spark reads, against which literals of the Spark type compare exactly: the column
   * itself for Spark's own types and for large strings, large binary and decimal256 (Lance
   * coerces those exactly), unsigned integers cast to the Spark type (a literal out of their
   * range must not fail the query); None for the others (float16, date64, time, durations and
   * timestamps in other units, whose literals Lance would round), which are not pruned on.
   */
  def asRead(column: String, stored: ArrowType): Option[String] = stored match {
    case i: ArrowType.Int if !i.getIsSigned =>
      Some(s"arrow_cast($column, '${Map(8 -> "Int16", 16 -> "Int32", 32 -> "Int64", 64 -> "Decimal128(20, 0)")(i.getBitWidth)}')")
    case _: ArrowType.LargeUtf8 | _: ArrowType.LargeBinary | _: ArrowType.Decimal => Some(column)
    case t if ArrowTypes.isSparkOwn(Field.nullable(column, t), column) => Some(column)
    case _ => None
  }

  /** `s` as a Lance SQL string expression, or None when it holds a lone surrogate (not text). */
  def string(s: String): Option[String] = {
    val codePoints = s.codePoints().toArray.toSeq
    if (codePoints.exists(c => c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE)) None
    else if (codePoints.forall(passesJni)) Some(quote(s))
    else {
      val runs = codePoints.foldLeft(Vector.empty[Either[Int, String]]) {
        case (acc :+ Right(text), c) if passesJni(c) => acc :+ Right(text + new String(Character.toChars(c)))
        case (acc, c) if passesJni(c) => acc :+ Right(new String(Character.toChars(c)))
        case (acc, c) => acc :+ Left(c)
      }
      Some(runs.map { case Right(text) => quote(text); case Left(c) => s"chr($c)" }.mkString("(", " || ", ")"))
    }
  }

  /**
   * A filter value (Spark's external form: String, java.sql.Date or LocalDate, Timestamp or
   * Instant, LocalDateTime, BigDecimal, boxed numbers) as Spark's internal value of type `dt`, or
   * None when it is not exactly a value of that type.
   */
  def internal(value: Any, dt: DataType): Option[Any] = {
    val v = CatalystTypeConverters.convertToCatalyst(value)
    (v, dt) match {
      case (null, _) => Some(null)
      case (
            n @ (_: java.lang.Byte | _: java.lang.Short | _: java.lang.Integer | _: java.lang.Long),
            ByteType | ShortType | IntegerType | LongType) =>
        val l = n.asInstanceOf[java.lang.Number].longValue()
        dt match {
          case ByteType if l.isValidByte => Some(l.toByte)
          case ShortType if l.isValidShort => Some(l.toShort)
          case IntegerType if l.isValidInt => Some(l.toInt)
          case LongType => Some(l)
          case _ => None
        }
      case (b: Boolean, BooleanType) => Some(b)
      case (f: Float, FloatType) => Some(f)
      case (d: Double, DoubleType) => Some(d)
      case (b: Array[Byte], BinaryType) => Some(b)
      case (s: UTF8String, StringType) => Some(s)
      case (d: Int, DateType) => Some(d)
      case (t: Long, TimestampType | TimestampNTZType) => Some(t)
      case (d: Decimal, t: DecimalType) =>
        val scaled = d.clone()
        if (scaled.changePrecision(t.precision, t.scale) && scaled.toJavaBigDecimal.compareTo(d.toJavaBigDecimal) == 0)
          Some(scaled)
        else None
      case _ => None
    }
  }

  /** A literal for Spark internal value `v` of type `dt`, or None when it has no exact form. */
  def literal(v: Any, dt: DataType): Option[String] = (v, dt) match {
    case (null, _) => Some("NULL")
    case (b: Boolean, BooleanType) => Some(b.toString)
    case (n: Byte, ByteType) => Some(n.toString)
    case (n: Short, ShortType) => Some(n.toString)
    case (n: Int, IntegerType) => Some(n.toString)
    case (n: Long, LongType) => Some(long(n))
    // a float column is compared as a double (exactly): the literal is the float's exact double value
    case (f: Float, FloatType) => literal(f.toDouble, DoubleType)
    case (d: Double, DoubleType) if d.isNaN => None
    case (d: Double, DoubleType) if d.isInfinite => Some(s"CAST('${if (d > 0) "inf" else "-inf"}' AS DOUBLE)")
    case (d: Double, DoubleType) => Some(d.toString)
    case (b: Array[Byte], BinaryType) => Some(b.map(x => f"${x & 0xff}%02X").mkString("X'", "", "'"))
    case (s: UTF8String, StringType) if UTF8String.fromString(s.toString) == s => string(s.toString)
    case (d: Int, DateType) => Some(s"arrow_cast($d, 'Date32')")
    case (t: Long, TimestampType) => Some(s"""arrow_cast(${long(t)}, 'Timestamp(Microsecond, Some("UTC"))')""")
    case (t: Long, TimestampNTZType) => Some(s"arrow_cast(${long(t)}, 'Timestamp(Microsecond, None)')")
    case (d: Decimal, t: DecimalType) =>
      Some(s"CAST('${d.toJavaBigDecimal.toPlainString}' AS DECIMAL(${t.precision}, ${t.scale}))")
    case _ => None
  }

  /** The parser reads `-9223372036854775808` as minus a number too large for a BIGINT. */
  private def long(n: Long): String = if (n == Long.MinValue) s"(${Long.MinValue + 1} - 1)" else n.toString

  /**
   * `column op v` with Spark's semantics for internal value `v` of type `dt`. Lance orders
   * floats and doubles by IEEE total order (-0.0 < 0.0, NaN = NaN, NaNs with the sign bit below
   * every number); Spark has -0.0 = 0.0 and every NaN equal and above every number.
   */
  def compare(column: String, op: String, v: Any, dt: DataType): Option[String] = (op, asDouble(v)) match {
    case ("=", _) => equal(column, v, dt)
    case (_, Some(d)) if d.isNaN =>
      op match { case ">=" => Some(s"isnan($column)"); case "<" => Some(s"NOT isnan($column)"); case _ => None }
    case (_, Some(d)) =>
      val bound = if (d == 0.0) (if (op == "<" || op == ">=") "-0.0" else "0.0") else literal(v, dt).get
      if (op.startsWith("<")) Some(s"($column $op $bound AND NOT isnan($column))")
      else Some(s"($column $op $bound OR isnan($column))")
    case _ => literal(v, dt).map(l => s"$column $op $l")
  }

  /** A float or double value as a double. */
  private def asDouble(v: Any): Option[Double] = v match {
    case f: Float => Some(f.toDouble)
    case d: Double => Some(d)
    case _ => None
  }

  /** `column = v` with Spark's equality (on floats and doubles: -0.0 = 0.0, NaN = NaN). */
  private def equal(column: String, v: Any, dt: DataType): Option[String] = asDouble(v) match {
    case Some(d) if d.isNaN => Some(s"isnan($column)")
    case Some(d) if d == 0.0 => Some(s"($column = 0.0 OR $column = -0.0)")
    case _ => literal(v, dt).map(l => s"$column = $l")
  }

  /** `column IN (...)` over internal values; NULLs become `OR column IS NULL`. */
  def in(column: String, values: Seq[Any], dt: DataType): Option[String] = {
    val (nulls, present) = values.distinct.partition(_ == null)
    val tests =
      if (dt == DoubleType || dt == FloatType) present.map(equal(column, _, dt))
      else if (present.isEmpty) Seq.empty
      else {
        val lits = present.map(literal(_, dt))
        Seq(if (lits.forall(_.isDefined)) Some(s"$column IN (${lits.flatten.mkString(", ")})") else None)
      }
    if (!tests.forall(_.isDefined)) None
    else {
      val parts = tests.flatten ++ (if (nulls.nonEmpty) Seq(s"$column IS NULL") else Seq.empty)
      Some(if (parts.isEmpty) "false" else parts.mkString(" OR "))
    }
  }

  /**
   * `filter` as Lance SQL over columns named by `target` (Spark column -> Lance column and its
   * type), or None when any part cannot be rendered exactly.
   */
  def render(filter: Filter, target: String => Option[(String, DataType)]): Option[String] = {
    def cmp(attr: String, op: String, v: Any): Option[String] =
      for ((c, dt) <- target(attr) if v != null; iv <- internal(v, dt); sql <- compare(c, op, iv, dt)) yield sql
    filter match {
      case EqualTo(a, v) => cmp(a, "=", v)
      case EqualNullSafe(a, null) => target(a).map { case (c, _) => s"$c IS NULL" }
      // `<=>` is never NULL: a NULL column must make it false (not NULL), or its negation would
      // drop rows whose column is NULL.
      case EqualNullSafe(a, v) => for ((c, _) <- target(a); eq <- cmp(a, "=", v)) yield s"($c IS NOT NULL AND $eq)"
      case GreaterThan(a, v) => cmp(a, ">", v)
      case GreaterThanOrEqual(a, v) => cmp(a, ">=", v)
      case LessThan(a, v) => cmp(a, "<", v)
      case LessThanOrEqual(a, v) => cmp(a, "<=", v)
      case In(a, vs) =>
        target(a).flatMap { case (c, dt) =>
          val values = vs.toSeq.filter(_ != null).map(internal(_, dt))
          // With a NULL in the list, a value not in it gives NULL (not false), as in Spark.
          if (values.exists(_.isEmpty)) None
          else in(c, values.flatten, dt).map(sql => if (vs.contains(null)) s"($sql) OR NULL" else sql)
        }
      case IsNull(a) => target(a).map { case (c, _) => s"$c IS NULL" }
      case IsNotNull(a) => target(a).map { case (c, _) => s"$c IS NOT NULL" }
      case StringStartsWith(a, p) =>
        target(a).collect { case (c, StringType) => c }.flatMap(c => string(p).map(l => s"starts_with($c, $l)"))
      case And(l, r) => for (ls <- render(l, target); rs <- render(r, target)) yield s"($ls) AND ($rs)"
      case Or(l, r) => for (ls <- render(l, target); rs <- render(r, target)) yield s"($ls) OR ($rs)"
      case Not(c) => render(c, target).map(s => s"NOT ($s)")
      case AlwaysTrue => Some("true")
      case AlwaysFalse => Some("false")
      case _ => None
    }
  }
}
