// A streaming read of a partitioned table (Structured Streaming, micro-batches): offsets are
// __manifest versions, and a micro-batch reads the rows appended between two of them: the
// partition tables that appeared whole, and of the others the fragments each Append added, each at
// the version that added it. Commits that deleted or changed rows fail the query, or are skipped
// when the query's options say so (Iceberg's names).
package lancepart.spark.read

import lancepart.lance.{VersionChange, LeafHistory}
import lancepart.manifest.{Manifest, ManifestQuery, ManifestRow}
import lancepart.spark.PartitionedTable
import lancepart.spec.{Json, TransactionMode}
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming.{MicroBatchStream, Offset}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import scala.util.Try

/** `table` as the query loaded it; `readers` reads its partition tables in the query's columns. */
class PartitionedMicroBatchStream(
    table: PartitionedTable,
    readers: PartitionReaderFactory,
    options: CaseInsensitiveStringMap)
    extends MicroBatchStream {
  import PartitionedMicroBatchStream._

  if (table.manifest.meta.mode != TransactionMode.Strong) throw new UnsupportedOperationException(
    s"table ${table.name()}: a streaming read needs a strong-mode table, whose __manifest versions pin every " +
      "partition table's version (in weak mode writers append to partition tables before __manifest names " +
      s"them): ALTER TABLE ${table.name()} SET TBLPROPERTIES ('transaction.mode' = 'strong') first")

  private def flag(name: String): Boolean = Option(options.get(name)).fold(false)(v =>
    Try(v.trim.toBoolean).getOrElse(throw new IllegalArgumentException(
      s"table ${table.name()}: read option $name must be true or false, not '$v'")))
  private val skipOverwrites = flag(SkipOverwrites)
  private val skipDeletes = flag(SkipDeletes)
  private val fromMillis = Option(options.get(FromTimestamp)).map(v =>
    Try(v.trim.toLong).getOrElse(throw new IllegalArgumentException(
      s"table ${table.name()}: read option $FromTimestamp must be milliseconds since the epoch, not '$v'")))

  /** Before the table's first rows (the first micro-batch reads the table whole), or with
   * `stream-from-timestamp` the newest manifest version committed before that time. */
  override def initialOffset(): Offset = ManifestOffset(fromMillis.fold(0L) { millis =>
    table.store.committed().filter(_.at.toEpochMilli < millis).map(_.version).reduceOption(_ max _).getOrElse(0L)
  })

  override def latestOffset(): Offset = ManifestOffset(table.store.load().version)

  override def deserializeOffset(json: String): Offset = ManifestOffset.parse(json)

  override def createReaderFactory(): PartitionReaderFactory = readers

  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] = {
    val (from, to) = (version(start), version(end))
    val after = table.store.loadAt(to)
    requireSameSchema(after)
    val rows = tables(after)
    val read =
      if (from == 0) rows.map(r => leaf(after, r, None))
      else {
        val before = tables(table.store.loadAt(from)).map(r => r.objectId -> r).toMap
        for (gone <- before.keySet -- rows.map(_.objectId))
          changed(deletes = true, s"${describe(before(gone))} was removed")
        rows.flatMap { r =>
          before.get(r.objectId) match {
            case None => Seq(leaf(after, r, None))
            case Some(b) if b.location != r.location =>
              changed(
                deletes = false,
                s"${describe(b)} was replaced by ${r.location.getOrElse(r.objectId)} (an overwrite, or a " +
                  "copy-on-write DELETE, UPDATE or MERGE INTO)"
              )
              Seq.empty
            case Some(b) => appended(after, b, r)
          }
        }
      }
    read.map(l => PackedSplit(Seq(l))).toArray
  }

  /** The fragments appended to the partition table of `row` since `before` pinned it. */
  private def appended(manifest: Manifest, before: ManifestRow, row: ManifestRow): Seq[LeafPartition] = {
    val (from, to) = (pin(before), pin(row))
    if (from == to) Seq.empty
    else LeafHistory.changes(table.store.lance, table.store.leafUri(row), from, to).flatMap {
      case VersionChange.Appended(version, fragments, _) if fragments.nonEmpty =>
        Seq(leaf(manifest, row, Some(version -> fragments)))
      case VersionChange.Deleted(version, operation) =>
        changed(
          deletes = true,
          s"${describe(row)} version ${java.lang.Long.toUnsignedString(version)} deleted rows (Lance $operation)")
        Seq.empty
      case VersionChange.Rewrote(version, operation) =>
        changed(
          deletes = false,
          s"${describe(row)} version ${java.lang.Long.toUnsignedString(version)} changed rows (Lance $operation)")
        Seq.empty
      case _ => Seq.empty
    }
  }

  /** A commit that deleted (`deletes`) or changed rows: refused unless the query skips such commits. */
  private def changed(deletes: Boolean, what: String): Unit = {
    val option = if (deletes) SkipDeletes else SkipOverwrites
    if (!(if (deletes) skipDeletes else skipOverwrites)) throw new IllegalStateException(
      s"table ${table.name()}: a streaming read takes appended rows only, and $what; to skip such commits, set " +
        s"read option $option=true")
  }

  /** The partition of `row` by its values (field ids), and its partition table. */
  private def describe(row: ManifestRow): String = {
    val values = row.values.toSeq.sortBy(_._1).map { case (field, v) => s"$field=$v" }.mkString(", ")
    s"partition ($values), partition table ${row.location.getOrElse(row.objectId)},"
  }

  private def pin(row: ManifestRow): Long = row.readVersion.getOrElse(throw new IllegalStateException(
    s"table ${table.name()}: partition table ${row.location.getOrElse(row.objectId)} has no read_version: another " +
      "client wrote it as a weak-mode table, which a streaming read cannot follow"))

  private def tables(manifest: Manifest): Seq[ManifestRow] =
    table.files.withData(table.store.rows(manifest, ManifestQuery.tables(manifest.meta)))

  /** The partition table of `row` at its pinned version, or only `fragments` (version, ids) of it. */
  private def leaf(manifest: Manifest, row: ManifestRow, fragments: Option[(Long, Seq[Int])]): LeafPartition = {
    val spec = row.specVersion.flatMap(v => manifest.meta.specs.find(_.id == v))
    LeafPartition(
      table.store.leafUri(row),
      Some(fragments.fold(pin(row))(_._1)),
      spec.fold(Map.empty[String, Any])(_.identityValues(row.values)),
      row.objectId,
      fragments.map(_._2)
    )
  }

  private def requireSameSchema(after: Manifest): Unit =
    if (after.meta.schema != table.manifest.meta.schema) throw new IllegalStateException(
      s"table ${table.name()}: its schema changed at or before manifest version ${after.version}, after the streaming " +
        "query loaded it; restart the query (it goes on from its checkpoint, in the new columns)")

  private def version(offset: Offset): Long = offset match {
    case ManifestOffset(v) => v
    case other => ManifestOffset.parse(other.json()).version
  }

  override def commit(end: Offset): Unit = ()

  override def stop(): Unit = ()
}

object PartitionedMicroBatchStream {
  val SkipOverwrites = "streaming-skip-overwrite-snapshots"
  val SkipDeletes = "streaming-skip-delete-snapshots"
  val FromTimestamp = "stream-from-timestamp"
}

/** A streaming read's position: every row of `__manifest` version `version` was read (0: none). */
case class ManifestOffset(version: Long) extends Offset {
  override def json(): String = Json.write(Json.obj().put("manifest_version", version))
}

object ManifestOffset {
  def parse(json: String): ManifestOffset = {
    val node = Json.parse(json, "a lancepart streaming offset")
    ManifestOffset(Option(node.get("manifest_version")).filter(_.canConvertToLong).map(_.asLong).getOrElse(
      throw new IllegalArgumentException(s"'$json' is not a lancepart streaming offset: it has no manifest_version")))
  }
}
