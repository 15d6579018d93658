// Tags of both kinds of lancepart table (ALTER TABLE ... CREATE / REPLACE / DROP TAG, VERSION AS OF
// '<tag>', `<table>.refs`): a partitioned table's tags are Lance tags of its `__manifest`, each
// naming a manifest version, which in strong mode pins the version of every partition table; a
// plain table's are tags of its dataset.
package lancepart.spark

import lancepart.lance.{DatasetTag, DatasetTags, LanceAccess}
import lancepart.maintenance.PlainMaintenance
import lancepart.spark.plain.PlainTable
import lancepart.spec.TransactionMode
import org.apache.spark.sql.connector.catalog.Table

object TableTags {

  /** The name of a table's latest version (Iceberg's main branch), which no tag takes. */
  val Main = "main"

  /** Tags `version` of `table` (None: its latest, also when `table` is a version time travel chose,
   * as Iceberg's `ALTER TABLE <table>.tag_<tag> CREATE TAG` tags main) as `name`, keeping the tag
   * `maxAgeMillis` after that version was committed (None: until dropped); `existing` says what
   * a tag of that name does. */
  def create(
      table: Table,
      name: String,
      version: Option[Long],
      maxAgeMillis: Option[Long],
      existing: DatasetTags.Existing): Unit = {
    val (lance, uri) = dataset(table)
    if (name == Main) throw new IllegalArgumentException(
      s"table ${table.name()}: cannot create tag '$Main': it names the table's latest version (its main branch)")
    // as Iceberg's, a table's tags and branches share one set of names
    if (TableBranches.exists(table, name)) throw new IllegalArgumentException(
      s"table ${table.name()}: cannot create tag '$name': the table has a branch of that name")
    DatasetTags.create(lance, uri, table.name(), name, refVersion(table, version, "tag"), maxAgeMillis, existing)
  }

  /** The version `version` of `table` (None: its latest) that a `kind` (tag, branch) names: a
   * partitioned table's as [[pinnedVersion]] allows, a plain table's Lance version (which must exist). */
  def refVersion(table: Table, version: Option[Long], kind: String): Long = table match {
    case t: PartitionedTable => pinnedVersion(t, version, kind)
    case t: PlainTable =>
      version.foreach(PlainMaintenance.requireVersion(t.lance, t.uri, t.name(), _))
      version.getOrElse(t.withDataset(None)(_.version()))
  }

  /**
   * Manifest version `version` of `t` (None: its latest) when a `kind` (tag, branch) made from
   * it keeps what it reads: committed in strong mode, where each row pins its partition table's
   * version, and of this catalog's own layout; refused otherwise, saying why.
   */
  private def pinnedVersion(t: PartitionedTable, version: Option[Long], kind: String): Long = {
    TableBranches.requireMain(t, s"make a $kind of")
    val v = version.getOrElse(t.store.latestVersion())
    if (t.manifest.meta.mode != TransactionMode.Strong) throw new UnsupportedOperationException(
      s"table ${t.name()}: a $kind needs ${TransactionMode.Key}=strong; in weak mode partition tables are read at " +
        "their latest versions, so a manifest version does not pin what was visible then (ALTER TABLE ... SET " +
        s"TBLPROPERTIES ('${TransactionMode.Key}' = 'strong') makes the table strong from its next commit on)")
    val at = t.store.loadAt(v)
    def refused(why: String) = new UnsupportedOperationException(s"table ${t.name()}: manifest version $v $why")
    if (at.meta.mode != TransactionMode.Strong)
      throw refused(s"was committed in weak mode, which pins no partition table versions; no $kind can be made of it")
    at.requireOwnLayout(t.name(), kind)
    val unpinned = t.store.unpinnedTableCount(at)
    if (unpinned > 0)
      throw refused(s"has $unpinned partition tables whose rows pin no version (read_version is NULL: written " +
        s"in weak mode, or by another writer), which are read at their latest, so a $kind would not keep what it " +
        "reads; a strong-mode write to a partition (INSERT, UPDATE, DELETE, MERGE) pins its table")
    v
  }

  /** Removes tag `name` of `table`; a missing one fails unless `ifExists`. */
  def drop(table: Table, name: String, ifExists: Boolean): Unit = {
    val (lance, uri) = dataset(table)
    DatasetTags.drop(lance, uri, table.name(), name, ifExists)
  }

  /** The tags of `table` (of main-branch versions: another client's tags of other branches are left
   * out), by name. */
  def list(table: Table): Seq[DatasetTag] = {
    val (lance, uri) = dataset(table)
    DatasetTags.onMain(lance, uri)
  }

  /** Whether `table` has tag `name` (of a main-branch version or, another client's, of a branch's). */
  def exists(table: Table, name: String): Boolean = {
    val (lance, uri) = dataset(table)
    DatasetTags.list(lance, uri).exists(_.name == name)
  }

  /** The version tag `name` of `table` names (its manifest version, a plain table's Lance version). */
  def version(table: Table, name: String): Long = {
    val (lance, uri) = dataset(table)
    DatasetTags.version(lance, uri, table.name(), name)
  }

  /** The Lance dataset whose tags are `table`'s. */
  private def dataset(table: Table): (LanceAccess, String) = dataset(table, "name versions of", "tags")

  /** The Lance dataset whose tags or branches (`kind`) are `table`'s: a partitioned table's
   * `__manifest`, a plain table's dataset; refused when `table` is a branch, which cannot `what`,
   * or a metadata table. */
  private[spark] def dataset(table: Table, what: String, kind: String): (LanceAccess, String) = {
    TableBranches.requireMain(table, what)
    table match {
      case t: PartitionedTable => (t.store.lance, t.store.uri)
      case t: PlainTable => (t.lance, t.uri)
      case t => throw new UnsupportedOperationException(s"${t.name()} is a metadata table: it has no $kind")
    }
  }
}
