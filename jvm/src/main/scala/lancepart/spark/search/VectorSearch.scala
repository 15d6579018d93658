// lance_vector_search(table, column, query_vector, k [, distance_type]): the table-valued function.
package lancepart.spark.search

import lancepart.lance.Lance
import lancepart.spark.PartitionedTable
import lancepart.spark.read.VectorQuery
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Ascending, Cast, Expression, ExpressionInfo, Literal, SortOrder}
import org.apache.spark.sql.catalyst.plans.logical.{Limit, LogicalPlan, Sort}
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.connector.catalog.TableCatalog
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.lancepart.CatalogLookup
import org.apache.spark.sql.types.{ArrayType, DataType, FloatType, IntegerType, StringType}

/**
 * The `k` rows of a lancepart table nearest to a query vector, with their `_distance`, nearest
 * first: `Limit(k, Sort(_distance, <search of each partition table>))`. Filters written directly
 * on the function's result restrict the search ([[FilterIntoSearch]]).
 */
object VectorSearch {
  val Name = "lance_vector_search"
  private val Usage = s"$Name(table, column, query_vector, k [, distance_type]) - the k rows of a lancepart table " +
    s"nearest to query_vector in vector column `column`, with _distance; distance_type: " +
    s"${Lance.Distances.keys.toSeq.sorted.mkString(", ")} (default l2)"

  /** What the session extension registers. */
  def description: (FunctionIdentifier, ExpressionInfo, Seq[Expression] => LogicalPlan) =
    (
      FunctionIdentifier(Name),
      new ExpressionInfo(getClass.getName, null, Name, Usage, "", "", "", "", "", "", ""),
      build)

  def build(args: Seq[Expression]): LogicalPlan = {
    if (args.size < 4 || args.size > 5) fail(s"takes 4 or 5 arguments, got ${args.size}; usage: $Usage")
    val session = SparkSession.active
    val name = string(args.head, "table")
    val (catalog, ident) = CatalogLookup(session, session.sessionState.sqlParser.parseMultipartIdentifier(name))
    val table = catalog match {
      case c: TableCatalog => c.loadTable(ident) match {
          case t: PartitionedTable => t
          case other =>
            fail(s"table $name is not a lancepart partitioned table (it is a ${other.getClass.getSimpleName})")
        }
      case other => fail(s"catalog ${other.name()} of table $name is not a table catalog")
    }
    val k = value(args(3), IntegerType, "k").asInstanceOf[Int]
    if (k <= 0) fail(s"k must be positive, got $k")
    val distance = args.lift(4).fold("l2")(string(_, "distance_type").toLowerCase(java.util.Locale.ROOT))
    if (!Lance.Distances.contains(distance)) fail(
      s"distance_type must be one of ${Lance.Distances.keys.toSeq.sorted.mkString(", ")}, got '$distance'")
    val query = VectorQuery(vectorColumn(table, string(args(1), "column"), args(2)), vector(args(2)), k, distance)
    val relation = DataSourceV2Relation.create(new SearchTable(table, query), Some(catalog), Some(ident))
    val distanceAttr = relation.output.find(_.name == VectorQuery.DistanceColumn).get
    Limit(Literal(k), Sort(Seq(SortOrder(distanceAttr, Ascending)), global = true, relation))
  }

  /** The namespace column `column` of `table`, checked to be a vector column as long as `key`. */
  private def vectorColumn(table: PartitionedTable, column: String, key: Expression) = {
    if (table.manifest.meta.schema.byName(VectorQuery.DistanceColumn, caseSensitive = false).isDefined)
      fail(s"table ${table.name()} has a column named ${VectorQuery.DistanceColumn}, which the search adds")
    val (field, size) = VectorQuery.vectorColumn(table, column, fail)
    val length = vector(key).length
    if (length != size) fail(s"column '${field.name}' of table ${table.name()} holds vectors of " +
      s"$size elements; the query vector has $length")
    field
  }

  private def vector(e: Expression): Array[Float] = {
    val values = value(e, ArrayType(FloatType), "query_vector").asInstanceOf[ArrayData]
    if ((0 until values.numElements()).exists(values.isNullAt)) fail("query_vector has a NULL element")
    values.toFloatArray()
  }

  private def string(e: Expression, argument: String): String = value(e, StringType, argument).toString

  /** A constant argument as `t`'s internal value. */
  private def value(e: Expression, t: DataType, argument: String): Any = {
    if (!e.foldable) fail(s"argument $argument must be a constant, got ${e.sql}")
    if (!Cast.canCast(e.dataType, t))
      fail(s"argument $argument must be ${t.sql}, got ${e.sql} of type ${e.dataType.sql}")
    Option(Cast(e, t, Some(SparkSession.active.sessionState.conf.sessionLocalTimeZone)).eval())
      .getOrElse(fail(s"argument $argument is NULL"))
  }

  private def fail(message: String): Nothing = throw new IllegalArgumentException(s"$Name: $message")
}
