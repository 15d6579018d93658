// RENAME and ADD COLUMN keep partition tables consistent with the namespace schema (spec: Schema):
// every leaf's column is renamed too, and a leaf column left by a dropped column of an added name
// steps aside; metadata-only Lance commits that keep field ids.
package lancepart.txn

import lancepart.lance.{Lance, LeafChange, LeafColumn, LeafProject, LeafSchema}
import lancepart.manifest.{ManifestConflict, ManifestQuery, ManifestStore, TableFiles}
import lancepart.spec.TableMetadata

import scala.annotation.tailrec
import scala.collection.concurrent.TrieMap
import scala.util.control.NonFatal

/**
 * lance-core cannot change `__manifest`'s table metadata and its rows in one commit (a
 * merge_insert carries no metadata update, an UpdateConfig no rows), so a rename takes three
 * steps, each leaving a table that every reader matching columns by field id reads right
 * ([[LeafSchema.find]]: lancepart's tag, else the name, else the Lance field id):
 *
 *  1. leaf columns of the renamed columns that carry no `lancepart:field_id` (leaves of other
 *     writers) are tagged, so they are found by id whichever name they have;
 *  2. the namespace schema is committed (refused when it changed meanwhile); writes planned
 *     before it fail at commit, and do not rename a leaf back (their tasks check the stored
 *     schema before they change a leaf); one whose `__manifest` commit Lance lands on top of it
 *     renames the leaves it created after its commit ([[Committer]]);
 *  3. every leaf is renamed to the new names.
 *
 * ADD COLUMN takes steps 2 and 3: a leaf column of a dropped namespace column whose name a new
 * column takes is renamed `<name>_deprecated_<tag>` ([[LeafSchema.aligned]]), so that a reader
 * matching leaf columns by name (the spec's appendices, pylance) never reads its old values as
 * the new column.
 *
 * A leaf whose row pins a `read_version` changes in a detached commit on top of it, published
 * as the row's new `read_version` (with its `table_version` row) in one conditional `__manifest`
 * commit per step; a leaf read at its latest version changes on its main branch.
 */
class LeafRenames(store: ManifestStore, files: TableFiles, attempts: Int) {

  /** Stores `next`'s schema, which renames or adds columns of `current`'s, with the leaves made
   * to match it. */
  def apply(current: TableMetadata, next: TableMetadata): Unit = {
    val renamed = current.schema.fields.filter(f => next.schema.byId(f.id).exists(_.name != f.name))
    val changed = renamed.map(f => s"'${f.name}' renamed") ++
      next.schema.fields.filter(f => current.schema.byId(f.id).isEmpty).map(f => s"'${f.name}' added")
    if (renamed.nonEmpty) eachLeaf(current, _ => true) { leaf =>
      val untagged =
        renamed.flatMap(f => LeafSchema.find(leaf, f, current.schema.fields).filter(_.tag.isEmpty).map(_ -> f))
      LeafChange(Map.empty, untagged.map { case (l, f) => l.name -> f.id }.toMap)
    }
    store.updateSchema(current, next)
    try align(next, _ => true)
    catch {
      case NonFatal(e) => throw new IllegalStateException(
          s"table ${store.table}: ${changed.mkString(", ")} in the namespace schema, but not every partition table " +
            s"was changed to match: ${e.getMessage}. Reads find the columns by field id; the next write into a " +
            "partition table changes its columns",
          e
        )
    }
  }

  /** Step 3: names the columns of the partition tables at the locations `at` selects as `meta`'s
   * schema does (a column of a dropped one whose name it took steps aside). */
  def align(meta: TableMetadata, at: String => Boolean): Unit =
    eachLeaf(meta, at)(LeafSchema.aligned(_, meta.schema.fields))

  /** Applies `plan` to the partition tables at the locations `at` selects of the latest manifest
   * version, which must still have `meta`'s schema (checked again right before each leaf changes,
   * so that a rename never undoes a later one); publishes the new versions of pinned ones. */
  private def eachLeaf(meta: TableMetadata, at: String => Boolean)(plan: Seq[LeafColumn] => LeafChange): Unit = {
    def check(schema: Option[String]): Unit = if (!schema.contains(meta.schema.json)) {
      throw new IllegalStateException(s"another statement changed the schema of table ${store.table} while its " +
        "partition tables were changed to match it")
    }
    val unchanged = () => check(store.properties().get(TableMetadata.SchemaKey))
    // (location, base version) -> the version the change made; kept across attempts
    val made = TrieMap.empty[(String, Option[Long]), Option[Long]]
    @tailrec def attempt(n: Int): Unit = {
      val latest = store.load()
      check(Some(latest.meta.schema.json))
      val rows = files.withData(store.rows(latest, ManifestQuery.tables(latest.meta))).filter(_.location.forall(at))
      val pinned = Lance.parallel(rows) { row =>
        val version = made.getOrElseUpdate(
          (row.location.get, row.readVersion),
          LeafProject.commit(store.lance, store.leafUri(row), row.readVersion, unchanged)(plan))
        row.readVersion.flatMap(_ => version).map(v => row.copy(readVersion = Some(v)))
      }.flatten
      val record = latest.version + 1
      val published = pinned.nonEmpty && (try {
        store.commit(latest.version, pinned.flatMap(r => Seq(r, r.versionRecord(r.readVersion.get, record))), Seq.empty)
        true
      } catch { case _: ManifestConflict if n < attempts => false })
      if (pinned.nonEmpty && !published) attempt(n + 1)
    }
    attempt(1)
  }
}
