// Executor side of a read: scan one partition table with lance-core and hand Arrow batches to Spark.
package lancepart.spark.read

import lancepart.manifest.Lance
import org.apache.arrow.vector.ipc.ArrowReader
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.execution.vectorized.{ColumnVectorUtils, ConstantColumnVector}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.{ArrowColumnVector, ColumnVector, ColumnarBatch}
import org.lance.Dataset
import org.lance.ipc.{LanceScanner, ScanOptions}

import scala.jdk.CollectionConverters._

class LeafReaderFactory(schema: StructType, filters: Seq[LeafFilter], storage: Map[String, String])
    extends PartitionReaderFactory {
  override def supportColumnarReads(partition: InputPartition): Boolean = true

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    throw new UnsupportedOperationException("partition tables are read as columnar batches")

  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] =
    new LeafReader(partition.asInstanceOf[LeafPartition], schema, filters, storage)
}

/**
 * Reads a leaf at its pinned version. A namespace column the leaf does not store reads as the
 * partition's identity value when it is an identity source (writers such as Daft's omit those
 * columns), else as NULL. Filters on columns the leaf lacks are left to Spark.
 */
class LeafReader(part: LeafPartition, schema: StructType, filters: Seq[LeafFilter], storage: Map[String, String])
    extends PartitionReader[ColumnarBatch] {
  private val dataset: Dataset = Lance.open(part.uri, storage, part.readVersion)
  private val present: Set[String] = dataset.getSchema.getFields.asScala.map(_.getName).toSet
  private val stored = schema.fieldNames.filter(present).toSeq
  private val scanner: LanceScanner = {
    val applicable = filters.filter(_.columns.forall(present)).map(f => s"(${f.sql})")
    val options = new ScanOptions.Builder().columns(stored.asJava).batchSize(LeafReader.BatchRows)
    if (applicable.nonEmpty) options.filter(applicable.mkString(" AND "))
    if (stored.isEmpty) options.withRowId(true)
    dataset.newScan(options.build())
  }
  private val reader: ArrowReader = scanner.scanBatches()
  private var batch: ColumnarBatch = _

  override def next(): Boolean = {
    if (!reader.loadNextBatch()) return false
    val root = reader.getVectorSchemaRoot
    val rows = root.getRowCount
    val columns: Array[ColumnVector] = schema.fields.map { f =>
      if (present(f.name)) new ArrowColumnVector(root.getVector(f.name))
      else {
        val constant = new ConstantColumnVector(rows, f.dataType)
        ColumnVectorUtils.populate(constant, InternalRow(part.identityValues.getOrElse(f.name, null)), 0)
        constant
      }
    }
    batch = new ColumnarBatch(columns, rows)
    true
  }

  override def get(): ColumnarBatch = batch

  override def close(): Unit = {
    reader.close()
    scanner.close()
    dataset.close()
  }
}

object LeafReader {
  val BatchRows = 8192L
}
