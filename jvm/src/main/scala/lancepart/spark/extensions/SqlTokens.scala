// The tokens of a SQL statement, for the statements lancepart's parser reads by hand: words,
// backtick-quoted names, string literals and single characters, with whitespace and comments (--
// and /* */) skipped.
package lancepart.spark.extensions

import scala.annotation.tailrec

private[extensions] object SqlTokens {

  /** A token as written, at character `offset` of the statement. */
  final case class Token(text: String, offset: Int, kind: Kind) {
    def isName: Boolean = kind == Word || kind == Quoted

    /** True for keyword `keyword` (an unquoted word, any case). */
    def is(keyword: String): Boolean = kind == Word && text.equalsIgnoreCase(keyword)

    /** The name it stands for: a quoted name without its backticks. */
    def name: String = if (kind == Quoted) text.slice(1, text.length - 1).replace("``", "`") else text

    /** The character after it. */
    def end: Int = offset + text.length
  }

  sealed trait Kind

  /** Letters, digits and `_`: a keyword, a name or a number. */
  case object Word extends Kind

  /** A backtick-quoted name (a backtick inside is doubled). */
  case object Quoted extends Kind

  /** A string literal in single or double quotes (a backslash escapes the next character). */
  case object Text extends Kind

  /** One other character, or an unterminated quoted name or string. */
  case object Other extends Kind

  /** The tokens of `sql` from character `from` on, each read when it is first needed (a LazyList
   * would do, but Scala 2.12 has none and scala-collection-compat's is not in Spark 4). */
  final class Tokens(sql: String, from: Int) {

    /** The first token and the tokens after it; None at the end of the statement. */
    lazy val next: Option[(Token, Tokens)] = {
      val start = skipSpaceAndComments(sql, from)
      if (start >= sql.length) None
      else {
        val t = token(sql, start)
        Some((t, new Tokens(sql, t.end)))
      }
    }
  }

  /** `first #:: rest`: the first token of [[Tokens]] and the rest. */
  object #:: {
    def unapply(ts: Tokens): Option[(Token, Tokens)] = ts.next
  }

  /** `name ('.' name)*` as written. */
  def path(ts: Tokens): Option[(String, Tokens)] = ts match {
    case n #:: dot #:: more if n.isName && dot.text == "." =>
      path(more).map { case (p, rest) => (s"${n.text}.$p", rest) }
    case n #:: more if n.isName => Some((n.text, more))
    case _ => None
  }

  private def isWordChar(c: Char): Boolean = Character.isLetterOrDigit(c) || c == '_'

  @tailrec
  private def skipSpaceAndComments(sql: String, from: Int): Int =
    if (from >= sql.length) from
    else if (sql(from).isWhitespace) skipSpaceAndComments(sql, from + 1)
    else if (sql.startsWith("--", from)) {
      val eol = sql.indexOf('\n', from)
      if (eol < 0) sql.length else skipSpaceAndComments(sql, eol + 1)
    } else if (sql.startsWith("/*", from)) {
      val close = sql.indexOf("*/", from + 2)
      if (close < 0) sql.length else skipSpaceAndComments(sql, close + 2)
    } else from

  private def token(sql: String, start: Int): Token = sql(start) match {
    case '`' =>
      // the closing backtick: one not followed by another (a doubled one stands for itself)
      @tailrec def close(i: Int): Option[Int] = sql.indexOf('`', i) match {
        case -1 => None
        case j if sql.startsWith("``", j) => close(j + 2)
        case j => Some(j)
      }
      close(start + 1).fold(Token(sql.substring(start), start, Other))(j =>
        Token(sql.substring(start, j + 1), start, Quoted))
    case quote @ ('\'' | '"') =>
      @tailrec def close(i: Int): Option[Int] =
        if (i >= sql.length) None
        else if (sql(i) == '\\') close(i + 2)
        else if (sql(i) == quote) Some(i)
        else close(i + 1)
      close(start + 1).fold(Token(sql.substring(start, start + 1), start, Other))(j =>
        Token(sql.substring(start, j + 1), start, Text))
    case c if isWordChar(c) =>
      val end = sql.indexWhere(ch => !isWordChar(ch), start)
      Token(sql.substring(start, if (end < 0) sql.length else end), start, Word)
    case _ => Token(sql.substring(start, start + 1), start, Other)
  }
}
