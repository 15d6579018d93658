// The command ALTER TABLE ... CREATE / REPLACE / DROP TAG runs on a lancepart table (TableTags).
package lancepart.spark.extensions

import lancepart.spark.{PartitionedCatalog, TableTags}
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException
import org.apache.spark.sql.connector.catalog.Identifier
import org.apache.spark.sql.execution.command.LeafRunnableCommand

case class AlterTag(catalog: PartitionedCatalog, ident: Identifier, change: TagChange) extends LeafRunnableCommand {

  override def run(sparkSession: SparkSession): Seq[Row] = {
    val table =
      try catalog.loadTable(ident)
      catch {
        // named with its catalog, as Spark's own ALTER TABLE names a missing table
        case _: NoSuchTableException =>
          throw new NoSuchTableException(catalog.name() +: ident.namespace().toSeq :+ ident.name())
      }
    change match {
      case TagChange.Create(name, version, maxAge, existing) => TableTags.create(table, name, version, maxAge, existing)
      case TagChange.Drop(name, ifExists) => TableTags.drop(table, name, ifExists)
    }
    Seq.empty
  }
}
