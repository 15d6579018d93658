// Directory operations on Azure Blob Storage, through the Blob service's REST API (AzureBlobs).
// A directory is the name prefix `<path>/`; creating one writes an empty marker blob `<path>` with
// metadata hdi_isfolder=true, the convention of Hadoop's Azure connectors and of accounts with a
// hierarchical namespace, whose directories the service lists so. Blob storage has no rename:
// directories are copied.
package lancepart.storage

class AzureDirectories(blobs: AzureBlobs) extends Directories {
  import AzureDirectories._

  override def exists(uri: String): Boolean = {
    val (container, key) = split(uri)
    val listing = blobs.list(container, prefix(key), delimited = false, max = Some(1))
    listing.blobs.nonEmpty || (key.nonEmpty && isFolder(container, key))
  }

  override def childDirectories(uri: String): Seq[String] = {
    val (container, key) = split(uri)
    val listing = blobs.list(container, prefix(key), delimited = true)
    (listing.prefixes.map(_.stripSuffix("/")) ++ listing.blobs.filter(_.folder).map(_.name))
      .map(_.stripPrefix(prefix(key))).distinct.sorted
  }

  override def files(uri: String): Seq[StoredFile] = {
    val (container, key) = split(uri)
    blobs.list(container, prefix(key), delimited = true).blobs.filterNot(_.folder)
      .map(b => StoredFile(b.name.stripPrefix(prefix(key)), b.modified))
  }

  override def lastModified(uri: String): Long = {
    val (container, key) = split(uri)
    blobs.list(container, prefix(key), delimited = false).blobs.map(_.modified).reduceOption(_ max _)
      .getOrElse(throw new IllegalArgumentException(s"$uri does not exist"))
  }

  override def mkdirs(uri: String): Unit = {
    val (container, key) = split(uri)
    if (key.nonEmpty && !exists(uri)) blobs.putEmpty(container, key, Map(FolderMetadata -> "true"))
  }

  /** Removes the files first, many at a time, then the directory markers deepest first (an
   * account with a hierarchical namespace refuses to delete a directory that is not empty). */
  override def delete(uri: String): Boolean = {
    val (container, key) = split(uri)
    val (folders, files) = blobs.list(container, prefix(key), delimited = false).blobs.partition(_.folder)
    blobs.deleteAll(container, files.map(_.name))
    val markers = folders.map(_.name) ++ (if (key.nonEmpty && isFolder(container, key)) Seq(key) else Nil)
    markers.sorted.reverse.foreach(blobs.delete(container, _))
    files.nonEmpty || markers.nonEmpty
  }

  override def deleteFile(uri: String): Unit = {
    val (container, key) = split(uri)
    blobs.delete(container, key)
  }

  override def move(from: String, to: String): Unit = {
    val (fromContainer, fromKey) = split(from)
    val (toContainer, toKey) = split(to)
    requireSameContainer(fromContainer, toContainer, from, to)
    blobs.copy(fromContainer, fromKey, toKey)
    blobs.delete(fromContainer, fromKey)
  }

  override def transferDirectory(from: String, to: String): Boolean = {
    if (exists(to)) throw new IllegalStateException(s"could not copy $from to $to: $to already exists")
    val (fromContainer, fromKey) = split(from)
    val (toContainer, toKey) = split(to)
    requireSameContainer(fromContainer, toContainer, from, to)
    val (source, target) = (prefix(fromKey), prefix(toKey))
    blobs.list(fromContainer, source, delimited = false).blobs.filterNot(_.folder)
      .foreach(b => blobs.copy(fromContainer, b.name, target + b.name.stripPrefix(source)))
    false
  }

  private def isFolder(container: String, key: String): Boolean =
    blobs.properties(container, key).exists(p =>
      p.get(s"x-ms-meta-$FolderMetadata").exists(_.equalsIgnoreCase("true")) ||
        p.get("x-ms-resource-type").contains("directory"))

  private def requireSameContainer(a: String, b: String, from: String, to: String): Unit =
    if (a != b) throw new IllegalArgumentException(s"could not move $from to $to: they are in different containers")
}

object AzureDirectories {
  private val FolderMetadata = "hdi_isfolder"
  private val Schemes = Seq("az://", "azure://", "abfs://", "abfss://", "adl://")

  def handles(uri: String): Boolean = Schemes.exists(uri.startsWith)

  /** The account a URI names (`abfs[s]://<container>@<account>.dfs.core.windows.net/...`), if any. */
  def account(uri: String): Option[String] = {
    val authority = authorityOf(uri)
    authority.indexOf('@') match {
      case -1 => None
      case at =>
        val host = authority.drop(at + 1)
        Seq(".dfs.core.windows.net", ".blob.core.windows.net").find(host.endsWith) match {
          case Some(suffix) => Some(host.stripSuffix(suffix))
          case None => throw new IllegalArgumentException(
              s"$uri: expected <container>@<account>.dfs.core.windows.net or <account>.blob.core.windows.net")
        }
    }
  }

  /** (container, key) of an Azure URI; the key has no trailing '/'. */
  def split(uri: String): (String, String) = {
    val authority = authorityOf(uri)
    val container = authority.takeWhile(_ != '@')
    if (container.isEmpty) throw new IllegalArgumentException(s"$uri names no container")
    val rest = uri.drop(uri.indexOf("://") + 3 + authority.length)
    (container, rest.stripPrefix("/").stripSuffix("/"))
  }

  /** The directory operations for `root`, an Azure URI, with Lance storage options `storage`. */
  def forRoot(root: String, storage: Map[String, String]): AzureDirectories =
    new AzureDirectories(AzureBlobs.fromOptions(account(root), storage))

  private def authorityOf(uri: String): String = {
    require(handles(uri), s"not an Azure URI (${Schemes.mkString(", ")}): $uri")
    uri.drop(uri.indexOf("://") + 3).takeWhile(_ != '/')
  }

  private def prefix(key: String): String = if (key.isEmpty) "" else s"$key/"
}
