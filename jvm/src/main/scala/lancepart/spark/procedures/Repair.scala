// CALL <catalog>.system.repair(table => 'ns.t') restores the __manifest columns another client
// dropped (see [[ManifestRepair]]); the table need not load.
package lancepart.spark.procedures

import lancepart.maintenance.{ManifestRepair, Progress}
import lancepart.spark.PartitionedCatalog
import org.apache.spark.sql.catalyst.InternalRow
import lancepart.spark.line.{parameter, ProcedureParameter}
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types._

class Repair(catalog: PartitionedCatalog) extends BaseProcedure(catalog, Repair.ResultSchema) {
  override def name(): String = Repair.Name

  override def description(): String =
    "Restores the partition_field_* and read_version columns of __manifest that another client dropped, from the " +
      "values each row keeps in its metadata."

  override def parameters(): Array[ProcedureParameter] = Array(
    parameter("table", StringType),
    BaseProcedure.progressParameter)

  override def call(input: InternalRow): java.util.Iterator[Scan] = {
    val ident = tableArgument(input, 0)
    val done = Progress.tracked(optionalString(input, 1))(
      ManifestRepair.run(catalog.manifestStore(ident), catalog.tableFiles(ident), _))
    result(InternalRow(
      done.restoredRows.toLong,
      stringArray(done.declaredWithoutValues),
      stringArray(done.unpartitioned)))
  }
}

object Repair {
  val Name = "repair"
  private val ResultSchema = StructType(Seq(
    StructField("restored_rows", LongType, nullable = false),
    StructField("declared_without_values", ArrayType(StringType, containsNull = false), nullable = false),
    StructField("unpartitioned_tables", ArrayType(StringType, containsNull = false), nullable = false)
  ))
}
