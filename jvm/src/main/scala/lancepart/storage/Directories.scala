// Directory operations under a catalog root (list, create, move, delete) for what Lance's own I/O
// does not cover: namespaces, leaf directories and the files vacuum and commit relocation handle.
// s3:// URIs go to S3 through the AWS SDK and Azure URIs (az://, abfss://, ...) to the Blob
// service's REST API, both configured from the catalog's Lance storage options; every other URI
// goes through Hadoop's FileSystem.
package lancepart.storage

import lancepart.lance.LanceAccess

import org.apache.hadoop.conf.Configuration

/** A file directly inside a listed directory: its name and modification time (epoch ms). */
case class StoredFile(name: String, modified: Long)

trait Directories {

  /** True when `uri` is a directory (on S3: when any object lies under it). */
  def exists(uri: String): Boolean

  /** Names of the directories directly inside `uri`, sorted; empty when `uri` does not exist. */
  def childDirectories(uri: String): Seq[String]

  /** Files directly inside `uri`; empty when `uri` does not exist. */
  def files(uri: String): Seq[StoredFile]

  /** Names of the files directly inside `uri`, without their metadata (on local disk one directory
   * read, no file status each, so subdirectories are named too); empty when `uri` does not exist. */
  def names(uri: String): Seq[String] = files(uri).map(_.name)

  /** The newest modification time (epoch ms) of anything under `uri`. */
  def lastModified(uri: String): Long

  def mkdirs(uri: String): Unit

  /** Removes `uri` and everything under it; false when there was nothing to remove. */
  def delete(uri: String): Boolean

  def deleteFile(uri: String): Unit

  /** Moves the file `from` to `to`, creating `to`'s parent directories as needed. */
  def move(from: String, to: String): Unit

  /** Puts directory `from`, with everything under it, at `to` (which must not exist): true when it
   * moved (one rename, where the store has them: local disk, HDFS), false when it was copied (S3,
   * which has no rename: every object `from` held when listed; `from` stays, for the caller to
   * delete once nothing needs it). */
  def transferDirectory(from: String, to: String): Boolean
}

object Directories {

  /** The directory operations for URIs like `root`. */
  def forRoot(root: String, lance: LanceAccess, hadoopConf: Configuration): Directories =
    if (S3Directories.handles(root)) new S3Directories(S3Directories.client(lance))
    else if (AzureDirectories.handles(root)) AzureDirectories.forRoot(root, lance.storageOptions)
    else new HadoopDirectories(hadoopConf)
}
