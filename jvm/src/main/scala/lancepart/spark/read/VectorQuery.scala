// A nearest-neighbour search each partition table runs in its scan, and the _distance column it adds.
package lancepart.spark.read

import lancepart.spec.SchemaField
import org.apache.spark.sql.types.{FloatType, StructField}
import org.lance.index.DistanceType
import org.lance.ipc.Query

/** The `k` rows of one partition table nearest to `key` in namespace column `column` (a vector
 * column), by `distance` (a [[VectorQuery.Distances]] name): Lance's flat search, or its index
 * where the table has one. */
case class VectorQuery(column: SchemaField, key: Array[Float], k: Int, distance: String) {

  /** The Lance query over the partition table's own column `leafColumn`. */
  def lance(leafColumn: String): Query = new Query.Builder().setColumn(leafColumn).setKey(key).setK(k)
    .setDistanceType(VectorQuery.Distances(distance)).build()
}

object VectorQuery {

  /** Distance names, as Lance's: `l2` is the squared Euclidean distance, `cosine` 1 - cos, `dot` 1 - x·y. */
  val Distances: Map[String, DistanceType] =
    Map("l2" -> DistanceType.L2, "cosine" -> DistanceType.Cosine, "dot" -> DistanceType.Dot)

  /** The column holding each row's distance to the query (Lance's own name for it). */
  val DistanceColumn = "_distance"
  val distanceField: StructField = StructField(DistanceColumn, FloatType, nullable = true)
}
