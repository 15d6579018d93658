// The StructType forms of CREATE and the staged statements, for a catalog that implements their
// Column forms: on Spark 3.5 they are abstract (Spark calls the Column forms), on Spark 4
// deprecated defaults.
package lancepart.spark

import java.util

import org.apache.spark.sql.connector.catalog.{Identifier, StagedTable, StagingTableCatalog, Table}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.lancepart.V2Columns
import org.apache.spark.sql.types.StructType

import scala.annotation.nowarn

@nowarn("cat=deprecation") // deprecated on Spark 4.1 and later
trait StructTypeForms extends StagingTableCatalog {

  override def createTable(
      ident: Identifier,
      schema: StructType,
      partitions: Array[Transform],
      properties: util.Map[String, String]): Table =
    createTable(ident, V2Columns(schema), partitions, properties)

  override def stageCreate(
      ident: Identifier,
      schema: StructType,
      partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable =
    stageCreate(ident, V2Columns(schema), partitions, properties)

  override def stageReplace(
      ident: Identifier,
      schema: StructType,
      partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable =
    stageReplace(ident, V2Columns(schema), partitions, properties)

  override def stageCreateOrReplace(
      ident: Identifier,
      schema: StructType,
      partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable =
    stageCreateOrReplace(ident, V2Columns(schema), partitions, properties)
}
