// Branches of both kinds of lancepart table (ALTER TABLE ... CREATE / REPLACE / DROP BRANCH,
// `<table>.branch_<b>`, VERSION AS OF '<branch>', CALL ... fast_forward; write-audit-publish with
// `spark.wap.branch` on partitioned tables): Lance branches of a partitioned table's `__manifest`,
// made from a strong-mode manifest version, or of a plain table's dataset. A write to a partitioned
// table's branch commits its partition tables detached, as every strong-mode write does, and its
// rows to the branch of `__manifest`, so main reads nothing of it until a fast-forward commits the
// branch's partition tables to main (docs/format.md "Branches").
package lancepart.spark

import lancepart.lance.{DatasetBranch, DatasetBranches, DatasetTags, Lance, LanceAccess}
import lancepart.manifest.ManifestConflict
import lancepart.spark.plain.PlainTable
import lancepart.txn.TransactionConflict
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.Table
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import scala.util.control.NonFatal

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
    val (lance, uri) = dataset(table)
    if (name == TableTags.Main) throw new IllegalArgumentException(
      s"table ${table.name()}: cannot create branch '${TableTags.Main}': it is the table's own latest version")
    // as Iceberg's, a table's tags and branches share one set of names
    if (TableTags.list(table).exists(_.name == name)) throw new IllegalArgumentException(
      s"table ${table.name()}: cannot create branch '$name': the table has a tag of that name")
    val from = TableTags.refVersion(table, version, "branch")
    DatasetBranches.create(lance, uri, table.name(), name, from, maxAgeMillis, existing)
  }

  /** Removes branch `name` of `table` and its versions; a missing one fails unless `ifExists`. */
  def drop(table: Table, name: String, ifExists: Boolean): Unit = {
    val (lance, uri) = dataset(table)
    if (name == TableTags.Main) throw new IllegalArgumentException(
      s"table ${table.name()}: cannot drop branch '${TableTags.Main}': it is the table itself")
    DatasetBranches.drop(lance, uri, table.name(), name, ifExists)
  }

  /** The branches of `table` (none for a metadata table), by name. */
  def list(table: Table): Seq[DatasetBranch] = table match {
    case t: PartitionedTable => DatasetBranches.list(t.store.lance, t.store.uri)
    case t: PlainTable => DatasetBranches.list(t.lance, t.uri)
    case _ => Seq.empty
  }

  /** Whether `table` has branch `name`. */
  def exists(table: Table, name: String): Boolean = table match {
    case t: PartitionedTable => DatasetBranches.names(t.store.lance, t.store.uri).contains(name)
    case t: PlainTable => DatasetBranches.names(t.lance, t.uri).contains(name)
    case _ => false
  }

  /** Branch `name` of `table` at its latest version, which reads and writes it (`<table>.branch_<name>`;
   * `main`: the table itself, which write-audit-publish does not redirect), or that version read
   * only (`pinned`: VERSION AS OF '<name>'). */
  def load(table: Table, name: String, pinned: Boolean = false): Table = {
    requireMain(table, "run branch statements on")
    table match {
      case t: PartitionedTable => t.branchNamed(name, pinned)
      case t: PlainTable => t.branchNamed(name, pinned)
      case t => throw new UnsupportedOperationException(s"${t.name()} is a metadata table: it has no branches")
    }
  }

  /**
   * Publishes branch `from` of `table` to `to` (main only): main then reads what the branch reads,
   * when main is still what the branch was made from or last published (as Iceberg's fast_forward
   * needs main to be an ancestor of the branch): a partitioned table's partition tables (table
   * metadata main changed meanwhile stays), a plain table's version. Returns main's version before
   * and after.
   */
  def fastForward(table: Table, to: String, from: String): (Long, Long) = {
    val (lance, uri) = dataset(table)
    if (to != TableTags.Main) throw new UnsupportedOperationException(
      s"table ${table.name()}: fast_forward publishes a branch to ${TableTags.Main} only, not to '$to'")
    val branch = DatasetBranches.get(lance, uri, table.name(), from)
    val (_, since) = branch.published.getOrElse(throw new UnsupportedOperationException(
      s"table ${table.name()}: branch '$from' was not made by lancepart (it records no version of main it holds " +
        "the rows of), so it cannot be published"))
    val (published, changed) = table match {
      case t: PartitionedTable =>
        val published =
          try t.store.fastForward(t.store.onBranch(from), since)
          catch {
            case e: ManifestConflict => throw new TransactionConflict(
                s"table ${t.name()}: ${TableTags.Main} changed while branch '$from' was being published; nothing " +
                  "was changed, run fast_forward again",
                e)
          }
        (
          published,
          s"a write, or a column rename that rewrote partition tables, changed ${TableTags.Main}'s partitions")
      case t: PlainTable =>
        val published =
          try DatasetBranches.fastForward(lance, uri, branch, t.fileVersion)
          catch {
            // the rows it wrote are in no version: Lance's cleanup (expire_snapshots) removes them
            case NonFatal(e) if Lance.isConflict(e) =>
              throw new TransactionConflict(
                s"table ${t.name()}: a write to ${TableTags.Main} changed its data while branch '$from' was being " +
                  "published; nothing was changed, run fast_forward again",
                e
              )
          }
        (published, s"a write changed ${TableTags.Main}'s data")
    }
    val (before, after) = published.getOrElse(throw new IllegalArgumentException(
      s"table ${table.name()}: cannot fast-forward ${TableTags.Main} to branch '$from': ${TableTags.Main} is not an " +
        s"ancestor of it ($changed after the branch was made or last published); nothing was changed"))
    // a plain table's commit rebased over an append to main holds more than the branch: not recorded,
    // so that a later fast-forward does not replace that append
    if (table.isInstanceOf[PartitionedTable] || after <= before + 1)
      DatasetBranches.published(lance, uri, from, after, branch.head)
    (before, after)
  }

  /** The table the read or write option `branch` (Iceberg's) names, when it is given to `table`,
   * which reads `branch` (None: main, `named` when the statement named main) and was `pinned` by
   * time travel: `table` itself, or `branchNamed` of the branch; refused when it names another. */
  def optionBranch[T <: Table](
      table: T,
      branch: Option[String],
      named: Boolean,
      pinned: Boolean,
      options: CaseInsensitiveStringMap)(branchNamed: String => T): Option[T] =
    Option(options.get(BranchOption)).map { b =>
      val current = branch.orElse(if (named) Some(TableTags.Main) else None)
      if (current.exists(_ != b) || pinned) throw new IllegalArgumentException(
        s"table ${table.name()}: option $BranchOption = '$b' names another version than the table's name or its " +
          "time travel")
      if (current.contains(b)) table else branchNamed(b)
    }

  /** Refuses `what` on `table` when it is a branch (`<table>.branch_<b>`), which takes reads and
   * writes only: table DDL, tags, branches, metadata tables, procedures and streams work on the
   * table itself. */
  def requireMain(table: Table, what: String): Unit = {
    val branch = table match {
      case t: PartitionedTable => t.branch
      case t: PlainTable => t.branch
      case _ => None
    }
    branch.foreach { b =>
      throw new UnsupportedOperationException(
        s"table ${table.name()} is branch '$b' of a table: cannot $what a branch (it takes reads and writes); " +
          s"$what the table itself")
    }
  }

  /**
   * Under write-audit-publish (`spark.wap.branch` set in this session, table property
   * `write.wap.enabled` = true among `properties`), the branch of `table` that reads and writes go
   * to, as Iceberg's: reads once it exists, writes (`write`) making it from the latest version
   * first. `onBranch` loads a branch. Refused when the branch's `layout` (columns, partitioning) is
   * no longer the table's (a branch keeps those it was made with), and for a write with
   * `spark.wap.id` set instead, which Iceberg would stage and lancepart would commit.
   */
  def wap[T <: Table](table: T, properties: Map[String, String], write: Boolean)(
      onBranch: String => T,
      layout: T => Any): Option[T] =
    if (!properties.get(WapEnabledKey).exists(_.equalsIgnoreCase("true"))) None
    else {
      val conf = SparkSession.active.conf
      val name = conf.getOption(WapBranchKey).filter(_.nonEmpty)
      if (write && name.isEmpty && conf.getOption(WapIdKey).exists(_.nonEmpty))
        throw new UnsupportedOperationException(
          s"table ${table.name()}: $WapIdKey (write-audit-publish by staged commits, published by cherry-picking) " +
            s"is not supported; set $WapBranchKey instead, or unset $WapIdKey")
      name.flatMap { b =>
        val made = exists(table, b)
        if (!made && write) create(table, b, None, None, DatasetTags.Keep)
        if (!made && !write) None
        else {
          val branch = onBranch(b)
          if (layout(branch) != layout(table)) throw new IllegalArgumentException(
            s"table ${table.name()}: its write-audit-publish branch '$b' ($WapBranchKey) has other columns or " +
              "partitioning than the table (a branch keeps those it was made with): read and write " +
              s"${table.name()}.branch_$b by name, make the branch anew (ALTER TABLE ${table.name()} CREATE OR " +
              s"REPLACE BRANCH `$b`), or RESET $WapBranchKey")
          Some(branch)
        }
      }
    }

  /** The Lance dataset whose branches are `table`'s. */
  private def dataset(table: Table): (LanceAccess, String) =
    TableTags.dataset(table, "run branch statements on", "branches")
}
