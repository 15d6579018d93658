// CALL <catalog>.system.evolve_partition_spec(table => 'ns.t', fields => array('years(ts)', 'country'))
// adds the next partition spec version (spec: Partition Evolution) and returns its id and JSON.
package lancepart.spark.procedures

import lancepart.spark.{DdlPartitioning, PartitionedCatalog}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.parser.CatalystSqlParser
import org.apache.spark.sql.connector.catalog.Identifier
import org.apache.spark.sql.connector.catalog.procedures.{BoundProcedure, ProcedureParameter, UnboundProcedure}
import org.apache.spark.sql.connector.read.{LocalScan, Scan}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import scala.jdk.CollectionConverters._

class EvolvePartitionSpec(catalog: PartitionedCatalog) extends UnboundProcedure with BoundProcedure {
  override def name(): String = EvolvePartitionSpec.Name

  override def description(): String =
    "Adds a partition spec version. fields: PARTITIONED BY items ('col', 'years(ts)', 'bucket(16, id)', " +
      "'truncate(4, s)') or expression fields as JSON objects."

  override def bind(inputType: StructType): BoundProcedure = this

  override def parameters(): Array[ProcedureParameter] = Array(
    ProcedureParameter.in("table", StringType).build(),
    ProcedureParameter.in("fields", ArrayType(StringType, containsNull = false)).build())

  override def isDeterministic: Boolean = false

  override def call(input: InternalRow): java.util.Iterator[Scan] = {
    val parts = CatalystSqlParser.parseMultipartIdentifier(input.getUTF8String(0).toString)
    val local = if (parts.size > 1 && parts.head == catalog.name()) parts.tail else parts
    val fields = input.getArray(1).toSeq[UTF8String](StringType).map(_.toString)
    val table = catalog.evolvePartitionSpec(Identifier.of(local.init.toArray, local.last), DdlPartitioning.items(fields))
    val spec = table.manifest.meta.currentSpec.spec
    val result: Scan = new LocalScan {
      override def rows(): Array[InternalRow] = Array(InternalRow(spec.id, UTF8String.fromString(spec.toJson)))
      override def readSchema(): StructType =
        StructType(Seq(StructField("spec_id", IntegerType, nullable = false), StructField("partition_spec", StringType, nullable = false)))
    }
    Iterator.single(result).asJava
  }
}

object EvolvePartitionSpec {
  val Name = "evolve_partition_spec"
}
