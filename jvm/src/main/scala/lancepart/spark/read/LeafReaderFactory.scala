// Executor side of a read: the partition tables of one input partition, read one after the other, columnar only.
package lancepart.spark.read

import lancepart.lance.{LanceAccess, LeafSchema, LeafUnion}
import lancepart.spec.SchemaField
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector
import org.apache.spark.sql.types.StringType
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.unsafe.types.UTF8String
import org.lance.Dataset

import scala.collection.mutable

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

  /** Whether partition tables may be read through a [[LeafUnion]]: when no row needs to say which
   * partition table it came from (no row addresses, table column or search). */
  private val unions = !rowAddress && !tableColumn && search.isEmpty

  /** Reads `leaves` in order, each opened when the one before is done; with [[unions]], a leaf
   * storing every column the scan reads is read together with the leaves after it that share its
   * schema (at most [[LeafReaderFactory.MaxUnion]]), through one scanner. */
  private class SplitReader(leaves: Seq[LeafPartition]) extends PartitionReader[ColumnarBatch] {
    private val remaining = leaves.iterator

    /** A leaf opened while gathering a union that it could not join: the next one to read. */
    private var held: Option[(LeafPartition, Dataset)] = None
    private var current: Option[(LeafReader, LeafPartition)] = None
    private var union: Option[LeafUnion] = None

    override def next(): Boolean = {
      while (!current.exists(_._1.next())) {
        closeCurrent()
        if (held.isEmpty && !remaining.hasNext) return false
        current = Some(nextReader())
      }
      true
    }

    private def open(leaf: LeafPartition): Dataset = lance.open(leaf.uri, leaf.readVersion, leaf.branch)

    /** A reader of the next leaf, or of it and the leaves after it that join a union with it. */
    private def nextReader(): (LeafReader, LeafPartition) = {
      val (leaf, ds) = held.getOrElse { val l = remaining.next(); l -> open(l) }
      held = None
      def alone = new LeafReader(leaf, columns, namespace, filters, ds, rowAddress, search) -> leaf
      val first =
        try if (unions && storesAll(ds)) member(leaf, ds) else None
        catch { case e: Throwable => ds.close(); throw e }
      first match {
        case None => alone
        case Some((schema, head)) =>
          val members = mutable.ArrayBuffer(head)
          try
            while (held.isEmpty && members.size < LeafReaderFactory.MaxUnion && remaining.hasNext) {
              val next = remaining.next()
              val opened = open(next)
              member(next, opened).filter(_._1 == schema) match {
                case Some((_, m)) => members += m; opened.close()
                case None => held = Some(next -> opened)
              }
            }
          catch { case e: Throwable => ds.close(); throw e }
          if (members.size == 1) alone
          else {
            ds.close()
            val u = LeafUnion.create(schema, members.toSeq, lance)
            union = Some(u)
            new LeafReader(
              LeafPartition(leaf.uri, None, Map.empty, leaf.objectId),
              columns,
              namespace,
              filters,
              u.dataset,
              rowAddress,
              search) -> leaf
          }
      }
    }

    /** `leaf`'s part of a union, when it can have one: on the main branch, see [[LeafUnion.member]]. */
    private def member(leaf: LeafPartition, ds: Dataset) =
      if (leaf.branch.isDefined) None else LeafUnion.member(ds, leaf.uri, leaf.fragments)

    /** Whether `ds` stores every column the scan reads: a union has no partition values to fill in. */
    private def storesAll(ds: Dataset): Boolean = {
      val leaf = LeafSchema.columns(ds)
      columns.forall(LeafSchema.find(leaf, _, namespace).isDefined)
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

    private def closeCurrent(): Unit =
      try current.foreach(_._1.close())
      finally {
        current = None
        try union.foreach(_.close())
        finally union = None
      }

    override def close(): Unit =
      try closeCurrent()
      finally {
        held.foreach(_._2.close())
        held = None
      }
  }
}

object LeafReaderFactory {

  /** The most partition tables one union reads (docs/benchmarks.md, "One scan for many partition
   * tables"). */
  val MaxUnion = 256
}
