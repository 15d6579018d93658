// lance_vector_search(table, column, query_vector, k [, distance_type [, options]]): the
// table-valued function of nearest-neighbour search.
package lancepart.spark.search

import lancepart.lance.Lance
import lancepart.spark.PartitionedTable
import lancepart.spark.read.{VectorQuery, VectorTuning}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.{ArrayType, FloatType}

import java.util.Locale

/**
 * The `k` rows of a lancepart table nearest to a query vector, with their `_distance`, nearest
 * first: `Limit(k, Sort(_distance, <search of each partition table>))`. Filters written directly
 * on the function's result restrict the search ([[FilterIntoSearch]]).
 */
object VectorSearch extends SearchFunction(
      "lance_vector_search",
      "table, column, query_vector, k [, distance_type [, options]]",
      "the k rows of a lancepart table nearest to query_vector in vector column `column`, with _distance; " +
        s"distance_type: ${Lance.Distances.keys.toSeq.sorted.mkString(", ")} (default l2)",
      Seq("nprobes", "refine_factor", "ef", "use_index", "prefilter")
    ) {

  override def build(args: Seq[Expression]): LogicalPlan = {
    if (args.size < 4 || args.size > 6) fail(s"takes 4 to 6 arguments, got ${args.size}; usage: $Usage")
    val (table, catalog, ident) = this.table(args.head)
    val count = k(args(3))
    val distance = args.lift(4).fold("l2")(string(_, "distance_type").toLowerCase(Locale.ROOT))
    if (!Lance.Distances.contains(distance)) fail(
      s"distance_type must be one of ${Lance.Distances.keys.toSeq.sorted.mkString(", ")}, got '$distance'")
    val settings = options(args.lift(5))
    val tuning = VectorTuning(
      settings.positiveInt("nprobes"),
      settings.positiveInt("refine_factor").getOrElse(1),
      settings.positiveInt("ef"),
      settings.boolean("use_index", default = true)
    )
    val key = floats(args(2), ArrayType(FloatType), "query_vector")
    key.find(x => x.isNaN || x.isInfinite).foreach(x => fail(s"query_vector has an element $x"))
    if (distance == "cosine" && key.forall(_ == 0f)) fail("query_vector is all zeros, which has no cosine distance")
    val field = column(table, string(args(1), "column"), key)
    val query = VectorQuery(field, key, count, distance, tuning, settings.boolean("prefilter", default = true))
    plan(table, catalog, ident, query)
  }

  /** The namespace column `column` of `table`, checked to be a vector column as long as `key`. */
  private def column(table: PartitionedTable, column: String, key: Array[Float]) = {
    val (field, size) = VectorQuery.vectorColumn(table, column, fail)
    if (key.length != size) fail(s"column '${field.name}' of table ${table.name()} holds vectors of " +
      s"$size elements; the query vector has ${key.length}")
    field
  }
}
