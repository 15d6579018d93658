// What streaming writes record in __manifest, in the metadata of the `v<N>` row of the current
// spec, which every commit rewrites: per streaming query, the last micro-batch (epoch) it
// committed, in the same merge_insert that publishes the micro-batch; in weak mode, whose
// partition-table commits readers see before that merge_insert, also the micro-batch being
// committed and the versions its partition tables had before it, so that a replay after a crash
// finds which of them already hold it.
package lancepart.manifest

import com.fasterxml.jackson.databind.node.ObjectNode
import lancepart.spec.Json

import scala.jdk.CollectionConverters._
import scala.util.Try

/** Micro-batch `epoch` of the streaming query `queryId` (Spark's id, kept in its checkpoint). */
case class StreamEpoch(queryId: String, epoch: Long) {

  /** The Lance transaction properties of its partition-table commits. */
  def transactionProperties: Map[String, String] =
    Map(StreamMarks.QueryProperty -> queryId, StreamMarks.EpochProperty -> epoch.toString)
}

/** What `__manifest`'s `v<N>` rows `specRows` record of the query of micro-batch `epoch`. */
case class StreamRecords(epoch: StreamEpoch, specRows: Seq[ManifestRow]) {

  /** Whether they record it, or a later micro-batch of its query, as committed. */
  def committed: Boolean = StreamMarks.committed(specRows, epoch.queryId).exists(_ >= epoch.epoch)

  /** The rows recording a micro-batch of its query as begun, with that record. */
  def begunRows: Seq[(ManifestRow, PendingEpoch)] =
    specRows.flatMap(r => StreamMarks.pending(r, epoch.queryId).map(r -> _))

  /** This micro-batch's begun record, when an earlier run of it began it (a replay). A record of an
   * earlier micro-batch is stale: Spark moves on only after the commit that removes it (unless a
   * rollback_to_version restored it). One of a later micro-batch means the query's checkpoint is
   * not this table's history: refused. */
  def begun: Option[PendingEpoch] = {
    val records = begunRows.map(_._2)
    records.find(_.epoch > epoch.epoch).foreach(later =>
      throw new IllegalStateException(
        s"micro-batch ${later.epoch} of streaming query ${epoch.queryId} began committing, and Spark now commits " +
          s"micro-batch ${epoch.epoch}: the query's checkpoint is not this table's history (was the table replaced " +
          "or rolled back?); this micro-batch was not committed; start the query with a new checkpoint"))
    records.find(_.epoch == epoch.epoch)
  }
}

/** Micro-batch `epoch` begun in weak mode: the main-branch version each partition table it appends
 * to had before (by location). */
case class PendingEpoch(epoch: Long, bases: Map[String, Long])

object StreamMarks {
  val QueryProperty = "lancepart.stream.query_id"
  val EpochProperty = "lancepart.stream.epoch"
  private val Prefix = "lancepart.stream."

  private def epochKey(queryId: String) = s"$Prefix$queryId.epoch"
  private val PendingSuffix = ".pending"
  private def pendingKey(queryId: String) = s"$Prefix$queryId$PendingSuffix"

  /** The last micro-batch of `queryId` that `specRows` (the `v<N>` rows) record as committed. */
  def committed(specRows: Seq[ManifestRow], queryId: String): Option[Long] =
    specRows.flatMap(r => node(r).flatMap(n => Option(n.get(epochKey(queryId))))).flatMap(v =>
      Try(v.asText.toLong).toOption)
      .reduceOption(_ max _)

  /** The micro-batch of `queryId` that `specRow` records as begun and not committed. */
  def pending(specRow: ManifestRow, queryId: String): Option[PendingEpoch] =
    node(specRow).flatMap(n => Option(n.get(pendingKey(queryId)))).map(v =>
      parsePending(specRow, pendingKey(queryId), v.asText))

  /** The locations of the partition tables that micro-batches `specRows` record as begun append
   * to: their versions since are what a replay looks at, which expiry keeps. */
  def begunLocations(specRows: Seq[ManifestRow]): Set[String] =
    specRows.flatMap(r =>
      node(r).toSeq.flatMap { n =>
        n.fieldNames().asScala.filter(k => k.startsWith(Prefix) && k.endsWith(PendingSuffix))
          .flatMap(k => parsePending(r, k, n.get(k).asText).bases.keySet)
      }).toSet

  private def parsePending(row: ManifestRow, key: String, text: String): PendingEpoch = {
    val value = Json.parse(text, s"$key of __manifest row ${row.objectId}")
    PendingEpoch(
      value.get("epoch").asText.toLong,
      Json.stringMap(value.get("bases")).map { case (location, version) => location -> version.toLong })
  }

  /** `specRow` recording `begun` of `queryId` as begun. */
  def withPending(specRow: ManifestRow, queryId: String, begun: PendingEpoch): ManifestRow = edit(specRow) { n =>
    val value = Json.obj().put("epoch", begun.epoch.toString)
    val bases = value.putObject("bases")
    begun.bases.toSeq.sorted.foreach { case (location, version) => bases.put(location, version.toString) }
    n.put(pendingKey(queryId), Json.write(value))
  }

  /** `specRow` recording `epoch` as committed, and nothing of its query as begun. */
  def withCommitted(specRow: ManifestRow, epoch: StreamEpoch): ManifestRow = edit(specRow) { n =>
    n.remove(pendingKey(epoch.queryId))
    n.put(epochKey(epoch.queryId), epoch.epoch.toString)
  }

  private def node(row: ManifestRow): Option[ObjectNode] = row.metadata.flatMap(RowMetadata.objectOf)

  private def edit(row: ManifestRow)(change: ObjectNode => Unit): ManifestRow = {
    val n = node(row).getOrElse(Json.obj())
    change(n)
    row.copy(metadata = Some(Json.write(n)))
  }

  /** Whether Lance transaction `properties` are those of `epoch`'s commits. */
  def isOf(properties: java.util.Map[String, String], epoch: StreamEpoch): Boolean =
    epoch.transactionProperties.forall { case (k, v) => properties.asScala.get(k).contains(v) }
}
