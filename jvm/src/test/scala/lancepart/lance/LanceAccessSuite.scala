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

  private def rows(lance: LanceAccess, uri: String, values: Seq[Int]) =
    Lance.using(VectorSchemaRoot.create(schema, Lance.allocator)) { root =>
      val x = root.getVector("x").asInstanceOf[IntVector]
      values.zipWithIndex.foreach { case (v, i) => x.setSafe(i, v) }
      root.setRowCount(values.size)
      lance.writeFragments(uri, root)
    }

  test("create, append written fragments, and open the latest or an older version") {
    val lance = LanceAccess(Map.empty)
    val uri = Files.createTempDirectory("access").resolve("t.lance").toString
    lance.create(uri, schema)
    val first = lance.withDataset(uri)(_.version())
    val fragments = rows(lance, uri, Seq(1, 2, 3))
    val appended = Lance.using(new Transaction.Builder().readVersion(first)
      .operation(Append.builder().fragments(fragments.asJava).build()).build())(lance.commit(uri, _))
    assert(appended == first + 1)
    assert(lance.withDataset(uri)(_.countRows()) == 3)
    assert(lance.withDataset(uri, Some(first))(_.countRows()) == 0)
    assertThrows[RuntimeException](lance.create(uri, schema)) // never over an existing dataset
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
