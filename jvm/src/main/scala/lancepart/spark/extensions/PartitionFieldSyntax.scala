// The statements ALTER TABLE <name> ADD | DROP | REPLACE PARTITION FIELD ..., read by hand:
// keywords in any case, whitespace and comments anywhere, backtick-quoted names (SqlTokens).
package lancepart.spark.extensions

import java.util.Locale

import lancepart.spark.PartitionedCatalog
import lancepart.spark.extensions.SqlTokens.{#::, path, Tokens, Word}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connector.catalog.Identifier

private[extensions] object PartitionFieldSyntax {

  private val Verbs = Seq("ADD", "DROP", "REPLACE")

  /**
   * `ALTER TABLE <table> <verb> PARTITION FIELD <rest>`: `table` as written (for Spark's
   * identifier parser), `verb` in upper case.
   */
  final case class Statement(table: String, verb: String, rest: Tokens) extends AlterStatement {

    def clause: String = s"$verb PARTITION FIELD"

    def command(catalog: PartitionedCatalog, ident: Identifier): LogicalPlan =
      AlterPartitionField(catalog, ident, change(s"${catalog.name()}.$ident"))

    /** The change `rest` asks for; errors name table `tableName`. */
    def change(tableName: String): PartitionFieldChange = {
      def fail(at: Tokens, expected: String): Nothing = unreadable(tableName, at, expected)
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
      val (first, afterFirst) = transform(rest)
      verb match {
        case "ADD" =>
          val (as, more) = alias(afterFirst)
          end(tableName, more)
          PartitionFieldChange.Add(first, as)
        case "DROP" =>
          end(tableName, afterFirst)
          PartitionFieldChange.Drop(first)
        case _ => afterFirst match {
            case w #:: more if w.is("WITH") =>
              val (by, afterBy) = transform(more)
              val (as, rest) = alias(afterBy)
              end(tableName, rest)
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
}
