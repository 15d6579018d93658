// CALL <catalog>.system.progress(id => '...') reads the progress of a repair or vacuum running
// under that progress_id, from another thread or client of the same driver: one row (done, total,
// ended), also once after the operation ended; none when nothing runs under it.
package lancepart.spark.procedures

import lancepart.maintenance.Progress
import lancepart.spark.PartitionedCatalog
import org.apache.spark.sql.catalyst.InternalRow
import lancepart.spark.line.{parameter, ProcedureParameter}
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types._

class ProgressOf(catalog: PartitionedCatalog) extends BaseProcedure(catalog, ProgressOf.ResultSchema) {
  override def name(): String = ProgressOf.Name

  override def description(): String =
    "The steps done and the total of the repair or vacuum running with this progress_id, and whether it ended " +
      "(a row once after it ended; none when no such operation runs)."

  override def parameters(): Array[ProcedureParameter] = Array(parameter("id", StringType))

  override def call(input: InternalRow): java.util.Iterator[Scan] =
    result(Progress.read(input.getUTF8String(0).toString).map(p =>
      InternalRow(p.done(), p.total(), p.hasEnded)).toSeq: _*)
}

object ProgressOf {
  val Name = "progress"
  private val ResultSchema = StructType(Seq(
    StructField("done", LongType, nullable = false),
    StructField("total", LongType, nullable = false),
    StructField("ended", BooleanType, nullable = false)))
}
