// CALL <catalog>.system.vacuum(table => 'ns.t', older_than => TIMESTAMP '...') removes what failed
// writes left behind (see [[lancepart.maintenance.Vacuum]]).
package lancepart.spark.procedures

import lancepart.maintenance
import lancepart.maintenance.Progress
import lancepart.spark.PartitionedCatalog
import org.apache.spark.sql.catalyst.InternalRow
import lancepart.spark.line.{parameter, ProcedureParameter}
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types._

class Vacuum(catalog: PartitionedCatalog) extends BaseProcedure(catalog, Vacuum.ResultSchema) {
  override def name(): String = Vacuum.Name

  override def description(): String =
    "Removes the partition table directories and files that no committed manifest version refers to and that " +
      "were last changed before older_than (default: 1 day ago; less than 1 hour ago only with retention_check => " +
      "false)."

  override def parameters(): Array[ProcedureParameter] = Array(
    parameter("table", StringType),
    parameter("older_than", TimestampType, "current_timestamp() - INTERVAL 1 DAY"),
    parameter("retention_check", BooleanType, "true"),
    BaseProcedure.progressParameter
  )

  override def call(input: InternalRow): java.util.Iterator[Scan] = {
    requireValues(input, 1, 2)
    val table = partitionedTable(input, 0)
    val cutoff = input.getLong(1) / 1000
    maintenance.Vacuum.checkRetention(table.name(), cutoff, input.getBoolean(2))
    val done = Progress.tracked(optionalString(input, 3))(maintenance.Vacuum.run(table.store, table.files, cutoff, _))
    result(InternalRow(stringArray(done.directories), stringArray(done.files)))
  }
}

object Vacuum {
  val Name = "vacuum"
  private val ResultSchema = StructType(Seq(
    StructField("removed_directories", ArrayType(StringType, containsNull = false), nullable = false),
    StructField("removed_files", ArrayType(StringType, containsNull = false), nullable = false)
  ))
}
