// A partition expression's text (spec: Partition Expression) read token by token. DataFusion parses
// and evaluates it (lancepart.lance.ExpressionEval); this finds what lancepart must know first.
package lancepart.transform

import java.util.Locale

class ExprSyntaxException(message: String) extends IllegalArgumentException(message)

/**
 * DataFusion SQL over `col0..colN`: the source columns it names, the `murmur3` / `murmur3_multi`
 * calls lancepart evaluates itself (they are Lance's DataFusion extensions, which lance-core's
 * SQL does not register), and the text with columns or calls replaced. Parsing refuses what
 * would not be a deterministic per-row expression: unbalanced brackets, a top-level comma, `;`,
 * comments, subqueries (`SELECT`), window functions (`OVER`) and functions of the clock or of
 * chance (spec requirements 1 and 2).
 */
final class PartitionExpression private (val text: String, tokens: IndexedSeq[PartitionExpression.Token]) {
  import PartitionExpression._

  /** The source columns it names: `colK` unquoted in any case, or `"colK"`. */
  def columns: Set[Int] = tokens.flatMap(column).toSet

  /** True when it calls `murmur3` or `murmur3_multi`. */
  def hashes: Boolean = tokens.indices.exists(hashCallAt(_).isDefined)

  /** The hash calls without a hash call in their arguments, in text order. */
  def innermostHashCalls: Seq[HashCall] =
    tokens.indices.flatMap(hashCallAt).filter(c => !(c.first + 1 until c.last).exists(hashCallAt(_).isDefined))

  /** The text with each column in `columns` replaced by `NULL` (spec requirement 4). */
  def withNullColumns(nulls: Set[Int]): PartitionExpression =
    rebuilt(tokens.indices.flatMap(i => column(tokens(i)).filter(nulls).map(_ => (i, i + 1, "NULL"))))

  /** The text with each call of `calls` replaced by the paired text. */
  def replacing(calls: Seq[(HashCall, String)]): PartitionExpression =
    rebuilt(calls.map { case (c, by) => (c.first, c.last + 1, by) })

  private def rebuilt(replacements: Seq[(Int, Int, String)]): PartitionExpression = {
    val sb = new StringBuilder
    var from = 0
    replacements.sortBy(_._1).foreach { case (first, end, by) =>
      sb ++= text.substring(from, tokens(first).start) ++= by
      from = tokens(end - 1).end
    }
    parse(sb.append(text.substring(from)).toString)
  }

  /** The hash call whose name is token `i`: its arguments' texts. */
  private def hashCallAt(i: Int): Option[HashCall] = {
    val t = tokens(i)
    val name = t.text.toLowerCase(Locale.ROOT)
    if (t.kind != Ident || !HashFunctions(name) || i + 1 >= tokens.size || tokens(i + 1).text != "(") None
    else {
      var depth = 0
      var j = i + 1
      val args = Seq.newBuilder[String]
      var argStart = j + 1
      while ({
        tokens(j).text match {
          case "(" | "[" => depth += 1
          case ")" | "]" => depth -= 1
          case "," if depth == 1 => args += span(argStart, j); argStart = j + 1
          case _ =>
        }
        depth > 0
      }) j += 1
      if (argStart < j) args += span(argStart, j)
      Some(HashCall(name, args.result(), i, j))
    }
  }

  private def span(first: Int, end: Int): String = text.substring(tokens(first).start, tokens(end - 1).end)

  override def toString: String = text
}

object PartitionExpression {

  /** Lance's hash extensions (spec: Hash Functions), evaluated by lancepart. */
  val HashFunctions: Set[String] = Set("murmur3", "murmur3_multi")

  /** DataFusion functions whose value depends on the clock or on chance. */
  val Refused: Set[String] =
    Set(
      "now",
      "current_date",
      "current_time",
      "current_timestamp",
      "localtime",
      "localtimestamp",
      "today",
      "random",
      "uuid")

  /** Keywords that would make it something else than an expression of one row. */
  private val RefusedKeywords = Set("select", "over")

