// What CREATE and ALTER TABLE say about a table besides columns and partitioning: COMMENT and
// custom TBLPROPERTIES are kept as table metadata; LOCATION, USING, EXTERNAL and reserved keys
// are checked.
package lancepart.spark

import lancepart.spark.read.SplitSizing
import lancepart.spark.write.{IsolationLevel, RowLevelMode}
import lancepart.spec.{ArrowJsonType, PartitionSpec, TableMetadata, TransactionMode}
import org.apache.spark.sql.connector.catalog.TableCatalog
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType}

object TableProperties {

  /** The only format `USING` may name. */
  val Provider = "lance"

  /** Keys Spark adds that describe the statement, not the table; they are not stored. */
  private val StatementKeys =
    Set(TableCatalog.PROP_PROVIDER, TableCatalog.PROP_EXTERNAL, TableCatalog.PROP_IS_MANAGED_LOCATION)

  /** CREATE's choice of the Lance file format of the table's datasets, under Lance's own option
   * name; `__manifest` is created in it and keeps it, new partition tables take it from there. */
  val FileVersionKey = "data_storage_version"

  /** The Lance file format versions a table can be created in. */
  val FileVersions: Seq[String] = Seq("2.0", "2.1", "2.2")

  /** Keys of the format's own `__manifest` metadata besides the partition specs. */
  private val Reserved = Set(TableMetadata.SchemaKey)

  /** The user's properties of a new table from CREATE's `properties`: the format's own keys
   * (transaction mode, expression fields, fixed-size lists) are read elsewhere, LOCATION must be
   * the table's own. */
  def atCreate(table: String, tableUri: String, properties: Map[String, String]): Map[String, String] =
    properties.filter { case (key, value) =>
      if (key == TableCatalog.PROP_LOCATION) { checkLocation(table, tableUri, value); false }
      else if (key == TableCatalog.PROP_PROVIDER && !acceptedProvider(value)) throw new IllegalArgumentException(
        s"table $table: USING $value is not supported: tables of this catalog are Lance partitioned namespaces; " +
          s"write USING $Provider or leave USING out")
      else if (key == TableCatalog.PROP_EXTERNAL && value.toBoolean) throw new IllegalArgumentException(
        s"table $table: CREATE EXTERNAL TABLE is not supported: every table of this catalog is managed " +
          "(DROP TABLE deletes its data); leave EXTERNAL out")
      else !StatementKeys(key) && key != TransactionMode.Key && key != DdlPartitioning.ExpressionsProperty &&
      key != FileVersionKey && !key.startsWith(FixedSizeLists.Prefix) && {
        checkSettable(table, key)
        checkValue(table, key, value)
        true
      }
    }

  /** lance-core's default Lance file format, which a table created without [[FileVersionKey]] and
   * without MAP columns gets. */
  val DefaultFileVersion = "2.1"

  /** The Lance file format of a new table of `columns`: the one CREATE asks for (refused unless a
   * version in [[FileVersions]]), else 2.2 when a column holds a MAP (Lance stores maps only from
   * 2.2 on), else lance-core's default. */
  def fileVersion(table: String, properties: Map[String, String], columns: Seq[DataType]): String =
    properties.get(FileVersionKey).map { v =>
      if (FileVersions.contains(v)) v
      else throw new IllegalArgumentException(s"table $table: $FileVersionKey '$v' is not a Lance file format " +
        s"version; expected one of ${FileVersions.mkString(", ")}")
    }.getOrElse {
      if (columns.exists(holdsMap)) ArrowJsonType.MapFileVersion else DefaultFileVersion
    }

  private def holdsMap(t: DataType): Boolean = t match {
    case _: MapType => true
    case ArrayType(element, _) => holdsMap(element)
    case StructType(fields) => fields.exists(f => holdsMap(f.dataType))
    case _ => false
  }

  /** `lance`, or the session's default source, which Spark names when a statement names none
   * (`saveAsTable`, CREATE TABLE without USING) and so cannot mean another format. */
  private def acceptedProvider(provider: String): Boolean =
    provider.equalsIgnoreCase(Provider) || provider.equalsIgnoreCase(SQLConf.get.defaultDataSourceName)

  /** Refuses `key` when it cannot be a user property of `table`, saying why. */
  def checkSettable(table: String, key: String): Unit = {
    val reason =
      if (Reserved(key) || key.startsWith(PartitionSpec.KeyPrefix))
        Some("it is reserved for the table's format metadata")
      else if (key == DdlPartitioning.ExpressionsProperty) Some(
        s"expression partition fields are set at CREATE TABLE; later specs come from ${PartitionedCatalog.FunctionNamespace}.evolve_partition_spec")
      else if (StatementKeys(key)) Some("it is set by Spark for CREATE TABLE and is not stored")
      else if (key == FileVersionKey) Some("the Lance file format of a table's datasets is chosen at CREATE TABLE")
      else if (key.startsWith(FixedSizeLists.Prefix)) Some("a column's type is chosen at CREATE TABLE")
      else None
    reason.foreach(r => throw new IllegalArgumentException(s"table $table: property '$key' cannot be set: $r"))
  }

  /** Refuses a value that a property lancepart reads cannot take. */
  def checkValue(table: String, key: String, value: String): Unit =
    if (SplitSizing.Properties(key)) SplitSizing.bytes(table, key, value)
    else if (IsolationLevel.Properties(key)) IsolationLevel.parse(table, key, value)
    else if (RowLevelMode.Properties(key)) RowLevelMode.parse(table, key, value)

  /** A LOCATION is accepted only when it is where the catalog keeps the table. */
  def checkLocation(table: String, tableUri: String, location: String): Unit = {
    def plain(uri: String) = uri.stripPrefix("file://").stripPrefix("file:").stripSuffix("/")
    if (plain(location) != plain(tableUri)) throw new IllegalArgumentException(
      s"table $table: LOCATION '$location' is not supported: tables of this catalog live at " +
        s"<root>/<namespace>/<table>, here $tableUri")
  }
}
