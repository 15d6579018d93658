// The __manifest rows a JVM read last, per manifest version and filter: a version never changes, so
// the next statement that reads the same version (most queries between two commits) scans none.
package lancepart.manifest

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

/** The rows of the keys asked last, together at most [[ManifestRowCache.MaxRows]] rows. */
private[manifest] object ManifestRowCache {

  /** The most rows kept: about 1 KB each on the heap (a row's metadata JSON and partition values),
   * so at most some tens of MB; a table's full list of more partition tables is read every time. */
  val MaxRows = 20000

  private var kept = 0

  /** Least recently asked first. */
  private val entries = new java.util.LinkedHashMap[RowsKey, Seq[ManifestRow]](64, 0.75f, true)

  def get(key: RowsKey): Option[Seq[ManifestRow]] = synchronized(Option(entries.get(key)))

  def put(key: RowsKey, rows: Seq[ManifestRow]): Unit = synchronized {
    if (rows.size <= MaxRows) {
      Option(entries.put(key, rows)).foreach(old => kept -= old.size)
      kept += rows.size
      val oldest = entries.values().iterator()
      while (kept > MaxRows) {
        kept -= oldest.next().size
        oldest.remove()
      }
    }
  }
}
