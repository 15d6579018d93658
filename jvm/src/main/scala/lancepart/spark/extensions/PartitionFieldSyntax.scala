// The statements ALTER TABLE <name> ADD | DROP | REPLACE PARTITION FIELD ..., read by hand:
// keywords in any case, whitespace and comments (-- and /* */) anywhere, backtick-quoted names.
package lancepart.spark.extensions

import java.util.Locale

import scala.annotation.tailrec

private[extensions] object PartitionFieldSyntax {

  /** A token as written, at character `offset` of the statement. */
  final case class Token(text: String, offset: Int, kind: Kind) {
    def isName: Boolean = kind == Word || kind == Quoted

    /** True for keyword `keyword` (an unquoted word, any case). */
    def is(keyword: String): Boolean = kind == Word && text.equalsIgnoreCase(keyword)

    /** The name it stands for: a quoted name without its backticks. */
    def name: String = if (kind == Quoted) text.slice(1, text.length - 1).replace("``", "`") else text
  }

  sealed trait Kind

  /** Letters, digits and `_`: a keyword, a name or a number. */
  case object Word extends Kind

  /** A backtick-quoted name (a backtick inside is doubled). */
  case object Quoted extends Kind

  /** One other character, or an unterminated quoted name. */
  case object Other extends Kind

  private val Verbs = Seq("ADD", "DROP", "REPLACE")

  /**
   * `ALTER TABLE <table> <verb> PARTITION FIELD <rest>`: `table` as written (for Spark's
   * identifier parser), `verb` in upper case.
   */
  final case class Statement(table: String, verb: String, rest: Tokens) {

    /** The change `rest` asks for; errors name table `tableName`. */
    def change(tableName: String): PartitionFieldChange = {
      def fail(at: Tokens, expected: String): Nothing = {
        val where = at.next.fold("at the end") { case (t, _) => s"at '${t.text}' (character ${t.offset + 1})" }
        throw new IllegalArgumentException(
          s"table $tableName: cannot read ALTER TABLE ... $verb PARTITION FIELD: expected $expected $where")
      }
      def name(ts: Tokens): (String, Tokens) = ts match {
        case t #:: more if t.isName => (t.name, more)
        case _ => fail(ts, "a name")
      }
      def reference(ts: Tokens): (String, Tokens) =
        path(ts).getOrElse(fail(ts, "a column, a number or a partition field name"))
      def arguments(ts: Tokens, done: Seq[String]): (Seq[String], Tokens) = {
        val (argument, more) = reference(ts)
        more match {
          case t #:: rest if t.text == "," => arguments(rest, done :+ argument)
          case t #:: rest if t.text == ")" => (done :+ argument, rest)
          case _ => fail(more, "',' or ')'")
        }
      }
      // a PARTITIONED BY item: name(arguments) or a name, as DdlPartitioning.items reads it
      def transform(ts: Tokens): (String, Tokens) = ts match {
        case f #:: open #:: rest if f.kind == Word && open.text == "(" =>
          val (args, more) = arguments(rest, Nil)
          (s"${f.text}(${args.mkString(", ")})", more)
        case _ => reference(ts)
      }
      def alias(ts: Tokens): (Option[String], Tokens) = ts match {
        case as #:: more if as.is("AS") => val (n, rest) = name(more); (Some(n), rest)
        case _ => (None, ts)
      }
      def end(ts: Tokens): Unit = ts match {
        case t #:: more if t.text == ";" => end(more)
        case _ #:: _ => fail(ts, "the end of the statement")
        case _ =>
      }
      val (first, afterFirst) = transform(rest)
      verb match {
        case "ADD" =>
          val (as, more) = alias(afterFirst)
          end(more)
          PartitionFieldChange.Add(first, as)
        case "DROP" =>
          end(afterFirst)
          PartitionFieldChange.Drop(first)
        case _ => afterFirst match {
            case w #:: more if w.is("WITH") =>
              val (by, afterBy) = transform(more)
              val (as, rest) = alias(afterBy)
              end(rest)
              PartitionFieldChange.Replace(first, by, as)
            case _ => fail(afterFirst, "WITH")
          }
      }
    }
  }

  /** The statement `sql` is, if it is one of these; reads no further than it must to say. */
  def recognize(sql: String): Option[Statement] = new Tokens(sql, 0) match {
    case alter #:: table #:: afterTable if alter.is("ALTER") && table.is("TABLE") =>
      path(afterTable).collect {
        case (name, verb #:: partition #:: field #:: rest)
            if Verbs.exists(verb.is) && partition.is("PARTITION") && field.is("FIELD") =>
          Statement(name, verb.text.toUpperCase(Locale.ROOT), rest)
      }
    case _ => None
  }

  /** `name ('.' name)*` as written. */
  private def path(ts: Tokens): Option[(String, Tokens)] = ts match {
    case n #:: dot #:: more if n.isName && dot.text == "." =>
      path(more).map { case (p, rest) => (s"${n.text}.$p", rest) }
    case n #:: more if n.isName => Some((n.text, more))
    case _ => None
  }

  private def isWordChar(c: Char): Boolean = Character.isLetterOrDigit(c) || c == '_'

  /** The tokens of `sql` from character `from` on, each read when it is first needed. */
  final class Tokens(sql: String, from: Int) {

    /** The first token and the tokens after it; None at the end of the statement. */
    lazy val next: Option[(Token, Tokens)] = {
      val start = skipSpaceAndComments(sql, from)
      if (start >= sql.length) None
      else {
        val t = token(sql, start)
        Some((t, new Tokens(sql, start + t.text.length)))
      }
    }
  }

  /** `first #:: rest`: the first token of [[Tokens]] and the rest. */
  object #:: {
    def unapply(ts: Tokens): Option[(Token, Tokens)] = ts.next
  }

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
    case c if isWordChar(c) =>
      val end = sql.indexWhere(ch => !isWordChar(ch), start)
      Token(sql.substring(start, if (end < 0) sql.length else end), start, Word)
    case _ => Token(sql.substring(start, start + 1), start, Other)
  }
}
