// CALL <catalog>.system.expire_snapshots(table => 'ns.t', older_than => TIMESTAMP '...', retain_last => 1)
// removes old manifest versions and the files only they used (see [[lancepart.maintenance.ExpireSnapshots]]).
package lancepart.spark.procedures

import lancepart.maintenance
import lancepart.maintenance.PlainMaintenance
import lancepart.spark.PartitionedCatalog
import lancepart.spark.plain.PlainTable
import org.apache.spark.sql.catalyst.InternalRow
import lancepart.spark.line.{parameter, ProcedureParameter}
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types._

class ExpireSnapshots(catalog: PartitionedCatalog) extends BaseProcedure(catalog, ExpireSnapshots.ResultSchema) {
  override def name(): String = ExpireSnapshots.Name

  override def description(): String =
    "Removes manifest versions committed before older_than (default: 5 days ago), keeping the newest " +
      "retain_last (default 1), and the partition table files only they used."

  override def parameters(): Array[ProcedureParameter] = Array(
    parameter("table", StringType),
    parameter("older_than", TimestampType, "current_timestamp() - INTERVAL 5 DAYS"),
    parameter("retain_last", IntegerType, "1")
  )

  override def call(input: InternalRow): java.util.Iterator[Scan] = {
    requireValues(input, 1, 2)
    val done = table(input, 0) match {
      case plain: PlainTable =>
        PlainMaintenance.expire(plain.lance, plain.uri, plain.name(), input.getLong(1), input.getInt(2))
      case _ =>
        val table = partitionedTable(input, 0)
        maintenance.ExpireSnapshots.run(table.store, table.files, input.getLong(1), input.getInt(2))
    }
    result(InternalRow(done.expiredVersions, done.deletedPartitionTables, done.deletedFiles))
  }
}

object ExpireSnapshots {
  val Name = "expire_snapshots"
  private val ResultSchema = StructType(Seq(
    StructField("expired_versions_count", IntegerType, nullable = false),
    StructField("deleted_partition_tables_count", IntegerType, nullable = false),
    StructField("deleted_files_count", LongType, nullable = false)
  ))
}
