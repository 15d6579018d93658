// A streaming read of a partitioned table (Structured Streaming, micro-batches): offsets are
// __manifest versions (with the main-branch version of each partition table listed without a
// read_version, as in weak mode, since its writers commit there before __manifest names the
// commit), and a micro-batch reads the rows appended between two offsets: the partition tables
// that appeared, whole, and of the others the fragments each Append added, each at the version
// that added it. The __manifest versions between two offsets are followed one by one, so that a
// partition table removed, replaced or copied on the way has its appended rows read too. Each is a
// commit (StreamCommits): one that deleted or changed rows fails the query, or is skipped whole
// when the query's options say so (Iceberg's names); a rollback fails it. With read limits
// (StreamLimits) an offset stops short of the latest one: at the versions of the partition tables
// that the oldest commits not read yet reach; Trigger.AvailableNow reads up to the offset that was
// the latest when the query started.
package lancepart.spark.read

import lancepart.lance.{Lance, LeafHistory, VersionChange}
import lancepart.manifest.{Manifest, ManifestQuery, ManifestRow}
import lancepart.spark.PartitionedTable
import lancepart.spec.{FormatException, Json}
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming.{MicroBatchStream, Offset, ReadLimit, SupportsTriggerAvailableNow}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

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
   * `stream-from-timestamp` the newest manifest version committed before that time (with each
   * partition table it lists without a read_version at its newest version committed before then). */
  override def initialOffset(): Offset = fromMillis.fold(ManifestOffset(0)) { millis =>
    val version =
      table.store.committed().filter(_.at.toEpochMilli < millis).map(_.version).reduceOption(_ max _).getOrElse(0L)
    if (version == 0) ManifestOffset(version)
    else offsetOf(table.store.loadAt(version)) { r =>
      table.store.lance.withDataset(table.store.leafUri(r))(_.listVersions().asScala.toList)
        .filter(_.getDataTime.toInstant.toEpochMilli < millis).map(_.getId).reduceOption(_ max _)
    }
  }

  override def getDefaultReadLimit: ReadLimit = limits.readLimit

  override def prepareForTriggerAvailableNow(): Unit = availableNow = Some(latest())

  override def latestOffset(): Offset = latest()

  /** The latest offset (with Trigger.AvailableNow, the one when the query started), or within
   * `limit` the offset the oldest commits after `start` that fit reach ([[limited]]). */
  override def latestOffset(start: Offset, limit: ReadLimit): Offset = {
    val end = availableNow.getOrElse(latest())
    val within = StreamLimits.of(limit)
    if (within.unlimited) end else limited(ManifestOffset.of(start), end, within)
  }

  /**
   * Within `within`, the offset between `start` and `end` that the oldest commits not read that
   * fit reach. A delete or an overwrite on the way makes a micro-batch of its own, which takes or
   * skips it whole: the micro-batches before it read up to the `__manifest` version before it,
   * within the limits. A partition table removed or replaced by another commit, or copied, or a
   * version no `__manifest` version names that deleted or changed rows, make the micro-batch read
   * up to `end`.
   */
  private def limited(start: ManifestOffset, end: ManifestOffset, within: StreamLimits): ManifestOffset = {
    val rows = tables(table.store.loadAt(end.version))
    val until = positions(end, rows)
    val followed = follows(start, end.version, rows)
    val reads = readsOf(followed, rows, until)
    val histories = historiesOf(reads)
    val changing = changingCommits(followed, reads, histories)
    changing.flatMap(_.version).reduceOption(_ min _) match {
      case Some(version) =>
        val read = followed.read
        val before = cutAt(start, read, version - 1)
        val positioned = before.leaves.getOrElse(Map.empty)
        // in weak mode a version the commit made may be read already at the version before it (a
        // writer's commit that reached __manifest before this one names a later version): then the
        // micro-batch takes it with what comes before it
        val reachedEarly = changing.find(_.version.contains(version)).exists(_.versions.exists {
          case (location, made) =>
            positioned.get(location).exists(p =>
              !LeafHistory.isDetached(p) && !LeafHistory.isDetached(made) && p >= made)
        })
        val pending = version - 1 > start.version || positioned != read
        if (pending && !reachedEarly) limited(start, before, within) else cutAt(start, read, version)
      case None if changing.nonEmpty || followed.gone.nonEmpty => end
      case None =>
        val pending = Lance.parallel(reads.zip(histories)) { case (read, history) =>
          val (row, location) = (read.row, read.row.location.get)
          read.whole.toSeq.map(v =>
            table.store.lance.withDataset(table.store.leafUri(row), Some(v))(ds =>
              PendingCommit(location, v, ds.getVersion.getDataTime.toInstant, ds.countRows()))) ++
            history.changes.map {
              case VersionChange.Appended(v, at, _, added) => PendingCommit(location, v, at, added)
              case other => PendingCommit(location, other.version, other.at, 0)
            }
        }
        val reached = within.admit(pending.filter(_.nonEmpty))
        if (pending.flatten.forall(c => reached.get(c.location).contains(until(c.location)))) end
        else end.copy(leaves = Some(followed.bases ++ reached))
    }
  }

  /**
   * The offset at manifest version `version` (`start`'s or a later one), where `start` read up to
   * positions `read`: each partition table it lists at the version its row names there (its
   * read_version; in weak mode the version lancepart's write left, or where `start` read a later
   * main-branch version, that one); a table whose row names none (another weak-mode writer's)
   * where `start` read it, or where the walk to `version` would read it from (a table that
   * replaced one), or not read.
   */
  private def cutAt(start: ManifestOffset, read: Map[String, Long], version: Long): ManifestOffset = {
    val manifest = table.store.loadAt(version)
    val rows = tables(manifest)
    lazy val walked = if (version > start.version) follows(start, version, rows).bases else Map.empty[String, Long]
    val leaves = rows.flatMap { r =>
      val location = r.location.get
      (read.get(location), r.readVersion.orElse(r.writtenVersion)) match {
        case (Some(p), Some(n)) if !LeafHistory.isDetached(p) && !LeafHistory.isDetached(n) =>
          Some(location -> (p max n))
        case (_, Some(n)) => Some(location -> n)
        case (p, None) => p.orElse(walked.get(location)).map(location -> _)
      }
    }.toMap
    ManifestOffset(version, Some(leaves), Some(manifest.committedAt.toEpochMilli))
  }

  /** The commits to the partition table of `row` after version `from` up to version `to`. */
  private def changes(row: ManifestRow, from: Long, to: Long): Seq[VersionChange] =
    if (from == to) Seq.empty else LeafHistory.changes(table.store.lance, table.store.leafUri(row), from, to)

  /** The latest manifest version, with the latest main-branch version of each partition table it
   * lists without a read_version (one listing of its `_versions` each): weak-mode writers commit
   * there before `__manifest` names them. */
  private def latest(): ManifestOffset = {
    offsetOf(table.store.load())(r => table.files.latestVersion(r.location.get))
  }

  /**
   * The offset at `manifest`: when each partition table it lists has a read_version, that is its
   * position; when one has none (weak mode, or a weak-mode table switched to strong mode), the
   * offset records the position of each: its read_version, or `unpinned` of it (None: the table
   * had no version then, and is not read).
   */
  private def offsetOf(manifest: Manifest)(unpinned: ManifestRow => Option[Long]): ManifestOffset = {
    val rows = tables(manifest)
    val leaves =
      if (rows.forall(_.readVersion.isDefined)) None
      else Some(Lance.parallel(rows)(r => r.readVersion.orElse(unpinned(r)).map(r.location.get -> _)).flatten.toMap)
    ManifestOffset(manifest.version, leaves, Some(manifest.committedAt.toEpochMilli))
  }

  override def deserializeOffset(json: String): Offset = ManifestOffset.parse(json)

  override def createReaderFactory(): PartitionReaderFactory = readers

  /** The rows appended between offsets `start` and `end`, as partitions of one partition table
   * each; the commits on the way that removed, deleted or changed rows fail the query, or are
   * skipped whole when its options say so ([[StreamCommits]]). */
  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] = {
    val to = ManifestOffset.of(end)
    val after = atOffset(to)
    requireSameSchema(after)
    val rows = tables(after)
    val followed = follows(ManifestOffset.of(start), to.version, rows)
    val reads = readsOf(followed, rows, positions(to, rows))
    val histories = historiesOf(reads)
    val changing = changingCommits(followed, reads, histories)
    changing.foreach(c => changed(c.deletes, c.what))
    val skipped = changing.flatMap(_.versions).toSet
    // a table a skipped commit created is read from the version that commit left on, not whole
    val created = changing.flatMap(_.created).toMap
    Lance.parallel(reads.zip(histories)) { case (read, history) =>
      val location = read.row.location.get
      val (whole, appended) =
        created.get(location).fold((read.whole, history.changes))(v => (None, changes(read.row, v, read.to)))
      whole.map(leaf(after, read.row, _, None)).toSeq ++ appended.collect {
        case VersionChange.Appended(version, _, fragments, _) if fragments.nonEmpty && !skipped((location, version)) =>
          leaf(after, read.row, version, Some(fragments))
      }
    }.flatten.map(l => PackedSplit(Seq(l))).toArray
  }

  /** The commits each of `reads` reads over. */
  private def historiesOf(reads: Seq[TableRead]): Seq[TableChanges] =
    Lance.parallel(reads)(r => TableChanges(r.row, r.from.fold(Seq.empty[VersionChange])(changes(r.row, _, r.to))))

  /** The commits that `followed` walked, and the versions `reads` reads over (their `histories`)
   * that no commit names, that deleted or changed rows ([[StreamCommits]]). */
  private def changingCommits(followed: Followed, reads: Seq[TableRead], histories: Seq[TableChanges])
      : Seq[ChangingCommit] = {
    // versions the commits name of partition tables they did not create that the reads do not
    // cover: read or passed before (weak mode)
    val read = histories.flatMap(h => h.changes.map(c => (h.row.location.get, c.version))).toSet
    val byLocation = reads.map(r => r.row.location.get -> r.row).toMap
    val passed = Lance.parallel(followed.commits.flatMap(c =>
      c.reached.toSeq.filter { case (location, v) => !c.created(location) && !read((location, v)) }).distinct) {
      // a version a cleanup removed since tells nothing: nothing of it is left to read
      case (location, v) => byLocation.get(location).flatMap(row =>
          Try(LeafHistory.change(table.store.lance, table.store.leafUri(row), v)).toOption.map(c =>
            TableChanges(row, Seq(c))))
    }.flatten
    StreamCommits.changing(followed.commits, histories, passed)
  }

  /**
   * What a micro-batch reads of each partition table that `followed` walked to or past, up to
   * positions `until` (by location) of the tables `rows` lists at its end: the commits after its
   * base; or, for a table not read before, the table whole at the version its row named when the
   * walk first listed it and the commits after; or, when that row named none (another weak-mode
   * writer's), the table whole at its end position.
   */
  private def readsOf(followed: Followed, rows: Seq[ManifestRow], until: Map[String, Long]): Seq[TableRead] = {
    def read(row: ManifestRow, base: Option[Long], to: Long): TableRead =
      base.orElse(followed.firsts.get(row.location.get)) match {
        case Some(from) if base.isDefined => TableRead(row, None, Some(from), to)
        case Some(first) => TableRead(row, Some(first), Some(first), to)
        case None => TableRead(row, Some(to), None, to)
      }
    followed.gone.map(g => read(g.row, g.base, g.last)) ++
      rows.flatMap(r => until.get(r.location.get).map(read(r, followed.bases.get(r.location.get), _)))
  }

  // the last walk (from, to): a limited micro-batch plans over the walk its latestOffset made
  private var lastFollowed: Option[((ManifestOffset, Long), Followed)] = None

  /** [[follow]], once for the same two offsets. */
  private def follows(from: ManifestOffset, to: Long, current: Seq[ManifestRow]): Followed =
    lastFollowed.collect { case ((`from`, `to`), followed) => followed }.getOrElse {
      val followed = follow(from, to, current)
      lastFollowed = Some((from, to) -> followed)
      followed
    }

  /**
   * The partition tables between offset `from` and manifest version `to` (whose tables are
   * `current`), from the manifest versions between, one by one: where the stream reads each
   * table listed at `to` from (`bases`; none: it reads it whole), and the tables listed at
   * `from` or after that a later version no longer lists (`gone`), each with the version it was
   * read up to and its last version. A partition whose table that version lists at another
   * location was copied (a write that could not append to it as it was copied its rows into the
   * new table's first version: the new table is read from there) or replaced (an overwrite, a
   * copy-on-write command: the new table is read from the version that version gives it, without
   * the rows it was created with); a partition it does not list was removed (a DELETE). A
   * rollback on the way fails the read.
   */
  private def follow(from: ManifestOffset, to: Long, current: Seq[ManifestRow]): Followed =
    if (from.version == 0)
      Followed(Map.empty, Map.empty, Map.empty, Seq.empty, Seq.empty) // the first micro-batch reads it as it is
    else {
      val start = tables(atOffset(from))
      val since = positions(from, start)
      // the version of a partition table that its row names: strong mode's read_version, weak mode's written one
      def named(r: ManifestRow): Option[Long] = r.readVersion.orElse(r.writtenVersion)
      val bases = mutable.Map.empty[String, Option[Long]]
      val firsts = mutable.Map.empty[String, Long]
      val listed = mutable.Map.empty[String, ManifestRow]
      start.foreach { r =>
        val location = r.location.get
        listed(location) = r
        bases(location) = since.get(location)
        if (bases(location).isEmpty) named(r).foreach(firsts(location) = _)
      }
      val gone = mutable.ArrayBuffer.empty[Gone]
      val commits = mutable.ArrayBuffer.empty[FollowedCommit]
      for (version <- from.version + 1 to to) {
        table.store.restoredAt(version).foreach(restored =>
          throw new IllegalStateException(
            s"table ${table.name()}: manifest version $version rolled the table back to version $restored, which a " +
              "streaming read cannot follow (the rows it read since are no longer in the table); start the query " +
              "again with a new checkpoint (stream-from-timestamp to start after a time)"))
        val now = if (version == to) current else tables(versionOnTheWay(version))
        val locations = now.map(r => r.location.get -> r).toMap
        lazy val byObjectId = now.map(r => r.objectId -> r).toMap
        val ended = mutable.ArrayBuffer.empty[Gone]
        val copies = mutable.Set.empty[String]
        for ((location, old) <- listed.toSeq if !locations.contains(location)) {
          val replacement = byObjectId.get(old.objectId)
          // a write that rewrote the table for a changed column copied it at a version and appended after
          val copied = replacement.flatMap(_.copyOf).filter(_.location == location).map(_.version)
          // weak-mode writers commit to the partition table's main branch; strong-mode ones pin each version
          // (a weak-mode read may have read a version past the one copied, which a conflicting writer made)
          val last = copied.map { c =>
            bases(location).filter(b => !LeafHistory.isDetached(b) && !LeafHistory.isDetached(c) && b > c).getOrElse(c)
          }
            .orElse(old.readVersion).getOrElse(table.files.latestVersion(location).getOrElse(
              throw new IllegalStateException(s"table ${table.name()}: partition table $location has no version")))
          val ending = if (copied.isDefined) Copied else if (replacement.isDefined) Replaced else Removed
          ended += Gone(old, bases(location), last, ending)
          listed -= location
          bases -= location
          replacement.foreach { r =>
            if (copied.isDefined) copies += r.location.get
            bases(r.location.get) = Some(if (copied.isDefined) FirstVersion else named(r).getOrElse(FirstVersion))
          }
        }
        val reached = locations.flatMap { case (location, r) =>
          named(r).filter(v => !listed.get(location).exists(named(_).contains(v))).map(location -> _)
        }
        val created = locations.keySet.filterNot(l => listed.contains(l) || copies(l))
        commits += FollowedCommit(
          version,
          ended.filter(_.ending == Removed).map(_.row).toSeq,
          ended.filter(_.ending == Replaced).map(_.row).toSeq,
          created,
          reached)
        gone ++= ended
        for ((location, r) <- locations) {
          if (!bases.contains(location)) {
            bases(location) = None
            named(r).foreach(firsts(location) = _)
          }
          listed(location) = r
        }
      }
      Followed(
        since,
        bases.collect { case (location, Some(base)) => location -> base }.toMap,
        firsts.toMap,
        gone.toSeq,
        commits.toSeq)
    }

  /** The manifest version of `offset`, as it was when the offset was taken: a version that is gone
   * or unreadable, or another one under its number (the table was dropped and created again under
   * its name), is refused. */
  private def atOffset(offset: ManifestOffset): Manifest = {
    def restart(problem: String): Nothing = throw new IllegalStateException(
      s"table ${table.name()}: this streaming query's checkpoint names its manifest version ${offset.version}, " +
        s"which $problem; start the query again with a new checkpoint (stream-from-timestamp to start after a time)")
    val manifest =
      try table.store.loadAt(offset.version)
      catch { case e: IllegalArgumentException => restart(s"cannot be read now (${e.getMessage})") }
    for (at <- offset.committedAt if at != manifest.committedAt.toEpochMilli)
      restart(s"was committed at ${java.time.Instant.ofEpochMilli(at)} then, and now is one committed at " +
        s"${manifest.committedAt} (the table was dropped and created again, or its __manifest rewritten)")
    manifest
  }

  /** Manifest version `version`, between two offsets. */
  private def versionOnTheWay(version: Long): Manifest =
    try table.store.loadAt(version)
    catch {
      case e: FormatException => throw new IllegalStateException(
          s"table ${table.name()}: a streaming read follows every __manifest version between two of its offsets, " +
            s"and version $version cannot be read as a partitioned table (${e.getMessage}); start the query again " +
            "with a new checkpoint (stream-from-timestamp to start after that version)",
          e
        )
    }

  /** The version of each partition table (by location) that `offset` read up to: the ones the
   * offset recorded (a table it does not name was not read), or else its `rows`' read_versions. */
  private def positions(offset: ManifestOffset, rows: Seq[ManifestRow]): Map[String, Long] =
    offset.leaves.getOrElse(rows.map(r =>
      r.location.get -> r.readVersion.getOrElse(throw new IllegalStateException(
        s"table ${table.name()}: offset ${offset.json()} records no version of partition table ${r.location.get}, " +
          "which has no read_version"))).toMap)

  /** A commit that deleted (`deletes`) or changed rows: refused unless the query skips such commits. */
  private def changed(deletes: Boolean, what: String): Unit = {
    val option = if (deletes) SkipDeletes else SkipOverwrites
    if (!(if (deletes) skipDeletes else skipOverwrites)) throw new IllegalStateException(
      s"table ${table.name()}: a streaming read takes appended rows only, and $what; to skip such commits, set " +
        s"read option $option=true")
  }

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

  /** The positions the start offset read up to (`read`, by location, of the tables its manifest
   * version lists), where a streaming read reads the partition tables it follows from (by
   * location), the version of each table not read before that its row named when first listed
   * (`firsts`), the tables gone, and the `__manifest` commits on the way. */
  private case class Followed(
      read: Map[String, Long],
      bases: Map[String, Long],
      firsts: Map[String, Long],
      gone: Seq[Gone],
      commits: Seq[FollowedCommit])

  /** A partition table (`row`, as last listed) that a manifest version no longer lists: read up to
   * version `base` (None: not read), its last version `last`, and how it ended. */
  private case class Gone(row: ManifestRow, base: Option[Long], last: Long, ending: Ending)

  /** What a micro-batch reads of the partition table of `row`: whole at version `whole`, and the
   * commits after version `from` up to version `to`. */
  private case class TableRead(row: ManifestRow, whole: Option[Long], from: Option[Long], to: Long)

  /** How a partition table left the manifest: its rows copied into a new table for its partition
   * (whose first version holds them: `last` is the version copied), replaced by a new table for
   * its partition, or removed with its partition. */
  private sealed trait Ending
  private case object Copied extends Ending
  private case object Replaced extends Ending
  private case object Removed extends Ending

  // the version a partition table is created at, by the write that made it (a weak-mode row pins none)
  private val FirstVersion = 1L
  val SkipOverwrites = "streaming-skip-overwrite-snapshots"
  val SkipDeletes = "streaming-skip-delete-snapshots"
  val FromTimestamp = "stream-from-timestamp"
}

