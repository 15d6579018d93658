// Compaction of partition tables (Lance compaction: small fragments merged, deleted rows dropped)
// as one transaction: the driver plans each partition table's compaction at the version the
// manifest reads, workers rewrite the fragments ([[execute]], on Spark executors), and the
// Committer commits every table's Rewrite and one __manifest commit.
package lancepart.maintenance

import lancepart.lance.{Lance, LanceAccess}
import lancepart.manifest.{Manifest, ManifestRow, ManifestStore}
import lancepart.txn.{Committer, LeafRewrite, PartitionDirectory, TableWrite}
import org.lance.compaction.{Compaction => LanceCompaction, CompactionOptions, CompactionTask, RewriteResult}

import scala.collection.compat._
import scala.jdk.CollectionConverters._

/** What a compaction did: data files it replaced and wrote, partition tables it rewrote. */
case class CompactionResult(rewrittenDataFiles: Long, addedDataFiles: Long, rewrittenTables: Int)

object CompactionResult {
  val Empty: CompactionResult = CompactionResult(0, 0, 0)
}

/** One unit of a compaction: Lance's `task` over fragments of the partition table `objectId` at `uri`. */
case class CompactionJob(objectId: String, uri: String, task: CompactionTask)

object Compaction {

  /** The options a compaction takes (kebab-case names of Lance's compaction options). */
  private val Options: Map[String, (CompactionOptions.Builder, String) => CompactionOptions.Builder] = Map(
    "target-rows-per-fragment" -> ((b, v) => b.withTargetRowsPerFragment(v.toLong)),
    "max-rows-per-group" -> ((b, v) => b.withMaxRowsPerGroup(v.toLong)),
    "max-bytes-per-file" -> ((b, v) => b.withMaxBytesPerFile(v.toLong)),
    "materialize-deletions" -> ((b, v) => b.withMaterializeDeletions(v.toBoolean)),
    "materialize-deletions-threshold" -> ((b, v) => b.withMaterializeDeletionsThreshold(v.toFloat))
  )

  /** Lance compaction options from `options` given for `table`. */
  def options(table: String, options: Map[String, String]): CompactionOptions =
    options.foldLeft(CompactionOptions.builder()) { case (builder, (key, value)) =>
      val set = Options.getOrElse(
        key.toLowerCase,
        throw new IllegalArgumentException(s"table $table: rewrite_data_files has no option '$key' (options: " +
          Options.keys.toSeq.sorted.mkString(", ") + ")")
      )
      try set(builder, value)
      catch {
        case _: IllegalArgumentException => throw new IllegalArgumentException(
            s"table $table: rewrite_data_files option '$key' takes a number or true/false, not '$value'")
      }
    }.build()

  /** The jobs that compact the partition tables `rows` of `store` at the versions its manifest reads. */
  def plan(store: ManifestStore, rows: Seq[ManifestRow], settings: CompactionOptions): Seq[CompactionJob] =
    Lance.parallel(rows) { row =>
      planTable(
        store.lance,
        store.leafUri(row),
        Some(store.leafVersion(row)),
        row.objectId,
        s"table ${store.table}: partition table ${row.objectId}",
        settings)
    }.flatten

  /** The jobs that compact the dataset at `uri` at `version` (None: the latest), known as
   * `objectId`; `what` names it in errors. A dataset with indexes is refused. */
  def planTable(
      lance: LanceAccess,
      uri: String,
      version: Option[Long],
      objectId: String,
      what: String,
      settings: CompactionOptions): Seq[CompactionJob] =
    lance.withDataset(uri, version) { ds =>
      if (!ds.listIndexes().isEmpty) throw new UnsupportedOperationException(
        s"$what has indexes (${ds.listIndexes().asScala.mkString(", ")}), which rewrite_data_files does not " +
          "remap; nothing was compacted")
      LanceCompaction.planCompaction(ds, settings).getCompactionTasks.asScala.toSeq.map(CompactionJob(objectId, uri, _))
    }

  /** Rewrites the fragments of `job` (new data files; nothing committed). */
  def execute(lance: LanceAccess, job: CompactionJob): (String, RewriteResult) =
    job.objectId -> lance.withDataset(job.uri, Some(job.task.getReadVersion))(job.task.execute)

  /** Commits the rewrites `results` of partition tables `rows` (as read at `base`) in one transaction. */
  def commit(
      committer: Committer,
      base: Manifest,
      rows: Seq[ManifestRow],
      results: Seq[(String, RewriteResult)]): CompactionResult = {
    val byTable = results.groupMap(_._1)(_._2)
    val before = rows.map(r => r.objectId -> r).toMap
    if (byTable.nonEmpty) committer.commit(TableWrite(
      base,
      PartitionDirectory.empty(base.meta.currentSpec),
      Seq.empty,
      rewrites = byTable.map { case (id, rewrites) => id -> LeafRewrite(before(id), rewrites) }))
    val metrics = results.map(_._2.getMetrics)
    CompactionResult(metrics.map(_.getFilesRemoved).sum, metrics.map(_.getFilesAdded).sum, byTable.size)
  }
}
