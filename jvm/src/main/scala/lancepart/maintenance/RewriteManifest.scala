// Compaction of `__manifest` itself (CALL <catalog>.system.rewrite_manifests): every commit adds a
// fragment (and deletion files for the rows it replaces), so reading the manifest slows as commits
// accumulate; Lance compaction merges them into few fragments without the replaced rows. Older
// manifest versions stay readable (time travel) until expire_snapshots removes them.
package lancepart.maintenance

import lancepart.lance.Lance
import lancepart.manifest.ManifestStore
import org.lance.compaction.{Compaction => LanceCompaction, CompactionOptions}

import scala.jdk.CollectionConverters._

/** What a manifest compaction did: fragments it replaced and wrote. */
case class ManifestCompactionResult(rewrittenFragments: Long, addedFragments: Long)

object RewriteManifest {

  /** Compacts `store`'s `__manifest`; a commit landing meanwhile on rewritten fragments makes it
   * plan again ([[Lance.replanned]]). */
  def run(store: ManifestStore): ManifestCompactionResult = {
    val options = CompactionOptions.builder().withMaterializeDeletionsThreshold(0f).build()
    Lance.replanned(store.lance.withDataset(store.uri) { ds =>
      val tasks = LanceCompaction.planCompaction(ds, options).getCompactionTasks.asScala.toSeq
      if (tasks.isEmpty) ManifestCompactionResult(0, 0)
      else {
        val metrics = LanceCompaction.commitCompaction(ds, tasks.map(_.execute(ds)).asJava, options)
        ManifestCompactionResult(metrics.getFragmentsRemoved, metrics.getFragmentsAdded)
      }
    })
  }
}
