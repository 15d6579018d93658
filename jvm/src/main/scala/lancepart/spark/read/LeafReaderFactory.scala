// Executor side of a read: the partition tables of one input partition, read one after the other, columnar only.
package lancepart.spark.read

import java.util.concurrent.{ExecutionException, ExecutorService, Executors, Future}

import lancepart.lance.LanceAccess
import lancepart.spec.SchemaField
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.vectorized.ColumnarBatch

import scala.util.Try

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

  /** Reads `leaves` in order. While one is read, the next is opened on another thread: opening a
   * Lance dataset and starting its scan is most of the cost of a small partition table. */
  private class SplitReader(leaves: Seq[LeafPartition]) extends PartitionReader[ColumnarBatch] {
    private val remaining = leaves.iterator
    private var current: Option[LeafReader] = None
    private var opening: Option[Future[LeafReader]] = None

    private def openNext(): Option[Future[LeafReader]] = Option.when(remaining.hasNext) {
      val leaf = remaining.next()
      LeafReaderFactory.opener.submit(() => new LeafReader(leaf, columns, namespace, filters, lance))
    }

    override def next(): Boolean = {
      while (!current.exists(_.next())) {
        closeCurrent()
        val next = opening.orElse(openNext())
        opening = None
        if (next.isEmpty) return false
        current = Some(LeafReaderFactory.await(next.get))
        opening = openNext()
      }
      true
    }

    override def get(): ColumnarBatch = current.get.get()

    private def closeCurrent(): Unit = {
      current.foreach(_.close())
      current = None
    }

    override def close(): Unit = {
      closeCurrent()
      // a reader opened ahead is closed once its open ends (an open that failed has nothing to close)
      opening.foreach(f => Try(LeafReaderFactory.await(f)).foreach(_.close()))
      opening = None
    }
  }
}

object LeafReaderFactory {

  /** The threads that open the next partition table of a task's split ahead of reading it: daemon
   * threads, created as tasks need them and ended when idle. */
  private val opener: ExecutorService = Executors.newCachedThreadPool { (r: Runnable) =>
    val t = new Thread(r, "lancepart-leaf-opener")
    t.setDaemon(true)
    t
  }

  /** The reader `f` opens, or the exception its open threw. */
  private def await(f: Future[LeafReader]): LeafReader =
    try f.get()
    catch { case e: ExecutionException => throw e.getCause }
}
