// Maintenance of a plain Lance table (one dataset): compaction, rollback and expiry are Lance's own
// operations on the dataset, with the results the procedures of partitioned tables report.
package lancepart.maintenance

import lancepart.lance.LanceAccess
import lancepart.txn.LeafCommits
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.lance.compaction.{CompactionOptions, RewriteResult}

import scala.jdk.CollectionConverters._

object PlainMaintenance {

  /** The compaction jobs of the dataset at `uri` (its latest version); `table` names it in errors. */
  def plan(lance: LanceAccess, uri: String, table: String, settings: CompactionOptions): Seq[CompactionJob] =
    Compaction.planTable(lance, uri, None, table, s"table $table", settings)

  /** Commits the rewritten fragments of `results` (on the main branch: Lance rebases them over
   * later commits that did not touch them). */
  def commit(lance: LanceAccess, uri: String, results: Seq[RewriteResult]): CompactionResult =
    if (results.isEmpty) CompactionResult.Empty
    else {
      new LeafCommits(lance, detached = false).rewrite(uri, results)
      val metrics = results.map(_.getMetrics)
      CompactionResult(metrics.map(_.getFilesRemoved).sum, metrics.map(_.getFilesAdded).sum, 1)
    }

  /** Makes Lance version `version` of the dataset the latest again (a new version with its contents). */
  def rollback(lance: LanceAccess, uri: String, table: String, version: Long): RollbackResult = {
    val previous = requireVersion(lance, uri, table, version)
    val current = if (version == previous) previous
    else lance.withDataset(uri, Some(version)) { ds => ds.restore(); lance.withDataset(uri)(_.version()) }
    RollbackResult(previous, version, current)
  }

  /** Refuses `version` unless the dataset at `uri` keeps it; returns the latest version. */
  def requireVersion(lance: LanceAccess, uri: String, table: String, version: Long): Long =
    lance.withDataset(uri) { ds =>
      val kept = ds.listVersions().asScala.map(_.getId).toSeq
      if (!kept.contains(version))
        throw new IllegalArgumentException(
          s"table $table has no version $version (versions kept: ${kept.mkString(", ")})")
      ds.version()
    }

  /** The last version committed at or before `micros` (TIMESTAMP AS OF), or strictly before it
   * when `strictly` (rollback_to_timestamp, as Iceberg's). */
  def versionAt(lance: LanceAccess, uri: String, table: String, micros: Long, strictly: Boolean = false): Long = {
    val versions = lance.withDataset(uri)(_.listVersions().asScala.toSeq)
    val at = DateTimeUtils.microsToInstant(micros)
    def in(t: java.time.Instant) = if (strictly) t.isBefore(at) else !t.isAfter(at)
    versions.filter(v => in(v.getDataTime.toInstant)).lastOption.map(_.getId).getOrElse(
      throw new IllegalArgumentException(s"table $table: no version was committed " +
        s"${if (strictly) "before" else "at or before"} $at; the first was committed at " +
        s"${versions.head.getDataTime.toInstant}"))
  }

  /** Removes the versions committed before `olderThanMicros` but the newest `retainLast` and those
   * tags name, and the files only they used (Lance cleanup). */
  def expire(lance: LanceAccess, uri: String, table: String, olderThanMicros: Long, retainLast: Int): ExpireResult = {
    ExpireSnapshots.requireRetainLast(table, retainLast)
    val versions = lance.withDataset(uri)(_.listVersions().asScala.map(v => v.getId -> v.getDataTime.toInstant).toSeq)
    val selected = ExpireSnapshots.select(lance, uri, table, versions, olderThanMicros, retainLast)
    if (selected.expired.isEmpty) ExpireResult(0, 0, 0)
    else {
      val stats = lance.withDataset(uri)(_.cleanupWithPolicy(selected.cleanup))
      ExpireResult(selected.expired.size, 0, stats.getDataFilesRemoved + stats.getDeletionFilesRemoved)
    }
  }
}
