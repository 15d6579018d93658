// CALL <catalog>.system.create_table(table => 'ns.t', schema => 'id BIGINT, ts TIMESTAMP',
// partition_by => array('days(ts)', 'bucket(8, id)'), properties => map(...)): CREATE TABLE with
// what SQL DDL cannot say (several fields of one column, expression fields as JSON objects).
package lancepart.spark.procedures

import lancepart.spark.{DdlPartitioning, PartitionedCatalog}
import lancepart.spec.Json
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.Column
import lancepart.spark.line.{parameter, ProcedureParameter}
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types._

import scala.collection.compat._
import scala.jdk.CollectionConverters._

class CreateTable(catalog: PartitionedCatalog) extends BaseProcedure(catalog, Describe.ResultSchema) {
  override def name(): String = CreateTable.Name

  override def description(): String =
    "Creates a partitioned table. schema: DDL ('id BIGINT, d DATE') or Spark StructType JSON; partition_by: " +
      "PARTITIONED BY items (several may use one column) or expression fields as JSON objects; returns describe's row."

  override def parameters(): Array[ProcedureParameter] = Array(
    parameter("table", StringType),
    parameter("schema", StringType),
    parameter("partition_by", ArrayType(StringType, containsNull = false)),
    parameter("properties", MapType(StringType, StringType), "NULL")
  )

  override def call(input: InternalRow): java.util.Iterator[Scan] = {
    val ident = tableArgument(input, 0)
    val schema = CreateTable.schema(input.getUTF8String(1).toString)
    val (transforms, expressions) = DdlPartitioning.items(stringsArgument(input, 2)).partitionMap(identity)
    val stated = if (input.isNullAt(3)) Map.empty[String, String] else stringMapArgument(input, 3)
    val properties = if (expressions.isEmpty) stated
    else stated + (DdlPartitioning.ExpressionsProperty -> expressions.map(Json.write).mkString("[", ",", "]"))
    val columns = schema.fields.map(f => Column.create(f.name, f.dataType, f.nullable))
    result(Describe.row(catalog.createTable(ident, columns, transforms.toArray, properties.asJava)))
  }
}

object CreateTable {
  val Name = "create_table"

  /** `text` as a struct: Spark StructType JSON when it is a JSON object, else DDL. */
  private def schema(text: String): StructType =
    if (text.trim.startsWith("{")) DataType.fromJson(text) match {
      case s: StructType => s
      case other => throw new IllegalArgumentException(s"schema must be a struct, got ${other.sql}")
    }
    else StructType.fromDDL(text)
}
