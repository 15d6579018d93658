// Task side of a write: each row's partition values are computed from its source columns; rows
// arrive sorted by partition, each run is buffered in Arrow (Spark's ArrowWriter) and written as
// Lance fragments into its leaf's directory, in the leaf's own column order.
package lancepart.spark.write

import lancepart.manifest.Lance
import lancepart.spark.LeafSchema
import lancepart.spec.{NamespaceSchema, SchemaField, TableMetadata, TransactionMode}
import lancepart.txn.{LeafTarget, LeafWrite, PartitionDirectory}
import org.apache.arrow.vector.VectorSchemaRoot
import org.apache.arrow.vector.types.pojo.{Field, Schema}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.{DataWriter, DataWriterFactory, WriterCommitMessage}
import org.apache.spark.sql.execution.arrow.ArrowWriter
import org.apache.spark.sql.lancepart.ArrowBridge
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.lance.{Fragment, FragmentMetadata}

import scala.collection.mutable
import scala.jdk.CollectionConverters._

/**
 * `properties` are the table's metadata, re-read on the executor (bound specs hold evaluators
 * that are not serializable); `sourceOrdinals` give, per partition field of the current spec,
 * each source's ordinal in the input rows (None for a source the schema lost: NULL).
 */
class LeafWriterFactory(
    table: String,
    properties: Map[String, String],
    tableUri: String,
    sourceOrdinals: Seq[Seq[Option[Int]]],
    directory: PartitionDirectory,
    storage: Map[String, String]) extends DataWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long): DataWriter[InternalRow] = {
    Lance.loadNative()
    val meta = TableMetadata.fromProperties(properties, table)
    val fields = meta.currentSpec.fields
    val keyOf: InternalRow => Seq[Any] = row => fields.zip(sourceOrdinals).map { case (f, ordinals) =>
      f.compute(ordinals.zip(f.sources).map {
        case (Some(i), Some(s)) => copy(row.get(i, s.dataType))
        case _ => null
      }.toIndexedSeq)
    }
    new LeafDataWriter(tableUri, meta.schema, keyOf, directory, storage, meta.mode == TransactionMode.Strong)
  }

  private def copy(v: Any): Any = v match {
    case s: UTF8String => s.copy()
    case other => other
  }
}

/**
 * Rows arrive in the namespace's readable columns. A new leaf gets them in that order; an existing
 * leaf is aligned first ([[LeafAlignment]]; in strong mode at its read_version) and rows are
 * rearranged into its column order, with NULL for its leaf-only columns.
 */
class LeafDataWriter(
    tableUri: String,
    schema: NamespaceSchema,
    keyOf: InternalRow => Seq[Any],
    directory: PartitionDirectory,
    storage: Map[String, String],
    strong: Boolean) extends DataWriter[InternalRow] {
  private val active = schema.active
  private var current: Option[Target] = None
  private val written = mutable.LinkedHashMap.empty[String, (LeafTarget, mutable.ArrayBuffer[FragmentMetadata])]

  /** The partition being written: its leaf, its Arrow buffer and how input rows map onto it. */
  private class Target(val key: Seq[Any], val leaf: LeafTarget) {
    private val uri = s"$tableUri/${leaf.location}"
    private val layout: Seq[(Field, Option[SchemaField])] =
      if (leaf.isNew) active.map(c => LeafSchema.tagged(c) -> Some(c))
      else LeafAlignment.align(uri, schema, storage, if (strong) leaf.baseVersion else None)
    private val ordinals: Array[Int] = layout.map(_._2.fold(-1)(c => active.indexOf(c))).toArray
    private val leafTypes: Array[DataType] = layout.map(l => ArrowBridge.fromArrowField(l._1)).toArray
    private val types = active.map(_.dataType).toArray
    private val identity = ordinals.sameElements(active.indices) && leafTypes.sameElements(types)
    val root: VectorSchemaRoot = VectorSchemaRoot.create(new Schema(layout.map(_._1).asJava), Lance.allocator)
    val arrow: ArrowWriter = ArrowWriter.create(root)
    var rows = 0

    def write(row: InternalRow): Unit = {
      arrow.write(if (identity) row else InternalRow.fromSeq(ordinals.indices.map { i =>
        val o = ordinals(i)
        if (o < 0) null else narrow(row.get(o, types(o)), i)
      }))
      rows += 1
    }

    /** A value of a widened namespace column, stored in the leaf's narrower column if it fits. */
    private def narrow(v: Any, i: Int): Any = (v, leafTypes(i)) match {
      case (null, _) => null
      case (x: Long, IntegerType) if x.isValidInt => x.toInt
      case (x: Long, ShortType) if x.isValidShort => x.toShort
      case (x: Long, ByteType) if x.isValidByte => x.toByte
      case (x: Int, ShortType) if x.isValidShort => x.toShort
      case (x: Int, ByteType) if x.isValidByte => x.toByte
      case (x: Short, ByteType) if x.isValidByte => x.toByte
      case (x: Double, FloatType) if x.toFloat.toDouble == x || x.isNaN => x.toFloat
      case (x: Decimal, t: DecimalType) if x.clone().changePrecision(t.precision, t.scale) => Decimal(x.toJavaBigDecimal, t.precision, t.scale)
      case (x, t) if t == types(ordinals(i)) => x
      case (x, t) => throw new IllegalArgumentException(s"partition table $uri stores column '${layout(i)._1.getName}' as " +
        s"${t.sql}; the value $x of the widened namespace column does not fit it, and lance-core cannot widen a column " +
        "in place (its Java API ignores a cast in alterColumns). Rewrite the partition with a dynamic INSERT OVERWRITE " +
        "(spark.sql.sources.partitionOverwriteMode=dynamic) that includes the new rows: it writes a new partition table " +
        "in the namespace's types")
    }
  }

  override def write(row: InternalRow): Unit = {
    val key = keyOf(row)
    if (!current.exists(_.key == key)) {
      current.foreach(close)
      current = Some(new Target(key, directory.resolve(key)))
    }
    val t = current.get
    t.write(row)
    if (t.rows >= LeafDataWriter.MaxRows || t.arrow.sizeInBytes() >= LeafDataWriter.MaxBytes) flush(t)
  }

  private def flush(t: Target): Unit = if (t.rows > 0) {
    t.arrow.finish()
    val fragments = Fragment.write().datasetUri(s"$tableUri/${t.leaf.location}").allocator(Lance.allocator)
      .data(t.root).storageOptions(storage.asJava).execute().asScala
    written.getOrElseUpdate(t.leaf.objectId, (t.leaf, mutable.ArrayBuffer.empty))._2 ++= fragments
    t.arrow.reset()
    t.rows = 0
  }

  private def close(t: Target): Unit = try flush(t) finally t.root.close()

  override def commit(): WriterCommitMessage = {
    current.foreach(close)
    current = None
    LeafWriteMessage(written.values.map { case (t, fragments) =>
      LeafWrite(t.objectId, t.location, t.isNew, t.baseVersion, t.values, t.newNamespaces, fragments.toSeq, t.replaces)
    }.toSeq)
  }

  override def abort(): Unit = ()

  override def close(): Unit = current.foreach(_.root.close())
}

object LeafDataWriter {
  val MaxRows = 262144
  val MaxBytes: Long = 64L << 20
}
