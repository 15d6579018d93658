// An ArrowReader yielding another reader's batches under a schema of the same columns that carries
// Lance field ids (LeafSchema.forAppend), so that fragments written from it name the fields a
// dataset has rather than 0, 1, ... (a dataset with a dropped column has gaps in its ids): a plain
// table branch's rows written into main. The batches' buffers are shared, not copied.
package lancepart.lance

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{VectorLoader, VectorUnloader}
import org.apache.arrow.vector.ipc.ArrowReader
import org.apache.arrow.vector.types.pojo.Schema

class FieldIdReader(source: ArrowReader, schema: Schema, allocator: BufferAllocator) extends ArrowReader(allocator) {

  override def loadNextBatch(): Boolean = source.loadNextBatch() && {
    Lance.using(new VectorUnloader(source.getVectorSchemaRoot).getRecordBatch) { batch =>
      new VectorLoader(getVectorSchemaRoot).load(batch)
    }
    true
  }

  override def bytesRead(): Long = source.bytesRead()

  override protected def closeReadSource(): Unit = source.close()

  override protected def readSchema(): Schema = schema
}
