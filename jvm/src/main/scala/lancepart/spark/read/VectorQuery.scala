// A nearest-neighbour search each partition table runs in its scan, and the _distance column it adds.
package lancepart.spark.read

import lancepart.lance.Lance
import lancepart.spark.{FixedSizeLists, PartitionedTable}
import lancepart.spec.SchemaField
import org.apache.arrow.vector.types.pojo.ArrowType
import org.apache.spark.sql.types.{FloatType, StructField}
import org.lance.ipc.Query

/** The `k` rows of one partition table nearest to `key` in namespace column `column` (a vector
 * column), by `distance` (a [[lancepart.lance.Lance.Distances]] name): Lance's flat search, or its index
 * where the table has one. */
case class VectorQuery(column: SchemaField, key: Array[Float], k: Int, distance: String) {

  /** The Lance query over the partition table's own column `leafColumn`. */
  def lance(leafColumn: String): Query = new Query.Builder().setColumn(leafColumn).setKey(key).setK(k)
    .setDistanceType(Lance.Distances(distance)).build()
}

object VectorQuery {

  /** The namespace column `column` of `table`, checked to be a vector column (a fixed-size list
   * of floating-point numbers), and its number of elements; `fail` reports what is wrong. */
  def vectorColumn(table: PartitionedTable, column: String, fail: String => Nothing): (SchemaField, Int) = {
    val schema = table.manifest.meta.schema
    val field = schema.byName(column, caseSensitive = false).getOrElse(fail(
      s"table ${table.name()} has no column '$column' (columns: ${schema.fields.map(_.name).mkString(", ")})"))
    schema.arrow(field).getType match {
      case l: ArrowType.FixedSizeList
          if l.getListSize > 0 &&
            schema.arrow(field).getChildren.get(0).getType.isInstanceOf[ArrowType.FloatingPoint] =>
        (field, l.getListSize)
      case _ => fail(s"column '${field.name}' of table ${table.name()} is not a vector column (an ARRAY of FLOAT or " +
          s"DOUBLE declared with TBLPROPERTIES '${FixedSizeLists.Prefix}${field.name}'); " +
          s"it has type ${field.dataType.sql}")
    }
  }

  /** The column holding each row's distance to the query (Lance's own name for it). */
  val DistanceColumn = "_distance"
  val distanceField: StructField = StructField(DistanceColumn, FloatType, nullable = true)
}
