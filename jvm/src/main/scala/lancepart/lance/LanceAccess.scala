// The one way lancepart reaches Lance datasets: every open, write and commit passes the catalog's
// storage options (object-store endpoint, credentials). Serializable, so tasks get it with their work.
package lancepart.lance

import org.apache.arrow.c.ArrowArrayStream
import org.apache.arrow.vector.VectorSchemaRoot
import org.apache.arrow.vector.types.pojo.Schema
import org.lance.{CommitBuilder, Dataset, Fragment, FragmentMetadata, ReadOptions, Ref, Transaction, WriteParams}

import scala.jdk.CollectionConverters._

/** `storageOptions` are Lance's object-store options (catalog options `storage.*`). */
final case class LanceAccess(storageOptions: Map[String, String]) {

  /** The dataset at `uri` at `version` (None: the latest version) of its main branch, or of branch
   * `branch`; the caller closes it. */
  def open(uri: String, version: Option[Long] = None, branch: Option[String] = None): Dataset = {
    Lance.loadNative()
    val options = new ReadOptions.Builder().setStorageOptions(storageOptions.asJava)
    if (branch.isEmpty) version.foreach(v => options.setVersion(v))
    val main = Dataset.open().allocator(Lance.allocator).uri(uri).readOptions(options.build())
      .session(Lance.session).build()
    branch.fold(main) { b =>
      val ref = version.fold(Ref.ofBranch(b))(v => Ref.ofBranch(b, v))
      Lance.using(main)(_.checkout(ref))
    }
  }

  /** `f` of the dataset at `uri` and `version` (of branch `branch`, else of main), closed afterwards. */
  def withDataset[B](uri: String, version: Option[Long] = None, branch: Option[String] = None)(f: Dataset => B): B =
    Lance.using(open(uri, version, branch))(f)

  /** Creates an empty dataset at `uri` with `schema` in Lance file format `fileVersion` (None:
   * lance-core's default); fails when one exists. */
  def create(uri: String, schema: Schema, fileVersion: Option[String]): Unit = {
    val builder = Dataset.write().allocator(Lance.allocator).schema(schema).uri(uri)
      .mode(WriteParams.WriteMode.CREATE).storageOptions(storageOptions.asJava)
    fileVersion.foreach(builder.dataStorageVersion)
    builder.execute().close()
  }

  /** Writes `data` as new fragments of the dataset at `uri` (which need not exist yet) in Lance
   * file format `fileVersion`: a dataset's data files must all have its version. Committing them
   * is the caller's. */
  def writeFragments(uri: String, data: VectorSchemaRoot, fileVersion: String): Seq[FragmentMetadata] = {
    Lance.loadNative()
    Fragment.write().datasetUri(uri).allocator(Lance.allocator).data(data).storageOptions(storageOptions.asJava)
      .dataStorageVersion(fileVersion).execute().asScala.toSeq
  }

  /** Writes the rows of `stream` as new fragments of the dataset at `uri` in Lance file format
   * `fileVersion`, as [[writeFragments]] does a batch's. */
  def writeFragments(uri: String, stream: ArrowArrayStream, fileVersion: String): Seq[FragmentMetadata] = {
    Lance.loadNative()
    Fragment.write().datasetUri(uri).allocator(Lance.allocator).data(stream).storageOptions(storageOptions.asJava)
      .dataStorageVersion(fileVersion).execute().asScala.toSeq
  }

  /** Commits `txn` to the dataset at `uri` without opening it (creating it when `txn` is an
   * Overwrite at read version 0), or to its branch `branch` on top of the transaction's read
   * version of that branch; returns the version committed. */
  def commit(uri: String, txn: Transaction, branch: Option[String] = None): LeafStats = branch match {
    case None =>
      Lance.using(new CommitBuilder(uri, Lance.allocator).writeParams(storageOptions.asJava).skipAutoCleanup(true)
        .execute(txn))(LeafStats.of)
    case Some(_) =>
      withDataset(uri, Some(txn.readVersion()), branch)(ds =>
        Lance.using(new CommitBuilder(ds).skipAutoCleanup(true).execute(txn))(LeafStats.of))
  }

  /** Names the options, not their values: these can be credentials. */
  override def toString: String = s"LanceAccess(storage options: ${storageOptions.keys.toSeq.sorted.mkString(", ")})"
}
