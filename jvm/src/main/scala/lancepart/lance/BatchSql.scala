// SQL over rows held in memory, by lance-core's DataFusion: the batch becomes a Lance dataset in
// memory (`memory://`, one per query, gone when closed) and `Dataset.sql` runs a SELECT over it.
package lancepart.lance

import java.util.UUID

import org.apache.arrow.c.{ArrowArrayStream, Data}
import org.apache.arrow.vector.VectorSchemaRoot
import org.lance.Dataset

/** A query lance-core refused or failed: DataFusion's message. */
class BatchSqlException(message: String, cause: Throwable) extends IllegalArgumentException(message, cause)

object BatchSql {

  /** Runs `SELECT <items> FROM dataset` over `data`; `read` gets each result batch, whose vectors
   * live until it returns. */
  def select(data: VectorSchemaRoot, items: Seq[String])(read: VectorSchemaRoot => Unit): Unit = {
    Lance.loadNative()
    val dataset = lanceCall(Lance.using(new RootReader(data, Lance.allocator)) { reader =>
      Lance.using(ArrowArrayStream.allocateNew(Lance.allocator)) { stream =>
        Data.exportArrayStream(Lance.allocator, reader, stream)
        Dataset.write().allocator(Lance.allocator).stream(stream).uri(s"memory://lancepart-${UUID.randomUUID()}")
          .execute()
      }
    })
    Lance.using(dataset) { ds =>
      Lance.using(lanceCall(ds.sql(s"SELECT ${items.mkString(", ")} FROM dataset").intoBatchRecords())) { results =>
        while (lanceCall(results.loadNextBatch())) read(results.getVectorSchemaRoot)
      }
    }
  }

  private def lanceCall[A](call: => A): A =
    try call
    catch { case e: Exception => throw new BatchSqlException(message(e), e) }

  /** DataFusion's words without lance-core's wrapping (exception class, error kind, Rust source
   * location): `java/io/IOException: LanceError(IO): Error during planning: ..., /workspace/...:81:18`. */
  private[lance] def message(e: Exception): String = {
    val text = Option(e.getMessage).getOrElse(e.toString).replaceAll("\\s*\n\\s*", " ")
      .replaceAll(",\\s*/(workspace|rustc)/\\S*:\\d+:\\d+\\}?\\s*$", "")
    val lance = "LanceError\\(\\w+\\): ".r.findAllMatchIn(text).toList.lastOption
    lance.fold(text.replaceFirst(
      "^java/[\\w/$]+: ",
      ""))(m => text.substring(m.end)).stripPrefix("Invalid user input: ")
  }
}
