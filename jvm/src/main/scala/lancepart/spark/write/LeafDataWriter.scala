// Task side of a write: rows arrive sorted by partition and get their partition values a batch at a
// time; each run is buffered ([[FragmentBuffer]]) and written as Lance fragments into its leaf's
// directory, in the leaf's own column order.
package lancepart.spark.write

import lancepart.lance.{LanceAccess, LeafAlignment, LeafLayout, LeafSchema}
import lancepart.spark.read.{LeafPartition, LeafReader}
import lancepart.manifest.ManifestStore
import lancepart.spec.{BoundSpec, NamespaceSchema, TableMetadata}
import lancepart.txn.{LeafCopy, LeafTarget, LeafWrite, PartitionDirectory, PartitionKey, TransactionConflict}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.connector.write.{DataWriter, WriterCommitMessage}
import org.lance.FragmentMetadata

import scala.collection.mutable
import scala.jdk.CollectionConverters._

/**
 * Rows arrive in the namespace's readable columns and wait (copied) until [[LeafDataWriter.KeyRows]]
 * rows or [[LeafDataWriter.KeyBytes]] bytes are pending: `keysOf` computes their partition keys at
 * once (an expression field is one lance-core query per batch). A new leaf gets them in that order, in the
 * table's Lance file format `fileVersion` (its `__manifest`'s); an existing
 * leaf is aligned first ([[LeafAlignment]]; in strong mode at its read_version) and rows are
 * rearranged into its column order, with NULL for its leaf-only columns. A leaf that cannot be
 * aligned (a column narrower than the namespace's, or strong mode and a schema change) is
 * rewritten: a replacement leaf gets the old leaf's rows, read as the namespace's columns
 * ([[LeafReader]]: widened, missing columns filled), then the new rows in fragments of their own,
 * which its next version appends (so that a streaming read takes the new rows as an append).
 */
class LeafDataWriter(
    table: String,
    tableUri: String,
    schema: NamespaceSchema,
    spec: BoundSpec,
    keysOf: Seq[InternalRow] => Seq[PartitionKey],
    directory: PartitionDirectory,
    lance: LanceAccess,
    fileVersion: String,
    strong: Boolean,
    branch: Option[String]) extends DataWriter[InternalRow] {
  private val active = schema.fields
  private val newLeafLayout = LeafLayout(active.map(c => LeafSchema.created(schema, c) -> Some(c)), fileVersion)
  private var current: Option[Target] = None
  private val written = mutable.LinkedHashMap.empty[String, (LeafTarget, mutable.ArrayBuffer[FragmentMetadata])]
  private val copies = mutable.Map.empty[String, LeafCopy]
  private val pending = mutable.ArrayBuffer.empty[InternalRow]
  private var pendingBytes = 0L

  /** The partition being written: its leaf and its rows in the leaf's column order. */
  private class Target(val leaf: LeafTarget, layout: LeafLayout)
      extends FragmentBuffer(table, s"partition table ${leaf.location}", layout, active)

  /** The target of partition `key`: its leaf as it is, or a replacement holding its rows (once:
   * the distribution Spark guarantees puts all rows of a partition into one task). */
  private def open(key: PartitionKey): Target = {
    val leaf = directory.resolve(key)
    val pinned = if (strong) leaf.baseVersion else None
    if (leaf.isNew) new Target(leaf, newLeafLayout)
    else LeafAlignment.align(lance, s"$tableUri/${leaf.location}", schema, pinned, () => schemaUnchanged()) match {
      case Some(layout) => new Target(leaf, layout)
      case None if written.contains(leaf.objectId) => new Target(written(leaf.objectId)._1, newLeafLayout)
      case None => rewrite(leaf, pinned)
    }
  }

  /** A replacement of `leaf` holding its rows at version `pinned` (None: its latest), as the
   * namespace's columns, in fragments of their own ([[LeafCopy]]): the new rows come after. */
  private def rewrite(leaf: LeafTarget, pinned: Option[Long]): Target = {
    val uri = s"$tableUri/${leaf.location}"
    val version = pinned.getOrElse(lance.withDataset(uri)(_.version()))
    val t = new Target(directory.replacement(leaf.key), newLeafLayout)
    val old = LeafPartition(uri, Some(version), spec.identityValues(leaf.key.byFieldId), leaf.objectId)
    val reader = new LeafReader(old, active, active, Seq.empty, lance.open(uri, Some(version)))
    try {
      while (reader.next()) reader.get().rowIterator().asScala.foreach(add(t, _))
      flush(t)
    } catch { case e: Throwable => t.close(); throw e }
    finally reader.close()
    val copied = written.getOrElseUpdate(t.leaf.objectId, (t.leaf, mutable.ArrayBuffer.empty))._2
    copies(t.leaf.objectId) = LeafCopy(leaf.location, version, copied.toList) // a copy: the buffer takes the new rows
    copied.clear()
    t
  }

  /** Fails the write when the stored schema is no longer the one it writes (the commit would fail
   * anyway): a writer that planned before a RENAME COLUMN must not rename a leaf back. */
  private def schemaUnchanged(): Unit =
    if (!new ManifestStore(
        tableUri,
        table,
        lance,
        branch).properties().get(TableMetadata.SchemaKey).contains(schema.json)) {
      throw new TransactionConflict(
        s"table $table: its schema changed while this write ran; nothing was committed, run the write again")
    }

  override def write(row: InternalRow): Unit = {
    pending += row.copy()
    pendingBytes += (row match { case u: UnsafeRow => u.getSizeInBytes.toLong; case _ => 0L })
    if (pending.size >= LeafDataWriter.KeyRows || pendingBytes >= LeafDataWriter.KeyBytes) route()
  }

  /** Sends the pending rows to their partitions' targets. */
  private def route(): Unit = {
    keysOf(pending.toSeq).zip(pending).foreach { case (key, row) =>
      if (!current.exists(_.leaf.key == key)) {
        current.foreach(close)
        current = Some(open(key))
      }
      add(current.get, row)
    }
    pending.clear()
    pendingBytes = 0L
  }

  private def add(t: Target, row: InternalRow): Unit = {
    t.write(row)
    if (t.isFull) flush(t)
  }

  private def flush(t: Target): Unit = if (t.rows > 0) {
    val fragments = t.drain(lance.writeFragments(s"$tableUri/${t.leaf.location}", _, t.layout.fileVersion))
    written.getOrElseUpdate(t.leaf.objectId, (t.leaf, mutable.ArrayBuffer.empty))._2 ++= fragments
  }

  private def close(t: Target): Unit =
    try flush(t)
    finally t.close()

  override def commit(): WriterCommitMessage = {
    route()
    current.foreach(close)
    current = None
    LeafWriteMessage(written.values.map { case (t, fragments) =>
      LeafWrite(t, fragments.toSeq, copies.get(t.objectId))
    }.toSeq)
  }

  override def abort(): Unit = ()

  override def close(): Unit = current.foreach(_.close())
}

object LeafDataWriter {

  /** Rows whose partition keys are computed together, at most (and their bytes). */
  val KeyRows = 65536
  val KeyBytes: Long = 32L << 20
}
