// Directory operations on a local root through Hadoop's FileSystem (the S3 implementation is
// exercised against a loopback S3 server by integration-tests/test_object_store.py).
package lancepart.storage

import java.nio.file.{Files, Path}

import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

class HadoopDirectoriesSuite extends AnyFunSuite {
  private def tree(): Path = {
    val root = Files.createTempDirectory("dirs")
    Files.createDirectories(root.resolve("a/data"))
    Files.writeString(root.resolve("a/data/1.lance"), "x")
    Files.writeString(root.resolve("a/data/2.lance"), "y")
    Files.createDirectories(root.resolve("b"))
    Files.writeString(root.resolve("top"), "z")
    root
  }

  test("lists child directories and direct files") {
    val root = tree()
    val dirs = new HadoopDirectories(new Configuration())
    assert(dirs.childDirectories(root.toString) == Seq("a", "b"))
    assert(dirs.files(s"$root/a/data").map(_.name).sorted == Seq("1.lance", "2.lance"))
    assert(dirs.childDirectories(s"$root/missing").isEmpty && dirs.files(s"$root/missing").isEmpty)
    assert(dirs.exists(s"$root/a") && !dirs.exists(s"$root/missing"))
    assert(dirs.names(s"$root/a/data").sorted == Seq("1.lance", "2.lance"))
    assert(dirs.names(s"file://$root/a/data").sorted == Seq("1.lance", "2.lance"))
    assert(dirs.names(s"$root/missing").isEmpty)
  }

  test("moves a file into a new directory and deletes recursively") {
    val root = tree()
    val dirs = new HadoopDirectories(new Configuration())
    dirs.move(s"$root/a/data/1.lance", s"$root/c/data/1.lance")
    assert(Files.readString(root.resolve("c/data/1.lance")) == "x" && !Files.exists(root.resolve("a/data/1.lance")))
    val newest = Files.getLastModifiedTime(root.resolve("a/data/2.lance")).toMillis
    assert(dirs.lastModified(s"$root/a") >= newest)
    assert(dirs.delete(s"$root/a") && !Files.exists(root.resolve("a")))
    assert(!dirs.delete(s"$root/a"))
    dirs.deleteFile(s"$root/top")
    assert(!Files.exists(root.resolve("top")))
  }
}
