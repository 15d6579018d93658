// The session catalog: `spark.sql.catalog.spark_catalog=lancepart.spark.PartitionedSessionCatalog`
// with the options of a PartitionedCatalog. Tables created USING lance are lancepart's, kept under
// the root as a PartitionedCatalog keeps them; every other table, and every namespace, is Spark's
// own session catalog's (the delegate), so both kinds are read and joined in one statement.
package lancepart.spark

import java.util
import java.util.Locale

import org.apache.spark.sql.catalyst.analysis.{
  NoSuchFunctionException, NoSuchNamespaceException, NoSuchTableException, TableAlreadyExistsException
}
import org.apache.spark.sql.connector.catalog._
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * Spark runs its own commands on its own tables without asking this catalog (CREATE TABLE of its
 * formats, DROP TABLE of its tables, DROP DATABASE), so a name means Spark's table where Spark has
 * one and lancepart's otherwise: what those commands act on is what a query reads. Namespaces are
 * Spark's databases (one part); lance table `db.t` lives at `<root>/db/t`, as in a PartitionedCatalog
 * over the same root, whose directory `<root>/db` is made with the first lance table of `db`. Names
 * are lower-cased as Spark's catalog does unless spark.sql.caseSensitive is set ([[normal]]), so a
 * name means the same table in both catalogs.
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

  override def loadTable(ident: Identifier): Table = load(ident)(_.loadTable(_))

  override def loadTable(ident: Identifier, version: String): Table = load(ident)(_.loadTable(_, version))

  override def loadTable(ident: Identifier, timestamp: Long): Table = load(ident)(_.loadTable(_, timestamp))

  /** `in` Spark's catalog, or lancepart's when Spark has no table `ident`. Spark's catalog holds
   * names of one namespace part only; a longer one (`db.t.partitions`) can only be lancepart's. */
  private def load(ident: Identifier)(in: (TableCatalog, Identifier) => Table): Table = {
    val id = normal(ident)
    if (id.namespace().length != 1) in(lance, id)
    else {
      try in(spark, id)
      catch { case _: NoSuchTableException => in(lance, id) }
    }
  }

  /** `ident` as Spark's catalog names it (SessionCatalog.formatDatabaseName and formatTableName):
   * lower case unless spark.sql.caseSensitive is set. Every name is made so before lancepart's
   * catalog sees it, since a lance table's directory has the name's case. */
  private def normal(ident: Identifier): Identifier = Identifier.of(normal(ident.namespace()), format(ident.name()))

  private def normal(namespace: Array[String]): Array[String] = namespace.map(format)

  private def format(name: String): String =
    if (SQLConf.get.caseSensitiveAnalysis) name else name.toLowerCase(Locale.ROOT)

  /** Whether Spark's catalog has table `ident`, a [[normal]] name. */
  private def sparkHas(ident: Identifier): Boolean = ident.namespace().length == 1 && spark.tableExists(ident)

  /** The catalog whose table `ident`, a [[normal]] name, names. */
  private def holding(ident: Identifier): TableCatalog = if (sparkHas(ident)) spark else lance

  override def tableExists(ident: Identifier): Boolean = {
    val id = normal(ident)
    sparkHas(id) || lance.tableExists(id)
  }

  /** Whether lancepart has table `ident` (which a table of Spark's of that name would hide). */
  def isLanceTable(ident: Identifier): Boolean = lance.tableExists(normal(ident))

  /** lancepart's tables in `namespace`, with those a table of Spark's hides. */
  def lanceTables(namespace: Array[String]): Array[Identifier] = {
    val database = normal(namespace)
    if (lance.namespaceExists(database)) lance.listTables(database) else Array.empty
  }

  /** Spark's tables, then lancepart's that no table of Spark's hides. */
  override def listTables(namespace: Array[String]): Array[Identifier] = {
    val sparks = super.listTables(namespace)
    val sparkNames = sparks.map(t => format(t.name())).toSet
    sparks ++ lanceTables(namespace).filterNot(t => sparkNames(format(t.name())))
  }

  override def alterTable(ident: Identifier, changes: TableChange*): Table = {
    val id = normal(ident)
    holding(id).alterTable(id, changes: _*)
  }

  override def dropTable(ident: Identifier): Boolean = {
    val id = normal(ident)
    holding(id).dropTable(id)
  }

  override def purgeTable(ident: Identifier): Boolean = {
    val id = normal(ident)
    holding(id).purgeTable(id)
  }

  override def renameTable(oldIdent: Identifier, newIdent: Identifier): Unit = {
    val id = normal(oldIdent)
    holding(id).renameTable(id, normal(newIdent))
  }

  // ---- CREATE, CTAS, REPLACE: USING lance is lancepart's, other providers Spark's ----

  override def createTable(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]): Table = {
    val id = normal(ident)
    if (isLance(properties)) {
      prepareLance(id)
      lance.createTable(id, columns, partitions, asLance(properties))
    } else if (lance.tableExists(id)) throw new TableAlreadyExistsException(id)
    else super.createTable(id, columns, partitions, properties)
  }

  override def stageCreate(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = {
    val id = normal(ident)
    requireLance(id, properties, "CREATE TABLE AS SELECT")
    prepareLance(id)
    lance.stageCreate(id, columns, partitions, asLance(properties))
  }

  override def stageReplace(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = {
    val id = normal(ident)
    requireLance(id, properties, "REPLACE TABLE")
    requireNotSparks(id)
    lance.stageReplace(id, columns, partitions, asLance(properties))
  }

  override def stageCreateOrReplace(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = {
    val id = normal(ident)
    requireLance(id, properties, "CREATE OR REPLACE TABLE")
    requireNotSparks(id)
    if (!lance.tableExists(id)) prepareLance(id)
    lance.stageCreateOrReplace(id, columns, partitions, asLance(properties))
  }

  /** Whether the provider is lance: `lance`, or the class Spark finds for it (`USING lance.DefaultSource`). */
  private def isLance(properties: util.Map[String, String]): Boolean =
    Option(properties.get(TableCatalog.PROP_PROVIDER)).exists { p =>
      p.equalsIgnoreCase(TableProperties.Provider) || p.equalsIgnoreCase(classOf[_root_.lance.DefaultSource].getName)
    }

  /** The properties of a lance table, its provider named `lance` as lancepart's catalog takes it. */
  private def asLance(properties: util.Map[String, String]): util.Map[String, String] = {
    val named = new util.HashMap[String, String](properties)
    named.put(TableCatalog.PROP_PROVIDER, TableProperties.Provider)
    named
  }

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

  /** A new lance table, `ident` a [[normal]] name, takes a name no table of Spark's has, in a
   * database of Spark's; the database's directory under the root is made with its first lance table. */
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
