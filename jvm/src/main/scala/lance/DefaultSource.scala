// `USING lance` in Spark's session catalog: Spark hands a CREATE TABLE there to the catalog
// (PartitionedSessionCatalog) only when the provider names a TableProvider, which it finds by a
// registered short name or else by class name, `lance` then `lance.DefaultSource`: this class. No
// short name is registered, so lance-spark's, when it is on the class path too, serves instead.
package lance

import java.util

import org.apache.spark.sql.connector.catalog.{Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/** Names the format only: its tables are read and written by name, not by path or options. */
class DefaultSource extends TableProvider {

  override def inferSchema(options: CaseInsensitiveStringMap): StructType = throw byNameOnly

  override def getTable(
      schema: StructType,
      partitioning: Array[Transform],
      properties: util.Map[String, String]): Table = throw byNameOnly

  private def byNameOnly = new UnsupportedOperationException(
    "format lance (lancepart): tables are read and written by name, in a lancepart catalog " +
      "(lancepart.spark.PartitionedCatalog) or in Spark's session catalog set to " +
      "lancepart.spark.PartitionedSessionCatalog, not by path or options")
}
