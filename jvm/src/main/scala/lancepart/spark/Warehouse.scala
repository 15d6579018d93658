// Where catalog objects live: Spark namespaces are directories under the root, tables are
// directories holding a partitioned __manifest. The root is a local path or a URI (s3://...).
package lancepart.spark

import lancepart.lance.LanceAccess
import lancepart.manifest.{ManifestStore, TableFiles}
import lancepart.spec.TableMetadata
import lancepart.storage.Directories
import org.apache.spark.sql.connector.catalog.Identifier

import scala.util.control.NonFatal

class Warehouse(val root: String, val lance: LanceAccess, directories: Directories) {

  /** URI of the directory for namespace `parts` (validated: nothing in it can leave the root). */
  def uri(parts: Seq[String]): String = {
    parts.foreach(Warehouse.checkName(_, parts))
    (root +: parts).mkString("/")
  }

  def tableUri(ident: Identifier): String = uri(ident.namespace().toSeq :+ ident.name())

  /** The manifest of table `ident`; `displayName` names the table in errors. */
  def store(ident: Identifier, displayName: String): ManifestStore =
    new ManifestStore(tableUri(ident), displayName, lance)

  /** The files of the table at `tableUri`. */
  def files(tableUri: String): TableFiles = new TableFiles(tableUri, directories)

  def exists(uri: String): Boolean = directories.exists(uri)

  /** True when `uri` holds a __manifest whose metadata declares a partition spec. */
  def isTable(uri: String): Boolean =
    exists(s"$uri/${ManifestStore.DirName}") && {
      try TableMetadata.isPartitioned(new ManifestStore(uri, uri, lance).properties())
      catch { case NonFatal(_) => false }
    }

  /** Names of child directories that can be catalog objects (no hidden or reserved names). */
  def children(uri: String): Seq[String] =
    directories.childDirectories(uri).filterNot(n => n.startsWith(".") || n.startsWith("_"))

  /** Creates directory `uri`; fails, naming it, when it does not exist afterwards. */
  def mkdirs(uri: String): Unit = {
    try directories.mkdirs(uri)
    catch {
      case NonFatal(e) => throw new IllegalStateException(s"could not create directory $uri: ${e.getMessage}", e)
    }
    if (!directories.exists(uri)) throw new IllegalStateException(
      s"could not create directory $uri (is the catalog root a writable directory?)")
  }

  def delete(uri: String): Boolean = directories.delete(uri)

  /** Puts directory `from` at `to`; true when it moved, false when it was copied ([[Directories.transferDirectory]]). */
  def transferDirectory(from: String, to: String): Boolean = directories.transferDirectory(from, to)
}

object Warehouse {

  /** A local root becomes an absolute path, so that executors resolve it as the driver does. */
  def normalizeRoot(root: String): String = {
    val trimmed = root.stripSuffix("/")
    if (trimmed.contains("://") || trimmed.startsWith("file:")) trimmed
    else java.nio.file.Paths.get(trimmed).toAbsolutePath.normalize().toString
  }

  def checkName(part: String, all: Seq[String]): Unit = {
    val where = all.mkString(".")
    val problem =
      if (part.isEmpty) Some("is empty")
      else if (part == "." || part == "..") Some("would leave the catalog root")
      else if (part.exists(c => c == '/' || c == '\\')) Some("contains a path separator")
      else if (part.startsWith("_") || part.startsWith(".")) Some("starts with '_' or '.', which are reserved")
      else if (part.exists(Character.isISOControl)) Some("contains a control character")
      else None
    problem.foreach(p => throw new IllegalArgumentException(s"invalid name '$part' in '$where': it $p"))
  }
}
