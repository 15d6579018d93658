// The metadata column `_rowaddr`: a row's Lance row address in its partition table.
package lancepart.spark.read

import org.apache.spark.sql.types.LongType

/** Lance's row address (fragment id << 32 | row offset) at the partition table version read
 * (`SELECT _partition_table, _rowaddr, * FROM t`). Merge-on-read DELETE, UPDATE and MERGE INTO
 * identify the rows they delete by it and their `_partition_table`. */
object RowAddressColumn
    extends LeafMetadataColumn(
      "_rowaddr",
      LongType,
      "Lance row address (fragment id << 32 | row offset) in the row's partition table")
