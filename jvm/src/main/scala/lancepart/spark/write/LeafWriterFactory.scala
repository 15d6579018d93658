// Task side of a write: each row's partition values are computed from its source columns and the
// rows go to a LeafDataWriter.
package lancepart.spark.write

import lancepart.lance.{Lance, LanceAccess}
import lancepart.spec.{TableMetadata, TransactionMode}
import lancepart.txn.{PartitionDirectory, PartitionKey}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.{DataWriter, DataWriterFactory}
import org.apache.spark.unsafe.types.UTF8String

import scala.util.control.NonFatal

/**
 * `properties` are the table's metadata, re-read on the executor (bound specs hold evaluators
 * that are not serializable); `sourceOrdinals` give, per partition field of the current spec,
 * each source's ordinal in the input rows (None for a source the schema lost: NULL);
 * `fileVersion` is the Lance file format of new partition tables.
 */
class LeafWriterFactory(
    table: String,
    properties: Map[String, String],
    tableUri: String,
    sourceOrdinals: Seq[Seq[Option[Int]]],
    directory: PartitionDirectory,
    lance: LanceAccess,
    fileVersion: String) extends DataWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long): DataWriter[InternalRow] = {
    Lance.loadNative()
    val meta = TableMetadata.fromProperties(properties, table)
    val fields = meta.currentSpec.fields
    val fieldIds = fields.map(_.fieldId)
    val keyOf: InternalRow => PartitionKey = row =>
      PartitionKey(
        fieldIds,
        fields.zip(sourceOrdinals).map { case (f, ordinals) =>
          val values = ordinals.zip(f.sources).map {
            case (Some(i), Some(s)) => copy(row.get(i, s.dataType))
            case _ => null
          }.toIndexedSeq
          try f.compute(values)
          catch {
            case NonFatal(e) => throw new IllegalArgumentException(
                s"table $table: partition field '${f.fieldId}' of " +
                  s"${meta.currentSpec.spec.key} fails on a row with ${f.sources.zip(values).map { case (s, v) =>
                      s"${s.fold("?")(_.name)}=$v"
                    }.mkString(", ")}: $e",
                e
              )
          }
        }
      )
    new LeafDataWriter(
      table,
      tableUri,
      meta.schema,
      meta.currentSpec,
      keyOf,
      directory,
      lance,
      fileVersion,
      meta.mode == TransactionMode.Strong)
  }

  private def copy(v: Any): Any = v match {
    case s: UTF8String => s.copy()
    case other => other
  }
}
