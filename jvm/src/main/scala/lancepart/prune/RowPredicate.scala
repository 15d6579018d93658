// The rows a DELETE or an overwrite removes from one partition table, as one Lance SQL predicate
// over the columns that table has.
package lancepart.prune

import lancepart.arrow.ArrowTypes
import lancepart.lance.{LeafColumn, LeafSchema}
import lancepart.spec.{SchemaEvolution, SchemaField}
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

  /** The predicate for a partition table of columns `leaf`; a column it stores in a type the
   * namespace column widened since (INT to BIGINT, FLOAT to DOUBLE, ...) is cast to the namespace
   * type, as reads widen it: Lance compares a column with literals of its own type only. */
  def sql(leaf: Seq[LeafColumn]): String = render { attr =>
    namespace.find(_.name == attr).flatMap(f => LeafSchema.find(leaf, f, namespace).map(f -> _)).fold(Option("NULL")) {
      case (f, c) =>
        LanceSql.column(c.name).map { column =>
          val stored = ArrowTypes.toSpark(c.field, s"column '${c.name}'")
          if (stored != f.dataType && SchemaEvolution.isWidening(stored, f.dataType))
            s"CAST($column AS ${f.dataType.sql})"
          else column
        }
    }
  }.getOrElse(throw new IllegalStateException(s"${filters.mkString(" AND ")} has no Lance SQL form over columns " +
    leaf.map(_.name).mkString(", ")))

  /** `filters` with each column `attr` as `name(attr)`; None when one has no Lance SQL form. */
  private def render(name: String => Option[String]): Option[String] = {
    val lookup = (attr: String) => for ((_, dt) <- columns(attr); c <- name(attr)) yield (c, dt)
    val rendered = filters.map(LanceSql.render(_, lookup))
    if (rendered.forall(_.isDefined))
      Some(if (rendered.isEmpty) "true" else rendered.flatten.map(p => s"($p)").mkString(" AND "))
    else None
  }
}
