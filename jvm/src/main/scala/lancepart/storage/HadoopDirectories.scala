// Directory operations through Hadoop's FileSystem: local paths, file:// and any scheme whose
// Hadoop connector is on the class path.
package lancepart.storage

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, LocalFileSystem, Path}

import java.util.concurrent.ConcurrentHashMap

class HadoopDirectories(hadoopConf: Configuration) extends Directories {
  override def exists(uri: String): Boolean = fs(uri).exists(new Path(uri))

  override def childDirectories(uri: String): Seq[String] =
    if (!exists(uri)) Seq.empty
    else fs(uri).listStatus(new Path(uri)).toSeq.filter(_.isDirectory).map(_.getPath.getName).sorted

  override def files(uri: String): Seq[StoredFile] =
    if (!exists(uri)) Seq.empty
    else fs(uri).listStatus(new Path(uri)).toSeq.filter(_.isFile)
      .map(s => StoredFile(s.getPath.getName, s.getModificationTime))

  override def names(uri: String): Seq[String] = {
    val path = new Path(uri)
    fs(path) match {
      case local: LocalFileSystem => Option(local.pathToFile(path).list()).fold(Seq.empty[String])(_.toSeq)
      case _ => super.names(uri)
    }
  }

  override def lastModified(uri: String): Long = {
    val path = new Path(uri)
    val it = fs(uri).listFiles(path, true)
    var latest = fs(uri).getFileStatus(path).getModificationTime
    while (it.hasNext) latest = math.max(latest, it.next().getModificationTime)
    latest
  }

  override def mkdirs(uri: String): Unit = fs(uri).mkdirs(new Path(uri))

  override def delete(uri: String): Boolean = fs(uri).delete(new Path(uri), true)

  override def deleteFile(uri: String): Unit = fs(uri).delete(new Path(uri), false)

  override def move(from: String, to: String): Unit = {
    val target = new Path(to)
    fs(to).mkdirs(target.getParent)
    if (!fs(from).rename(new Path(from), target)) throw new IllegalStateException(s"could not move $from to $to")
  }

  override def transferDirectory(from: String, to: String): Boolean = {
    if (exists(to)) throw new IllegalStateException(s"could not move $from to $to: $to already exists")
    move(from, to)
    true
  }

  /** The file system of each scheme and authority, looked up once: Hadoop's lookup (its cache
   * key takes the current user's credentials) cost more CPU than reading the names of a small
   * directory, which a COUNT(*) does for every partition table it counts. */
  private val fileSystems = new ConcurrentHashMap[(String, String), FileSystem]()

  private def fs(path: Path): FileSystem =
    fileSystems.computeIfAbsent((path.toUri.getScheme, path.toUri.getAuthority), _ => path.getFileSystem(hadoopConf))

  private def fs(uri: String): FileSystem = fs(new Path(uri))
}
