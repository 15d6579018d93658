// Files of one table directory: the leaf directories next to __manifest, the files inside them,
// and moving or removing what a transaction or vacuum owns.
package lancepart.manifest

import lancepart.lance.LeafFiles
import lancepart.storage.Directories

/** A file of a leaf: its path relative to the leaf and its modification time (epoch ms). */
case class LeafFile(relative: String, modified: Long)

class TableFiles(tableUri: String, directories: Directories) {

  /** Leaf directories, relative to the table root: every directory except `__manifest`. */
  def leafDirectories(): Seq[String] = directories.childDirectories(tableUri).filter(_ != ManifestStore.DirName)

  /** Files under `dir` of leaf `location` (e.g. "data"), relative to the leaf. */
  def files(location: String, dir: String): Seq[LeafFile] =
    directories.files(s"$tableUri/$location/$dir").map(f => LeafFile(s"$dir/${f.name}", f.modified))

  /** Moves `relative` (a path inside a leaf) from leaf `from` to leaf `to`. */
  def move(from: String, to: String, relative: String): Unit =
    directories.move(s"$tableUri/$from/$relative", s"$tableUri/$to/$relative")

  def deleteLeafDirectory(location: String): Unit = directories.delete(s"$tableUri/$location")

  def deleteFile(location: String, relative: String): Unit = directories.deleteFile(s"$tableUri/$location/$relative")

  /** The latest version on the main branch of leaf `location`, from the names of its version
   * manifests (one listing, no manifest read); None when it has none. */
  def latestVersion(location: String): Option[Long] =
    LeafFiles.latestMainVersion(directories.names(s"$tableUri/$location/_versions"))

  /** True when leaf `location` holds a Lance dataset (its `_versions`). */
  def hasDataset(location: String): Boolean = directories.exists(s"$tableUri/$location/_versions")

  /** True when leaf `location` holds only a Lance namespace's reservation (`.lance-reserved`, no
   * `_versions`): a table another client declared (`declare_table`) and never created. */
  def isDeclaredOnly(location: String): Boolean =
    !hasDataset(location) &&
      directories.files(s"$tableUri/$location").exists(_.name == TableFiles.ReservationFile)

  /** `rows` without the partition tables another client declared and never created: they read as
   * empty. Only a row with neither a read_version nor a version lancepart wrote can be one, so
   * only those cost a look at their location. */
  def withData(rows: Seq[ManifestRow]): Seq[ManifestRow] =
    rows.filterNot(r => r.readVersion.isEmpty && r.writtenVersion.isEmpty && r.location.exists(isDeclaredOnly))

  /** The newest modification time (epoch ms) of anything in leaf `location`: a directory a
   * writer is still filling counts as new. */
  def lastModified(location: String): Long = directories.lastModified(s"$tableUri/$location")
}

object TableFiles {

  /** The marker Lance's DirectoryNamespace leaves in the location of a declared table. */
  val ReservationFile = ".lance-reserved"
}
