// Executor side of a read: the partition tables of one input partition, read one after the other, columnar only.
package lancepart.spark.read

import lancepart.lance.LanceAccess
import lancepart.spec.SchemaField
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector
import org.apache.spark.sql.types.StringType
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.unsafe.types.UTF8String

/** `columns` are the namespace columns to read, in the scan's order, each with the type the scan
 * reads (Spark may have pruned nested fields); `namespace` is every column of the namespace schema;
 * `search`: each table's best rows, with the search's column after the columns;
 * `rowAddress`: [[RowAddressColumn]] follows them; `tableColumn`: [[PartitionTableColumn]] follows those. */
class LeafReaderFactory(
    columns: Seq[SchemaField],
    namespace: Seq[SchemaField],
    filters: Seq[LeafFilter],
    tableColumn: Boolean,
    lance: LanceAccess,
    rowAddress: Boolean = false,
    search: Option[LeafSearch] = None) extends PartitionReaderFactory {
  override def supportColumnarReads(partition: InputPartition): Boolean = true

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    throw new UnsupportedOperationException("partition tables are read as columnar batches")

  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] =
    new SplitReader(partition.asInstanceOf[LeafSplit].leaves)

  /** Reads `leaves` in order, each opened when the one before is done. */
  private class SplitReader(leaves: Seq[LeafPartition]) extends PartitionReader[ColumnarBatch] {
    private val remaining = leaves.iterator
    private var current: Option[(LeafReader, LeafPartition)] = None

    override def next(): Boolean = {
      while (!current.exists(_._1.next())) {
        close()
        if (!remaining.hasNext) return false
        val leaf = remaining.next()
        current = Some(new LeafReader(leaf, columns, namespace, filters, lance, rowAddress, search) -> leaf)
      }
      true
    }

    override def get(): ColumnarBatch = {
      val (reader, leaf) = current.get
      val batch = reader.get()
      if (!tableColumn) batch
      else {
        val id = new ConstantColumnVector(batch.numRows(), StringType)
        id.setUtf8String(UTF8String.fromString(leaf.objectId))
        new LeafBatch((0 until batch.numCols()).map(batch.column).toArray :+ id, batch.numRows())
      }
    }

    override def close(): Unit = {
      current.foreach(_._1.close())
      current = None
    }
  }
}
