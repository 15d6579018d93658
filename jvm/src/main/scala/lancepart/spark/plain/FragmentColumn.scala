// The metadata column `_fragment` of a plain Lance table: which Lance fragment a row is read from.
package lancepart.spark.plain

import org.apache.spark.sql.connector.catalog.MetadataColumn
import org.apache.spark.sql.types.{DataType, StringType}

/** A row's fragment id, as text (`SELECT _fragment, * FROM t`). Copy-on-write DELETE, UPDATE and
 * MERGE INTO read it to learn which fragments hold the rows they change. */
object FragmentColumn extends MetadataColumn {
  val Name = "_fragment"

  override def name(): String = Name

  override def dataType(): DataType = StringType

  override def isNullable: Boolean = false

  override def comment(): String = "id of the Lance fragment holding the row"
}
