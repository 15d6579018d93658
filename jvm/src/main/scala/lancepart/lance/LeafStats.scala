// What a partition table holds at one of its versions, recorded in its __manifest row at commit:
// the scan packs partition tables by size, and COUNT(*) counts a pinned version without opening it.
package lancepart.lance

import org.lance.Dataset

/** Rows and data bytes of a leaf at `version`. */
case class LeafStats(version: Long, rows: Long, bytes: Long)

object LeafStats {

  /** The stats of `ds` at its version: Lance's row count (deletions applied) and data size, both
   * from its manifest. */
  def of(ds: Dataset): LeafStats = LeafStats(ds.version(), ds.countRows(), ds.calculateDataSize())
}
