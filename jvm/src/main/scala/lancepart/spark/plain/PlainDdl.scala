// CREATE TABLE, CTAS and REPLACE of plain Lance tables: the dataset's columns and Lance config from
// the statement, created at once or staged for one Lance Overwrite.
package lancepart.spark.plain

import java.util

import lancepart.spark.{TableProperties, Warehouse}
import lancepart.spec.TransactionMode
import org.apache.spark.sql.connector.catalog.{Column, Identifier}

import scala.jdk.CollectionConverters._

/** `table` names a table of the catalog in messages (its qualified name). */
class PlainDdl(warehouse: Warehouse, tables: PlainTables, table: Identifier => String) {

  /** CREATE TABLE: an empty dataset at `ident`'s new location, then its properties. */
  def create(ident: Identifier, columns: Array[Column], properties: util.Map[String, String], fileVersion: String)
      : Unit = {
    val uri = tables.newUri(ident)
    val (schema, config) =
      (plainColumns(ident, columns, properties, fileVersion).schema, this.config(ident, uri, properties))
    warehouse.lance.create(uri, schema, Some(fileVersion))
    PlainTables.setConfig(warehouse.lance, uri, config, atCreate = true)
  }

  /** CTAS: the dataset is created by the commit of the staged table. */
  def stageCreate(
      ident: Identifier,
      columns: Array[Column],
      properties: util.Map[String, String],
      fileVersion: String): StagedPlainTable = {
    val uri = tables.newUri(ident)
    new StagedPlainTable(
      table(ident),
      uri,
      warehouse.lance,
      plainColumns(ident, columns, properties, fileVersion),
      fileVersion,
      config(ident, uri, properties),
      replacing = None,
      () => warehouse.delete(uri)
    )
  }

  /** REPLACE TABLE of `current`, in its Lance file format. */
  def stageReplace(
      ident: Identifier,
      current: PlainTable,
      columns: Array[Column],
      properties: util.Map[String, String]): StagedPlainTable = {
    properties.asScala.get(TableProperties.FileVersionKey).filter(_ != current.fileVersion).foreach { v =>
      throw new IllegalArgumentException(
        s"table ${current.name()}: REPLACE cannot change ${TableProperties.FileVersionKey} from " +
          s"${current.fileVersion} to $v: the dataset keeps its Lance file format")
    }
    new StagedPlainTable(
      current.name(),
      current.uri,
      warehouse.lance,
      plainColumns(ident, columns, properties, current.fileVersion),
      current.fileVersion,
      config(ident, current.uri, properties),
      replacing = Some(current.lanceVersion),
      () => ()
    )
  }

  private def plainColumns(
      ident: Identifier,
      columns: Array[Column],
      properties: util.Map[String, String],
      fileVersion: String): PlainColumns =
    PlainColumns.create(table(ident), columns, properties.asScala.toMap, fileVersion)

  /** The user's properties of a new plain table, kept in its Lance config; the transaction mode
   * is refused (a plain table's writes are single Lance commits). */
  private def config(ident: Identifier, uri: String, properties: util.Map[String, String]): Map[String, String] = {
    if (properties.containsKey(TransactionMode.Key)) throw new IllegalArgumentException(
      s"table ${table(ident)}: ${TransactionMode.Key} is a property of partitioned tables; a plain Lance table " +
        "(no PARTITIONED BY) commits each write as one Lance transaction")
    val config = TableProperties.atCreate(table(ident), uri, properties.asScala.toMap)
    config.foreach { case (k, v) => PlainTable.checkProperty(table(ident), k, v) }
    config
  }
}
