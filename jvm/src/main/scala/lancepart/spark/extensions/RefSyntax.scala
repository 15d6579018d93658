// The statements ALTER TABLE <name> CREATE [OR REPLACE] TAG | BRANCH, REPLACE TAG | BRANCH and
// DROP TAG | BRANCH, as Iceberg's SQL extension reads them, read by hand (SqlTokens):
//   CREATE TAG [IF NOT EXISTS] <tag> [AS OF VERSION <n>] [RETAIN <n> DAYS | HOURS | MINUTES]
//   CREATE OR REPLACE TAG <tag> ... | REPLACE TAG <tag> ...
//   DROP TAG [IF EXISTS] <tag>
// and the same with BRANCH (whose WITH SNAPSHOT RETENTION is refused: lancepart keeps every
// version of a branch while the branch lives).
package lancepart.spark.extensions

import java.util.Locale
import java.util.concurrent.TimeUnit

import lancepart.lance.DatasetTags
import lancepart.spark.PartitionedCatalog
import lancepart.spark.extensions.SqlTokens.{#::, path, Token, Tokens, Word}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connector.catalog.Identifier

import scala.util.Try

/** A change of a table's tags or branches (`branch`). */
sealed trait RefChange {
  def branch: Boolean
}

object RefChange {

  /** Name `version` (None: the current one) `name`, kept `maxAgeMillis` after it was committed
   * (a branch: after its latest commit). */
  final case class Create(
      branch: Boolean,
      name: String,
      version: Option[Long],
      maxAgeMillis: Option[Long],
      existing: DatasetTags.Existing)
      extends RefChange

  final case class Drop(branch: Boolean, name: String, ifExists: Boolean) extends RefChange
}

private[extensions] object RefSyntax {

  /** `ALTER TABLE <table> <clause> <rest>`: `clause` in upper case, such as `CREATE OR REPLACE TAG`. */
  final case class Statement(table: String, clause: String, rest: Tokens) extends AlterStatement {
    private val branch = clause.endsWith("BRANCH")
    private val kind = if (branch) "branch" else "tag"

    def command(catalog: PartitionedCatalog, ident: Identifier): LogicalPlan =
      AlterRef(catalog, ident, change(s"${catalog.name()}.$ident"))

    /** The change `rest` asks for; errors name table `tableName`. */
    def change(tableName: String): RefChange = {
      def fail(at: Tokens, expected: String): Nothing = unreadable(tableName, at, expected)
      def keywords(ts: Tokens, words: String*): Option[Tokens] = words.foldLeft(Option(ts)) {
        case (Some(t #:: more), w) if t.is(w) => Some(more)
        case _ => None
      }
      def name(ts: Tokens): (String, Tokens) = ts match {
        case t #:: more if t.isName => (t.name, more)
        case _ => fail(ts, s"a $kind name")
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
        if (branch && keywords(rest, "WITH", "SNAPSHOT", "RETENTION").isDefined)
          throw new UnsupportedOperationException(s"table $tableName: ALTER TABLE ... $clause: WITH SNAPSHOT " +
            "RETENTION is not supported: lancepart keeps every version of a branch until the branch is dropped")
        (version, retain, rest)
      }
      if (clause.startsWith("DROP")) {
        val (ifExists, afterIf) = keywords(rest, "IF", "EXISTS").fold((false, rest))(more => (true, more))
        val (ref, more) = name(afterIf)
        end(tableName, more)
        RefChange.Drop(branch, ref, ifExists)
      } else {
        val (existing, afterIf) = clause match {
          case "CREATE TAG" | "CREATE BRANCH" => keywords(rest, "IF", "NOT", "EXISTS")
              .fold[(DatasetTags.Existing, Tokens)]((DatasetTags.Fail, rest))(more => (DatasetTags.Keep, more))
          case "REPLACE TAG" | "REPLACE BRANCH" => (DatasetTags.MustExist, rest)
          case _ => (DatasetTags.Replace, rest)
        }
        val (ref, afterName) = name(afterIf)
        val (version, retain, more) = options(afterName)
        end(tableName, more)
        RefChange.Create(branch, ref, version, retain, existing)
      }
    }
  }

  private val Units = Seq("DAYS" -> TimeUnit.DAYS, "HOURS" -> TimeUnit.HOURS, "MINUTES" -> TimeUnit.MINUTES)

  private def isRef(t: Token): Boolean = t.is("TAG") || t.is("BRANCH")

  private def isNumber(t: Token): Boolean = t.kind == Word && t.text.forall(_.isDigit)

  /** The statement `sql` is, if it is one of these; reads no further than it must to say. */
  def recognize(sql: String): Option[Statement] = new Tokens(sql, 0) match {
    case alter #:: table #:: afterTable if alter.is("ALTER") && table.is("TABLE") =>
      path(afterTable).collect {
        case (name, create #:: or #:: replace #:: ref #:: rest)
            if create.is("CREATE") && or.is("OR") && replace.is("REPLACE") && isRef(ref) =>
          Statement(name, s"CREATE OR REPLACE ${ref.text.toUpperCase(Locale.ROOT)}", rest)
        case (name, verb #:: ref #:: rest) if Seq("CREATE", "REPLACE", "DROP").exists(verb.is) && isRef(ref) =>
          Statement(name, s"${verb.text.toUpperCase(Locale.ROOT)} ${ref.text.toUpperCase(Locale.ROOT)}", rest)
      }
    case _ => None
  }
}
