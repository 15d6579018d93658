// The values a __manifest holds: one row, the metadata at one version, and a lost commit race.
package lancepart.manifest

import lancepart.spec.{TableMetadata, TransactionMode}

/** One `__manifest` row; `values` maps partition field_id to its value (see [[ArrowValues]]). */
case class ManifestRow(
    objectId: String,
    objectType: String,
    location: Option[String],
    readVersion: Option[Long],
    values: Map[String, Any]) {
  def specVersion: Option[Int] = Naming.specVersion(objectId)

  /** The strong-mode record of this leaf at `version` (spec: `table_version` rows). */
  def versionRecord(version: Long): ManifestRow =
    ManifestRow(Naming.versionObjectId(objectId, version), Naming.TableVersionType, location, Some(version), values)
}

/** What a reader needs: metadata at one manifest version. */
case class Manifest(meta: TableMetadata, version: Long) {
  /** The leaf version a reader of this manifest reads: `read_version` in strong mode, the
   * leaf's latest version (None) in weak mode (spec: Transaction, read behavior). */
  def pinnedVersion(row: ManifestRow): Option[Long] =
    if (meta.mode == TransactionMode.Strong) row.readVersion else None
}

/** A `__manifest` commit lost to a concurrent one; the caller re-reads and retries. */
class ManifestConflict(table: String, version: Long, cause: Throwable)
  extends RuntimeException(s"table $table: __manifest changed after version $version", cause)
