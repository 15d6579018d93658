// The statements ALTER TABLE <name> CREATE [OR REPLACE] TAG, REPLACE TAG and DROP TAG, as Iceberg's
// SQL extension reads them, read by hand (SqlTokens):
//   CREATE TAG [IF NOT EXISTS] <tag> [AS OF VERSION <n>] [RETAIN <n> DAYS | HOURS | MINUTES]
//   CREATE OR REPLACE TAG <tag> ... | REPLACE TAG <tag> ...
//   DROP TAG [IF EXISTS] <tag>
package lancepart.spark.extensions

import java.util.Locale
import java.util.concurrent.TimeUnit

import lancepart.lance.DatasetTags
import lancepart.spark.PartitionedCatalog
import lancepart.spark.extensions.SqlTokens.{#::, path, Token, Tokens, Word}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connector.catalog.Identifier

import scala.util.Try

/** A change of a table's tags. */
sealed trait TagChange

object TagChange {

  /** Tag `version` (None: the current one) as `name`, kept `maxAgeMillis` after it was committed. */
  final case class Create(
      name: String,
      version: Option[Long],
      maxAgeMillis: Option[Long],
      existing: DatasetTags.Existing)
      extends TagChange

  final case class Drop(name: String, ifExists: Boolean) extends TagChange
}

private[extensions] object TagSyntax {

  /** `ALTER TABLE <table> <clause> <rest>`: `clause` in upper case, such as `CREATE OR REPLACE TAG`. */
  final case class Statement(table: String, clause: String, rest: Tokens) extends AlterStatement {

    def command(catalog: PartitionedCatalog, ident: Identifier): LogicalPlan =
      AlterTag(catalog, ident, change(s"${catalog.name()}.$ident"))

    /** The change `rest` asks for; errors name table `tableName`. */
    def change(tableName: String): TagChange = {
      def fail(at: Tokens, expected: String): Nothing = unreadable(tableName, at, expected)
      def keywords(ts: Tokens, words: String*): Option[Tokens] = words.foldLeft(Option(ts)) {
        case (Some(t #:: more), w) if t.is(w) => Some(more)
        case _ => None
      }
      def name(ts: Tokens): (String, Tokens) = ts match {
        case t #:: more if t.isName => (t.name, more)
        case _ => fail(ts, "a tag name")
      }
      def number(ts: Tokens, what: String): (Long, Tokens) = ts match {
        case t #:: more if isNumber(t) => (Try(t.text.toLong).getOrElse(fail(ts, s"$what that fits a BIGINT")), more)
        case _ => fail(ts, what)
      }
      def options(ts: Tokens): (Option[Long], Option[Long], Tokens) = {
        val (version, afterVersion) = keywords(ts, "AS", "OF", "VERSION").fold((Option.empty[Long], ts)) { more =>
          val (v, rest) = number(more, "a version number")
          (Some(v), rest)
        }
        val (retain, rest) = keywords(afterVersion, "RETAIN").fold((Option.empty[Long], afterVersion)) { more =>
          val (n, afterNumber) = number(more, "a number")
          afterNumber match {
            case unit #:: rest if Units.exists(u => unit.is(u._1)) =>
              if (n <= 0) throw new IllegalArgumentException(s"table $tableName: ALTER TABLE ... $clause: RETAIN " +
                s"must be a positive time, not $n ${unit.text.toUpperCase(Locale.ROOT)}")
              (Some(Units.find(u => unit.is(u._1)).get._2.toMillis(n)), rest)
            case _ => fail(afterNumber, "DAYS, HOURS or MINUTES")
          }
        }
        (version, retain, rest)
      }
      if (clause == "DROP TAG") {
        val (ifExists, afterIf) = keywords(rest, "IF", "EXISTS").fold((false, rest))(more => (true, more))
        val (tag, more) = name(afterIf)
        end(tableName, more)
        TagChange.Drop(tag, ifExists)
      } else {
        val (existing, afterIf) = clause match {
          case "CREATE TAG" => keywords(rest, "IF", "NOT", "EXISTS").fold[(DatasetTags.Existing, Tokens)](
              (DatasetTags.Fail, rest))(more => (DatasetTags.Keep, more))
          case "REPLACE TAG" => (DatasetTags.MustExist, rest)
          case _ => (DatasetTags.Replace, rest)
        }
        val (tag, afterName) = name(afterIf)
        val (version, retain, more) = options(afterName)
        end(tableName, more)
        TagChange.Create(tag, version, retain, existing)
      }
    }
  }

  private val Units = Seq("DAYS" -> TimeUnit.DAYS, "HOURS" -> TimeUnit.HOURS, "MINUTES" -> TimeUnit.MINUTES)

  private def isNumber(t: Token): Boolean = t.kind == Word && t.text.forall(_.isDigit)

  /** The statement `sql` is, if it is one of these; reads no further than it must to say. */
  def recognize(sql: String): Option[Statement] = new Tokens(sql, 0) match {
    case alter #:: table #:: afterTable if alter.is("ALTER") && table.is("TABLE") =>
      path(afterTable).collect {
        case (name, create #:: or #:: replace #:: tag #:: rest)
            if create.is("CREATE") && or.is("OR") && replace.is("REPLACE") && tag.is("TAG") =>
          Statement(name, "CREATE OR REPLACE TAG", rest)
        case (name, verb #:: tag #:: rest) if Seq("CREATE", "REPLACE", "DROP").exists(verb.is) && tag.is("TAG") =>
          Statement(name, s"${verb.text.toUpperCase(Locale.ROOT)} TAG", rest)
      }
    case _ => None
  }
}
