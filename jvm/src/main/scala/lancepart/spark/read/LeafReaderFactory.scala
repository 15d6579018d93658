// Executor side of a read: the partition tables of one input partition, read one after the other, columnar only.
package lancepart.spark.read

import lancepart.lance.{LanceAccess, LeafSchema, LeafUnion, UnionMember, UnionSchema}
import lancepart.spec.SchemaField
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector
import org.apache.spark.sql.types.StringType
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.unsafe.types.UTF8String
import org.lance.Dataset

import scala.collection.mutable
import scala.util.control.NonFatal

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
   * partition table it came from (no row addresses, table column or search) and the executor can
   * hold unions (asked there, not where the factory is made). */
  private def unions = !rowAddress && !tableColumn && search.isEmpty && LeafUnion.usable

  /** Reads `leaves` in order, each opened when the one before is done; with [[unions]], a leaf
   * storing every column the scan reads is read together with the leaves after it that share its
   * schema, through one scanner: when at least [[LeafReaderFactory.MinUnion]] leaves are left, at
   * most that many the first time, twice as many each time after, up to
   * [[LeafReaderFactory.MaxUnion]] (a query that stops early has opened few ahead). A leaf whose
   * schema cannot be asked, or a union that cannot be made, is read alone. */
  private class SplitReader(leaves: Seq[LeafPartition]) extends PartitionReader[ColumnarBatch] {
    private val split = leaves.toIndexedSeq

    /** The index in `split` of the first leaf not yet taken. */
    private var taken = 0

    /** Leaves to read before the rest of `split`, in order: one opened while gathering a union that it
     * could not join, or the leaves of a union that could not be made (to read alone). */
    private var pending = List.empty[Pending]
    private var current: Option[(LeafReader, LeafPartition)] = None
    private var union: Option[LeafUnion] = None
    private var unionSize = LeafReaderFactory.MinUnion

    override def next(): Boolean = {
      while (!current.exists(_._1.next())) {
        closeCurrent()
        if (!hasMore) return false
        current = Some(nextReader())
      }
      true
    }

    /** How many leaves are left to read. */
    private def left = pending.size + split.size - taken

    private def hasMore = left > 0

    /** The next leaf, opened; the caller closes it. */
    private def take(): Pending = {
      val p = pending match {
        case first :: rest => pending = rest; first
        case Nil => taken += 1; Pending(split(taken - 1), None, alone = false)
      }
      if (p.dataset.isDefined) p else p.copy(dataset = Some(lance.open(p.leaf.uri, p.leaf.readVersion, p.leaf.branch)))
    }

    /** A reader of the next leaf, or of it and the leaves after it that join a union with it. */
    private def nextReader(): (LeafReader, LeafPartition) = {
      val Pending(leaf, Some(ds), alone) = take()
      val gathered =
        try
          // a union's leaves share the first one's schema, so they store what it stores
          if (alone || !unions || left + 1 < LeafReaderFactory.MinUnion || !storesAll(ds)) None
          else unionMember(leaf, ds).flatMap { case (schema, first) =>
            val others = gather(schema)
            if (others.isEmpty) None else Some(schema -> ((leaf -> first) +: others))
          }
        catch { case e: Throwable => ds.close(); throw e }
      gathered match {
        case None => new LeafReader(leaf, columns, namespace, filters, ds, rowAddress, search) -> leaf
        case Some((schema, members)) =>
          ds.close()
          unionSize = (unionSize * 2).min(LeafReaderFactory.MaxUnion)
          try {
            val u = LeafUnion.create(schema, members.map(_._2), lance)
            union = Some(u)
            // messages name the first leaf: its schema, which they are about, is every member's
            new LeafReader(
              LeafPartition(leaf.uri, None, Map.empty, leaf.objectId),
              columns,
              namespace,
              filters,
              u.dataset,
              rowAddress,
              search) -> leaf
          } catch {
            case NonFatal(e) =>
              LeafReaderFactory.log.warn(
                s"reading ${members.size} partition tables through one scan failed; reading each alone",
                e)
              pending = members.map { case (l, _) => Pending(l, None, alone = true) }.toList ++ pending
              nextReader()
          }
      }
    }

    /** The leaves after the one read next that join its union of `schema` (their datasets closed
     * once their fragments are taken), up to `unionSize` in all; the first that cannot join stays
     * opened, first in `pending`. */
    private def gather(schema: UnionSchema): Seq[(LeafPartition, UnionMember)] = {
      val members = mutable.ArrayBuffer.empty[(LeafPartition, UnionMember)]
      var joining = true
      while (joining && members.size + 1 < unionSize && hasMore) {
        val next = take()
        val ds = next.dataset.get
        (if (next.alone) None else unionMember(next.leaf, ds).filter(_._1 == schema)) match {
          case Some((_, m)) => members += next.leaf -> m; ds.close()
          case None => pending = next :: pending; joining = false
        }
      }
      members.toSeq
    }

    /** `leaf`'s part of a union, when it can have one: on the main branch ([[LeafUnion.member]]);
     * None when its schema cannot be asked (lance-core refuses some Arrow types a scan that does
     * not read them can still skip). */
    private def unionMember(leaf: LeafPartition, ds: Dataset): Option[(UnionSchema, UnionMember)] =
      if (leaf.branch.isDefined) None
      else
        try LeafUnion.member(ds, leaf.uri, leaf.fragments)
        catch { case NonFatal(_) => None }

    /** Whether `ds` stores every column the scan reads: a union has no partition values to fill in. */
    private def storesAll(ds: Dataset): Boolean =
      try {
        val stored = LeafSchema.columns(ds)
        columns.forall(LeafSchema.find(stored, _, namespace).isDefined)
      } catch { case NonFatal(_) => false }

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
        pending.foreach(_.dataset.foreach(_.close()))
        pending = Nil
      }
  }
}

/** A leaf to read, with its dataset once opened; `alone`: not to be read through a union. */
private case class Pending(leaf: LeafPartition, dataset: Option[Dataset], alone: Boolean)

object LeafReaderFactory {
  private val log = org.slf4j.LoggerFactory.getLogger(classOf[LeafReaderFactory])

  /** The fewest partition tables a split must have left to read for a union, and the most its
   * first union reads: a union's commit costs about as much as scanning 16 small tables alone
   * (bench/spikes/UnionScan.java: per table of 10,000 rows, 1.5-1.6 ms in unions of 4, 0.87-0.93 ms
   * in unions of 16 and 0.64-0.68 ms in unions of 64, against 0.99 ms alone). */
  val MinUnion = 16

  /** The most partition tables one union reads (docs/benchmarks.md, "One scan for many partition
   * tables"). */
  val MaxUnion = 256
}
