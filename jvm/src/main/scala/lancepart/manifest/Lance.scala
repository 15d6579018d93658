// Thin access to lance-core: one allocator per JVM, opening datasets with storage options, and
// running calls on separate datasets in parallel.
package lancepart.manifest

import java.util.concurrent.{ExecutionException, Executors}

import org.apache.arrow.memory.{BufferAllocator, RootAllocator}
import org.lance.{Dataset, ReadOptions}

import scala.jdk.CollectionConverters._

object Lance {
  lazy val allocator: BufferAllocator = new RootAllocator(Long.MaxValue)

  def open(uri: String, storage: Map[String, String], version: Option[Long] = None): Dataset = {
    val options = new ReadOptions.Builder().setStorageOptions(storage.asJava)
    version.foreach(v => options.setVersion(v))
    Dataset.open().allocator(allocator).uri(uri).readOptions(options.build()).build()
  }

  /** Per-dataset calls (opens, small commits) run on this many threads. */
  val Threads = 8

  /** `f` of every item on up to [[Threads]] threads, results in order; the first failure is thrown. */
  def parallel[A, B](items: Seq[A])(f: A => B): Seq[B] =
    if (items.size <= 1) items.map(f)
    else {
      val pool = Executors.newFixedThreadPool(math.min(Threads, items.size))
      try items.map(item => pool.submit(() => f(item))).map { future =>
        try future.get() catch { case e: ExecutionException => throw e.getCause }
      } finally pool.shutdownNow()
    }

  def using[A <: AutoCloseable, B](resource: A)(f: A => B): B =
    try f(resource) finally resource.close()
}
