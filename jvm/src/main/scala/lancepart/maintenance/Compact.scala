// Compaction of partition tables (CALL <catalog>.system.rewrite_data_files): Lance compaction
// merges small fragments and drops deleted rows. The driver plans each selected partition
// table's compaction at the version the manifest reads, executors rewrite the fragments, and the
// Committer commits every table's Rewrite and one __manifest commit.
package lancepart.maintenance

import lancepart.lance.Lance
import lancepart.spark.read.PartitionedScan
import lancepart.txn.{LeafRewrite, PartitionDirectory, TableWrite}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation
import org.lance.compaction.{Compaction, CompactionOptions}

import scala.jdk.CollectionConverters._

/** What a compaction did: data files it replaced and wrote, partition tables it rewrote. */
case class CompactionResult(rewrittenDataFiles: Long, addedDataFiles: Long, rewrittenTables: Int)

object Compact {

  /** The `options` the procedure takes, Lance's compaction options. */
  private val Options: Map[String, (CompactionOptions.Builder, String) => CompactionOptions.Builder] = Map(
    "target-rows-per-fragment" -> ((b, v) => b.withTargetRowsPerFragment(v.toLong)),
    "max-rows-per-group" -> ((b, v) => b.withMaxRowsPerGroup(v.toLong)),
    "max-bytes-per-file" -> ((b, v) => b.withMaxBytesPerFile(v.toLong)),
    "materialize-deletions" -> ((b, v) => b.withMaterializeDeletions(v.toBoolean)),
    "materialize-deletions-threshold" -> ((b, v) => b.withMaterializeDeletionsThreshold(v.toFloat))
  )

  /** Lance compaction options from the procedure's `options` (kebab-case names of Lance's). */
  def compactionOptions(table: String, options: Map[String, String]): CompactionOptions =
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

  /**
   * Compacts the partition tables of `tableName` that may hold rows matching `where` (a SQL
   * condition on the table's columns; None: every partition table) in one transaction.
   */
  def run(
      spark: SparkSession,
      tableName: String,
      where: Option[String],
      options: Map[String, String]): CompactionResult = {
    val settings = compactionOptions(tableName, options)
    val frame = spark.table(tableName)
    val plan = where.fold(frame)(frame.where).queryExecution.optimizedPlan
    // A condition Spark proves false leaves no scan: nothing to compact.
    plan.collectFirst { case DataSourceV2ScanRelation(_, scan: PartitionedScan, _, _, _) => scan }.fold(
      CompactionResult(0, 0, 0)) { scan =>
      val table = scan.table
      val lance = table.store.lance
      val tasks = Lance.parallel(scan.tablesSelected) { row =>
        val uri = table.store.leafUri(row)
        lance.withDataset(uri, Some(table.store.leafVersion(row))) { ds =>
          if (!ds.listIndexes().isEmpty) throw new UnsupportedOperationException(
            s"table $tableName: partition table ${row.objectId} has indexes (${ds.listIndexes().asScala.mkString(", ")}), " +
              "which rewrite_data_files does not remap; nothing was compacted")
          Compaction.planCompaction(ds, settings).getCompactionTasks.asScala.toSeq.map(t => (row.objectId, uri, t))
        }
      }.flatten
      if (tasks.isEmpty) CompactionResult(0, 0, 0)
      else {
        val results = spark.sparkContext.parallelize(tasks, tasks.size).map { case (id, uri, task) =>
          id -> lance.withDataset(uri, Some(task.getReadVersion))(task.execute)
        }.collect().toSeq.groupMap(_._1)(_._2)
        val rows = scan.tablesSelected.map(r => r.objectId -> r).toMap
        table.committer.commit(TableWrite(
          table.manifest,
          PartitionDirectory.empty(table.manifest.meta.currentSpec),
          Seq.empty,
          rewrites = results.map { case (id, rewrites) =>
            id -> LeafRewrite(rows(id), rewrites)
          }
        ))
        val metrics = results.values.flatten.map(_.getMetrics)
        CompactionResult(metrics.map(_.getFilesRemoved).sum, metrics.map(_.getFilesAdded).sum, results.size)
      }
    }
  }
}
