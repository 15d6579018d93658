// A streaming read of a partitioned table (Structured Streaming, micro-batches): offsets are
// __manifest versions (in weak mode with each partition table's main-branch version, since its
// writers commit there before __manifest names the commit), and a micro-batch reads the rows
// appended between two offsets: the partition tables that appeared, whole, and of the others the
// fragments each Append added, each at the version that added it. Commits that deleted or changed
// rows fail the query, or are skipped when the query's options say so (Iceberg's names). With read
// limits (StreamLimits) an offset stops short of the latest one: at the versions of the partition
// tables that the oldest commits not read yet reach; Trigger.AvailableNow reads up to the offset
// that was the latest when the query started.
package lancepart.spark.read

import lancepart.lance.{Lance, LeafHistory, VersionChange}
import lancepart.manifest.{Manifest, ManifestQuery, ManifestRow}
import lancepart.spark.PartitionedTable
import lancepart.spec.{Json, TransactionMode}
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming.{MicroBatchStream, Offset, ReadLimit, SupportsTriggerAvailableNow}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import scala.annotation.tailrec
import scala.collection.mutable
import scala.jdk.CollectionConverters._
import scala.util.Try

/** `table` as the query loaded it; `readers` reads its partition tables in the query's columns. */
class PartitionedMicroBatchStream(
    table: PartitionedTable,
    readers: PartitionReaderFactory,
    options: CaseInsensitiveStringMap)
    extends MicroBatchStream
    with SupportsTriggerAvailableNow {
  import PartitionedMicroBatchStream._

  private val weak = table.manifest.meta.mode == TransactionMode.Weak
  private def flag(name: String): Boolean = Option(options.get(name)).fold(false)(v =>
    Try(v.trim.toBoolean).getOrElse(throw new IllegalArgumentException(
      s"table ${table.name()}: read option $name must be true or false, not '$v'")))
  private val skipOverwrites = flag(SkipOverwrites)
  private val skipDeletes = flag(SkipDeletes)
  private val fromMillis = Option(options.get(FromTimestamp)).map(v =>
    Try(v.trim.toLong).getOrElse(throw new IllegalArgumentException(
      s"table ${table.name()}: read option $FromTimestamp must be milliseconds since the epoch, not '$v'")))
  private val limits = StreamLimits.fromOptions(table.name(), options.get)
  // Trigger.AvailableNow: the latest offset when the query started, which it reads up to
  private var availableNow: Option[ManifestOffset] = None

  /** Before the table's first rows (the first micro-batch reads the table whole), or with
   * `stream-from-timestamp` the newest manifest version committed before that time (in weak mode
   * with each partition table's newest version committed before then). */
  override def initialOffset(): Offset = fromMillis.fold(ManifestOffset(0)) { millis =>
    val version =
      table.store.committed().filter(_.at.toEpochMilli < millis).map(_.version).reduceOption(_ max _).getOrElse(0L)
    if (version == 0 || !weak) ManifestOffset(version)
    else ManifestOffset(
      version,
      Lance.parallel(tables(table.store.loadAt(version))) { r =>
        table.store.lance.withDataset(table.store.leafUri(r))(_.listVersions().asScala.toList)
          .filter(
            _.getDataTime.toInstant.toEpochMilli < millis).map(_.getId).reduceOption(_ max _).map(r.location.get -> _)
      }.flatten.toMap
    )
  }

  override def getDefaultReadLimit: ReadLimit = limits.readLimit

  override def prepareForTriggerAvailableNow(): Unit = availableNow = Some(latest())

  override def latestOffset(): Offset = latest()

  /** The latest offset (with Trigger.AvailableNow, the one when the query started), or within
   * `limit` the offset the oldest commits after `start` that fit reach; the latest when a
   * partition table the stream read was removed or replaced since (followGone reads up to it). */
  override def latestOffset(start: Offset, limit: ReadLimit): Offset = {
    val end = availableNow.getOrElse(latest())
    val within = StreamLimits.of(limit)
    if (within.unlimited) end
    else {
      val from = ManifestOffset.of(start)
      val after = table.store.loadAt(end.version)
      val rows = tables(after)
      val until = positions(end, rows)
      val since =
        if (from.version == 0) Map.empty[String, Long] else positions(from, tables(table.store.loadAt(from.version)))
      if (!since.keySet.subsetOf(until.keySet)) end
      else {
        val pending = Lance.parallel(rows) { r =>
          val location = r.location.get
          until.get(location).toSeq.flatMap(to => pendingCommits(r, since.get(location), to))
        }
        val reached = within.admit(pending.filter(_.nonEmpty))
        if (pending.flatten.forall(c => reached.get(c.location).contains(until(c.location)))) end
        else ManifestOffset(end.version, since ++ reached)
      }
    }
  }

  /** The commits to the partition table of `row` after version `from` (None: it was not read,
   * one commit of it whole) up to version `to`. */
  private def pendingCommits(row: ManifestRow, from: Option[Long], to: Long): Seq[PendingCommit] = {
    val (location, uri) = (row.location.get, table.store.leafUri(row))
    from match {
      case Some(version) if version == to => Seq.empty
      case Some(version) =>
        LeafHistory.changes(table.store.lance, uri, version, to).map {
          case VersionChange.Appended(v, at, _, added) => PendingCommit(location, v, at, added)
          case other => PendingCommit(location, other.version, other.at, 0)
        }
      case None =>
        table.store.lance.withDataset(uri, Some(to))(ds =>
          Seq(PendingCommit(location, to, ds.getVersion.getDataTime.toInstant, ds.countRows())))
    }
  }

  /** The latest manifest version; in weak mode with the latest main-branch version of each
   * partition table it lists (one listing of its `_versions` each), which writers commit to
   * before `__manifest` names them. */
  private def latest(): ManifestOffset = {
    val latest = table.store.load()
    if (!weak) ManifestOffset(latest.version)
    else ManifestOffset(
      latest.version,
      Lance.parallel(tables(latest)) { r =>
        val location = r.location.get
        location -> table.files.latestVersion(location).getOrElse(throw new IllegalStateException(
          s"table ${table.name()}: partition table $location has no version"))
      }.toMap
    )
  }

  override def deserializeOffset(json: String): Offset = ManifestOffset.parse(json)

  override def createReaderFactory(): PartitionReaderFactory = readers

  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] = {
    val (from, to) = (ManifestOffset.of(start), ManifestOffset.of(end))
    val after = table.store.loadAt(to.version)
    requireSameSchema(after)
    val rows = tables(after)
    val until = positions(to, rows)
    val (earlier, since) =
      if (from.version == 0) (Seq.empty, Map.empty[String, Long])
      else {
        val earlier = tables(table.store.loadAt(from.version))
        (earlier, positions(from, earlier))
      }
    val (left, bases) = followGone(after, from.version, earlier, since, to.version, rows.flatMap(_.location).toSet)
    val read = left ++ rows.flatMap { r =>
      val location = r.location.get
      until.get(location).toSeq.flatMap { end =>
        bases.get(location) match {
          case Some(base) => appended(after, r, base, end)
          case None => Seq(leaf(after, r, end, None))
        }
      }
    }
    read.map(l => PackedSplit(Seq(l))).toArray
  }

  /**
   * Where the stream reads each partition table from (by location), and what it reads of those
   * no longer listed at manifest version `to` (`current`: the locations listed there). `since`
   * holds the tables read up to a version, listed at manifest version `from` (`earlier`). The
   * manifest versions from `from` on are walked up to the one that no longer lists each table
   * read: its rows appended after the stream's position, up to its last version, are read. Then
   * either the partition is listed at another table in that version (an overwrite or a
   * copy-on-write command, which replaced it): the new table is read from the version that version
   * lists, without the rows it was created with; or not (a DELETE of the whole partition).
   */
  private def followGone(
      after: Manifest,
      from: Long,
      earlier: Seq[ManifestRow],
      since: Map[String, Long],
      to: Long,
      current: Set[String]): (Seq[LeafPartition], Map[String, Long]) = {
    val bases = mutable.Map(since.toSeq: _*)
    val left = mutable.ArrayBuffer.empty[LeafPartition]
    @tailrec def walk(version: Long, before: Seq[ManifestRow]): Unit =
      if (version <= to && bases.keySet.exists(l => !current(l))) {
        val now = tables(table.store.loadAt(version))
        val listed = now.flatMap(_.location).toSet
        for (old <- before; location <- old.location if bases.contains(location) && !listed(location)) {
          // weak-mode writers commit to the partition table's main branch; strong-mode ones pin each version
          val last = old.readVersion.getOrElse(table.files.latestVersion(location).getOrElse(bases(location)))
          left ++= appended(after, old, bases(location), last)
          bases -= location
          now.find(_.objectId == old.objectId) match {
            case Some(replacement) =>
              changed(
                deletes = false,
                s"${describe(old)} was replaced at manifest version $version (an overwrite, or a copy-on-write " +
                  "DELETE, UPDATE or MERGE INTO)")
              bases(replacement.location.get) =
                replacement.readVersion.orElse(replacement.writtenVersion).getOrElse(FirstVersion)
            case None => changed(deletes = true, s"${describe(old)} was removed at manifest version $version")
          }
        }
        walk(version + 1, now)
      }
    walk(from + 1, earlier)
    (left.toSeq, bases.toMap)
  }

  /** The version of each partition table (by location) that `offset` read up to: the one the
   * offset recorded (in weak mode, and in strong mode when read limits stopped it short of the
   * manifest version), or its `rows`' read_version. A partition table without one was not read. */
  private def positions(offset: ManifestOffset, rows: Seq[ManifestRow]): Map[String, Long] =
    if (weak || offset.leaves.nonEmpty) offset.leaves
    else rows.map(r =>
      r.location.get -> r.readVersion.getOrElse(throw new IllegalStateException(
        s"table ${table.name()}: partition table ${r.location.get} has no read_version: another client wrote it as " +
          "a weak-mode table, which a streaming read of a strong-mode table cannot follow"))).toMap

  /** The fragments appended to the partition table of `row` from version `from` to `to`. */
  private def appended(manifest: Manifest, row: ManifestRow, from: Long, to: Long): Seq[LeafPartition] =
    if (from == to) Seq.empty
    else LeafHistory.changes(table.store.lance, table.store.leafUri(row), from, to).flatMap {
      case VersionChange.Appended(version, _, fragments, _) if fragments.nonEmpty =>
        Seq(leaf(manifest, row, version, Some(fragments)))
      case VersionChange.Deleted(version, _, operation) =>
        changed(
          deletes = true,
          s"${describe(row)}: its partition table's version ${java.lang.Long.toUnsignedString(version)} deleted rows " +
            s"(Lance $operation)")
        Seq.empty
      case VersionChange.Rewrote(version, _, operation) =>
        changed(
          deletes = false,
          s"${describe(row)}: its partition table's version ${java.lang.Long.toUnsignedString(version)} changed rows " +
            s"(Lance $operation)")
        Seq.empty
      case _ => Seq.empty
    }

  /** A commit that deleted (`deletes`) or changed rows: refused unless the query skips such commits. */
  private def changed(deletes: Boolean, what: String): Unit = {
    val option = if (deletes) SkipDeletes else SkipOverwrites
    if (!(if (deletes) skipDeletes else skipOverwrites)) throw new IllegalStateException(
      s"table ${table.name()}: a streaming read takes appended rows only, and $what; to skip such commits, set " +
        s"read option $option=true")
  }

  /** The partition of `row` by its values (field ids), and its partition table. */
  private def describe(row: ManifestRow): String = s"partition (${ManifestRow.shownValues(row.values)})"

  private def tables(manifest: Manifest): Seq[ManifestRow] =
    table.files.withData(table.store.rows(manifest, ManifestQuery.tables(manifest.meta))).filter(_.location.isDefined)

  /** The partition table of `row` at `version`, or only its `fragments` (ids) there. */
  private def leaf(manifest: Manifest, row: ManifestRow, version: Long, fragments: Option[Seq[Int]]): LeafPartition = {
    val spec = row.specVersion.flatMap(v => manifest.meta.specs.find(_.id == v))
    LeafPartition(
      table.store.leafUri(row),
      Some(version),
      spec.fold(Map.empty[String, Any])(_.identityValues(row.values)),
      row.objectId,
      fragments)
  }

  private def requireSameSchema(after: Manifest): Unit =
    if (after.meta.schema != table.manifest.meta.schema) throw new IllegalStateException(
      s"table ${table.name()}: its schema changed at or before manifest version ${after.version}, after the streaming " +
        "query loaded it; restart the query (it goes on from its checkpoint, in the new columns)")

  override def commit(end: Offset): Unit = ()

  override def stop(): Unit = ()
}

