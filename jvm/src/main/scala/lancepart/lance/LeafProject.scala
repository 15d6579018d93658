// Metadata-only schema commits on a partition table: columns renamed and tagged with their
// namespace field ids in one Lance Project commit, which keeps every Lance field id (so every
// data file keeps its meaning), on the main branch or detached on top of a pinned version.
package lancepart.lance

import lancepart.arrow.FieldIds
import org.apache.arrow.vector.types.pojo.{Field, Schema}
import org.lance.{CommitBuilder, Dataset, Transaction}
import org.lance.operation.Project
import org.lance.schema.LanceField

import scala.jdk.CollectionConverters._

/** Top-level columns (by current name) to rename, and to tag with a namespace field id; columns to
 * add (all NULL in existing rows), each with the Lance field ids it should take (`lance:field_id`). */
case class LeafChange(renames: Map[String, String], tags: Map[String, Int], added: Seq[Field] = Seq.empty) {
  def isEmpty: Boolean = renames.isEmpty && tags.isEmpty && added.isEmpty
}

object LeafProject {

  private val PrimaryKeyPositionKey = "lance-schema:unenforced-primary-key:position"

  /**
   * Applies `plan`'s change for the leaf's columns to the leaf at `uri`: on top of `base` as a
   * detached commit, or (None) on the latest main version, planned again when another schema
   * change commits first. `before` runs just before a non-empty change commits. Returns the new
   * version, or None when `plan` changes nothing.
   */
  def commit(lance: LanceAccess, uri: String, base: Option[Long], before: () => Unit = () => ())(
      plan: Seq[LeafColumn] => LeafChange): Option[Long] = {
    def attempt(): Option[Long] = lance.withDataset(uri, base) { ds =>
      val change = plan(LeafSchema.columns(ds))
      if (change.isEmpty) None
      else {
        before()
        Some(apply(ds, uri, change, detached = base.isDefined))
      }
    }
    if (base.isDefined) attempt() else Lance.replanned(attempt())
  }

  private def apply(ds: Dataset, uri: String, change: LeafChange, detached: Boolean): Long = {
    val lanceFields = ds.getLanceSchema.fields().asScala.toSeq
    lanceFields.find(_.isUnenforcedClusteringKey) match {
      case Some(_) if !detached && change.renames.isEmpty && change.tags.isEmpty =>
        // Lance's own add keeps the key; it gives the columns its next ids
        ds.addColumns(change.added.map(withoutIds).asJava)
        return ds.version()
      case Some(f) => throw new UnsupportedOperationException(
          s"partition table $uri: column '${f.getName}' is a clustering key, which lancepart's schema change would not keep")
      case None =>
    }
    val fields = lanceFields.map { f =>
      val tag = change.tags.get(f.getName).map(id => LeafSchema.FieldIdKey -> id.toString)
      withIds(f, change.renames.getOrElse(f.getName, f.getName), tag.toMap)
    }
    val schema = new Schema((fields ++ added(ds, change.added)).asJava, ds.getSchema.getCustomMetadata)
    val project = Project.builder().schema(schema).build()
    Lance.using(new Transaction.Builder().readVersion(ds.version()).operation(project).build()) { txn =>
      Lance.using(new CommitBuilder(ds).detached(detached).skipAutoCleanup(true).execute(txn))(_.version())
    }
  }

  /** Columns `fields` to add to `ds`, all NULL: a Project with fields no data file has (as Lance's
   * own all-NULL column adds commit). One whose ids `ds` already uses, in its schema or in a data
   * file (a dropped column's), is numbered above every id in use or asked for. */
  private def added(ds: Dataset, fields: Seq[Field]): Seq[Field] = if (fields.isEmpty) Seq.empty
  else {
    val taken = LeafField.idsInUse(ds)
    var next = (taken ++ fields.flatMap(FieldIds.of)).max + 1
    val fresh = () => { next += 1; next - 1 }
    fields.map(f => if (FieldIds.of(f).exists(taken)) FieldIds.renumbered(f, fresh) else f)
  }

  private def withoutIds(f: Field): Field =
    FieldIds.rebuilt(f, f.getName, FieldIds.metadata(f) - FieldIds.Key, f.getChildren.asScala.toSeq.map(withoutIds))

  /** `f` as an Arrow field named `name` with `extra` metadata, every nested field carrying its
   * Lance field id so the Project keeps it (a fixed-size list's element has none: Lance stores
   * the list as one field). */
  private def withIds(f: LanceField, name: String, extra: Map[String, String]): Field = {
    val arrow = f.asArrowField()
    val key =
      if (f.isUnenforcedPrimaryKey) Some(PrimaryKeyPositionKey -> f.getUnenforcedPrimaryKeyPosition.orElse(0).toString)
      else None
    val metadata = Option(f.getMetadata).fold(Map.empty[String, String])(_.asScala.toMap) ++ extra ++ key +
      (FieldIds.Key -> f.getId.toString)
    val children =
      if (f.getChildren.isEmpty) arrow.getChildren.asScala.toSeq
      else f.getChildren.asScala.toSeq.map(c => withIds(c, c.getName, Map.empty))
    FieldIds.rebuilt(arrow, name, metadata, children)
  }
}
