// Spark keeps its conversion of a schema to connector columns package-private; this bridge gives a
// catalog's StructType forms of CREATE and REPLACE the columns Spark itself would pass.
package org.apache.spark.sql.lancepart

import org.apache.spark.sql.connector.catalog.{CatalogV2Util, Column}
import org.apache.spark.sql.types.StructType

object V2Columns {

  /** `schema`'s fields as columns, with their comments, defaults and metadata. */
  def apply(schema: StructType): Array[Column] = CatalogV2Util.structTypeToV2Columns(schema)
}
