// Rollback of a strong-mode table to an earlier manifest version (CALL <catalog>.system.
// rollback_to_version / rollback_to_timestamp): each manifest version pins the version of every
// partition table, so restoring one (a Lance restore of __manifest, itself a new version) makes
// the table what it was then: rows, schema, partition specs and table properties.
package lancepart.maintenance

import lancepart.spark.PartitionedTable
import lancepart.spec.TransactionMode

/** A rollback: the latest manifest version before it, the version restored, the new latest version. */
case class RollbackResult(previousVersion: Long, restoredVersion: Long, currentVersion: Long)

object Rollback {

  /** Makes `table` what manifest `version` recorded. */
  def toVersion(table: PartitionedTable, version: Long): RollbackResult = {
    val name = table.name()
    def pinned(mode: TransactionMode) = mode == TransactionMode.Strong
    if (!pinned(table.manifest.meta.mode)) throw new UnsupportedOperationException(
      s"table $name: rollback needs ${TransactionMode.Key}=strong; in weak mode partition tables are read at their " +
        "latest versions, so a manifest version does not record what was visible then")
    if (!pinned(table.store.loadAt(version).meta.mode)) throw new UnsupportedOperationException(
      s"table $name: manifest version $version was committed in weak mode, which pins no partition table versions; " +
        "it cannot be restored")
    val previous = table.store.latestVersion()
    val current = if (version == previous) previous else table.store.restore(version)
    RollbackResult(previous, version, current)
  }

  /** Makes `table` what the newest manifest version committed at or before `micros` recorded. */
  def toTimestamp(table: PartitionedTable, micros: Long): RollbackResult =
    toVersion(table, table.store.versionAt(micros))
}
