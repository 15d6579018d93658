// CALL <catalog>.system.rollback_to_version(table => 'ns.t', version => 12) and
// rollback_to_timestamp(table => 'ns.t', timestamp => TIMESTAMP '...') restore a strong-mode
// table as an earlier manifest version recorded it (see [[Rollback]]).
package lancepart.spark.procedures

import lancepart.maintenance.{PlainMaintenance, Rollback, RollbackResult}
import lancepart.manifest.{Manifest, ManifestStore}
import lancepart.spark.PartitionedCatalog
import lancepart.spark.plain.PlainTable
import org.apache.spark.sql.catalyst.InternalRow
import lancepart.spark.line.{parameter, ProcedureParameter}
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types._

/** `to` names the argument that says which version (`version` or `timestamp`) and its type. */
class RollbackToVersion(
    catalog: PartitionedCatalog,
    procedure: String,
    to: StructField,
    rollback: (ManifestStore, Manifest, Long) => RollbackResult,
    plainRollback: (PlainTable, Long) => RollbackResult)
    extends BaseProcedure(catalog, RollbackToVersion.ResultSchema) {
  override def name(): String = procedure

  override def description(): String =
    s"Restores a strong-mode table as the manifest version at ${to.name} recorded it (rows, schema, specs), " +
      s"or a plain Lance table as its Lance version at ${to.name}."

  override def parameters(): Array[ProcedureParameter] = Array(
    parameter("table", StringType),
    parameter(to.name, to.dataType))

  override def call(input: InternalRow): java.util.Iterator[Scan] = {
    val done = table(input, 0) match {
      case plain: PlainTable => plainRollback(plain, input.getLong(1))
      case _ =>
        val table = partitionedTable(input, 0)
        rollback(table.store, table.manifest, input.getLong(1))
    }
    result(InternalRow(done.previousVersion, done.restoredVersion, done.currentVersion))
  }
}

object RollbackToVersion {
  val VersionName = "rollback_to_version"
  val TimestampName = "rollback_to_timestamp"

  def toVersion(catalog: PartitionedCatalog): RollbackToVersion =
    new RollbackToVersion(
      catalog,
      VersionName,
      StructField("version", LongType),
      Rollback.toVersion,
      (t, version) => PlainMaintenance.rollback(t.lance, t.uri, t.name(), version))

  def toTimestamp(catalog: PartitionedCatalog): RollbackToVersion =
    new RollbackToVersion(
      catalog,
      TimestampName,
      StructField("timestamp", TimestampType),
      Rollback.toTimestamp,
      (t, micros) =>
        PlainMaintenance.rollback(
          t.lance,
          t.uri,
          t.name(),
          PlainMaintenance.versionAt(t.lance, t.uri, t.name(), micros, strictly = true))
    )

  private val ResultSchema = StructType(Seq(
    StructField("previous_version", LongType, nullable = false),
    StructField("restored_version", LongType, nullable = false),
    StructField("current_version", LongType, nullable = false)
  ))
}
