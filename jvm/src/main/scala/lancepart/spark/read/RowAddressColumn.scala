// The metadata column `_rowaddr`: a row's Lance row address in its partition table.
package lancepart.spark.read

import org.apache.spark.sql.connector.catalog.MetadataColumn
import org.apache.spark.sql.types.{DataType, LongType}

/** Lance's row address (fragment id << 32 | row offset) at the partition table version read
 * (`SELECT _partition_table, _rowaddr, * FROM t`). Merge-on-read DELETE, UPDATE and MERGE INTO
 * identify the rows they delete by it and their `_partition_table`. */
object RowAddressColumn extends MetadataColumn {
  val Name = "_rowaddr"

  override def name(): String = Name

  override def dataType(): DataType = LongType

  override def isNullable: Boolean = false

  override def comment(): String = "Lance row address (fragment id << 32 | row offset) in the row's partition table"
}
