// CALL <catalog>.system.rewrite_data_files(table => 'ns.t', where => 'day >= DATE ...', options => map(...))
// compacts the partition tables that may hold rows matching `where` (see [[Compact]]).
package lancepart.spark.procedures

import lancepart.maintenance.Compact
import lancepart.spark.PartitionedCatalog
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types._

class RewriteDataFiles(catalog: PartitionedCatalog) extends BaseProcedure(catalog) {
  override def name(): String = RewriteDataFiles.Name

  override def description(): String =
    "Compacts partition tables (Lance compaction: small fragments merged, deleted rows dropped) in one " +
      "transaction. where: a SQL condition selecting partitions; options: Lance compaction options."

  override def parameters(): Array[ProcedureParameter] = Array(
    ProcedureParameter.in("table", StringType).build(),
    ProcedureParameter.in("where", StringType).defaultValue("NULL").build(),
    ProcedureParameter.in("options", MapType(StringType, StringType)).defaultValue("map()").build()
  )

  override def call(input: InternalRow): java.util.Iterator[Scan] = {
    val table = tableName(input, 0)
    val where = Option.unless(input.isNullAt(1))(input.getUTF8String(1).toString)
    val done = Compact.run(SparkSession.active, table, where, stringMapArgument(input, 2))
    result(
      RewriteDataFiles.ResultSchema,
      InternalRow(done.rewrittenDataFiles, done.addedDataFiles, done.rewrittenTables))
  }
}

object RewriteDataFiles {
  val Name = "rewrite_data_files"
  private val ResultSchema = StructType(Seq(
    StructField("rewritten_data_files_count", LongType, nullable = false),
    StructField("added_data_files_count", LongType, nullable = false),
    StructField("rewritten_partition_tables_count", IntegerType, nullable = false)
  ))
}
