// CALL <catalog>.system.rewrite_manifests(table => 'ns.t') compacts the table's __manifest
// (see [[RewriteManifest]]).
package lancepart.spark.procedures

import lancepart.maintenance.RewriteManifest
import lancepart.spark.PartitionedCatalog
import org.apache.spark.sql.catalyst.InternalRow
import lancepart.spark.line.{parameter, ProcedureParameter}
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types._

class RewriteManifests(catalog: PartitionedCatalog) extends BaseProcedure(catalog, RewriteManifests.ResultSchema) {
  override def name(): String = RewriteManifests.Name

  override def description(): String =
    "Compacts the table's __manifest: its fragments (one per commit) merged, replaced rows dropped."

  override def parameters(): Array[ProcedureParameter] = Array(parameter("table", StringType))

  override def call(input: InternalRow): java.util.Iterator[Scan] = {
    val done = RewriteManifest.run(partitionedTable(input, 0).store)
    result(InternalRow(done.rewrittenFragments, done.addedFragments))
  }
}

object RewriteManifests {
  val Name = "rewrite_manifests"
  private val ResultSchema = StructType(Seq(
    StructField("rewritten_fragments_count", LongType, nullable = false),
    StructField("added_fragments_count", LongType, nullable = false)))
}
