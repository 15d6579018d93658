// A __manifest at one version: the table metadata a reader of that version sees.
package lancepart.manifest

import lancepart.spec.TableMetadata

/** What a reader needs: metadata at one manifest version. Each leaf is read at its row's
 * `read_version`, or at its latest version where that is NULL (see [[ManifestRow]]). */
case class Manifest(meta: TableMetadata, version: Long)
