// Metadata-only schema commits on real partition tables: renames and tags keep every Lance field
// id and every value, on the main branch or detached on top of a pinned version.
package lancepart.lance

import java.nio.file.Files

import org.apache.arrow.vector.{BigIntVector, VarCharVector, VectorSchemaRoot}
import org.apache.arrow.vector.complex.StructVector
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType, Schema}
import org.lance.Transaction
import org.lance.ipc.ScanOptions
import org.lance.operation.Append
import org.scalatest.funsuite.AnyFunSuite

import scala.collection.mutable
import scala.jdk.CollectionConverters._

class LeafProjectSuite extends AnyFunSuite {
  private val lance = LanceAccess(Map.empty)
  private val schema = new Schema(Seq(
    new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
    new Field(
      "st",
      FieldType.nullable(ArrowType.Struct.INSTANCE),
      Seq(Field.nullable("x", new ArrowType.Int(64, true)), Field.nullable("y", new ArrowType.Utf8())).asJava
    ),
    new Field("c", new FieldType(true, new ArrowType.Utf8(), null, Map(LeafSchema.FieldIdKey -> "7").asJava), null)
  ).asJava)

  /** A leaf with rows (1, {1, "a"}, "u") and (2, NULL, "v") at version 2. */
  private def leaf(): String = {
    val uri = Files.createTempDirectory("project").resolve("t.lance").toString
    lance.create(uri, schema, Some("2.1"))
    val fragments = Lance.using(VectorSchemaRoot.create(schema, Lance.allocator)) { root =>
      root.allocateNew()
      val id = root.getVector("id").asInstanceOf[BigIntVector]
      val st = root.getVector("st").asInstanceOf[StructVector]
      val c = root.getVector("c").asInstanceOf[VarCharVector]
      id.setSafe(0, 1); id.setSafe(1, 2)
      st.getChild("x").asInstanceOf[BigIntVector].setSafe(0, 1)
      st.getChild("y").asInstanceOf[VarCharVector].setSafe(0, "a".getBytes)
      st.setIndexDefined(0); st.setNull(1)
      c.setSafe(0, "u".getBytes); c.setSafe(1, "v".getBytes)
      root.setRowCount(2)
      lance.writeFragments(uri, root, "2.1")
    }
    Lance.using(new Transaction.Builder().readVersion(1)
      .operation(Append.builder().fragments(fragments.asJava).build()).build())(lance.commit(uri, _))
    uri
  }

  private def rows(uri: String, version: Option[Long]): Seq[String] = lance.withDataset(uri, version) { ds =>
    val out = mutable.Buffer.empty[String]
    Lance.using(ds.newScan(new ScanOptions.Builder().build())) { scanner =>
      Lance.using(scanner.scanBatches()) { reader =>
        while (reader.loadNextBatch()) out ++= reader.getVectorSchemaRoot.contentToTSVString().linesIterator
      }
    }
    out.toSeq
  }

  private def ids(uri: String, version: Option[Long]) =
    lance.withDataset(uri, version)(ds => LeafField.all(ds.getLanceSchema.fields()).map(f => f.id -> f.name))

  private val change = LeafChange(Map("st" -> "point", "c" -> "note", "id" -> "key"), Map("id" -> 0))

  test("a detached commit renames and tags on top of the pinned version; main does not move") {
    val uri = leaf()
    val version = LeafProject.commit(lance, uri, Some(2L))(_ => change).get
    assert(lance.withDataset(uri)(_.version()) == 2)
    assert(ids(uri, Some(version)) == Seq(0 -> "key", 1 -> "point", 4 -> "note"))
    assert(rows(uri, Some(version)) == Seq("key\tpoint\tnote", "1\t{\"x\":1,\"y\":\"a\"}\tu", "2\tnull\tv"))
    val tags = lance.withDataset(uri, Some(version))(LeafSchema.columns(_).map(c => c.name -> c.tag))
    assert(tags == Seq("key" -> Some(0), "point" -> None, "note" -> Some(7)))
    assert(lance.withDataset(uri, Some(version))(_.getLanceSchema.fields().get(1).getChildren.asScala.map(_.getId)) ==
      Seq(2, 3))
  }

  test("on the main branch a change is planned on the latest version; nothing to change commits nothing") {
    val uri = leaf()
    val seen = mutable.Buffer.empty[Seq[String]]
    val version = LeafProject.commit(lance, uri, None) { leaf =>
      seen += leaf.map(_.name)
      change
    }
    assert(version.contains(3L) && seen == Seq(Seq("id", "st", "c")))
    assert(rows(uri, None).head == "key\tpoint\tnote")
    assert(LeafProject.commit(lance, uri, None)(_ => LeafChange(Map.empty, Map.empty)).isEmpty)
    assert(lance.withDataset(uri)(_.version()) == 3)
    val refused = intercept[IllegalStateException](LeafProject.commit(
      lance,
      uri,
      None,
      () =>
        throw new IllegalStateException("schema changed"))(_ => change))
    assert(refused.getMessage == "schema changed" && lance.withDataset(uri)(_.version()) == 3)
  }

  test("a schema change another writer commits first on main makes the change planned again on top of it") {
    val uri = leaf()
    val seen = mutable.Buffer.empty[Seq[String]]
    LeafProject.commit(lance, uri, None) { leaf =>
      seen += leaf.map(_.name)
      if (seen.size == 1) LeafProject.commit(lance, uri, None)(_ => LeafChange(Map("c" -> "other"), Map.empty))
      LeafChange(Map("id" -> "key"), Map.empty)
    }
    assert(seen == Seq(Seq("id", "st", "c"), Seq("id", "st", "other")))
    assert(rows(uri, None) == Seq("key\tst\tother", "1\t{\"x\":1,\"y\":\"a\"}\tu", "2\tnull\tv"))
  }
}
