// CALL <catalog>.system.fast_forward(table => 'ns.t', branch => 'main', to => 'audit') publishes a
// branch, as Iceberg's fast_forward: main then reads what the branch reads (TableBranches.fastForward).
package lancepart.spark.procedures

import lancepart.spark.{PartitionedCatalog, TableBranches}
import lancepart.spark.line.{parameter, ProcedureParameter}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

class FastForward(catalog: PartitionedCatalog) extends BaseProcedure(catalog, FastForward.ResultSchema) {
  override def name(): String = FastForward.Name

  override def description(): String =
    "Publishes a branch: main reads what the branch reads, when no write to main since the branch was made or " +
      "last published stands in the way (as Iceberg's, main must be an ancestor of the branch)."

  override def parameters(): Array[ProcedureParameter] = Array(
    parameter("table", StringType),
    parameter("branch", StringType),
    parameter("to", StringType))

  override def call(input: InternalRow): java.util.Iterator[Scan] = {
    requireValues(input, 0, 1, 2)
    val branch = input.getUTF8String(1).toString
    val (previous, updated) =
      TableBranches.fastForward(table(input, 0), branch, input.getUTF8String(2).toString)
    result(InternalRow(UTF8String.fromString(branch), previous, updated))
  }
}

object FastForward {
  val Name = "fast_forward"

  // Iceberg's columns; the versions are manifest versions of main
  private val ResultSchema = StructType(Seq(
    StructField("branch_updated", StringType, nullable = false),
    StructField("previous_ref", LongType, nullable = false),
    StructField("updated_ref", LongType, nullable = false)
  ))
}
