// What Spark 4 gives the plugin that Spark 3.5 lacks, under the names the shared sources use: stored
// procedures (Spark parses and runs CALL against a ProcedureCatalog) and reducible functions (which
// let storage-partitioned joins meet partitionings of different bucket counts or calendar levels).
// On Spark 3.5 the same names are lancepart's own (scala-spark3.5/lancepart/spark/line).
package lancepart.spark

import org.apache.spark.sql.connector.catalog.{functions, procedures}
import org.apache.spark.sql.types.DataType

package object line {
  type ProcedureCatalog = org.apache.spark.sql.connector.catalog.ProcedureCatalog
  type UnboundProcedure = procedures.UnboundProcedure
  type BoundProcedure = procedures.BoundProcedure
  type ProcedureParameter = procedures.ProcedureParameter
  type ReducibleFunction[I, O] = functions.ReducibleFunction[I, O]
  type Reducer[I, O] = functions.Reducer[I, O]

  /** A required IN parameter `name` of type `dataType`. */
  def parameter(name: String, dataType: DataType): ProcedureParameter =
    procedures.ProcedureParameter.in(name, dataType).build()

  /** An optional IN parameter whose value defaults to SQL expression `default`. */
  def parameter(name: String, dataType: DataType, default: String): ProcedureParameter =
    procedures.ProcedureParameter.in(name, dataType).defaultValue(default).build()
}
