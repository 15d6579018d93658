// CALL <catalog>.system.rewrite_data_files(table => 'ns.t', where => 'day >= DATE ...', options => map(...))
// compacts the partition tables a scan with the condition `where` reads (see [[Compaction]]),
// rewriting them on executors.
package lancepart.spark.procedures

import lancepart.lance.LanceAccess
import lancepart.maintenance.{Compaction, CompactionJob, CompactionResult, PlainMaintenance}
import lancepart.spark.PartitionedCatalog
import lancepart.spark.plain.PlainTable
import org.lance.compaction.RewriteResult
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import lancepart.spark.line.{parameter, ProcedureParameter}
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types._

class RewriteDataFiles(catalog: PartitionedCatalog) extends BaseProcedure(catalog, RewriteDataFiles.ResultSchema) {
  override def name(): String = RewriteDataFiles.Name

  override def description(): String =
    "Compacts partition tables (Lance compaction: small fragments merged, deleted rows dropped) in one " +
      "transaction. where: a SQL condition selecting partitions; options: Lance compaction options."

  override def parameters(): Array[ProcedureParameter] = Array(
    parameter("table", StringType),
    parameter("where", StringType, "NULL"),
    parameter("options", MapType(StringType, StringType), "map()")
  )

  override def call(input: InternalRow): java.util.Iterator[Scan] = {
    val spark = SparkSession.active
    val name = tableName(input, 0)
    val settings = Compaction.options(name, stringMapArgument(input, 2))
    val where = if (!input.isNullAt(1)) Some(input.getUTF8String(1).toString) else None
    val done = table(input, 0) match {
      case plain: PlainTable =>
        if (where.isDefined) throw new IllegalArgumentException(
          s"table ${plain.name()} is a plain Lance table, which rewrite_data_files compacts whole; leave out where")
        val jobs = PlainMaintenance.plan(plain.lance, plain.uri, plain.name(), settings)
        PlainMaintenance.commit(plain.lance, plain.uri, execute(spark, plain.lance, jobs).map(_._2))
      case _ =>
        selectedScan(name, where).fold(CompactionResult.Empty) { scan =>
          val table = scan.table
          table.requireWritable(s"run ${RewriteDataFiles.Name}() on")
          val jobs = Compaction.plan(table.store, scan.tablesSelected, settings)
          Compaction.commit(
            table.committer,
            table.manifest,
            scan.tablesSelected,
            execute(spark, table.store.lance, jobs))
        }
    }
    result(InternalRow(done.rewrittenDataFiles, done.addedDataFiles, done.rewrittenTables))
  }

  /** Runs `jobs` on executors, one task each. */
  private def execute(spark: SparkSession, lance: LanceAccess, jobs: Seq[CompactionJob]): Seq[(String, RewriteResult)] =
    if (jobs.isEmpty) Seq.empty
    else spark.sparkContext.parallelize(jobs, jobs.size).map(Compaction.execute(lance, _)).collect().toSeq
}

object RewriteDataFiles {
  val Name = "rewrite_data_files"
  private val ResultSchema = StructType(Seq(
    StructField("rewritten_data_files_count", LongType, nullable = false),
    StructField("added_data_files_count", LongType, nullable = false),
    StructField("rewritten_partition_tables_count", IntegerType, nullable = false)
  ))
}
