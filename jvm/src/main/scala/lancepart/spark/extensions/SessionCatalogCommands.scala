// Spark's own commands in a session catalog that is lancepart's (PartitionedSessionCatalog): Spark
// runs SHOW TABLES and CREATE TABLE of its own formats over its own catalog, as for any
// CatalogExtension, without asking the catalog about lance tables. A planner strategy lists the
// catalog's tables for SHOW TABLES; a check refuses a table or view of Spark's named as a lance table,
// and DROP DATABASE of a database holding lance tables.
package lancepart.spark.extensions

import lancepart.spark.PartitionedSessionCatalog
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.analysis.{PersistedView, ResolvedNamespace, TableAlreadyExistsException}
import org.apache.spark.sql.catalyst.plans.logical.{DropNamespace, LogicalPlan}
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
 * lance tables ([[PartitionedSessionCatalog.listTables]]) of `session`'s catalog. */
case class ShowSessionTables(session: SparkSession) extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case ShowTablesCommand(Some(database), pattern, output, false, None) =>
      SessionCatalogCommands.catalog(session).map(ShowTablesExec(output, _, Seq(database), pattern)).toSeq
    case _ => Nil
  }
}

/** Refuses Spark's commands that give a table or view of Spark's a name a lance table has (CREATE
 * TABLE of a format of Spark's, AS SELECT, LIKE; CREATE VIEW; RENAME TO): Spark's table or view
 * would hide the lance table. IF NOT EXISTS is refused too, since a check cannot turn the command
 * into nothing. Refuses DROP DATABASE (with CASCADE or not) of a database holding lance tables:
 * Spark's catalog drops Spark's tables and deletes the database's directory, and would leave the
 * lance tables under the root without a database. */
case class SessionTableNames(session: SparkSession) extends (LogicalPlan => Unit) {
  override def apply(plan: LogicalPlan): Unit = for (catalog <- SessionCatalogCommands.catalog(session)) {
    for (name <- created(plan)) {
      val ident = identifier(name)
      if (catalog.isLanceTable(ident)) throw new TableAlreadyExistsException(ident)
    }
    for (database <- dropped(plan, catalog)) {
      val tables = catalog.lanceTables(database.toArray).map(_.toString).sorted
      if (tables.nonEmpty) throw new UnsupportedOperationException(
        s"database ${database.mkString(".")} holds lance tables ${tables.mkString(", ")}: " +
          "DROP DATABASE would leave them under the root without a database; DROP TABLE each of them first")
    }
  }

  /** The name a command gives a table or view of Spark's. */
  private def created(plan: LogicalPlan): Option[TableIdentifier] = plan match {
    case c: CreateDataSourceTableCommand => Some(c.table.identifier)
    case c: CreateDataSourceTableAsSelectCommand => Some(c.table.identifier)
    case c: CreateTableCommand => Some(c.table.identifier)
    case c: CreateTableLikeCommand => Some(c.targetTable)
    case c: CreateViewCommand if c.viewType == PersistedView => Some(c.name)
    case c: AlterTableRenameCommand => Some(c.newName.copy(database = c.newName.database.orElse(c.oldName.database)))
    case _ => None
  }

  /** The database DROP DATABASE drops: Spark keeps the command a DropNamespace of the catalog, as
   * for a session catalog of a class of its own, and runs it on Spark's catalog (the delegate). */
  private def dropped(plan: LogicalPlan, catalog: PartitionedSessionCatalog): Option[Seq[String]] = plan match {
    case DropNamespace(r: ResolvedNamespace, _, _) if r.catalog == catalog => Some(r.namespace)
    case _ => None
  }

  private def identifier(name: TableIdentifier): Identifier =
    Identifier.of(Array(name.database.getOrElse(session.catalog.currentDatabase)), name.table)
}
