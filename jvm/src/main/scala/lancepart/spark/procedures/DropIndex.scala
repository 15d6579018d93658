// CALL <catalog>.system.drop_index(table => 'ns.t', index_name => 'embedding_idx', where => ...)
// drops the index of that name from every partition table a scan with the condition `where`
// reads that has one, in one transaction (see [[Indexing.drop]]).
package lancepart.spark.procedures

import lancepart.maintenance.Indexing
import lancepart.spark.PartitionedCatalog
import org.apache.spark.sql.catalyst.InternalRow
import lancepart.spark.line.{parameter, ProcedureParameter}
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types._

class DropIndex(catalog: PartitionedCatalog) extends BaseProcedure(catalog, DropIndex.ResultSchema) {
  override def name(): String = DropIndex.Name

  override def description(): String =
    "Drops a Lance index from partition tables in one transaction. where: a SQL condition selecting partitions."

  override def parameters(): Array[ProcedureParameter] = Array(
    parameter("table", StringType),
    parameter("index_name", StringType),
    parameter("where", StringType, "NULL")
  )

  override def call(input: InternalRow): java.util.Iterator[Scan] = {
    val table = partitionedTable(input, 0)
    val index = input.getUTF8String(1).toString
    val dropped = selectedScan(tableName(input, 0), optionalString(input, 2)).fold(0) { scan =>
      val read = scan.table
      Indexing.drop(read.store, read.committer, read.manifest, scan.tablesSelected, index)
    }
    if (dropped == 0) noSuchIndex(table.name(), optionalString(input, 2), index, "nothing was dropped")
    result(InternalRow(dropped))
  }
}

object DropIndex {
  val Name = "drop_index"
  private val ResultSchema =
    StructType(Seq(StructField("dropped_partition_tables_count", IntegerType, nullable = false)))
}
