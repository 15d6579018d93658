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

  /** Tags `version` of `table` (None: the version it was loaded at) as `name`, keeping the tag
   * `maxAgeMillis` after that version was committed (None: until dropped); `existing` says what
   * a tag of that name does. Returns the version tagged. */
  def create(
      table: Table,
      name: String,
      version: Option[Long],
      maxAgeMillis: Option[Long],
      existing: DatasetTags.Existing): Long = {
    val tagged = table match {
      case t: PartitionedTable =>
        val v = version.getOrElse(t.manifest.version)
        if (t.manifest.meta.mode != TransactionMode.Strong) throw new UnsupportedOperationException(
          s"table ${t.name()}: a tag needs ${TransactionMode.Key}=strong; in weak mode partition tables are read at " +
            "their latest versions, so a manifest version does not pin what was visible then (ALTER TABLE ... SET " +
            s"TBLPROPERTIES ('${TransactionMode.Key}' = 'strong') makes the table strong from its next commit on)")
        if (t.store.loadAt(v).meta.mode != TransactionMode.Strong) throw new UnsupportedOperationException(
          s"table ${t.name()}: manifest version $v was committed in weak mode, which pins no partition table " +
            "versions; it cannot be tagged")
        v
      case t: PlainTable =>
        version.foreach(PlainMaintenance.requireVersion(t.lance, t.uri, t.name(), _))
        version.getOrElse(t.lanceVersion)
      case t => throw unsupported(t)
    }
    val (lance, uri) = dataset(table)
    DatasetTags.create(lance, uri, table.name(), name, tagged, maxAgeMillis, existing)
    tagged
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

  /** The version tag `name` of `table` names (its manifest version, a plain table's Lance version). */
  def version(table: Table, name: String): Long = {
    val (lance, uri) = dataset(table)
    DatasetTags.version(lance, uri, table.name(), name)
  }

  /** The Lance dataset whose tags are `table`'s. */
  private def dataset(table: Table): (LanceAccess, String) = table match {
    case t: PartitionedTable => (t.store.lance, t.store.uri)
    case t: PlainTable => (t.lance, t.uri)
    case t => throw unsupported(t)
  }

  private def unsupported(t: Table) =
    new UnsupportedOperationException(s"${t.name()} is a metadata table or a table version: it has no tags")
}
