// CALL <catalog>.system.evolve_partition_spec(table => 'ns.t', fields => array('years(ts)', 'country'))
// adds the next partition spec version (spec: Partition Evolution) and returns its id and JSON.
package lancepart.spark.procedures

import lancepart.spark.{DdlPartitioning, PartitionedCatalog}
import org.apache.spark.sql.catalyst.InternalRow
import lancepart.spark.line.{parameter, ProcedureParameter}
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

class EvolvePartitionSpec(catalog: PartitionedCatalog)
    extends BaseProcedure(catalog, EvolvePartitionSpec.ResultSchema) {
  override def name(): String = EvolvePartitionSpec.Name

  override def description(): String =
    "Adds a partition spec version. fields: PARTITIONED BY items ('col', 'years(ts)', 'bucket(16, id)', " +
      "'truncate(4, s)') or expression fields as JSON objects."

  override def parameters(): Array[ProcedureParameter] = Array(
    parameter("table", StringType),
    parameter("fields", ArrayType(StringType, containsNull = false)))

  override def call(input: InternalRow): java.util.Iterator[Scan] = {
    val table = catalog.evolvePartitionSpec(tableArgument(input, 0), DdlPartitioning.items(stringsArgument(input, 1)))
    val spec = table.manifest.meta.currentSpec.spec
    result(InternalRow(spec.id, UTF8String.fromString(spec.toJson)))
  }
}

object EvolvePartitionSpec {
  val Name = "evolve_partition_spec"
  private val ResultSchema =
    StructType(Seq(
      StructField("spec_id", IntegerType, nullable = false),
      StructField("partition_spec", StringType, nullable = false)))
}
