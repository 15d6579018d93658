// Spark's own commands in a session catalog that is lancepart's (PartitionedSessionCatalog): Spark
// runs SHOW TABLES and CREATE TABLE of its own formats over its own catalog, as for any
// CatalogExtension, without asking the catalog about lance tables. A planner strategy lists the
// catalog's tables for SHOW TABLES; a check refuses a table or view of Spark's named as a lance table.
package lancepart.spark.extensions

import lancepart.spark.PartitionedSessionCatalog
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.analysis.{PersistedView, TableAlreadyExistsException}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connector.catalog.Identifier
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.command.{
  AlterTableRenameCommand, CreateDataSourceTableAsSelectCommand, CreateDataSourceTableCommand, CreateTableCommand,
  CreateTableLikeCommand, CreateViewCommand, ShowTablesCommand
}
import org.apache.spark.sql.execution.datasources.v2.ShowTablesExec

object SessionCatalogCommands {

  /** The session catalog, when it is lancepart's. */
  def catalog(session: SparkSession): Option[PartitionedSessionCatalog] =
    session.sessionState.catalogManager.catalog("spark_catalog") match {
      case c: PartitionedSessionCatalog => Some(c)
      case _ => None
    }
}

/** SHOW TABLES [IN db] [LIKE pattern] as for a catalog of any other kind: Spark's tables and the
 * lance tables ([[PartitionedSessionCatalog.listTables]]). */
object ShowSessionTables extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case ShowTablesCommand(Some(database), pattern, output, false, None) =>
      SessionCatalogCommands.catalog(SparkSession.active).map(ShowTablesExec(output, _, Seq(database), pattern)).toSeq
    case _ => Nil
  }
}

/** Refuses Spark's commands that give a table or view of Spark's a name a lance table has (CREATE
 * TABLE of a format of Spark's, AS SELECT, LIKE; CREATE VIEW; RENAME TO): Spark's table or view
 * would hide the lance table. IF NOT EXISTS is refused too, since a check cannot turn the command
 * into nothing. */
case class SessionTableNames(session: SparkSession) extends (LogicalPlan => Unit) {
  override def apply(plan: LogicalPlan): Unit = {
    val created = plan match {
      case c: CreateDataSourceTableCommand => Some(c.table.identifier)
      case c: CreateDataSourceTableAsSelectCommand => Some(c.table.identifier)
      case c: CreateTableCommand => Some(c.table.identifier)
      case c: CreateTableLikeCommand => Some(c.targetTable)
      case c: CreateViewCommand if c.viewType == PersistedView => Some(c.name)
      case c: AlterTableRenameCommand => Some(c.newName.copy(database = c.newName.database.orElse(c.oldName.database)))
      case _ => None
    }
    for (name <- created; catalog <- SessionCatalogCommands.catalog(session)) {
      val ident = identifier(name)
      if (catalog.isLanceTable(ident)) throw new TableAlreadyExistsException(ident)
    }
  }

  private def identifier(name: TableIdentifier): Identifier =
    Identifier.of(Array(name.database.getOrElse(session.catalog.currentDatabase)), name.table)
}
