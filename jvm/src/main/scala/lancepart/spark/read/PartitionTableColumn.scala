// The metadata column `_partition_table`: which partition table a row is read from.
package lancepart.spark.read

import org.apache.spark.sql.types.StringType

/** A row's partition table, as its object id in `__manifest` (`SELECT _partition_table, * FROM t`).
 * Copy-on-write DELETE, UPDATE and MERGE INTO read it to learn which tables hold the rows they
 * change; merge-on-read ones identify rows by it and [[RowAddressColumn]]. */
object PartitionTableColumn
    extends LeafMetadataColumn(
      "_partition_table",
      StringType,
      "object id in __manifest of the partition table holding the row")
