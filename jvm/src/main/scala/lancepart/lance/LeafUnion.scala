// One scanner for many small partition tables: a temporary local dataset whose base paths are
// their directories and whose fragments are theirs, so Lance plans and opens one scan for all of
// them instead of one per table (docs/benchmarks.md, "One scan for many partition tables").
package lancepart.lance

import org.apache.arrow.vector.types.pojo.{Field, Schema}
import org.lance.{BasePath, CommitBuilder, Dataset, FragmentMetadata, ReadOptions, Transaction, WriteParams}
import org.lance.fragment.DataFile
import org.lance.operation.Append

import java.nio.file.{Files, Path}
import java.time.Instant
import java.util.Optional
import scala.collection.mutable
import scala.jdk.CollectionConverters._

/** What a union of partition tables needs to agree on: the top-level Arrow fields with their
 * Lance field ids (so every data file names the fields the union has) and the file format. */
final case class UnionSchema(fields: Seq[Field], fileVersion: String)

/** A partition table's part of a union: its directory and the fragments read of it. */
final case class UnionMember(uri: String, fragments: Seq[FragmentMetadata])

/** A union dataset and the local directory that holds its manifests, removed on close. */
final class LeafUnion private (val dataset: Dataset, directory: Path) extends AutoCloseable {
  override def close(): Unit =
    try dataset.close()
    finally LeafUnion.delete(directory)
}

object LeafUnion {

  /**
   * The schema a union of `ds` must have, and `ds`'s fragments (those of `fragmentIds`, else all),
   * or None when its fragments are left to a scan of their own: one with a deletion file (whose
   * name holds its fragment's id, which a union renumbers), a data file in another base path than
   * the dataset's own, files of several formats or older than Lance file format 2.0 (the union is
   * written in the files' format), a blob column (whose values may live in files beside the data
   * files), or no fragment at all.
   *
   * Kept per JVM for the partition-table versions (and fragments chosen) asked about last
   * ([[CachedMembers]]): a version's schema and fragments never change, and its commit time is
   * part of the key, so a table made anew at the same location, whose version numbers start over,
   * is asked again. Equal schemas are kept once.
   */
  def member(ds: Dataset, uri: String, fragmentIds: Option[Seq[Int]]): Option[(UnionSchema, UnionMember)] = {
    val version = ds.getVersion
    val key = MemberKey(uri, version.getId, version.getDataTime.toInstant, fragmentIds)
    Members.get(key).getOrElse {
      val found = described(ds, uri, fragmentIds)
      val kept = Schemas.synchronized {
        if (Schemas.size >= CachedSchemas) Schemas.clear()
        found.map { case (schema, m) => Schemas.getOrElseUpdate(schema, schema) -> m }
      }
      Members.put(key, kept)
      kept
    }
  }

  /** The most weight of [[member]] answers a JVM keeps: each weighs 1 and 1 more per fragment (a
   * fragment's metadata, some hundreds of bytes), beside the schemas they share. */
  val CachedMembers = 40000

  /** The most distinct schemas kept for sharing (more are kept again from the next [[member]]). */
  private val CachedSchemas = 1000

  private final case class MemberKey(uri: String, version: Long, committed: Instant, fragmentIds: Option[Seq[Int]])

  /** [[member]]'s answers. */
  private val Members = new VersionCache[MemberKey, Option[(UnionSchema, UnionMember)]](
    CachedMembers,
    (_, found) => 1L + found.fold(0)(_._2.fragments.size))

  /** The schemas of [[Members]]' answers, each kept once. */
  private val Schemas = mutable.HashMap.empty[UnionSchema, UnionSchema]

  private def described(ds: Dataset, uri: String, fragmentIds: Option[Seq[Int]]): Option[(UnionSchema, UnionMember)] = {
    val chosen = fragmentIds.map(_.toSet)
    val fragments = ds.getFragments.asScala.toSeq.map(_.metadata()).filter(f => chosen.forall(_(f.getId)))
    val files = fragments.flatMap(_.getFiles.asScala)
    val versions = files.map(f => (f.getFileMajorVersion, f.getFileMinorVersion)).distinct
    val plain = !fragments.exists(_.getDeletionFile != null) && !files.exists(_.getBaseId.isPresent)
    versions match {
      case Seq((major, minor)) if plain && major >= 2 =>
        val fields = LeafSchema.forAppend(ds)
        if (fields.exists(hasBlob)) None
        else Some(UnionSchema(fields, s"$major.$minor") -> UnionMember(uri, fragments))
      case _ => None
    }
  }

