// CALL <catalog>.system.describe_namespace(table => 'ns.t', path => array('v1', '<name>')): the
// runtime properties of a namespace inside the table (spec: Runtime Namespace Properties, Appendix E).
package lancepart.spark.procedures

import lancepart.manifest.{JsonValues, ManifestQuery, Naming}
import lancepart.spark.PartitionedCatalog
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData
import lancepart.spark.line.{parameter, ProcedureParameter}
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

class DescribeNamespace(catalog: PartitionedCatalog) extends BaseProcedure(catalog, DescribeNamespace.ResultSchema) {
  override def name(): String = DescribeNamespace.Name

  override protected def changes: Boolean = false

  override def description(): String =
    "The runtime properties of a namespace of the table: path array('v1') gives partition_spec, " +
      "array('v1', '<name>', ...) gives partition.<field_id> of that level."

  override def parameters(): Array[ProcedureParameter] = Array(
    parameter("table", StringType),
    parameter("path", ArrayType(StringType, containsNull = false)))

  override def call(input: InternalRow): java.util.Iterator[Scan] = {
    val table = partitionedTable(input, 0)
    val path = stringsArgument(input, 1)
    val shown = path.mkString("[", ", ", "]")
    val objectId = Naming.objectId(path)
    val spec = Naming.specVersion(objectId).flatMap(v => table.manifest.meta.specs.find(_.id == v))
    val rows = table.store.rows(table.manifest, ManifestQuery.namespaceRow(objectId))
    if (rows.isEmpty || spec.isEmpty)
      throw new IllegalArgumentException(s"table ${table.name()} has no namespace $shown")
    val properties: Map[String, String] =
      if (path.size == 1) Map("partition_spec" -> spec.get.spec.toJson)
      else {
        val field = spec.get.fields.lift(path.size - 2).getOrElse(throw new IllegalArgumentException(
          s"table ${table.name()}: namespace $shown is deeper than ${spec.get.spec.key} has fields"))
        val value = JsonValues.toJson(rows.head.values.getOrElse(field.fieldId, null), field.valueType)
        Map(s"partition.${field.fieldId}" -> (if (value.isNull) null else value.asText()))
      }
    result(InternalRow(ArrayBasedMapData(properties.map { case (k, v) =>
      UTF8String.fromString(k) -> UTF8String.fromString(v)
    })))
  }
}

object DescribeNamespace {
  val Name = "describe_namespace"
  private val ResultSchema =
    StructType(Seq(StructField("properties", MapType(StringType, StringType), nullable = false)))
}
