// The command ALTER TABLE ... CREATE / REPLACE / DROP TAG | BRANCH runs on a lancepart table
// (TableTags, TableBranches).
package lancepart.spark.extensions

import lancepart.spark.{PartitionedCatalog, TableBranches, TableTags}
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException
import org.apache.spark.sql.connector.catalog.Identifier
import org.apache.spark.sql.execution.command.LeafRunnableCommand

case class AlterRef(catalog: PartitionedCatalog, ident: Identifier, change: RefChange) extends LeafRunnableCommand {

  override def run(sparkSession: SparkSession): Seq[Row] = {
    val table =
      try catalog.loadTable(ident)
      catch {
        // named with its catalog, as Spark's own ALTER TABLE names a missing table
        case _: NoSuchTableException =>
          throw new NoSuchTableException(catalog.name() +: ident.namespace().toSeq :+ ident.name())
      }
    change match {
      case RefChange.Create(false, name, version, maxAge, existing) =>
        TableTags.create(table, name, version, maxAge, existing)
      case RefChange.Create(true, name, version, maxAge, existing) =>
        TableBranches.create(table, name, version, maxAge, existing)
      case RefChange.Drop(false, name, ifExists) => TableTags.drop(table, name, ifExists)
      case RefChange.Drop(true, name, ifExists) => TableBranches.drop(table, name, ifExists)
    }
    Seq.empty
  }
}
