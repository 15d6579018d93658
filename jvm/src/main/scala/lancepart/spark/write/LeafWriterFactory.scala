// Task side of a write: each row's partition values are computed from its source columns; rows
// arrive sorted by partition, each run is buffered in Arrow (Spark's ArrowWriter) and written as
// Lance fragments into its leaf's directory.
package lancepart.spark.write

import lancepart.manifest.Lance
import lancepart.spec.TableMetadata
import lancepart.txn.LeafWrite
import org.apache.arrow.vector.VectorSchemaRoot
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.{DataWriter, DataWriterFactory, WriterCommitMessage}
import org.apache.spark.sql.execution.arrow.ArrowWriter
import org.apache.spark.sql.lancepart.ArrowBridge
import org.apache.spark.sql.types.StructType
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
    leafSchema: StructType,
    sourceOrdinals: Seq[Seq[Option[Int]]],
    directory: PartitionDirectory,
    storage: Map[String, String]) extends DataWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long): DataWriter[InternalRow] = {
    val fields = TableMetadata.fromProperties(properties, table).currentSpec.fields
    val keyOf: InternalRow => Seq[Any] = row => fields.zip(sourceOrdinals).map { case (f, ordinals) =>
      f.compute(ordinals.zip(f.sources).map {
        case (Some(i), Some(s)) => copy(row.get(i, s.dataType))
        case _ => null
      }.toIndexedSeq)
    }
    new LeafDataWriter(tableUri, leafSchema, keyOf, directory, storage)
  }

  private def copy(v: Any): Any = v match {
    case s: UTF8String => s.copy()
    case other => other
  }
}

class LeafDataWriter(
    tableUri: String,
    leafSchema: StructType,
    keyOf: InternalRow => Seq[Any],
    directory: PartitionDirectory,
    storage: Map[String, String]) extends DataWriter[InternalRow] {
  private val root = VectorSchemaRoot.create(ArrowBridge.toArrowSchema(leafSchema), Lance.allocator)
  private val arrow = ArrowWriter.create(root)
  private var rows = 0
  private var current: Option[(Seq[Any], LeafTarget)] = None
  private val written = mutable.LinkedHashMap.empty[String, (LeafTarget, mutable.ArrayBuffer[FragmentMetadata])]

  override def write(row: InternalRow): Unit = {
    val key = keyOf(row)
    if (!current.exists(_._1 == key)) {
      flush()
      current = Some(key -> directory.resolve(key))
    }
    arrow.write(row)
    rows += 1
    if (rows >= LeafDataWriter.MaxRows || arrow.sizeInBytes() >= LeafDataWriter.MaxBytes) flush()
  }

  private def flush(): Unit = if (rows > 0) {
    val (_, target) = current.get
    arrow.finish()
    val fragments = Fragment.write().datasetUri(s"$tableUri/${target.location}").allocator(Lance.allocator)
      .data(root).storageOptions(storage.asJava).execute().asScala
    written.getOrElseUpdate(target.objectId, (target, mutable.ArrayBuffer.empty))._2 ++= fragments
    arrow.reset()
    rows = 0
  }

  override def commit(): WriterCommitMessage = {
    flush()
    LeafWriteMessage(written.values.map { case (t, fragments) =>
      LeafWrite(t.objectId, t.location, t.isNew, t.values, t.newNamespaces, fragments.toSeq)
    }.toSeq)
  }

  override def abort(): Unit = ()

  override def close(): Unit = root.close()
}

object LeafDataWriter {
  val MaxRows = 262144
  val MaxBytes: Long = 64L << 20
}
