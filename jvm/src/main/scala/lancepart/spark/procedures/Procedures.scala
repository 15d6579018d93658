// The registry of the catalog's CALL procedures (namespace `system`), by name.
package lancepart.spark.procedures

import lancepart.spark.PartitionedCatalog
import lancepart.spark.line.UnboundProcedure

object Procedures {
  private val byName: Map[String, PartitionedCatalog => UnboundProcedure] = Map(
    CreateIndex.Name -> (new CreateIndex(_)),
    CreateTable.Name -> (new CreateTable(_)),
    Describe.Name -> (new Describe(_)),
    DescribeNamespace.Name -> (new DescribeNamespace(_)),
    DropIndex.Name -> (new DropIndex(_)),
    EvolvePartitionSpec.Name -> (new EvolvePartitionSpec(_)),
    ExpireSnapshots.Name -> (new ExpireSnapshots(_)),
    FastForward.Name -> (new FastForward(_)),
    OptimizeIndexes.Name -> (new OptimizeIndexes(_)),
    ProgressOf.Name -> (new ProgressOf(_)),
    Repair.Name -> (new Repair(_)),
    RewriteDataFiles.Name -> (new RewriteDataFiles(_)),
    RewriteManifests.Name -> (new RewriteManifests(_)),
    RollbackToVersion.VersionName -> RollbackToVersion.toVersion,
    RollbackToVersion.TimestampName -> RollbackToVersion.toTimestamp,
    Vacuum.Name -> (new Vacuum(_))
  )

  /** Names of every procedure, sorted. */
  val names: Seq[String] = byName.keys.toSeq.sorted

  /** Procedure `name` of `catalog`, or None when there is none of that name. */
  def load(catalog: PartitionedCatalog, name: String): Option[UnboundProcedure] = byName.get(name).map(_(catalog))
}
