// The rows a DELETE or an overwrite removes from one partition table, as one Lance SQL predicate
// over the columns that table has.
package lancepart.prune

import lancepart.lance.{LeafColumn, LeafSchema}
import lancepart.spec.SchemaField
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.DataType

/**
 * The conjunction of `filters`, each rendered by [[LanceSql.render]] with `columns` (a top-level
 * namespace column's Lance SQL form and type) over the columns of `namespace`. A partition table
 * holds a namespace column where reads find it ([[LeafSchema.find]]: by tag, name or Lance field
 * id, so under another name when a rename has not reached it); one it lacks (written before ADD
 * COLUMN, or by another client) reads as NULL, so its predicate compares NULL there: the rows a
 * scan shows matching are the rows removed.
 */
case class RowPredicate(
    filters: Seq[Filter],
    columns: String => Option[(String, DataType)],
    namespace: Seq[SchemaField]) {

  /** True when every filter has a Lance SQL form. */
  def isExpressible: Boolean = render(attr => columns(attr).map(_._1)).isDefined

  /** The predicate for a partition table of columns `leaf`. */
  def sql(leaf: Seq[LeafColumn]): String = render { attr =>
    namespace.find(_.name == attr).flatMap(LeafSchema.find(leaf, _, namespace)).fold(Option("NULL"))(c =>
      LanceSql.column(c.name))
  }.getOrElse(throw new IllegalStateException(s"${filters.mkString(" AND ")} has no Lance SQL form over columns " +
    leaf.map(_.name).mkString(", ")))

  /** `filters` with each column `attr` as `name(attr)`; None when one has no Lance SQL form. */
  private def render(name: String => Option[String]): Option[String] = {
    val lookup = (attr: String) => for ((_, dt) <- columns(attr); c <- name(attr)) yield (c, dt)
    val rendered = filters.map(LanceSql.render(_, lookup))
    Option.when(rendered.forall(_.isDefined))(
      if (rendered.isEmpty) "true" else rendered.flatten.map(p => s"($p)").mkString(" AND "))
  }
}
