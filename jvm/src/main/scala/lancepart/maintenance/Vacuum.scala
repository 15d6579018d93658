// Removes what failed writers left behind (spec: Transaction; nothing committed depends on it):
// leaf directories no manifest version refers to, and inside referenced leaves the data files,
// deletion files and detached version manifests that no kept leaf version refers to. Kept are
// every main-branch version and every version any manifest version (of main or of a branch)
// pins (read_version of its `table` rows), so a reader at any retained manifest version loses nothing.
package lancepart.maintenance

import lancepart.lance.{Lance, LanceAccess, LeafFiles}
import lancepart.manifest.{LeafFile, ManifestStore, TableFiles}

/** What a vacuum removed: leaf directories (relative to the table) and files (relative to the table). */
case class VacuumResult(directories: Seq[String], files: Seq[String])

object Vacuum {

  /** The shortest `older_than` a vacuum takes without being told no write runs: a write whose
   * files it removed would commit a version without them, and the table would not read. */
  val MinimumRetentionMillis: Long = 60 * 60 * 1000L

  /** Refuses a `cutoffMillis` (epoch ms) less than [[MinimumRetentionMillis]] before now unless
   * `retentionCheck` is off. */
  def checkRetention(table: String, cutoffMillis: Long, retentionCheck: Boolean): Unit =
    if (retentionCheck && System.currentTimeMillis() - cutoffMillis < MinimumRetentionMillis) {
      throw new IllegalArgumentException(
        s"table $table: vacuum with older_than ${java.time.Instant.ofEpochMilli(cutoffMillis)}, less than 1 hour " +
          "ago, would remove the files of writes still running (any that started after it), and such a write " +
          "would commit a table version without them, which no reader could read; use an older_than at least 1 " +
          "hour ago, or stop every writer of the table and turn retention_check off")
    }

  /** Removes unreferenced leaf directories and files last modified before `cutoffMillis`
   * (epoch ms): younger ones may belong to a write still running. Referenced leaves are
   * examined on [[Lance.Threads]] threads; `progress` counts leaf directories. */
  def run(
      store: ManifestStore,
      files: TableFiles,
      cutoffMillis: Long,
      progress: Progress): VacuumResult = {
    val listed = store.versions()
    val pinned = store.keptLeafReferences(listed, listed)
    val (referenced, unreferenced) = files.leafDirectories().partition(pinned.contains)
    progress.start(referenced.size + unreferenced.size)
    val directories = unreferenced.filter { location =>
      val old = files.lastModified(location) < cutoffMillis
      if (old) files.deleteLeafDirectory(location)
      progress.advance()
      old
    }
    val removed = Lance.parallel(referenced) { location =>
      val old = orphans(
        store.lance,
        store.leafUri(location),
        location,
        pinned(location),
        files).filter(_.modified < cutoffMillis)
      old.foreach(file => files.deleteFile(location, file.relative))
      progress.advance()
      old.map(file => s"$location/${file.relative}")
    }.flatten
    VacuumResult(directories, removed)
  }

  /** Files of the leaf at `location` that neither a main-branch version nor one of `pinned` uses. */
  private def orphans(
      lance: LanceAccess,
      uri: String,
      location: String,
      pinned: Set[Long],
      files: TableFiles): Seq[LeafFile] = {
    val main = LeafFiles.mainVersions(lance, uri)
    val used = LeafFiles.used(lance, uri, main ++ pinned, main)
    val detachedManifests = files.files(location, "_versions").filter(f => f.relative.startsWith("_versions/d"))
    (files.files(location, "data") ++ files.files(location, "_deletions") ++ detachedManifests).filterNot(f =>
      used(f.relative))
  }
}
