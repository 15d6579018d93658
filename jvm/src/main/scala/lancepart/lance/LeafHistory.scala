// What happened to one partition table between two of its versions, as a streaming read takes it:
// the fragments each Append added, and the commits that deleted or changed rows, found from the
// Lance transaction each version records.
package lancepart.lance

import java.time.Instant

import scala.annotation.tailrec
import scala.jdk.CollectionConverters._

/** One version's commit on a partition table, committed at `at`. */
sealed trait VersionChange {
  def version: Long
  def at: Instant
}

object VersionChange {

  /** Version `version` appended the fragments `fragments` (ids), holding `rows` rows. */
  case class Appended(version: Long, at: Instant, fragments: Seq[Int], rows: Long) extends VersionChange

  /** Version `version` changed no row (a compaction, an index, a setting, a column added). */
  case class Kept(version: Long, at: Instant, operation: String) extends VersionChange

  /** Version `version` deleted rows and added none. */
  case class Deleted(version: Long, at: Instant, operation: String) extends VersionChange

  /** Version `version` replaced or changed rows (an update, an overwrite, a restore). */
  case class Rewrote(version: Long, at: Instant, operation: String) extends VersionChange
}

object LeafHistory {
  private val RowsKept =
    Set("Rewrite", "CreateIndex", "UpdateConfig", "UpdateMap", "Project", "ReserveFragments", "Merge")

  /** Whether `version` is a detached one (Lance sets the top bit of their numbers). */
  def isDetached(version: Long): Boolean = version < 0

  /**
   * The commits from version `from` (excluded) to version `to` of the leaf at `uri`, oldest
   * first. The walk goes back from `to`: from a detached version to the version its commit read
   * (strong mode chains detached commits), from a main-branch version to the one before. Refused
   * when it does not reach `from`, or a version on the way is gone (a cleanup) or records no
   * transaction. Without `listAdded`, an Append's fragments are not listed (one open less each).
   */
  def changes(lance: LanceAccess, uri: String, from: Long, to: Long, listAdded: Boolean = true): Seq[VersionChange] = {
    def fail(problem: String): Nothing = throw new IllegalStateException(
      s"partition table $uri: cannot follow its versions from ${java.lang.Long.toUnsignedString(from)} to " +
        s"${java.lang.Long.toUnsignedString(to)}: $problem")
    @tailrec def walk(version: Long, later: List[VersionChange]): List[VersionChange] =
      if (version == from) later
      else {
        if (!isDetached(version) && (version <= 0 || (!isDetached(from) && version < from)))
          fail(s"the versions before ${java.lang.Long.toUnsignedString(version)} on the way do not lead there")
        val (change, previous) =
          try commitOf(lance, uri, version, listAdded)
          catch { case e: RuntimeException => fail(e.getMessage) }
        walk(previous, change :: later)
      }
    walk(to, Nil)
  }

  /** The commit that made version `version` of the leaf at `uri`, without the fragments an Append
   * added; refused, naming the leaf, when the version is gone (a cleanup) or records no transaction. */
  def change(lance: LanceAccess, uri: String, version: Long): VersionChange =
    try commitOf(lance, uri, version, listAdded = false)._1
    catch {
      case e: RuntimeException => throw new IllegalStateException(
          s"partition table $uri: cannot tell what its version ${java.lang.Long.toUnsignedString(version)} did: " +
            e.getMessage,
          e
        )
    }

  /** The commit that made `version` of the leaf at `uri` (with the fragments an Append added when
   * `listAdded`: the version before is opened too), and the version it was made on (for a
   * detached version, the one its transaction read; else the one before). */
  private def commitOf(lance: LanceAccess, uri: String, version: Long, listAdded: Boolean): (VersionChange, Long) = {
    def fragments(ds: org.lance.Dataset) = ds.getFragments.asScala.map(_.metadata()).toList
    // the version's commit, time and fragments, from one open
    val (operation, read, at, present) = lance.withDataset(uri, Some(version)) { ds =>
      val txn = ds.readTransaction().orElseThrow(() =>
        new IllegalStateException(s"version ${java.lang.Long.toUnsignedString(version)} records no transaction"))
      try { (txn.operation().name(), txn.readVersion(), ds.getVersion.getDataTime.toInstant, fragments(ds)) }
      finally txn.close()
    }
    val previous = if (isDetached(version)) read else version - 1
    val change = operation match {
      case "Append" if !listAdded => VersionChange.Appended(version, at, Seq.empty, 0)
      case "Append" =>
        val before = lance.withDataset(uri, Some(previous))(fragments).map(_.getId).toSet
        val added = present.filterNot(f => before(f.getId))
        VersionChange.Appended(version, at, added.map(_.getId), added.map(_.getPhysicalRows).sum)
      case "Delete" => VersionChange.Deleted(version, at, operation)
      case kept if RowsKept(kept) => VersionChange.Kept(version, at, operation)
      case other => VersionChange.Rewrote(version, at, other)
    }
    (change, previous)
  }
}
