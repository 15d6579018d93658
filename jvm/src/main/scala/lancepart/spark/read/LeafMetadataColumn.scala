// A metadata column a scan of the catalog's tables can return besides the table's columns.
package lancepart.spark.read

import org.apache.spark.sql.connector.catalog.MetadataColumn
import org.apache.spark.sql.types.{DataType, StructField}

/** Metadata column `name` of type `dataType`, never NULL. */
abstract class LeafMetadataColumn(val Name: String, dataType: DataType, comment: String) extends MetadataColumn {
  override def name(): String = Name
  override def dataType(): DataType = dataType
  override def isNullable: Boolean = false
  override def comment(): String = comment
  val field: StructField = StructField(Name, dataType, nullable = false)
}