object PartitionedMicroBatchStream {
  // the version a partition table is created at, by the write that made it (a weak-mode row pins none)
  private val FirstVersion = 1L
  val SkipOverwrites = "streaming-skip-overwrite-snapshots"
  val SkipDeletes = "streaming-skip-delete-snapshots"
  val FromTimestamp = "stream-from-timestamp"
}

/** A streaming read's position: every row of `__manifest` version `version` was read (0: none);
 * of a weak-mode table, or when read limits stopped it short, of each partition table (by
 * location) up to its version in `leaves`, and none of the others. */
case class ManifestOffset(version: Long, leaves: Map[String, Long] = Map.empty) extends Offset {
  override def json(): String = {
    val node = Json.obj().put("manifest_version", version)
    if (leaves.nonEmpty) {
      val versions = node.putObject("leaves")
      leaves.toSeq.sorted.foreach { case (location, v) => versions.put(location, v) }
    }
    Json.write(node)
  }
}

object ManifestOffset {
  def parse(json: String): ManifestOffset = {
    val node = Json.parse(json, "a lancepart streaming offset")
    val version = Option(node.get("manifest_version")).filter(_.canConvertToLong).map(_.asLong).getOrElse(
      throw new IllegalArgumentException(s"'$json' is not a lancepart streaming offset: it has no manifest_version"))
    ManifestOffset(version, Json.stringMap(node.get("leaves")).map { case (location, v) => location -> v.toLong })
  }

  /** `offset` as a ManifestOffset (Spark passes back what the stream gave, or what it parsed). */
  def of(offset: Offset): ManifestOffset = offset match {
    case o: ManifestOffset => o
    case other => parse(other.json())
  }
}
