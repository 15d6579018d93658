// Branches of a partitioned table (ALTER TABLE ... CREATE / REPLACE / DROP BRANCH, `<table>.branch_<b>`,
// VERSION AS OF '<branch>', write-audit-publish with `spark.wap.branch`, CALL ... fast_forward):
// Lance branches of its `__manifest`, made from a strong-mode manifest version. A write to a branch
// commits its partition tables detached, as every strong-mode write does, and its rows to the
// branch of `__manifest`, so main reads nothing of it until a fast-forward copies the branch's rows
// onto main (docs/format.md "Branches").
package lancepart.spark

import lancepart.lance.{DatasetBranch, DatasetBranches, DatasetTags}
import lancepart.spark.plain.PlainTable
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.Table

object TableBranches {

  /** The session setting naming the branch write-audit-publish writes to (as Iceberg's). */
  val WapBranchKey = "spark.wap.branch"

  /** The table property that turns write-audit-publish on for a table (as Iceberg's). */
  val WapEnabledKey = "write.wap.enabled"

  /** Makes branch `name` of `table` from its version `version` (None: its latest), kept
   * `maxAgeMillis` after its latest commit (None: until dropped); `existing` says what a branch
   * of that name does. */
  def create(
      table: Table,
      name: String,
      version: Option[Long],
      maxAgeMillis: Option[Long],
      existing: DatasetTags.Existing): Unit = {
    val t = partitioned(table, "branch")
    if (name == TableTags.Main) throw new IllegalArgumentException(
      s"table ${t.name()}: cannot create branch '${TableTags.Main}': it is the table's own latest version")
    // as Iceberg's, a table's tags and branches share one set of names
    if (TableTags.list(t).exists(_.name == name)) throw new IllegalArgumentException(
      s"table ${t.name()}: cannot create branch '$name': the table has a tag of that name")
    val from = TableTags.pinnedVersion(t, version, "branch")
    DatasetBranches.create(t.store.lance, t.store.uri, t.name(), name, from, maxAgeMillis, existing)
  }

  /** Removes branch `name` of `table` and its versions; a missing one fails unless `ifExists`. */
  def drop(table: Table, name: String, ifExists: Boolean): Unit = {
    val t = partitioned(table, "branch")
    if (name == TableTags.Main) throw new IllegalArgumentException(
      s"table ${t.name()}: cannot drop branch '${TableTags.Main}': it is the table itself")
    DatasetBranches.drop(t.store.lance, t.store.uri, t.name(), name, ifExists)
  }

  /** The branches of `table` (none for a plain table), by name. */
  def list(table: Table): Seq[DatasetBranch] = table match {
    case t: PartitionedTable => DatasetBranches.list(t.store.lance, t.store.uri)
    case _ => Seq.empty
  }

  /** Whether `table` has branch `name`. */
  def exists(table: PartitionedTable, name: String): Boolean = list(table).exists(_.name == name)

  /** Branch `name` of `table` at its latest version, which reads and writes it (`<table>.branch_<name>`). */
  def load(table: Table, name: String): PartitionedTable = {
    val t = partitioned(table, "branch")
    DatasetBranches.get(t.store.lance, t.store.uri, t.name(), name)
    t.onBranch(name)
  }

  /**
   * Publishes branch `from` of `table` to `to` (main only): main then reads what the branch reads,
   * when main has not changed since the branch was made or last published (as Iceberg's
   * fast_forward needs main to be an ancestor of the branch). Returns main's version before and after.
   */
  def fastForward(table: Table, to: String, from: String): (Long, Long) = {
    val t = partitioned(table, "branch")
    if (to != TableTags.Main) throw new UnsupportedOperationException(
      s"table ${t.name()}: fast_forward publishes a branch to ${TableTags.Main} only, not to '$to'")
    val branch = DatasetBranches.get(t.store.lance, t.store.uri, t.name(), from)
    val (mainVersion, branchVersion) = branch.published.getOrElse(throw new UnsupportedOperationException(
      s"table ${t.name()}: branch '$from' was not made by lancepart (it records no version of main it holds the " +
        "rows of), so it cannot be published"))
    val latest = t.store.latestVersion()
    if (latest != mainVersion) throw new IllegalStateException(
      s"table ${t.name()}: cannot fast-forward ${TableTags.Main} to branch '$from': ${TableTags.Main} is not an " +
        s"ancestor of it (${TableTags.Main} is at version $latest, committed after version $mainVersion, whose " +
        "rows the branch started from); nothing was changed")
    if (branch.head == branchVersion) (latest, latest)
    else {
      val published = t.store.fastForward(latest, t.store.onBranch(from))
      // a commit rebased under the fast-forward (rows added, metadata set) left main holding more
      // than the branch: a later fast-forward would undo it, so main is no ancestor of the branch
      if (published == latest + 1) DatasetBranches.published(t.store.lance, t.store.uri, from, published, branch.head)
      (latest, published)
    }
  }

  /** The write-audit-publish branch of `table` in this session: `spark.wap.branch` when the table
   * has `write.wap.enabled` = true. */
  def wapBranch(table: PartitionedTable): Option[String] =
    if (!table.manifest.meta.tableProperties.get(WapEnabledKey).exists(_.equalsIgnoreCase("true"))) None
    else SparkSession.active.conf.getOption(WapBranchKey).filter(_.nonEmpty)

  /** `table` as a partitioned table on its main branch, whose `kind` (branch) statements these are. */
  private def partitioned(table: Table, kind: String): PartitionedTable = table match {
    case t: PartitionedTable =>
      t.requireMain(s"run $kind statements on")
      t
    case t: PlainTable => throw new UnsupportedOperationException(
        s"table ${t.name()} is a plain Lance table: lancepart makes ${kind}es of partitioned tables only")
    case t => throw new UnsupportedOperationException(s"${t.name()} is a metadata table: it has no ${kind}es")
  }
}
