// An ALTER TABLE statement lancepart's parser reads by hand for tables of its catalogs (partition
// fields, tags), with what AlterTableParser needs to run it or to say why it did not.
package lancepart.spark.extensions

import lancepart.spark.PartitionedCatalog
import lancepart.spark.extensions.SqlTokens.{#::, Tokens}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connector.catalog.Identifier

private[extensions] trait AlterStatement {

  /** The table's name as written, for Spark's identifier parser. */
  def table: String

  /** The statement's clause as messages name it: `ADD PARTITION FIELD`, `CREATE TAG`. */
  def clause: String

  /** The command that runs the statement on table `ident` of `catalog`. */
  def command(catalog: PartitionedCatalog, ident: Identifier): LogicalPlan

  /** Fails: the statement on table `tableName` cannot be read at `at`, where `expected` was expected. */
  protected def unreadable(tableName: String, at: Tokens, expected: String): Nothing = {
    val where = at.next.fold("at the end") { case (t, _) => s"at '${t.text}' (character ${t.offset + 1})" }
    throw new IllegalArgumentException(
      s"table $tableName: cannot read ALTER TABLE ... $clause: expected $expected $where")
  }

  /** Reads the end of the statement at `ts` (`;` allowed); anything else fails. */
  protected def end(tableName: String, ts: Tokens): Unit = ts match {
    case t #:: more if t.text == ";" => end(tableName, more)
    case _ #:: _ => unreadable(tableName, ts, "the end of the statement")
    case _ =>
  }
}
