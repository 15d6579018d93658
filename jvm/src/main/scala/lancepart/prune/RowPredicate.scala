// The rows a DELETE or an overwrite removes from one partition table, as one Lance SQL predicate
// over the columns that table has.
package lancepart.prune

import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.DataType

/**
 * The conjunction of `filters`, each rendered by [[LanceSql.render]] with `columns` (a top-level
 * column's Lance SQL form and type). A partition table that lacks a column (written before ADD
 * COLUMN, or by another client) reads it as NULL, so its predicate compares NULL there: the rows
 * a scan shows matching are the rows removed.
 */
case class RowPredicate(filters: Seq[Filter], columns: String => Option[(String, DataType)]) {

  /** True when every filter has a Lance SQL form. */
  def isExpressible: Boolean = render(_ => true).isDefined

  /** The predicate for a partition table holding the top-level columns `present` (by name). */
  def sql(present: String => Boolean): String = render(present).getOrElse(
    throw new IllegalStateException(s"${filters.mkString(" AND ")} has no Lance SQL form"))

  private def render(present: String => Boolean): Option[String] = {
    val lookup = (attr: String) => columns(attr).map { case (c, dt) => (if (present(attr)) c else "NULL", dt) }
    val rendered = filters.map(LanceSql.render(_, lookup))
    Option.when(rendered.forall(_.isDefined))(
      if (rendered.isEmpty) "true" else rendered.flatten.map(p => s"($p)").mkString(" AND "))
  }
}
