// A __manifest at one version: the table metadata a reader of that version sees.
package lancepart.manifest

import lancepart.spec.{TableMetadata, TransactionMode}

/** What a reader needs: metadata at one manifest version. */
case class Manifest(meta: TableMetadata, version: Long) {
  /** The leaf version a reader of this manifest reads: `read_version` in strong mode, the
   * leaf's latest version (None) in weak mode (spec: Transaction, read behavior). */
  def pinnedVersion(row: ManifestRow): Option[Long] =
    if (meta.mode == TransactionMode.Strong) row.readVersion else None
}
