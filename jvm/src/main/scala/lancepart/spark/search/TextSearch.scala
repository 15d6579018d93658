// lance_text_search(table, column, query, k [, options]): the table-valued function of full-text search.
package lancepart.spark.search

import lancepart.spark.PartitionedTable
import lancepart.spark.read.TextQuery
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.StringType

/**
 * The `k` rows of a lancepart table whose text column best matches a query, with their `_score`,
 * best first: `Limit(k, Sort(_score DESC, <search of each partition table>))`. Each partition
 * table scores its rows with its own INVERTED index (BM25 over that table's rows); filters written
 * directly on the function's result restrict the search ([[FilterIntoSearch]]).
 */
object TextSearch extends SearchFunction(
      "lance_text_search",
      "table, column, query, k [, options]",
      "the k rows of a lancepart table whose STRING column `column` best matches query (any of its terms, " +
        "BM25-scored with each partition table's INVERTED index), with _score",
      Seq("prefilter")
    ) {

  override def build(args: Seq[Expression]): LogicalPlan = {
    if (args.size < 4 || args.size > 5) fail(s"takes 4 or 5 arguments, got ${args.size}; usage: $Usage")
    val (table, catalog, ident) = this.table(args.head)
    val query = TextQuery(
      column(table, string(args(1), "column")),
      Some(string(args(2), "query")).filter(_.trim.nonEmpty).getOrElse(fail("query is empty")),
      k(args(3)),
      options(args.lift(4)).boolean("prefilter", default = true)
    )
    plan(table, catalog, ident, query)
  }

  /** The namespace column `column` of `table`, checked to be a STRING column. */
  private def column(table: PartitionedTable, column: String) = {
    val field = table.column(column, fail)
    if (field.dataType != StringType)
      fail(s"column '${field.name}' of table ${table.name()} is not a STRING column; it has type ${field.dataType.sql}")
    field
  }
}
