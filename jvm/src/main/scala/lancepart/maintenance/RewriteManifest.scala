// Compaction of `__manifest` itself (CALL <catalog>.system.rewrite_manifests): every commit adds a
// fragment (and deletion files for the rows it replaces), so reading the manifest slows as commits
// accumulate; Lance compaction merges them into few fragments without the replaced rows. Older
// manifest versions stay readable (time travel) until expire_snapshots removes them.
package lancepart.maintenance

import lancepart.lance.Lance
import lancepart.manifest.ManifestStore
import org.lance.compaction.{Compaction => LanceCompaction, CompactionOptions}

import scala.annotation.tailrec
import scala.jdk.CollectionConverters._

/** What a manifest compaction did: fragments it replaced and wrote. */
case class ManifestCompactionResult(rewrittenFragments: Long, addedFragments: Long)

object RewriteManifest {
  private val Attempts = 5

  /** Compacts `store`'s `__manifest`; a commit landing meanwhile on rewritten fragments makes it
   * plan again, up to a few times. */
  def run(store: ManifestStore): ManifestCompactionResult = {
    val options = CompactionOptions.builder().withMaterializeDeletionsThreshold(0f).build()
    @tailrec def attempt(n: Int): ManifestCompactionResult = {
      val outcome = store.lance.withDataset(store.uri) { ds =>
        val tasks = LanceCompaction.planCompaction(ds, options).getCompactionTasks.asScala.toSeq
        if (tasks.isEmpty) Right(ManifestCompactionResult(0, 0))
        else {
          val results = tasks.map(_.execute(ds))
          try {
            val metrics = LanceCompaction.commitCompaction(ds, results.asJava, options)
            Right(ManifestCompactionResult(metrics.getFragmentsRemoved, metrics.getFragmentsAdded))
          } catch { case e: Exception if n < Attempts && Lance.isConflict(e) => Left(e) }
        }
      }
      outcome match {
        case Right(result) => result
        case Left(e) =>
          RewriteManifest.log.info(s"table ${store.table}: __manifest compaction attempt $n lost to a commit: $e")
          attempt(n + 1)
      }
    }
    attempt(1)
  }

  private val log = org.slf4j.LoggerFactory.getLogger(getClass)
}
