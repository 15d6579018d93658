// CALL <catalog>.system.describe(table => 'ns.t'): one row with the table's location, versions,
// schema (Spark JSON), every partition spec (spec JSON by id) and every partition field.
package lancepart.spark.procedures

import lancepart.spark.{PartitionedCatalog, PartitionedTable}
import lancepart.spark.plain.PlainTable
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, ArrayData}
import org.apache.spark.sql.connector.catalog.Table
import lancepart.spark.line.{parameter, ProcedureParameter}
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

class Describe(catalog: PartitionedCatalog) extends BaseProcedure(catalog, Describe.ResultSchema) {
  override def name(): String = Describe.Name

  override protected def changes: Boolean = false

  override def description(): String =
    "Describes a table: location, manifest or Lance version, schema, partition specs and partition fields."

  override def parameters(): Array[ProcedureParameter] = Array(parameter("table", StringType))

  override def call(input: InternalRow): java.util.Iterator[Scan] =
    result(
      Describe.row(table(input, 0) match {
        case t @ (_: PlainTable | _: PartitionedTable) => t
        case _ => partitionedTable(input, 0) // a metadata table is refused here, with the reason
      })
    )
}

object Describe {
  val Name = "describe"

  private val FieldType = StructType(Seq(
    StructField("field_id", StringType, nullable = false),
    StructField("source", StringType),
    StructField("transform", StringType, nullable = false),
    StructField("type", StringType, nullable = false)
  ))

  /** The result columns, also those of `create_table`. Plain Lance tables have a `lance_version`,
   * partitioned tables a `manifest_version`, specs and fields. */
  val ResultSchema: StructType = StructType(Seq(
    StructField("name", StringType, nullable = false),
    StructField("location", StringType, nullable = false),
    StructField("partitioned", BooleanType, nullable = false),
    StructField("manifest_version", LongType),
    StructField("lance_version", LongType),
    StructField("schema", StringType, nullable = false),
    StructField("current_spec_id", IntegerType),
    StructField("specs", MapType(IntegerType, StringType, valueContainsNull = false), nullable = false),
    StructField("partition_fields", ArrayType(FieldType, containsNull = false), nullable = false)
  ))

  /** `table` (partitioned or plain) as a row of [[ResultSchema]]. */
  def row(table: Table): InternalRow = table match {
    case plain: PlainTable =>
      InternalRow(
        text(plain.name()),
        text(plain.uri),
        false,
        null,
        plain.lanceVersion,
        text(plain.schema().json),
        null,
        ArrayBasedMapData(Map.empty[Int, UTF8String]),
        ArrayData.toArrayData(Array.empty[InternalRow])
      )
    case partitioned: PartitionedTable =>
      val meta = partitioned.manifest.meta
      InternalRow(
        text(partitioned.name()),
        text(partitioned.store.tableUri),
        true,
        partitioned.manifest.version,
        null,
        text(meta.schema.sparkSchema.json),
        meta.currentSpec.id,
        ArrayBasedMapData(meta.specs.map(s => s.id -> text(s.spec.toJson)).toMap),
        ArrayData.toArrayData(meta.allFields.map(f =>
          InternalRow(
            text(f.fieldId),
            f.source.map(s => text(s.name)).orNull,
            text(f.field.describe),
            text(f.valueType.simpleString))).toArray)
      )
  }

  private def text(s: String): UTF8String = UTF8String.fromString(s)
}