  /** Whether `f` or a field in it is a Lance blob column: marked `lance-encoding:blob` (blob v1) or of
   * a blob extension type (`lance.blob.v2`). */
  private def hasBlob(f: Field): Boolean =
    Option(f.getMetadata).exists(m =>
      m.containsKey("lance-encoding:blob") || Option(m.get("ARROW:extension:name")).exists(_.contains("blob"))) ||
      f.getChildren.asScala.exists(hasBlob)

  /**
   * A new union of `members` (at least one fragment among them) with `schema`, under a new
   * directory of the JVM's temporary directory: each member is base path i + 1 (its directory,
   * where its data files are), and its fragments are renumbered in member order. The caller reads
   * `dataset` and closes the union.
   */
  def create(schema: UnionSchema, members: Seq[UnionMember], lance: LanceAccess): LeafUnion = {
    val directory = Files.createTempDirectory(Prefix)
    try {
      val bases = members.zipWithIndex.map { case (m, i) => new BasePath(i + 1, Optional.empty(), m.uri, true) }
      var next = -1
      val fragments = members.zipWithIndex.flatMap { case (m, i) =>
        m.fragments.map { f =>
          next += 1
          val files = f.getFiles.asScala.map(d =>
            new DataFile(
              d.getPath,
              d.getFields,
              d.getColumnIndices,
              d.getFileMajorVersion,
              d.getFileMinorVersion,
              d.getFileSizeBytes,
              i + 1))
          new FragmentMetadata(next, files.asJava, f.getPhysicalRows, null, null)
        }
      }
      val stores = if (lance.storageOptions.isEmpty) Map.empty[String, java.util.Map[String, String]]
      else members.map(_.uri -> lance.storageOptions.asJava).toMap
      val empty = Dataset.write().allocator(Lance.allocator).schema(new Schema(schema.fields.asJava))
        .uri(directory.toUri.toString).mode(WriteParams.WriteMode.CREATE).dataStorageVersion(schema.fileVersion)
        .initialBases(bases.asJava).baseStoreParams(stores.asJava).session(Lance.session).execute()
      val committed = Lance.using(empty) { ds =>
        val taken = LeafSchema.forAppend(ds)
        if (taken != schema.fields) throw new IllegalStateException(
          s"a union of partition tables took other Lance field ids than theirs: $taken for ${schema.fields}")
        // no cleanup: the union's base paths are the partition tables' own directories
        Lance.using(new Transaction.Builder().readVersion(ds.version())
          .operation(Append.builder().fragments(fragments.asJava).build()).build())(
          new CommitBuilder(ds).skipAutoCleanup(true).execute)
      }
      // a dataset keeps the base paths' object-store options only from its open
      val dataset = if (stores.isEmpty) committed
      else Lance.using(committed)(c =>
        Dataset.open().allocator(
          Lance.allocator).uri(c.uri()).readOptions(new ReadOptions.Builder().setVersion(c.version()).build())
          .baseStoreParams(stores.asJava).session(Lance.session).build())
      new LeafUnion(dataset, directory)
    } catch {
      case e: Throwable =>
        try delete(directory)
        catch { case d: Throwable => e.addSuppressed(d) }
        throw e
    }
  }

  private val Prefix = "lancepart-union-"

  /** Whether this JVM can hold unions: its temporary directory (`java.io.tmpdir`) takes a new
   * directory. Asked once; where it cannot, partition tables are read one scan each. */
  lazy val usable: Boolean = scala.util.Try(Files.delete(Files.createTempDirectory(Prefix))).isSuccess

  private def delete(directory: Path): Unit =
    Lance.using(Files.walk(directory))(_.sorted(java.util.Comparator.reverseOrder()).forEach(p =>
      Files.deleteIfExists(p)))
}
