// Executor side of a read: scan one partition table with lance-core and hand Arrow batches to Spark.
package lancepart.spark.read

import lancepart.manifest.Lance
import lancepart.spark.LeafSchema
import lancepart.spec.{SchemaEvolution, SchemaField}
import org.apache.arrow.vector.types.pojo.Field
import org.apache.arrow.vector.ipc.ArrowReader
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.execution.vectorized.{ColumnVectorUtils, ConstantColumnVector}
import org.apache.spark.sql.lancepart.ArrowBridge
import org.apache.spark.sql.types.DataType
import org.apache.spark.sql.vectorized.{ArrowColumnVector, ColumnVector, ColumnarBatch}
import org.lance.Dataset
import org.lance.ipc.{LanceScanner, ScanOptions}

import scala.jdk.CollectionConverters._

/** `columns` are the namespace columns to read, in the scan's order. */
class LeafReaderFactory(columns: Seq[SchemaField], filters: Seq[LeafFilter], storage: Map[String, String])
    extends PartitionReaderFactory {
  override def supportColumnarReads(partition: InputPartition): Boolean = true

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    throw new UnsupportedOperationException("partition tables are read as columnar batches")

  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] =
    new LeafReader(partition.asInstanceOf[LeafPartition], columns, filters, storage)
}

/**
 * Reads a leaf at its pinned version, following the schema consistency rules: a column is found
 * by its namespace field id (so renames are followed), else by name; a narrower stored type is
 * widened; a namespace column the leaf does not store reads as the partition's identity value
 * when it is an identity source (writers such as Daft's omit those columns), else as NULL;
 * leaf-only columns are ignored. Filters go to Lance only for columns stored under the same
 * name and type.
 */
class LeafReader(part: LeafPartition, columns: Seq[SchemaField], filters: Seq[LeafFilter], storage: Map[String, String])
    extends PartitionReader[ColumnarBatch] {
  private val dataset: Dataset = Lance.open(part.uri, storage, part.readVersion)
  private val stored: Seq[Option[(Field, DataType)]] = columns.map { c =>
    LeafSchema.find(dataset.getSchema, c).map { field =>
      val leafType = ArrowBridge.fromArrowField(field)
      if (!SchemaEvolution.isWidening(leafType, c.dataType)) {
        dataset.close()
        throw new IllegalStateException(s"partition table ${part.uri}: column '${field.getName}' has type " +
          s"${leafType.sql}, which cannot be read as ${c.dataType.sql} (namespace column '${c.name}')")
      }
      (field, leafType)
    }
  }
  private val scanner: LanceScanner = {
    val direct = columns.zip(stored).collect { case (c, Some((f, t))) if f.getName == c.name && t == c.dataType => c.name }.toSet
    val applicable = filters.filter(_.columns.forall(direct)).map(f => s"(${f.sql})")
    val names = stored.flatten.map(_._1.getName).distinct
    val options = new ScanOptions.Builder().columns(names.asJava).batchSize(LeafReader.BatchRows)
    if (applicable.nonEmpty) options.filter(applicable.mkString(" AND "))
    if (names.isEmpty) options.withRowId(true)
    dataset.newScan(options.build())
  }
  private val reader: ArrowReader = scanner.scanBatches()
  private var batch: ColumnarBatch = _

  override def next(): Boolean = {
    if (!reader.loadNextBatch()) return false
    val root = reader.getVectorSchemaRoot
    val rows = root.getRowCount
    val vectors: Array[ColumnVector] = columns.zip(stored).map {
      case (c, Some((field, leafType))) =>
        val vector = new ArrowColumnVector(root.getVector(field.getName))
        if (leafType == c.dataType) vector else new WidenedColumnVector(vector, leafType, c.dataType)
      case (c, None) =>
        val constant = new ConstantColumnVector(rows, c.dataType)
        ColumnVectorUtils.populate(constant, InternalRow(part.identityValues.getOrElse(c.name, null)), 0)
        constant
    }.toArray
    batch = new ColumnarBatch(vectors, rows)
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
