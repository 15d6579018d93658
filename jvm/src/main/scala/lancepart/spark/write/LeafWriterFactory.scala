// Task side of a write: the partition values of a batch of rows are computed from their source
// columns (expression fields by lance-core, one query per batch) and the rows go to a LeafDataWriter.
package lancepart.spark.write

import lancepart.lance.{ExpressionException, Lance, LanceAccess, PartitionValues}
import lancepart.spec.{TableMetadata, TransactionMode}
import lancepart.txn.{PartitionDirectory, PartitionKey}
import org.apache.spark.sql.catalyst.InternalRow
import lancepart.spark.PartitionedTable
import org.apache.spark.sql.connector.write.{DataWriter, DataWriterFactory}
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory
import org.apache.spark.sql.types.StructType

/**
 * `properties` are the table's metadata, re-read on the executor; `sourceOrdinals` give, per partition field of the current spec,
 * each source's ordinal in the input rows (None for a source the schema lost: NULL);
 * `fileVersion` is the Lance file format of new partition tables; `branch` is the `__manifest`
 * branch the write commits to (None: main).
 */
class LeafWriterFactory(
    table: String,
    properties: Map[String, String],
    tableUri: String,
    sourceOrdinals: Seq[Seq[Option[Int]]],
    directory: PartitionDirectory,
    lance: LanceAccess,
    fileVersion: String,
    branch: Option[String]) extends DataWriterFactory with StreamingDataWriterFactory {

  /** A streaming micro-batch's task writes as a batch write's does. */
  override def createWriter(partitionId: Int, taskId: Long, epochId: Long): DataWriter[InternalRow] =
    createWriter(partitionId, taskId)

  override def createWriter(partitionId: Int, taskId: Long): DataWriter[InternalRow] = {
    Lance.loadNative()
    val meta = TableMetadata.fromProperties(properties, table)
    val fields = meta.currentSpec.fields
    val fieldIds = fields.map(_.fieldId)
    val keysOf: Seq[InternalRow] => Seq[PartitionKey] = rows => {
      val values = fields.zip(sourceOrdinals).map { case (f, ordinals) =>
        val inputs = rows.map(row =>
          ordinals.zip(f.sources).map {
            case (Some(i), Some(s)) => row.get(i, s.dataType)
            case _ => null
          }.toIndexedSeq)
        try PartitionValues.of(f, inputs)
        catch {
          case e: ExpressionException => throw new IllegalArgumentException(
              s"table $table: partition field '${f.fieldId}' of ${meta.currentSpec.spec.key} fails" +
                e.row.fold("")(r =>
                  s" on a row with ${f.sources.zip(r).map { case (s, v) => s"${s.fold("?")(_.name)}=$v" }
                      .mkString(", ")}") + s": ${e.getMessage}",
              e
            )
        }
      }
      rows.indices.map(i => PartitionKey(fieldIds, values.map(_(i))))
    }
    new LeafDataWriter(
      table,
      tableUri,
      meta.schema,
      meta.currentSpec,
      keysOf,
      directory,
      lance,
      fileVersion,
      meta.mode == TransactionMode.Strong,
      branch)
  }
}

object LeafWriterFactory {

  /** The factory of tasks writing rows of `input`'s columns into `table`'s partitions of `directory`. */
  def of(table: PartitionedTable, input: StructType, directory: PartitionDirectory): LeafWriterFactory = {
    val meta = table.manifest.meta
    val sourceOrdinals = meta.currentSpec.fields.map(_.sources.map(_.flatMap { s =>
      input.fields.indexWhere(_.name.equalsIgnoreCase(s.name)) match { case -1 => None; case i => Some(i) }
    }))
    new LeafWriterFactory(
      table.name(),
      meta.properties,
      table.store.tableUri,
      sourceOrdinals,
      directory,
      table.store.lance,
      table.manifest.fileVersion,
      table.store.branch)
  }
}
