// Branches of one Lance dataset: Lance's own (`_refs/branches/<name>.json`, versions under
// `tree/<name>/`, read by pylance's `dataset.branches` and `checkout_version((name, None))`), with
// the retention Iceberg's branches carry (RETAIN n DAYS) and what a fast-forward of main needs in
// the branch's metadata. A partitioned table's branches are branches of its `__manifest`, a plain
// table's of its dataset (docs/format.md "Branches").
package lancepart.lance

import org.apache.arrow.c.{ArrowArrayStream, Data}
import org.apache.arrow.vector.types.pojo.Schema
import org.lance.{Branch, Dataset, Ref, Transaction}
import org.lance.ipc.ScanOptions
import org.lance.operation.Update

import scala.jdk.CollectionConverters._
import scala.util.Try
import scala.util.control.NonFatal

/** A branch made from main version `parentVersion`, whose latest version is `head`, committed at
 * `headAt`; `maxAgeMillis`: how long after that expire_snapshots keeps it (None: until dropped);
 * `published`: a version of main and this branch's version that read the same partition tables
 * (when the branch was made or last fast-forwarded), when lancepart made the branch. */
final case class DatasetBranch(
    name: String,
    parentVersion: Long,
    head: Long,
    headAt: java.time.Instant,
    maxAgeMillis: Option[Long],
    published: Option[(Long, Long)],
    parentBranch: Option[String])

object DatasetBranches {

  /** The branch metadata key of a version of main and the branch's version that read the same
   * partition tables: `<main version>:<branch version>`. */
  val PublishedKey = "lancepart.published"

  /** Where branch `branch` (None: main) of the dataset at `uri` keeps the files its commits add:
   * Lance's `tree/<name>/`. A fragment its commit adds is written there. */
  def filesUri(uri: String, branch: Option[String]): String = branch.fold(uri)(b => s"$uri/tree/$b")

  /** The dataset's branches, by name. */
  def list(lance: LanceAccess, uri: String): Seq[DatasetBranch] = lance.withDataset(uri) { ds =>
    ds.branches().list().asScala.toSeq.map { b =>
      val metadata = b.getMetadata.asScala
      val (head, headAt) = Lance.using(ds.checkout(Ref.ofBranch(b.getName)))(h =>
        (h.version(), h.getVersion.getDataTime.toInstant))
      DatasetBranch(
        b.getName,
        b.getParentVersion,
        head,
        headAt,
        metadata.get(DatasetTags.MaxAgeKey).map(_.toLong),
        metadata.get(PublishedKey).map(_.split(':') match { case Array(m, v) => (m.toLong, v.toLong) }),
        Option(b.getParentBranch.orElse(null))
      )
    }.sortBy(_.name)
  }

  /** The names of the dataset's branches (without opening each, as [[list]] does). */
  def names(lance: LanceAccess, uri: String): Seq[String] =
    lance.withDataset(uri)(_.branches().list().asScala.map(_.getName).toSeq)

  /** Lance's record of `ds`'s branch `name`, if there is one. */
  private def find(ds: Dataset, name: String): Option[Branch] = ds.branches().list().asScala.find(_.getName == name)

  /** What tells branch `name` from another made later under its name (REPLACE BRANCH): Lance's
   * identifier of it, versions and uuids; None when there is no such branch. */
  def identity(lance: LanceAccess, uri: String, name: String): Option[String] =
    lance.withDataset(uri)(find(_, name).map(
      _.getBranchIdentifier.asScala.map(m => s"${m.getVersion}:${m.getUuid}").mkString(",")))

  /** Branch `name`; `table` names the table in the error when there is none. */
  def get(lance: LanceAccess, uri: String, table: String, name: String): DatasetBranch =
    list(lance, uri).find(_.name == name).getOrElse(
      throw new IllegalArgumentException(s"table $table has no branch '$name'${known(lance, uri)}"))

  /**
   * Makes branch `name` from main version `version`, kept `maxAgeMillis` after its latest commit,
   * as `existing` says for a branch of that name: a replaced branch is made anew from `version`
   * (its own versions go, as an Iceberg branch's snapshots do when it is replaced) and keeps its
   * retention unless `maxAgeMillis` is given. `table` names the table in errors.
   */
  def create(
      lance: LanceAccess,
      uri: String,
      table: String,
      name: String,
      version: Long,
      maxAgeMillis: Option[Long],
      existing: DatasetTags.Existing): Unit = lance.withDataset(uri) { ds =>
    val current = find(ds, name)
    def refused(why: String) = new IllegalArgumentException(s"table $table: cannot create branch '$name': $why")
    val retention = maxAgeMillis.orElse(current.flatMap(b => Option(b.getMetadata.get(DatasetTags.MaxAgeKey)))
      .map(_.toLong))
    def make(): Unit = {
      val metadata = retention.map(ms => DatasetTags.MaxAgeKey -> ms.toString).toMap +
        (PublishedKey -> s"$version:$version")
      try Lance.using(ds.createBranch(name, Ref.ofMain(version)))(_ => ())
      catch { case e: Exception => throw refused(BatchSql.message(e)).initCause(e) }
      ds.branches().replaceMetadata(name, metadata.asJava)
    }
    (current, existing) match {
      case (Some(_), DatasetTags.Keep) =>
      case (None, DatasetTags.Keep) => // another client may make it first (two first writes of write-audit-publish)
        requireBranchName(table, name)
        try make()
        catch { case NonFatal(_) if names(lance, uri).contains(name) => }
      case (Some(b), DatasetTags.Fail) => throw refused(s"it exists (made from version ${b.getParentVersion}); use " +
          "CREATE OR REPLACE BRANCH to make it anew, or DROP BRANCH first")
      case (None, DatasetTags.MustExist) => throw new IllegalArgumentException(
          s"table $table: cannot replace branch '$name': there is no such branch${known(lance, uri)}")
      case (Some(_), _) =>
        ds.branches().delete(name)
        make()
      case (None, _) =>
        requireBranchName(table, name)
        make()
    }
  }