/** A streaming read's position: every row of `__manifest` version `version` was read (0: none),
 * each partition table at its read_version there; or when `leaves` are given (a table listed
 * without a read_version, or read limits that stopped short), of each partition table (by
 * location) up to its version in `leaves`, and none of the others. `committedAt`: when that
 * version was committed (milliseconds since the epoch), which tells it from another table's. */
case class ManifestOffset(version: Long, leaves: Option[Map[String, Long]] = None, committedAt: Option[Long] = None)
    extends Offset {
  override def json(): String = {
    val node = Json.obj().put("manifest_version", version)
    committedAt.foreach(node.put("committed_at", _))
    leaves.foreach { positions =>
      val versions = node.putObject("leaves")
      positions.toSeq.sorted.foreach { case (location, v) => versions.put(location, v) }
    }
    Json.write(node)
  }
}

object ManifestOffset {
  def parse(json: String): ManifestOffset = {
    val node = Json.parse(json, "a lancepart streaming offset")
    val version = Option(node.get("manifest_version")).filter(_.canConvertToLong).map(_.asLong).getOrElse(
      throw new IllegalArgumentException(s"'$json' is not a lancepart streaming offset: it has no manifest_version"))
    ManifestOffset(
      version,
      Option(node.get("leaves")).map(_ =>
        Json.stringMap(node.get("leaves")).map { case (location, v) => location -> v.toLong }),
      Option(node.get("committed_at")).filter(_.canConvertToLong).map(_.asLong)
    )
  }

  /** `offset` as a ManifestOffset (Spark passes back what the stream gave, or what it parsed). */
  def of(offset: Offset): ManifestOffset = offset match {
    case o: ManifestOffset => o
    case other => parse(other.json())
  }
}
