// Expiry of old manifest versions (CALL <catalog>.system.expire_snapshots): removes the manifest
// versions committed before a time, keeping the newest `retainLast` and those tags name (after
// removing the tags and branches whose RETAIN has passed), and then what only they used (every
// version of every branch is kept, with what it reads):
// partition tables no kept version refers to, and inside the others the files of table versions
// only expired manifest versions pinned (and the `table_version` records of those versions).
// Files that a kept version, a main-branch version or a write still running (its files belong to
// no version yet) uses are never touched. A partition table no kept version pins (weak mode)
// keeps its own history, cleaned by Lance's cleanup, unless a streaming micro-batch recorded as
// begun appends to it (a replay reads its versions since: manifest.StreamMarks).
package lancepart.maintenance

import lancepart.lance.{DatasetBranches, DatasetTags, Lance, LanceAccess, LeafFiles}
import lancepart.manifest.{ManifestQuery, ManifestStore, StreamMarks, TableFiles}
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.lance.cleanup.CleanupPolicy

import scala.collection.compat._

/** What an expiry removed: manifest versions, partition table directories, and files (data,
 * deletion and version manifest files) of the partition tables kept. */
case class ExpireResult(expiredVersions: Int, deletedPartitionTables: Int, deletedFiles: Long)

object ExpireSnapshots {

  /** Expires the manifest versions of `store` committed before `olderThanMicros`, except the newest `retainLast`. */
  def run(store: ManifestStore, files: TableFiles, olderThanMicros: Long, retainLast: Int): ExpireResult = {
    requireRetainLast(store.table, retainLast)
    // Loaded before the versions are listed: every version that pins a record it holds is listed.
    val latest = store.load()
    val versions = store.committed()
    val selected =
      select(store.lance, store.uri, store.table, versions.map(v => v.version -> v.at), olderThanMicros, retainLast)
    val expired = selected.expired
    if (expired.isEmpty) ExpireResult(0, 0, 0)
    else {
      val kept = versions.map(_.version).filterNot(expired.toSet)
      val before = store.leafReferences(expired)
      // every version of every branch is kept, with what it reads
      val keptReferences = store.keptLeafReferences(versions.map(_.version), kept)
      // Records of partition table versions no kept manifest version pins name versions about to go.
      val stale = store.rows(latest, ManifestQuery.versionRecords).filterNot(r =>
        r.readVersion.exists(v => keptReferences.get(r.location.get).exists(_(v))))
      store.deleteRows(stale.map(_.objectId))
      store.lance.withDataset(store.uri)(_.cleanupWithPolicy(selected.cleanup))
      // A version the cleanup kept after all (tagged meanwhile) keeps what it reads too.
      val rescued = store.versions().filter(expired.toSet)
      val after = (keptReferences.toSeq ++ store.leafReferences(rescued).toSeq).groupMapReduce(_._1)(_._2)(_ ++ _)
      val gone = before.keySet -- after.keySet
      gone.foreach(files.deleteLeafDirectory)
      // Read at the newest version: `latest` is expired when a commit landed before the listing.
      val begun = StreamMarks.begunLocations(store.rows(store.load(), ManifestQuery.specNamespaces))
      val deleted = Lance.parallel(after.toSeq) { case (location, pinned) =>
        val uri = store.leafUri(location)
        if (begun(location)) 0L
        else if (pinned.isEmpty) {
          val cutoff = DateTimeUtils.microsToMillis(olderThanMicros)
          val stats = store.lance.withDataset(uri)(_.cleanupWithPolicy(
            CleanupPolicy.builder().withBeforeTimestampMillis(cutoff).withErrorIfTaggedOldVersions(false).build()))
          stats.getDataFilesRemoved + stats.getDeletionFilesRemoved
        } else {
          val main = LeafFiles.mainVersions(store.lance, uri)
          val expiredOnly = before.getOrElse(location, Set.empty) -- pinned -- main
          val unused = LeafFiles.used(store.lance, uri, expiredOnly, main) --
            LeafFiles.used(store.lance, uri, main ++ pinned, main)
          unused.foreach(files.deleteFile(location, _))
          unused.size.toLong
        }
      }.sum
      ExpireResult(expired.size - rescued.size, gone.size, deleted)
    }
  }

  /** Refuses a `retainLast` under 1: the latest version always stays. */
  def requireRetainLast(table: String, retainLast: Int): Unit = if (retainLast < 1)
    throw new IllegalArgumentException(
      s"table $table: expire_snapshots retain_last must be at least 1, not $retainLast")

  /** The versions an expiry removes, and the Lance cleanup that removes them. */
  final case class Selection(expired: Seq[Long], cleanup: CleanupPolicy)

  /** What an expiry removes of the dataset at `uri` (of table `table`; `__manifest` or a plain
   * table's): its `versions` (oldest first, with when each was committed) committed before
   * `olderThanMicros` but the newest `retainLast` and those tags name (after [[expireTags]]). */
  def select(
      lance: LanceAccess,
      uri: String,
      table: String,
      versions: Seq[(Long, java.time.Instant)],
      olderThanMicros: Long,
      retainLast: Int): Selection = {
    val tagged = expireTags(lance, uri, table, versions.toMap)
    expireBranches(lance, uri, table)
    val old = versions.dropRight(retainLast).takeWhile(v => DateTimeUtils.instantToMicros(v._2) < olderThanMicros)
    // Lance's cleanup keeps the tagged versions before the first version kept untagged
    val cleanup = CleanupPolicy.builder().withBeforeVersion(versions(old.size)._1).withErrorIfTaggedOldVersions(false)
    Selection(old.map(_._1).filterNot(tagged), cleanup.build())
  }

  /** Drops the branches of the dataset at `uri` (of table `table`) whose retention (RETAIN) has
   * passed since their latest commit, as Iceberg's expiry removes such references. */
  private def expireBranches(lance: LanceAccess, uri: String, table: String): Unit =
    DatasetBranches.aged(DatasetBranches.list(lance, uri), System.currentTimeMillis())
      .foreach(b => DatasetBranches.drop(lance, uri, table, b.name, ifExists = true))

  /** Removes the tags of the dataset at `uri` (of table `table`) whose retention (RETAIN) has passed
   * since their version was committed (`committed`), as Iceberg's expiry removes such references;
   * returns the versions the other tags name. */
  private def expireTags(
      lance: LanceAccess,
      uri: String,
      table: String,
      committed: Map[Long, java.time.Instant]): Set[Long] = {
    val tags = DatasetTags.onMain(lance, uri)
    val aged = DatasetTags.aged(tags, v => committed.get(v).map(_.toEpochMilli), System.currentTimeMillis())
    aged.foreach(t => DatasetTags.drop(lance, uri, table, t.name, ifExists = true))
    tags.filterNot(aged.contains).map(_.version).toSet
  }
}
