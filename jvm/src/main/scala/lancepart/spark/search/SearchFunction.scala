// What lance_vector_search and lance_text_search share: finding the table, reading constant
// arguments and options, and the plan of a search (the k best of each partition table's k best).
package lancepart.spark.search

import lancepart.spark.{PartitionedCatalog, PartitionedTable}
import lancepart.spark.read.LeafSearch
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{
  Ascending, Cast, Descending, Expression, ExpressionInfo, Literal, SortOrder
}
import org.apache.spark.sql.catalyst.plans.logical.{Limit, LogicalPlan, Sort}
import org.apache.spark.sql.catalyst.util.{ArrayData, MapData}
import org.apache.spark.sql.connector.catalog.{Identifier, TableCatalog}
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.lancepart.CatalogLookup
import org.apache.spark.sql.types.{DataType, IntegerType, MapType, StringType}

import java.util.Locale
import scala.util.Try

/** A table-valued function over a lancepart table, `Name` in SQL, taking `arguments` and, in its
 * last one, a MAP of strings with keys among `optionNames`. */
abstract class SearchFunction(val Name: String, arguments: String, summary: String, optionNames: Seq[String]) {
  protected val Usage = s"$Name($arguments) - $summary; options (a MAP of strings): ${optionNames.mkString(", ")}"

  /** What the session extension registers. */
  def description: (FunctionIdentifier, ExpressionInfo, Seq[Expression] => LogicalPlan) =
    (
      FunctionIdentifier(Name),
      new ExpressionInfo(getClass.getName, null, Name, Usage, "", "", "", "", "", "", ""),
      build)

  def build(args: Seq[Expression]): LogicalPlan

  /** The lancepart table named by the constant `e` (resolved as SQL resolves a table name: a name
   * without a catalog in the session's current one), with its catalog and identifier. */
  protected def table(e: Expression): (PartitionedTable, TableCatalog, Identifier) = {
    val session = SparkSession.active
    val name = string(e, "table")
    val parts = session.sessionState.sqlParser.parseMultipartIdentifier(name)
    CatalogLookup(session, parts) match {
      case (c: PartitionedCatalog, ident) => c.loadTable(ident) match {
          case t: PartitionedTable => (t, c, ident)
          case other =>
            fail(s"table $name is not a lancepart partitioned table (it is a ${other.getClass.getSimpleName})")
        }
      case (other, ident) if parts.size > ident.namespace.length + 1 =>
        fail(s"table $name is in catalog ${other.name()}, which is not a lancepart catalog")
      case (other, ident) =>
        fail(s"table $name is $ident in catalog ${other.name()} (the session's current catalog for a name " +
          s"without one), which is not a lancepart catalog: name the table with its catalog, such as " +
          s"lance.$ident, or USE a lancepart catalog first")
    }
  }

  /** `search` of `table`: the k best rows of those each partition table returns, best first. */
  protected def plan(table: PartitionedTable, catalog: TableCatalog, ident: Identifier, search: LeafSearch) = {
    val added = search.field.name
    if (table.manifest.meta.schema.byName(added, caseSensitive = false).isDefined)
      fail(s"table ${table.name()} has a column named $added, which the search adds")
    val relation = DataSourceV2Relation.create(new SearchTable(table, search), Some(catalog), Some(ident))
    val score = relation.output.find(_.name == added).get
    val order = SortOrder(score, if (search.ascending) Ascending else Descending)
    Limit(Literal(search.k), Sort(Seq(order), global = true, relation))
  }

  /** The constant `e` as a positive k. */
  protected def k(e: Expression): Int = {
    val k = value(e, IntegerType, "k").asInstanceOf[Int]
    if (k <= 0) fail(s"k must be positive, got $k")
    k
  }

  /** The constant MAP<STRING, STRING> `e` as options (keys in lower case). */
  protected def options(e: Option[Expression]): Options = e.fold(Options(Map.empty)) { e =>
    val map = value(e, MapType(StringType, StringType), "options").asInstanceOf[MapData]
    val keys = map.keyArray().toSeq[AnyRef](StringType).map(_.toString.toLowerCase(Locale.ROOT))
    val values = map.valueArray().toSeq[AnyRef](StringType).map(v => Option(v).map(_.toString))
    val options = keys.zip(values).map {
      case (key, Some(v)) if optionNames.contains(key) => key -> v
      case (key, None) => fail(s"option '$key' is NULL")
      case (key, _) => fail(s"no option '$key' (options: ${optionNames.mkString(", ")})")
    }.toMap
    Options(options)
  }

  /** Options of a search, read by type. */
  case class Options(values: Map[String, String]) {
    def positiveInt(key: String): Option[Int] = values.get(key).map(v =>
      Try(v.trim.toInt).filter(_ > 0).getOrElse(fail(s"option '$key' must be a positive integer, got '$v'")))

    def boolean(key: String, default: Boolean): Boolean = values.get(key).fold(default)(v =>
      Try(v.trim.toBoolean).getOrElse(fail(s"option '$key' must be true or false, got '$v'")))
  }

  protected def string(e: Expression, argument: String): String = value(e, StringType, argument).toString

  protected def floats(e: Expression, t: DataType, argument: String): Array[Float] = {
    val values = value(e, t, argument).asInstanceOf[ArrayData]
    if ((0 until values.numElements()).exists(values.isNullAt)) fail(s"$argument has a NULL element")
    values.toFloatArray()
  }

  /** A constant argument as `t`'s internal value. */
  private def value(e: Expression, t: DataType, argument: String): Any = {
    if (!e.foldable) fail(s"argument $argument must be a constant, got ${e.sql}")
    if (!Cast.canCast(e.dataType, t))
      fail(s"argument $argument must be ${t.sql}, got ${e.sql} of type ${e.dataType.sql}")
    Option(Cast(e, t, Some(SparkSession.active.sessionState.conf.sessionLocalTimeZone)).eval())
      .getOrElse(fail(s"argument $argument is NULL"))
  }

  protected def fail(message: String): Nothing = throw new IllegalArgumentException(s"$Name: $message")
}
