// Rollback of a strong-mode table to an earlier manifest version (CALL <catalog>.system.
// rollback_to_version / rollback_to_timestamp): each manifest version pins the version of every
// partition table, so restoring one (a Lance restore of __manifest, itself a new version) makes
// the table what it was then: rows, schema, partition specs and table properties.
package lancepart.maintenance

import lancepart.manifest.{Manifest, ManifestStore}
import lancepart.spec.TransactionMode

/** A rollback: the latest manifest version before it, the version restored, the new latest version. */
case class RollbackResult(previousVersion: Long, restoredVersion: Long, currentVersion: Long)

object Rollback {

  /** Makes the table of `store` (now `current`) what manifest `version` recorded. */
  def toVersion(store: ManifestStore, current: Manifest, version: Long): RollbackResult = {
    val name = store.table
    def pinned(mode: TransactionMode) = mode == TransactionMode.Strong
    if (!pinned(current.meta.mode)) throw new UnsupportedOperationException(
      s"table $name: rollback needs ${TransactionMode.Key}=strong; in weak mode partition tables are read at their " +
        "latest versions, so a manifest version does not record what was visible then")
    if (!pinned(store.loadAt(version).meta.mode)) throw new UnsupportedOperationException(
      s"table $name: manifest version $version was committed in weak mode, which pins no partition table versions; " +
        "it cannot be restored")
    val previous = store.latestVersion()
    RollbackResult(previous, version, if (version == previous) previous else store.restore(version))
  }

  /** Makes the table what the newest manifest version committed before `micros` recorded (strictly
   * before, as Iceberg's rollback_to_timestamp: a version committed at `micros` is not taken). */
  def toTimestamp(store: ManifestStore, current: Manifest, micros: Long): RollbackResult =
    toVersion(store, current, store.versionAt(micros, strictly = true))
}
