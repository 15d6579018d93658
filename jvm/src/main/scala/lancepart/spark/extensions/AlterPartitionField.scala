// The command ALTER TABLE ... ADD / DROP / REPLACE PARTITION FIELD runs: one partition spec
// evolution of a lancepart table.
package lancepart.spark.extensions

import lancepart.spark.PartitionedCatalog
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException
import org.apache.spark.sql.connector.catalog.Identifier
import org.apache.spark.sql.execution.command.LeafRunnableCommand

case class AlterPartitionField(catalog: PartitionedCatalog, ident: Identifier, change: PartitionFieldChange)
    extends LeafRunnableCommand {

  override def run(sparkSession: SparkSession): Seq[Row] = {
    try catalog.evolvePartitionSpecWith(ident, change.fields)
    catch {
      // named with its catalog, as Spark's own ALTER TABLE names a missing table
      case _: NoSuchTableException =>
        throw new NoSuchTableException(catalog.name() +: ident.namespace().toSeq :+ ident.name())
    }
    Seq.empty
  }
}