  /** A call of `name` (lower case) with the texts of its arguments; tokens `first` to `last`. */
  case class HashCall(name: String, args: Seq[String], first: Int, last: Int)

  private[transform] sealed trait Kind
  private case object Ident extends Kind
  private case object Quoted extends Kind
  private case object Other extends Kind
  private[transform] case class Token(kind: Kind, text: String, start: Int, end: Int)

  private val ColumnName = "col(0|[1-9][0-9]*)".r

  private def column(t: Token): Option[Int] = t.kind match {
    case Ident => ColumnName.unapplySeq(t.text.toLowerCase(Locale.ROOT)).map(_.head.toInt)
    case Quoted => ColumnName.unapplySeq(t.text).map(_.head.toInt)
    case Other => None
  }

  /** `text` over `sources` source columns. */
  def parse(text: String, sources: Int): PartitionExpression = {
    val e = parse(text)
    e.columns.find(_ >= sources).foreach { k =>
      throw new ExprSyntaxException(s"col$k has no source (the field has $sources source ids) in expression '$text'")
    }
    e
  }

  private def parse(text: String): PartitionExpression = {
    val tokens = tokenize(text)
    def fail(msg: String) = throw new ExprSyntaxException(s"$msg in expression '$text'")
    if (tokens.isEmpty) fail("nothing")
    var depth = 0
    tokens.foreach { t =>
      val lower = t.text.toLowerCase(Locale.ROOT)
      t.kind match {
        case Ident if Refused(lower) =>
          fail(s"function '$lower' depends on the clock or chance, which a partition value must not")
        case Ident if RefusedKeywords(lower) => fail(s"'${t.text}' (a partition value comes from one row alone)")
        case _ =>
      }
      t.text match {
        case "(" | "[" => depth += 1
        case ")" | "]" => depth -= 1; if (depth < 0) fail(s"unbalanced '${t.text}'")
        case "," if depth == 0 => fail("a ',' outside parentheses")
        case ";" => fail("';'")
        case _ =>
      }
    }
    if (depth != 0) fail("unclosed '(' or '['")
    new PartitionExpression(text, tokens)
  }

  private def tokenize(s: String): IndexedSeq[Token] = {
    val out = IndexedSeq.newBuilder[Token]
    var i = 0
    def fail(msg: String) = throw new ExprSyntaxException(s"$msg at position $i in expression '$s'")

    /** The end of a literal opened at `i` by `q`; a doubled `q` (or, `escapes`, a backslash) escapes. */
    def closing(q: Char, escapes: Boolean): Int = {
      var j = i + 1
      while (j < s.length && !(s(j) == q && !(j + 1 < s.length && s(j + 1) == q))) {
        j += (if (s(j) == q || (escapes && s(j) == '\\')) 2 else 1)
      }
      if (j >= s.length) fail(if (q == '"') "unterminated quoted identifier" else "unterminated string")
      j + 1
    }
    while (i < s.length) {
      val c = s(i)
      val start = i
      if (c.isWhitespace) i += 1
      else if (s.startsWith("--", i) || s.startsWith("/*", i)) fail("a comment")
      else if (c == '\'') { i = closing('\'', escapes = false); out += Token(Other, s.substring(start, i), start, i) }
      else if ((c == 'e' || c == 'E') && i + 1 < s.length && s(i + 1) == '\'') {
        i += 1; i = closing('\'', escapes = true); out += Token(Other, s.substring(start, i), start, i)
      } else if (c == '"') {
        i = closing('"', escapes = false)
        out += Token(Quoted, s.substring(start + 1, i - 1).replace("\"\"", "\""), start, i)
      } else if (c.isLetter || c == '_') {
        while (i < s.length && (s(i).isLetterOrDigit || s(i) == '_' || s(i) == '$')) i += 1
        out += Token(Ident, s.substring(start, i), start, i)
      } else if (c.isDigit) {
        while (i < s.length && (s(i).isLetterOrDigit || s(i) == '.')) i += 1
        out += Token(Other, s.substring(start, i), start, i)
      } else { i += 1; out += Token(Other, c.toString, start, i) }
    }
    out.result()
  }
}
