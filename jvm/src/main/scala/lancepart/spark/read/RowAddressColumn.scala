// The metadata column `_rowaddr`: a row's Lance row address in the Lance dataset holding it.
package lancepart.spark.read

import org.apache.spark.sql.types.LongType

/** Lance's row address (fragment id << 32 | row offset) at the version read of the dataset holding
 * the row: its partition table (`SELECT _partition_table, _rowaddr, * FROM t`), or a plain table's
 * dataset. Merge-on-read DELETE, UPDATE and MERGE INTO identify the rows they delete by it (and,
 * in a partitioned table, their `_partition_table`). */
object RowAddressColumn
    extends LeafMetadataColumn(
      "_rowaddr",
      LongType,
      "Lance row address (fragment id << 32 | row offset) in the Lance dataset holding the row")
