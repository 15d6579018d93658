// The __manifest commits between two offsets of a streaming read, taken as Iceberg's snapshot
// operations: an append, a delete (partitions removed or rows deleted, none added) or an
// overwrite (partitions replaced, rows changed, or rows removed and added in one commit). A
// stream reads appends; the others fail it unless its options skip them, and a skipped commit's
// rows are read nowhere: neither those it appended to a partition table nor a partition table it
// created.
package lancepart.spark.read

import lancepart.lance.VersionChange
import lancepart.manifest.ManifestRow

/**
 * One `__manifest` version, `version`, as a streaming read follows it: the partition tables it
 * `removed` and `replaced` (their rows as last listed), the locations of those it listed first
 * (`created`; not a table a write copied a partition's rows into), and the version that each
 * partition table it committed to reached (`reached`, by location: the read_version its row
 * names, or in weak mode the version lancepart's write left; a table of another weak-mode writer
 * names none).
 */
case class FollowedCommit(
    version: Long,
    removed: Seq[ManifestRow],
    replaced: Seq[ManifestRow],
    created: Set[String],
    reached: Map[String, Long])

/** The versions of the partition table of `row` between a micro-batch's two positions of it. */
case class TableChanges(row: ManifestRow, changes: Seq[VersionChange])

/** A commit that is no append: its `__manifest` version (None: a partition table version none
 * names); `deletes` when it only removed rows; `what` it did, as messages say it; the partition
 * table versions it made (location, version), and the version each table it created had then (by
 * location): the rows a stream that skips it does not read. */
case class ChangingCommit(
    version: Option[Long],
    deletes: Boolean,
    what: String,
    versions: Set[(String, Long)],
    created: Map[String, Long])

object StreamCommits {

  /**
   * The commits among `commits` that removed, deleted or changed rows, and each version of
   * `tables` (the changes a micro-batch reads) that did so and that no commit names (another
   * weak-mode writer's). `passed` are versions the commits name that a micro-batch read or
   * passed before (a weak-mode read takes a partition table's commits before `__manifest` names
   * them): they tell what a commit is, but a commit that only they make up has nothing left to
   * read or skip and is left out.
   */
  def changing(commits: Seq[FollowedCommit], tables: Seq[TableChanges], passed: Seq[TableChanges])
      : Seq[ChangingCommit] = {
    val committedBy = (for (c <- commits; (location, v) <- c.reached) yield (location, v) -> c.version).toMap
    def attributed(tables: Seq[TableChanges]) =
      tables.flatMap(t => t.changes.map(c => (t.row, c, committedBy.get((t.row.location.get, c.version)))))
    val (changes, before) = (attributed(tables), attributed(passed))
    val named = commits.flatMap { c =>
      val own = changes.collect { case (row, change, Some(c.version)) => (row, change) }
      val all = own ++ before.collect { case (row, change, Some(c.version)) => (row, change) }
      val deleted = all.collect { case (row, d: VersionChange.Deleted) => (row, d.operation) }
      val rewrote = all.collect { case (row, r: VersionChange.Rewrote) => (row, r.operation) }
      val added = c.created.nonEmpty || own.exists {
        case (_, a: VersionChange.Appended) => a.fragments.nonEmpty
        case _ => false
      } || before.exists {
        case (_, _: VersionChange.Appended, Some(c.version)) => true
        case _ => false
      }
      val removes = c.removed.nonEmpty || deleted.nonEmpty
      val left = c.created.nonEmpty || c.removed.nonEmpty || c.replaced.nonEmpty || own.nonEmpty
      if (!left || (!removes && c.replaced.isEmpty && rewrote.isEmpty)) None
      else {
        val what =
          c.replaced.map(r => s"${describe(r)} was replaced") ++ c.removed.map(r => s"${describe(r)} was removed") ++
            deleted.map { case (row, op) => s"${describe(row)} had rows deleted (Lance $op)" } ++
            rewrote.map { case (row, op) => s"${describe(row)} had rows changed (Lance $op)" }
        val deletes = c.replaced.isEmpty && rewrote.isEmpty && !added
        val also = if (removes && added && c.replaced.isEmpty && rewrote.isEmpty) ", and rows were added" else ""
        Some(ChangingCommit(
          Some(c.version),
          deletes,
          s"${what.mkString(", ")}$also at manifest version ${c.version}",
          c.reached.toSet,
          c.reached.filter { case (location, _) =>
            c.created(location)
          }
        ))
      }
    }
    def foreign(row: ManifestRow, change: VersionChange, deletes: Boolean, did: String) = ChangingCommit(
      None,
      deletes,
      s"${describe(row)}: a commit to its partition table that no __manifest version names " +
        s"(its version ${java.lang.Long.toUnsignedString(change.version)}) $did",
      Set(row.location.get -> change.version),
      Map.empty
    )
    val unnamed = changes.collect {
      case (row, d: VersionChange.Deleted, None) =>
        foreign(row, d, deletes = true, s"deleted rows (Lance ${d.operation})")
      case (row, r: VersionChange.Rewrote, None) =>
        foreign(row, r, deletes = false, s"changed rows (Lance ${r.operation})")
    }
    named ++ unnamed
  }

  /** The partition of `row` by its values, as messages show it. */
  def describe(row: ManifestRow): String = s"partition (${ManifestRow.shownValues(row.values)})"
}
