// Executor side of a read: one LeafReader per input partition (a partition table), columnar only.
package lancepart.spark.read

import lancepart.lance.LanceAccess
import lancepart.spec.SchemaField
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.vectorized.ColumnarBatch

/** `columns` are the namespace columns to read, in the scan's order, each with the type the scan
 * reads (Spark may have pruned nested fields). */
class LeafReaderFactory(columns: Seq[SchemaField], filters: Seq[LeafFilter], lance: LanceAccess)
    extends PartitionReaderFactory {
  override def supportColumnarReads(partition: InputPartition): Boolean = true

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    throw new UnsupportedOperationException("partition tables are read as columnar batches")

  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] =
    new LeafReader(partition.asInstanceOf[LeafPartition], columns, filters, lance)
}
