// Files of one table directory, through Hadoop's FileSystem: the leaf directories next to
// __manifest, the files inside them, and moving or removing what a transaction or vacuum owns.
package lancepart.manifest

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}

/** A file of a leaf: its path relative to the leaf and its modification time (epoch ms). */
case class LeafFile(relative: String, modified: Long)

class TableFiles(tableUri: String, hadoopConf: Configuration) {
  private lazy val fs: FileSystem = new Path(tableUri).getFileSystem(hadoopConf)

  /** Leaf directories, relative to the table root: every directory except `__manifest`. */
  def leafDirectories(): Seq[String] = {
    val root = new Path(tableUri)
    if (!fs.exists(root)) Seq.empty
    else fs.listStatus(root).toSeq.filter(s => s.isDirectory && s.getPath.getName != ManifestStore.DirName)
      .map(_.getPath.getName).sorted
  }

  /** Files under `dir` of leaf `location` (e.g. "data"), relative to the leaf. */
  def files(location: String, dir: String): Seq[LeafFile] = {
    val path = new Path(s"$tableUri/$location/$dir")
    if (!fs.exists(path)) Seq.empty
    else fs.listStatus(path).toSeq.filter(_.isFile).map(s => LeafFile(s"$dir/${s.getPath.getName}", s.getModificationTime))
  }

  /** Moves `relative` (a path inside a leaf) from leaf `from` to leaf `to`. */
  def move(from: String, to: String, relative: String): Unit = {
    val target = new Path(s"$tableUri/$to/$relative")
    fs.mkdirs(target.getParent)
    if (!fs.rename(new Path(s"$tableUri/$from/$relative"), target)) {
      throw new IllegalStateException(s"could not move $relative from $tableUri/$from to $tableUri/$to")
    }
  }

  def deleteLeafDirectory(location: String): Unit = fs.delete(new Path(s"$tableUri/$location"), true)

  def deleteFile(location: String, relative: String): Unit = fs.delete(new Path(s"$tableUri/$location/$relative"), false)

  /** The newest modification time (epoch ms) of anything in leaf `location`: a directory a
   * writer is still filling counts as new. */
  def lastModified(location: String): Long = {
    val path = new Path(s"$tableUri/$location")
    val it = fs.listFiles(path, true)
    var latest = fs.getFileStatus(path).getModificationTime
    while (it.hasNext) latest = math.max(latest, it.next().getModificationTime)
    latest
  }
}
