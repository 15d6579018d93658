// How a DELETE, UPDATE or MERGE INTO that Spark rewrites changes rows, set per command under
// Iceberg's table property names (write.<command>.mode).
package lancepart.spark.write

/**
 * `CopyOnWrite` (the default, as in Iceberg): the partition tables holding changed rows are
 * rewritten whole. `MergeOnRead`: the changed rows are deleted where they are (Lance deletion
 * files, by row address) and their new versions appended, so a command that changes a few rows
 * of large partition tables writes only those rows.
 */
sealed trait RowLevelMode

object RowLevelMode
    extends CommandProperty[RowLevelMode]("mode", "a write mode") {
  case object CopyOnWrite extends RowLevelMode
  case object MergeOnRead extends RowLevelMode
  override protected def values: Seq[(String, RowLevelMode)] =
    Seq("copy-on-write" -> CopyOnWrite, "merge-on-read" -> MergeOnRead)
  override protected def default: RowLevelMode = CopyOnWrite
}
