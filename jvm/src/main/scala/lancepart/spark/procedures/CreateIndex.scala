// CALL <catalog>.system.create_index(table => 'ns.t', column => 'embedding', type => 'IVF_PQ',
// index_name => 'embedding_idx', options => map('num_partitions', '16'), where => 'tenant = ...') builds
// the index on every partition table a scan with the condition `where` reads, on executors, and
// commits them in one transaction (see [[Indexing]]).
package lancepart.spark.procedures

import lancepart.maintenance.{IndexJob, IndexKind, IndexResult, IndexSpec, Indexing}
import lancepart.spark.PartitionedCatalog
import lancepart.spark.read.{PartitionedScan, VectorQuery}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import lancepart.spark.line.{parameter, ProcedureParameter}
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types._

class CreateIndex(catalog: PartitionedCatalog) extends BaseProcedure(catalog, CreateIndex.ResultSchema) {
  override def name(): String = CreateIndex.Name

  override def description(): String =
    "Builds a Lance index on partition tables in one transaction, replacing their index of that name. " +
      s"type: ${IndexKind.all.map(_.name).mkString(", ")}; index_name: default <column>_idx; options: Lance's options " +
      "of that index type; where: a SQL condition selecting partitions."

  override def parameters(): Array[ProcedureParameter] = Array(
    parameter("table", StringType),
    parameter("column", StringType),
    parameter("type", StringType),
    parameter("index_name", StringType, "NULL"),
    parameter("options", MapType(StringType, StringType), "map()"),
    parameter("where", StringType, "NULL")
  )

  override def call(input: InternalRow): java.util.Iterator[Scan] = {
    val table = partitionedTable(input, 0)
    val columnName = input.getUTF8String(1).toString
    val kind = IndexKind(table.name(), input.getUTF8String(2).toString)
    def fail(message: String): Nothing =
      throw new IllegalArgumentException(s"${CreateIndex.Name} ${kind.name}: $message")
    val column =
      if (kind.isVector) VectorQuery.vectorColumn(table, columnName, fail)._1 else table.column(columnName, fail)
    val spec = IndexSpec(
      table.name(),
      column,
      kind,
      optionalString(input, 3).getOrElse(s"${column.name}_idx"),
      Indexing.settings(table.name(), kind, stringMapArgument(input, 4)))
    val done = selectedScan(tableName(input, 0), optionalString(input, 5)).fold(IndexResult(0, 0, 0L)) { scan =>
      CreateIndex.run(scan, Indexing.plan(scan.table.store, scan.table.manifest, scan.tablesSelected, spec))
    }
    result(InternalRow(done.indexedTables, done.skippedTables, done.indexedRows))
  }
}

object CreateIndex {
  val Name = "create_index"

  /** Builds `jobs` (for the partition tables `scan` selected) on executors, one task each, and
   * commits them in one transaction. */
  def run(scan: PartitionedScan, jobs: Seq[IndexJob]): IndexResult = {
    val read = scan.table
    val lance = read.store.lance
    val built =
      if (jobs.isEmpty) Seq.empty
      else SparkSession.active.sparkContext.parallelize(jobs, jobs.size).map(Indexing.build(lance, _)).collect().toSeq
    Indexing.commit(read.committer, read.manifest, scan.tablesSelected, jobs, built)
  }
  private val ResultSchema = StructType(Seq(
    StructField("indexed_partition_tables_count", IntegerType, nullable = false),
    StructField("skipped_partition_tables_count", IntegerType, nullable = false),
    StructField("indexed_rows_count", LongType, nullable = false)
  ))
}
