// Directory operations through Hadoop's FileSystem: local paths, file:// and any scheme whose
// Hadoop connector is on the class path.
package lancepart.storage

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, LocalFileSystem, Path}

class HadoopDirectories(hadoopConf: Configuration) extends Directories {
  override def exists(uri: String): Boolean = fs(uri).exists(new Path(uri))

  override def childDirectories(uri: String): Seq[String] =
    if (!exists(uri)) Seq.empty
    else fs(uri).listStatus(new Path(uri)).toSeq.filter(_.isDirectory).map(_.getPath.getName).sorted

  override def files(uri: String): Seq[StoredFile] =
    if (!exists(uri)) Seq.empty
    else fs(uri).listStatus(new Path(uri)).toSeq.filter(_.isFile)
      .map(s => StoredFile(s.getPath.getName, s.getModificationTime))

  override def names(uri: String): Seq[String] = fs(uri) match {
    case local: LocalFileSystem => Option(local.pathToFile(new Path(uri)).list()).fold(Seq.empty[String])(_.toSeq)
    case _ => super.names(uri)
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

  private def fs(uri: String): FileSystem = new Path(uri).getFileSystem(hadoopConf)
}
