// An ArrowReader yielding one in-memory batch, for APIs that take a stream (merge_insert, writing a
// dataset). The batch's buffers are shared, not copied through IPC, so their alignment is kept:
// Lance's native side rejects decimal buffers that IPC framing left only 8-byte aligned.
package lancepart.lance

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{VectorLoader, VectorSchemaRoot, VectorUnloader}
import org.apache.arrow.vector.ipc.ArrowReader
import org.apache.arrow.vector.types.pojo.Schema

class RootReader(source: VectorSchemaRoot, allocator: BufferAllocator) extends ArrowReader(allocator) {
  private var consumed = false

  override def loadNextBatch(): Boolean = {
    if (consumed) return false
    consumed = true
    Lance.using(new VectorUnloader(source).getRecordBatch) { batch =>
      new VectorLoader(getVectorSchemaRoot).load(batch)
    }
    true
  }

  override def bytesRead(): Long = 0L

  override protected def closeReadSource(): Unit = ()

  override protected def readSchema(): Schema = source.getSchema
}
