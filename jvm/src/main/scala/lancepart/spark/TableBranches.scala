// Branches of a partitioned table (ALTER TABLE ... CREATE / REPLACE / DROP BRANCH, `<table>.branch_<b>`,
// VERSION AS OF '<branch>', write-audit-publish with `spark.wap.branch`, CALL ... fast_forward):
// Lance branches of its `__manifest`, made from a strong-mode manifest version. A write to a branch
// commits its partition tables detached, as every strong-mode write does, and its rows to the
// branch of `__manifest`, so main reads nothing of it until a fast-forward commits the branch's
// partition tables to main (docs/format.md "Branches").
package lancepart.spark

import lancepart.lance.{DatasetBranch, DatasetBranches, DatasetTags}
import lancepart.manifest.ManifestConflict
import lancepart.spark.plain.PlainTable
import lancepart.txn.TransactionConflict
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.Table

object TableBranches {

  /** The session setting naming the branch write-audit-publish writes to (as Iceberg's). */
  val WapBranchKey = "spark.wap.branch"

  /** The table property that turns write-audit-publish on for a table (as Iceberg's). */
  val WapEnabledKey = "write.wap.enabled"

  /** Iceberg's session setting of write-audit-publish by staged commits, which lancepart does not take. */
  val WapIdKey = "spark.wap.id"

  /** The read and write option naming the branch to read or write (as Iceberg's). */
  val BranchOption = "branch"

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

  /** Branch `name` of `table` at its latest version, which reads and writes it (`<table>.branch_<name>`;
   * `main`: the table itself, which write-audit-publish does not redirect). */
  def load(table: Table, name: String): PartitionedTable = {
    val t = partitioned(table, "branch")
    if (name == TableTags.Main) t.namedMain(s"${t.name()}.branch_$name")
    else {
      DatasetBranches.get(t.store.lance, t.store.uri, t.name(), name)
      t.onBranch(name)
    }
  }

  /**
   * Publishes branch `from` of `table` to `to` (main only): main then reads what the branch reads,
   * when main's partition tables are still those the branch was made from or last published (as
   * Iceberg's fast_forward needs main to be an ancestor of the branch); table metadata main
   * changed meanwhile stays. Returns main's version before and after.
   */
  def fastForward(table: Table, to: String, from: String): (Long, Long) = {
    val t = partitioned(table, "branch")
    if (to != TableTags.Main) throw new UnsupportedOperationException(
      s"table ${t.name()}: fast_forward publishes a branch to ${TableTags.Main} only, not to '$to'")
    val branch = DatasetBranches.get(t.store.lance, t.store.uri, t.name(), from)
    val (_, since) = branch.published.getOrElse(throw new UnsupportedOperationException(
      s"table ${t.name()}: branch '$from' was not made by lancepart (it records no version of main it holds the " +
        "rows of), so it cannot be published"))
    val published =
      try t.store.fastForward(t.store.onBranch(from), since)
      catch {
        case e: ManifestConflict => throw new TransactionConflict(
            s"table ${t.name()}: ${TableTags.Main} changed while branch '$from' was being published; nothing was " +
              "changed, run fast_forward again",
            e)
      }
    val (before, after) = published.getOrElse(throw new IllegalArgumentException(
      s"table ${t.name()}: cannot fast-forward ${TableTags.Main} to branch '$from': ${TableTags.Main} is not an " +
        s"ancestor of it (a write changed ${TableTags.Main}'s partitions after the branch was made or last " +
        "published); nothing was changed"))
    DatasetBranches.published(t.store.lance, t.store.uri, from, after, branch.head)
    (before, after)
  }

  /** The write-audit-publish branch of `table` in this session: `spark.wap.branch` when the table
   * has `write.wap.enabled` = true. A `write` with `spark.wap.id` set instead is refused: it would
   * commit to the table, which Iceberg would stage. */
  def wapBranch(table: PartitionedTable, write: Boolean): Option[String] =
    if (!table.manifest.meta.tableProperties.get(WapEnabledKey).exists(_.equalsIgnoreCase("true"))) None
    else {
      val conf = SparkSession.active.conf
      val branch = conf.getOption(WapBranchKey).filter(_.nonEmpty)
      if (write && branch.isEmpty && conf.getOption(WapIdKey).exists(_.nonEmpty))
        throw new UnsupportedOperationException(
          s"table ${table.name()}: $WapIdKey (write-audit-publish by staged commits, published by cherry-picking) " +
            s"is not supported; set $WapBranchKey instead, or unset $WapIdKey")
      branch
    }

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
