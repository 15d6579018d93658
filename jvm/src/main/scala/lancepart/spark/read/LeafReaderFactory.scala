// Executor side of a read: the partition tables of one input partition, read one after the other, columnar only.
package lancepart.spark.read

import lancepart.lance.LanceAccess
import lancepart.spec.SchemaField
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.vectorized.ColumnarBatch

/** `columns` are the namespace columns to read, in the scan's order, each with the type the scan
 * reads (Spark may have pruned nested fields); `namespace` is every column of the namespace schema. */
class LeafReaderFactory(
    columns: Seq[SchemaField],
    namespace: Seq[SchemaField],
    filters: Seq[LeafFilter],
    lance: LanceAccess) extends PartitionReaderFactory {
  override def supportColumnarReads(partition: InputPartition): Boolean = true

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    throw new UnsupportedOperationException("partition tables are read as columnar batches")

  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] =
    new SplitReader(partition.asInstanceOf[LeafSplit].leaves)

  /** Reads `leaves` in order, each opened when the one before is done. */
  private class SplitReader(leaves: Seq[LeafPartition]) extends PartitionReader[ColumnarBatch] {
    private val remaining = leaves.iterator
    private var current: Option[LeafReader] = None

    override def next(): Boolean = {
      while (!current.exists(_.next())) {
        close()
        if (!remaining.hasNext) return false
        current = Some(new LeafReader(remaining.next(), columns, namespace, filters, lance))
      }
      true
    }

    override def get(): ColumnarBatch = current.get.get()

    override def close(): Unit = {
      current.foreach(_.close())
      current = None
    }
  }
}
