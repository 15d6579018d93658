// Parser for the partition-expression subset of DataFusion SQL (spec: Partition Expression):
// literals, col0..colN, arithmetic, comparisons, AND/OR/NOT, IS [NOT] NULL, IN, BETWEEN, CASE,
// CAST, EXTRACT and function calls.
package lancepart.transform

import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

sealed trait Expr
object Expr {
  case class Col(index: Int) extends Expr
  case class Lit(value: Any, dataType: DataType) extends Expr // value in evaluation form (see ExprEval)
  case class Neg(child: Expr) extends Expr
  case class Not(child: Expr) extends Expr
  case class Binary(op: String, left: Expr, right: Expr) extends Expr
  case class IsNull(child: Expr, negated: Boolean) extends Expr
  case class InList(child: Expr, list: Seq[Expr], negated: Boolean) extends Expr
  case class Case(operand: Option[Expr], branches: Seq[(Expr, Expr)], otherwise: Option[Expr]) extends Expr
  case class Cast(child: Expr, to: DataType) extends Expr
  case class Call(name: String, args: Seq[Expr]) extends Expr
}

class ExprSyntaxException(message: String) extends IllegalArgumentException(message)

object ExprParser {
  import Expr._

  def parse(text: String): Expr = {
    val p = new Parser(tokenize(text), text)
    val e = p.expr()
    if (!p.atEnd) p.fail(s"unexpected '${p.peek.text}'")
    e
  }

  private case class Token(kind: Char, text: String) // kinds: n(umber) s(tring) i(dent) q(uoted ident) o(perator)

  private def tokenize(s: String): IndexedSeq[Token] = {
    val out = IndexedSeq.newBuilder[Token]
    var i = 0
    def err(msg: String) = throw new ExprSyntaxException(s"$msg at position $i in expression '$s'")
    while (i < s.length) {
      val c = s(i)
      if (c.isWhitespace) i += 1
      else if (c.isDigit || (c == '.' && i + 1 < s.length && s(i + 1).isDigit)) {
        val start = i
        while (i < s.length && (s(i).isDigit || s(i) == '.')) i += 1
        if (i < s.length && (s(i) == 'e' || s(i) == 'E')) {
          i += 1
          if (i < s.length && (s(i) == '+' || s(i) == '-')) i += 1
          while (i < s.length && s(i).isDigit) i += 1
        }
        out += Token('n', s.substring(start, i))
      } else if (c == '\'') {
        val sb = new StringBuilder
        i += 1
        while ({
          if (i >= s.length) err("unterminated string"); !(s(i) == '\'' && !(i + 1 < s.length && s(i + 1) == '\''))
        }) {
          if (s(i) == '\'') i += 1
          sb += s(i)
          i += 1
        }
        i += 1
        out += Token('s', sb.toString)
      } else if (c == '"') {
        val end = s.indexOf('"', i + 1)
        if (end < 0) err("unterminated quoted identifier")
        out += Token('q', s.substring(i + 1, end))
        i = end + 1
      } else if (c.isLetter || c == '_') {
        val start = i
        while (i < s.length && (s(i).isLetterOrDigit || s(i) == '_')) i += 1
        out += Token('i', s.substring(start, i))
      } else {
        val two = if (i + 1 < s.length) s.substring(i, i + 2) else ""
        if (Set("<=", ">=", "<>", "!=", "||").contains(two)) { out += Token('o', two); i += 2 }
        else if ("+-*/%=<>(),".contains(c)) { out += Token('o', c.toString); i += 1 }
        else err(s"unexpected character '$c'")
      }
    }
    out.result()
  }

  private class Parser(tokens: IndexedSeq[Token], text: String) {
    private var pos = 0
    def atEnd: Boolean = pos >= tokens.length
    def peek: Token = if (atEnd) Token('e', "end of expression") else tokens(pos)
    def fail(msg: String): Nothing = throw new ExprSyntaxException(s"$msg in expression '$text'")
    private def isKeyword(k: String) = !atEnd && peek.kind == 'i' && peek.text.equalsIgnoreCase(k)
    private def isOp(o: String) = !atEnd && peek.kind == 'o' && peek.text == o
    private def accept(k: String): Boolean = if (isKeyword(k) || isOp(k)) { pos += 1; true }
    else false
    private def expect(k: String): Unit = if (!accept(k)) fail(s"expected '$k' but found '${peek.text}'")

    def expr(): Expr = or()

    private def or(): Expr = { var l = and(); while (accept("OR")) l = Binary("OR", l, and()); l }
    private def and(): Expr = { var l = not(); while (accept("AND")) l = Binary("AND", l, not()); l }
    private def not(): Expr = if (accept("NOT")) Not(not()) else predicate()

