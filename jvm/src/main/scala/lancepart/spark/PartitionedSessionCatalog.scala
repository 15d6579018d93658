// The session catalog: `spark.sql.catalog.spark_catalog=lancepart.spark.PartitionedSessionCatalog`
// with the options of a PartitionedCatalog. Tables created USING lance are lancepart's, kept under
// the root as a PartitionedCatalog keeps them; every other table, and every namespace, is Spark's
// own session catalog's (the delegate), so both kinds are read and joined in one statement.
package lancepart.spark

import java.util

import org.apache.spark.sql.catalyst.analysis.{
  NoSuchFunctionException, NoSuchNamespaceException, NoSuchTableException, TableAlreadyExistsException
}
import org.apache.spark.sql.connector.catalog._
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * Spark runs its own commands on its own tables without asking this catalog (CREATE TABLE of its
 * formats, DROP TABLE of its tables, DROP DATABASE), so a name means Spark's table where Spark has
 * one and lancepart's otherwise: what those commands act on is what a query reads. Namespaces are
 * Spark's databases (one part); lance table `db.t` lives at `<root>/db/t`, as in a PartitionedCatalog
 * over the same root, whose directory `<root>/db` is made with the first lance table of `db`.
 */
class PartitionedSessionCatalog extends DelegatingCatalogExtension with StagingTableCatalog with StructTypeForms {
  private var lance: PartitionedCatalog = _

  override def initialize(name: String, options: CaseInsensitiveStringMap): Unit = {
    lance = new PartitionedCatalog
    lance.initialize(name, options)
  }

  private def spark: TableCatalog = delegate.asInstanceOf[TableCatalog]

  /** lancepart's, not Spark's catalog's: that one takes column DEFAULTs, which lance tables do not
   * keep (Spark's commands on its own tables do not ask). */
  override def capabilities(): util.Set[TableCatalogCapability] = lance.capabilities()

  // ---- tables: Spark's, else lancepart's ----

  override def loadTable(ident: Identifier): Table = load(ident)(_.loadTable(ident))

  override def loadTable(ident: Identifier, version: String): Table = load(ident)(_.loadTable(ident, version))

  override def loadTable(ident: Identifier, timestamp: Long): Table = load(ident)(_.loadTable(ident, timestamp))

  /** `in` Spark's catalog, or lancepart's when Spark has no table `ident`. Spark's catalog holds
   * names of one namespace part only; a longer one (`db.t.partitions`) can only be lancepart's. */
  private def load(ident: Identifier)(in: TableCatalog => Table): Table =
    if (ident.namespace().length != 1) in(lance)
    else {
      try in(spark)
      catch { case _: NoSuchTableException => in(lance) }
    }

  private def sparkHas(ident: Identifier): Boolean = ident.namespace().length == 1 && spark.tableExists(ident)

  /** The catalog whose table `ident` names. */
  private def holding(ident: Identifier): TableCatalog = if (sparkHas(ident)) spark else lance

  override def tableExists(ident: Identifier): Boolean = sparkHas(ident) || lance.tableExists(ident)

  /** Whether lancepart has table `ident` (which a table of Spark's of that name would hide). */
  def isLanceTable(ident: Identifier): Boolean = lance.tableExists(ident)

  /** Spark's tables, then lancepart's that no table of Spark's hides. */
  override def listTables(namespace: Array[String]): Array[Identifier] = {
    val lances = if (lance.namespaceExists(namespace)) lance.listTables(namespace) else Array.empty[Identifier]
    super.listTables(namespace) ++ lances.filterNot(sparkHas)
  }

  override def alterTable(ident: Identifier, changes: TableChange*): Table =
    holding(ident).alterTable(ident, changes: _*)

  override def dropTable(ident: Identifier): Boolean = holding(ident).dropTable(ident)

  override def purgeTable(ident: Identifier): Boolean = holding(ident).purgeTable(ident)

  override def renameTable(oldIdent: Identifier, newIdent: Identifier): Unit =
    holding(oldIdent).renameTable(oldIdent, newIdent)

  // ---- CREATE, CTAS, REPLACE: USING lance is lancepart's, other providers Spark's ----

  override def createTable(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]): Table =
    if (isLance(properties)) {
      prepareLance(ident)
      lance.createTable(ident, columns, partitions, properties)
    } else if (lance.tableExists(ident)) throw new TableAlreadyExistsException(ident)
    else super.createTable(ident, columns, partitions, properties)

  override def stageCreate(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = {
    requireLance(ident, properties, "CREATE TABLE AS SELECT")
    prepareLance(ident)
    lance.stageCreate(ident, columns, partitions, properties)
  }

  override def stageReplace(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = {
    requireLance(ident, properties, "REPLACE TABLE")
    requireNotSparks(ident)
    lance.stageReplace(ident, columns, partitions, properties)
  }

  override def stageCreateOrReplace(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = {
    requireLance(ident, properties, "CREATE OR REPLACE TABLE")
    requireNotSparks(ident)
    if (!lance.tableExists(ident)) prepareLance(ident)
    lance.stageCreateOrReplace(ident, columns, partitions, properties)
  }

  private def isLance(properties: util.Map[String, String]): Boolean =
    Option(properties.get(TableCatalog.PROP_PROVIDER)).exists(_.equalsIgnoreCase(TableProperties.Provider))

  /** Spark's catalog stages no tables; a statement that stages one is lancepart's. */
  private def requireLance(ident: Identifier, properties: util.Map[String, String], statement: String): Unit =
    if (!isLance(properties)) throw new UnsupportedOperationException(
      s"table ${name()}.$ident: $statement " +
        Option(properties.get(TableCatalog.PROP_PROVIDER)).fold("without USING")(p => s"USING $p") +
        s" is not supported by catalog ${name()} (${getClass.getName}), which makes lance tables this way only")

  private def requireNotSparks(ident: Identifier): Unit =
    if (sparkHas(ident)) throw new UnsupportedOperationException(
      s"table ${name()}.$ident is a table of Spark's own catalog; REPLACE ... USING ${TableProperties.Provider} " +
        "cannot make it a lance table: DROP it first")

  /** A new lance table takes a name no table of Spark's has, in a database of Spark's; the
   * database's directory under the root is made with its first lance table. */
  private def prepareLance(ident: Identifier): Unit = {
    if (sparkHas(ident)) throw new TableAlreadyExistsException(ident)
    if (!namespaceExists(ident.namespace())) throw new NoSuchNamespaceException(ident.namespace())
    if (!lance.namespaceExists(ident.namespace())) lance.createNamespace(ident.namespace(), util.Collections.emptyMap())
  }

  // ---- functions: lancepart's partition functions, which writes and scans of lance tables name ----

  override def loadFunction(ident: Identifier): UnboundFunction =
    try lance.loadFunction(ident)
    catch { case _: NoSuchFunctionException => super.loadFunction(ident) }

  override def functionExists(ident: Identifier): Boolean = lance.functionExists(ident) || super.functionExists(ident)
}
