// CALL <catalog>.system.optimize_indexes(table => 'ns.t', index_name => NULL, where => ...) builds
// again, over all their rows, the indexes that leave rows unindexed on the partition tables a scan
// with the condition `where` reads, with the type and options each was built with, on executors,
// in one transaction (see [[Indexing.stale]]).
package lancepart.spark.procedures

import lancepart.maintenance.{IndexResult, Indexing}
import lancepart.spark.PartitionedCatalog
import org.apache.spark.sql.catalyst.InternalRow
import lancepart.spark.line.{parameter, ProcedureParameter}
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types._

class OptimizeIndexes(catalog: PartitionedCatalog) extends BaseProcedure(catalog, OptimizeIndexes.ResultSchema) {
  override def name(): String = OptimizeIndexes.Name

  override def description(): String =
    "Builds again, over all their rows, the Lance indexes of partition tables that leave rows unindexed, with the " +
      "type and options each was built with, in one transaction. index_name: only that index; where: a SQL " +
      "condition selecting partitions."

  override def parameters(): Array[ProcedureParameter] = Array(
    parameter("table", StringType),
    parameter("index_name", StringType, "NULL"),
    parameter("where", StringType, "NULL")
  )

  override def call(input: InternalRow): java.util.Iterator[Scan] = {
    val table = partitionedTable(input, 0)
    val index = optionalString(input, 1)
    val where = optionalString(input, 2)
    val done = selectedScan(tableName(input, 0), where).fold(IndexResult(0, 0, 0L)) { scan =>
      val (jobs, named) = Indexing.stale(scan.table.store, scan.table.manifest, scan.tablesSelected, index)
      for (name <- index if !named) noSuchIndex(table.name(), where, name, "nothing was optimized")
      CreateIndex.run(scan, jobs)
    }
    result(InternalRow(done.indexedTables, done.indexedRows))
  }
}

object OptimizeIndexes {
  val Name = "optimize_indexes"
  private val ResultSchema = StructType(Seq(
    StructField("optimized_partition_tables_count", IntegerType, nullable = false),
    StructField("indexed_rows_count", LongType, nullable = false)
  ))
}
