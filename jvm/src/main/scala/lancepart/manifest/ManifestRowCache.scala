// The __manifest rows scans read last, per manifest version and filter: a version never changes, so
// the next query of the same version (most queries between two commits) scans none.
package lancepart.manifest

import lancepart.lance.VersionCache

import java.time.Instant

/** Which rows: those of `filter` in `__manifest` at `uri` (on `branch`) at `version`, committed at
 * `committed` (a table made anew at the same location starts its versions over), read with
 * partition columns `columns` (field id and `__manifest` column) and `unpartitioned` tables. */
private[manifest] final case class RowsKey(
    uri: String,
    branch: Option[String],
    version: Long,
    committed: Instant,
    filter: String,
    columns: Seq[(String, String)],
    unpartitioned: Set[String])

/** The rows of the keys asked last. Kept rows are shared by the queries that ask for them again:
 * no caller may change a row's values (byte arrays, decimals). */
private[manifest] object ManifestRowCache {

  /** The most weight kept: a row weighs 1 (about 1 KB on the heap: its metadata JSON and
   * partition values), and so does each KB of a key's filter; so some tens of MB at most. A scan
   * of more partition tables than that reads them from `__manifest` every time. */
  val Capacity = 20000

  private val cache =
    new VersionCache[RowsKey, Seq[ManifestRow]](Capacity, (key, rows) => rows.size + key.filter.length / 1024 + 1L)

  def get(key: RowsKey): Option[Seq[ManifestRow]] = cache.get(key)

  def put(key: RowsKey, rows: Seq[ManifestRow]): Unit = cache.put(key, rows)
}
