// The metadata column `_partition_table`: which partition table a row is read from.
package lancepart.spark.read

import org.apache.spark.sql.connector.catalog.MetadataColumn
import org.apache.spark.sql.types.{DataType, StringType, StructField}

/** A row's partition table, as its object id in `__manifest` (`SELECT _partition_table, * FROM t`).
 * Copy-on-write DELETE, UPDATE and MERGE INTO read it to learn which tables hold the rows they change. */
object PartitionTableColumn extends MetadataColumn {
  val Name = "_partition_table"

  override def name(): String = Name

  override def dataType(): DataType = StringType

  override def isNullable: Boolean = false

  override def comment(): String = "object id in __manifest of the partition table holding the row"

  val field: StructField = StructField(Name, StringType, nullable = false)
}
