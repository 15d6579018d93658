// ALTER TABLE ... ADD / DROP / REPLACE PARTITION FIELD as one change of a table's current
// partition spec: the fields of its next version, to which SpecEvolution gives their field ids.
package lancepart.spark.extensions

import lancepart.spark.DdlPartitioning
import lancepart.spec.{BoundField, CalendarRun, SpecEvolution, TableMetadata}
import org.apache.spark.sql.connector.expressions.NamedReference

/**
 * A change of the current spec. A transform is a PARTITIONED BY item as text (`bucket(16, id)`,
 * `days(ts)`, `country`), read by [[DdlPartitioning.items]]. The field a DROP or REPLACE names
 * is a transform, matched against the current spec's partition fields as DESCRIBE lists them (a
 * calendar run such as `days(ts)` is one), or a field_id, which names one spec field. A bare name
 * is the identity field of that column when the spec has it, else a field_id.
 */
sealed trait PartitionFieldChange {

  /** The next spec's fields: the current spec's, changed. Fields that stay are passed with their
   * field_ids, which SpecEvolution keeps. */
  def fields(table: String, meta: TableMetadata): Seq[SpecEvolution.Requested]
}

object PartitionFieldChange {

  /** `ADD PARTITION FIELD transform [AS name]`: its fields after the current ones. */
  case class Add(transform: String, name: Option[String]) extends PartitionFieldChange {
    def fields(table: String, meta: TableMetadata): Seq[SpecEvolution.Requested] = {
      val current = meta.currentSpec.fields
      kept(current) ++ added(table, meta, transform, name, current)
    }
  }

  /** `DROP PARTITION FIELD field`. */
  case class Drop(field: String) extends PartitionFieldChange {
    def fields(table: String, meta: TableMetadata): Seq[SpecEvolution.Requested] = {
      val dropped = named(table, meta, field)
      kept(meta.currentSpec.fields.filterNot(dropped.contains))
    }
  }

  /** `REPLACE PARTITION FIELD field WITH transform [AS name]`: the new fields take the old one's
   * place in the spec. */
  case class Replace(field: String, transform: String, name: Option[String]) extends PartitionFieldChange {
    def fields(table: String, meta: TableMetadata): Seq[SpecEvolution.Requested] = {
      val current = meta.currentSpec.fields
      val replaced = named(table, meta, field)
      val (before, after) = current.filterNot(replaced.contains).splitAt(current.indexWhere(replaced.contains))
      kept(before) ++ added(table, meta, transform, name, before ++ after) ++ kept(after)
    }
  }

  private def kept(fields: Seq[BoundField]): Seq[SpecEvolution.Requested] =
    fields.map(f => SpecEvolution.Requested(f.field, explicitId = true))

  /** The fields `transform` makes, none of them among `staying`; `name` is the field_id of its
   * one field. */
  private def added(
      table: String,
      meta: TableMetadata,
      transform: String,
      name: Option[String],
      staying: Seq[BoundField]): Seq[SpecEvolution.Requested] = {
    val requested = DdlPartitioning.fields(table, meta.schema, DdlPartitioning.items(Seq(transform)))
    requested.flatMap(r => staying.find(_.field.definition == r.field.definition)).headOption.foreach { existing =>
      throw new IllegalArgumentException(
        s"table $table: cannot add partition field $transform: the current spec already has its field " +
          s"'${existing.fieldId}' (${describe(meta)}); to change a field, REPLACE PARTITION FIELD <field> WITH " +
          s"$transform")
    }
    (name, requested) match {
      case (None, _) => requested
      case (Some(n), Seq(one)) => Seq(SpecEvolution.Requested(one.field.copy(fieldId = n), explicitId = true))
      case (Some(n), more) => throw new IllegalArgumentException(
          s"table $table: AS $n names one partition field, but $transform makes ${more.size} " +
            s"(${more.map(_.field.fieldId).mkString(", ")}); add it without AS, or use lance_year, lance_month, " +
            "lance_day or lance_hour(col) for one calendar field")
    }
  }

  /** The current spec's fields that `field` names (see [[PartitionFieldChange]]). */
  private def named(table: String, meta: TableMetadata, field: String): Seq[BoundField] = {
    val current = meta.currentSpec.fields
    val items = DdlPartitioning.items(Seq(field))
    val bareName = items match {
      case Seq(Left(t)) if t.name() == "identity" =>
        t.arguments().toSeq match {
          case Seq(r: NamedReference) if r.fieldNames().length == 1 => Some(r.fieldNames().head)
          case _ => None
        }
      case _ => None
    }
    def missing = new IllegalArgumentException(
      s"table $table: the current spec has no partition field $field (${describe(meta)})")
    val byFieldId = bareName.flatMap(n => current.find(_.fieldId == n)).map(Seq(_))
    if (bareName.exists(meta.schema.byName(_).isEmpty)) byFieldId.getOrElse(throw missing)
    else {
      val wanted = DdlPartitioning.fields(table, meta.schema, items).map(_.field.definition)
      CalendarRun.group(current).find(_.map(_.field.definition) == wanted).orElse(byFieldId).getOrElse(throw missing)
    }
  }

  /** The current spec's partition fields as DESCRIBE lists them, with their field_ids. */
  private def describe(meta: TableMetadata): String = {
    val spec = meta.currentSpec
    val fields = CalendarRun.group(spec.fields).map { group =>
      val described = DdlPartitioning.transform(group).fold("(its source column was dropped)")(_.describe())
      s"$described [${group.map(_.fieldId).mkString(", ")}]"
    }
    s"spec v${spec.id}: ${if (fields.isEmpty) "no fields" else fields.mkString(", ")}"
  }
}