  /** Refuses a branch name Lance stores but cannot take back as one path part of `tree/<name>/`
   * (`/` nests the branch below another name's directory; `.` and `..` are no directory of their
   * own), besides names no tag takes. */
  private def requireBranchName(table: String, name: String): Unit = {
    DatasetTags.requireStorableName(table, "branch", name)
    if (name.contains('/') || name == "." || name == "..") throw new IllegalArgumentException(
      s"table $table: cannot create branch '$name': Lance keeps a branch in directory tree/<name>/, so a name " +
        "takes no '/' and is not '.' or '..'")
  }

  /** Removes branch `name` and its versions; a missing one fails unless `ifExists`. */
  def drop(lance: LanceAccess, uri: String, table: String, name: String, ifExists: Boolean): Unit =
    lance.withDataset(uri) { ds =>
      if (find(ds, name).isDefined) ds.branches().delete(name)
      else if (!ifExists) throw new IllegalArgumentException(
        s"table $table: cannot drop branch '$name': there is no such branch${known(lance, uri)}")
    }

  /**
   * Publishes `branch` of the dataset at `uri` (a plain table's) to main, when main's latest version
   * holds the fragments of the one the branch was made from or last published, as it does after
   * commits that changed no data (properties, a rollback to that version; else None: main is no
   * ancestor of it; when that version was expired, any commit since):
   * the branch's latest rows written into main anew in Lance file format `fileVersion` (a version of
   * main cannot refer to a branch's files), replacing every fragment of that version in one Update,
   * which fails when a commit since changed those fragments and lands on top of one that only
   * appended (Lance rebases it). Returns main's version before and after.
   */
  def fastForward(lance: LanceAccess, uri: String, branch: DatasetBranch, fileVersion: String): Option[(Long, Long)] =
    lance.withDataset(uri) { main =>
      val latest = main.version()
      def fragments(ds: Dataset) = ds.getFragments.asScala.map(_.metadata()).toSet
      def holds(version: Long) =
        version == latest || Try(lance.withDataset(uri, Some(version))(fragments)).toOption.contains(fragments(main))
      branch.published match {
        case Some((mainVersion, _)) if !holds(mainVersion) => None
        case Some((_, branchVersion)) if branchVersion == branch.head => Some((latest, latest))
        case _ =>
          // the head the branch was listed at, which is recorded as published
          val fragments = lance.withDataset(uri, Some(branch.head), Some(branch.name)) { source =>
            val schema = new Schema(LeafSchema.forAppend(source).asJava)
            Lance.using(source.newScan(new ScanOptions.Builder().build())) { scanner =>
              Lance.using(ArrowArrayStream.allocateNew(Lance.allocator)) { stream =>
                // the stream's release closes the reader
                val reader = new FieldIdReader(scanner.scanBatches(), schema, Lance.allocator)
                try Data.exportArrayStream(Lance.allocator, reader, stream)
                catch { case e: Throwable => reader.close(); throw e }
                lance.writeFragments(uri, stream, fileVersion)
              }
            }
          }
          val removed = main.getFragments.asScala.map(f => java.lang.Long.valueOf(f.getId.toLong))
          val update = Update.builder().removedFragmentIds(removed.asJava).newFragments(fragments.asJava).build()
          val committed =
            Lance.using(new Transaction.Builder().readVersion(latest).operation(update).build())(lance.commit(uri, _))
          Some((latest, committed.version))
      }
    }

  /** Records that main version `mainVersion` reads the partition tables of version `branchVersion` of branch `name`. */
  def published(lance: LanceAccess, uri: String, name: String, mainVersion: Long, branchVersion: Long): Unit =
    lance.withDataset(uri) { ds =>
      val metadata = find(ds, name).fold(Map.empty[String, String])(_.getMetadata.asScala.toMap)
      ds.branches().replaceMetadata(name, (metadata + (PublishedKey -> s"$mainVersion:$branchVersion")).asJava)
    }

  /** The branches whose retention has passed at `nowMillis` since their latest commit. */
  def aged(branches: Seq[DatasetBranch], nowMillis: Long): Seq[DatasetBranch] =
    branches.filter(b => b.maxAgeMillis.exists(age => nowMillis - b.headAt.toEpochMilli > age))

  private def known(lance: LanceAccess, uri: String): String = names(lance, uri).sorted match {
    case Nil => " (it has none)"
    case names => s" (its branches: ${names.mkString(", ")})"
  }
}