    private def predicate(): Expr = {
      val l = concat()
      if (accept("IS")) {
        val negated = accept("NOT")
        expect("NULL")
        IsNull(l, negated)
      } else {
        val negated = accept("NOT")
        if (accept("IN")) {
          expect("(")
          val items = list()
          InList(l, items, negated)
        } else if (accept("BETWEEN")) {
          val lo = concat(); expect("AND"); val hi = concat()
          val between = Binary("AND", Binary(">=", l, lo), Binary("<=", l, hi))
          if (negated) Not(between) else between
        } else {
          if (negated) fail("expected IN or BETWEEN after NOT")
          Seq("=", "!=", "<>", "<=", ">=", "<", ">").find(isOp) match {
            case Some(op) => pos += 1; Binary(if (op == "<>") "!=" else op, l, concat())
            case None => l
          }
        }
      }
    }

    private def concat(): Expr = {
      var l = additive(); while (accept("||")) l = Call("concat_op", Seq(l, additive())); l
    }
    private def additive(): Expr = {
      var l = multiplicative()
      while (isOp("+") || isOp("-")) { val op = peek.text; pos += 1; l = Binary(op, l, multiplicative()) }
      l
    }
    private def multiplicative(): Expr = {
      var l = unary()
      while (isOp("*") || isOp("/") || isOp("%")) { val op = peek.text; pos += 1; l = Binary(op, l, unary()) }
      l
    }
    private def unary(): Expr = if (accept("-")) Neg(unary()) else if (accept("+")) unary() else primary()

    private def list(): Seq[Expr] = {
      if (accept(")")) return Seq.empty
      val items = Seq.newBuilder[Expr]
      items += expr()
      while (accept(",")) items += expr()
      expect(")")
      items.result()
    }

    private def primary(): Expr = {
      if (atEnd) fail("unexpected end")
      val t = peek
      pos += 1
      t.kind match {
        case 'n' =>
          if (t.text.exists(c => c == '.' || c == 'e' || c == 'E')) Lit(t.text.toDouble, DoubleType)
          else Lit(BigInt(t.text).toLong, LongType)
        case 's' => string(t.text)
        case 'q' => column(t.text)
        case 'o' if t.text == "(" => val e = expr(); expect(")"); e
        case 'i' => t.text.toUpperCase match {
            case "NULL" => Lit(null, NullType)
            case "TRUE" => Lit(true, BooleanType)
            case "FALSE" => Lit(false, BooleanType)
            case "DATE" if peek.kind == 's' => Cast(string(next().text), DateType)
            case "TIMESTAMP" if peek.kind == 's' => Cast(string(next().text), TimestampNTZType)
            case "CASE" => caseExpr()
            case "CAST" =>
              expect("("); val e = expr(); expect("AS"); val dt = sqlType(); expect(")"); Cast(e, dt)
            case "EXTRACT" =>
              expect("("); val part = peek.text; pos += 1; expect("FROM"); val e = expr(); expect(")")
              Call("date_part", Seq(string(part.toLowerCase), e))
            case _ if isOp("(") => pos += 1; Call(t.text.toLowerCase, list())
            case _ => column(t.text)
          }
        case _ => fail(s"unexpected '${t.text}'")
      }
    }

    private def next(): Token = { pos += 1; tokens(pos - 1) }

    private def string(text: String): Expr = Lit(UTF8String.fromString(text), StringType)

    private def column(name: String): Expr = {
      val lower = name.toLowerCase
      if (lower.startsWith("col") && lower.length > 3 && lower.drop(3).forall(_.isDigit)) Col(lower.drop(3).toInt)
      else fail(s"unknown column '$name' (source columns are col0, col1, ...)")
    }

    private def caseExpr(): Expr = {
      val operand = if (isKeyword("WHEN")) None else Some(expr())
      val branches = Seq.newBuilder[(Expr, Expr)]
      while (accept("WHEN")) { val w = expr(); expect("THEN"); branches += (w -> expr()) }
      val otherwise = if (accept("ELSE")) Some(expr()) else None
      expect("END")
      Case(operand, branches.result(), otherwise)
    }

    private def sqlType(): DataType = {
      val name = peek.text.toUpperCase
      pos += 1
      name match {
        case "TINYINT" => ByteType
        case "SMALLINT" => ShortType
        case "INT" | "INTEGER" => IntegerType
        case "BIGINT" => LongType
        case "FLOAT" | "REAL" => FloatType
        case "DOUBLE" => DoubleType
        case "VARCHAR" | "STRING" | "TEXT" => StringType
        case "BOOLEAN" => BooleanType
        case "DATE" => DateType
        case "TIMESTAMP" => TimestampNTZType
        case "DECIMAL" =>
          expect("("); val p = peek.text.toInt; pos += 1; expect(","); val s = peek.text.toInt; pos += 1; expect(")")
          DecimalType(p, s)
        case other => fail(s"unsupported type '$other' in CAST")
      }
    }
  }
}
