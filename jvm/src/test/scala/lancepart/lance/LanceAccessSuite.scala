// The Lance gateway against real datasets: create, write fragments, commit, open at a version;
// it travels to tasks by Java serialization and never prints its option values.
package lancepart.lance

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, ObjectInputStream, ObjectOutputStream}
import java.nio.file.Files

import org.apache.arrow.vector.{IntVector, VectorSchemaRoot}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, Schema}
import org.lance.Transaction
import org.lance.operation.Append
import org.scalatest.funsuite.AnyFunSuite

import scala.jdk.CollectionConverters._

class LanceAccessSuite extends AnyFunSuite {
  private val schema = new Schema(Seq(Field.nullable("x", new ArrowType.Int(32, true))).asJava)

  private def rows(lance: LanceAccess, uri: String, values: Seq[Int], fileVersion: String = "2.1") =
    Lance.using(VectorSchemaRoot.create(schema, Lance.allocator)) { root =>
      val x = root.getVector("x").asInstanceOf[IntVector]
      values.zipWithIndex.foreach { case (v, i) => x.setSafe(i, v) }
      root.setRowCount(values.size)
      lance.writeFragments(uri, root, fileVersion)
    }

  test("create, append written fragments, and open the latest or an older version") {
    val lance = LanceAccess(Map.empty)
    val uri = Files.createTempDirectory("access").resolve("t.lance").toString
    lance.create(uri, schema, None)
    val first = lance.withDataset(uri)(_.version())
    val fragments = rows(lance, uri, Seq(1, 2, 3))
    val appended = Lance.using(new Transaction.Builder().readVersion(first)
      .operation(Append.builder().fragments(fragments.asJava).build()).build())(lance.commit(uri, _))
    // what the committed version holds: its rows and data bytes, from its manifest
    assert(appended.version == first + 1 && appended.rows == 3 && appended.bytes > 0, appended)
    assert(lance.withDataset(uri)(_.countRows()) == 3)
    assert(lance.withDataset(uri, Some(first))(_.countRows()) == 0)
    assertThrows[RuntimeException](lance.create(uri, schema, None)) // never over an existing dataset
  }

  test("the latest version read from the names in _versions is the one Lance opens, after each commit") {
    val lance = LanceAccess(Map.empty)
    val dir = Files.createTempDirectory("access").resolve("t.lance")
    val uri = dir.toString
    def listed = LeafFiles.latestMainVersion(Files.list(dir.resolve("_versions")).iterator().asScala
      .map(_.getFileName.toString).toList)
    lance.create(uri, schema, None)
    assert(listed == Some(lance.withDataset(uri)(_.version())))
    (1 to 3).foreach { i =>
      val read = lance.withDataset(uri)(_.version())
      val fragments = rows(lance, uri, Seq(i))
      Lance.using(new Transaction.Builder().readVersion(read)
        .operation(Append.builder().fragments(fragments.asJava).build()).build())(lance.commit(uri, _))
      assert(listed == Some(read + 1) && lance.withDataset(uri)(_.version()) == read + 1)
    }
  }

  test("datasets and fragments are written in the Lance file format asked for") {
    val lance = LanceAccess(Map.empty)
    for (fileVersion <- Seq("2.1", "2.2")) {
      val uri = Files.createTempDirectory("access").resolve("t.lance").toString
      lance.create(uri, schema, Some(fileVersion))
      assert(lance.withDataset(uri)(_.getLanceFileFormatVersion) == fileVersion)
      val fragments = rows(lance, uri, Seq(1), fileVersion)
      val first = lance.withDataset(uri)(_.version())
      Lance.using(new Transaction.Builder().readVersion(first)
        .operation(Append.builder().fragments(fragments.asJava).build()).build())(lance.commit(uri, _))
      assert(lance.withDataset(uri)(_.countRows()) == 1)
    }
    // a dataset's data files must all have its version: Lance refuses other fragments
    val uri = Files.createTempDirectory("access").resolve("t.lance").toString
    lance.create(uri, schema, Some("2.2"))
    val older = rows(lance, uri, Seq(1), "2.1")
    val e = intercept[RuntimeException](Lance.using(new Transaction.Builder().readVersion(1)
      .operation(Append.builder().fragments(older.asJava).build()).build())(lance.commit(uri, _)))
    assert(
      e.getMessage.contains("added files with version 2.1.  However, the data storage version is 2.2"),
      e.getMessage)
  }

  test("survives Java serialization (tasks get it with their factories) and hides option values") {
    val lance = LanceAccess(Map("aws_secret_access_key" -> "s3cr3t", "aws_region" -> "eu-west-1"))
    val bytes = new ByteArrayOutputStream()
    Lance.using(new ObjectOutputStream(bytes))(_.writeObject(lance))
    val back = Lance.using(new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray)))(_.readObject())
    assert(back == lance)
    assert(!lance.toString.contains("s3cr3t"), lance.toString)
    assert(lance.toString.contains("aws_secret_access_key"), lance.toString)
  }
}
