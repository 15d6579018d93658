// Thin access to lance-core: one allocator per JVM, opening datasets with storage options.
package lancepart.manifest

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

  def using[A <: AutoCloseable, B](resource: A)(f: A => B): B =
    try f(resource) finally resource.close()
}
