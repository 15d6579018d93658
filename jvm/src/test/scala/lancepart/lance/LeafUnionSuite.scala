// Unions of partition tables on real Lance datasets: one scanner reads every member's rows, and
// only tables of one Lance schema (field ids included) without deletion files join one.
package lancepart.lance

import java.nio.file.Files

import org.apache.arrow.vector.{BigIntVector, VarCharVector, VectorSchemaRoot}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, Schema}
import org.lance.{Dataset, Transaction}
import org.lance.ipc.ScanOptions
import org.lance.operation.Append
import org.scalatest.funsuite.AnyFunSuite

import scala.collection.mutable
import scala.jdk.CollectionConverters._

class LeafUnionSuite extends AnyFunSuite {
  private val lance = LanceAccess(Map.empty)
  private def field(name: String, t: ArrowType) = Field.nullable(name, t)
  private val id = field("id", new ArrowType.Int(64, true))
  private val s = field("s", new ArrowType.Utf8())

  /** A dataset of `schema` (BIGINT and STRING columns) with one fragment per range of ids, each row's
   * strings "<column><id>". */
  private def dataset(schema: Schema, ranges: Range*): String = {
    val uri = Files.createTempDirectory("union").resolve("t.lance").toString
    lance.create(uri, schema, Some("2.1"))
    append(uri, schema, ranges: _*)
    uri
  }

  /** Commits a fragment per range of ids to the dataset of `schema` at `uri`, as [[dataset]] writes them. */
  private def append(uri: String, schema: Schema, ranges: Range*): Unit = {
    val fragments = ranges.flatMap { ids =>
      Lance.using(VectorSchemaRoot.create(schema, Lance.allocator)) { root =>
        root.allocateNew()
        for ((v, row) <- ids.zipWithIndex; f <- schema.getFields.asScala) root.getVector(f.getName) match {
          case b: BigIntVector => b.setSafe(row, v.toLong)
          case c: VarCharVector => c.setSafe(row, s"${f.getName}$v".getBytes)
          case other => throw new IllegalArgumentException(other.toString)
        }
        root.setRowCount(ids.size)
        lance.writeFragments(uri, root, "2.1")
      }
    }
    val version = lance.withDataset(uri)(_.version())
    Lance.using(new Transaction.Builder().readVersion(version)
      .operation(Append.builder().fragments(fragments.asJava).build()).build())(lance.commit(uri, _))
  }

  private def member(uri: String, fragments: Option[Seq[Int]] = None) =
    lance.withDataset(uri)(LeafUnion.member(_, uri, fragments))

  private def rows(ds: Dataset): Set[String] = {
    val out = mutable.Buffer.empty[String]
    Lance.using(ds.newScan(new ScanOptions.Builder().build())) { scanner =>
      Lance.using(scanner.scanBatches()) { reader =>
        while (reader.loadNextBatch()) out ++= reader.getVectorSchemaRoot.contentToTSVString().linesIterator.drop(1)
      }
    }
    out.toSet
  }

  test("one scanner reads the chosen fragments of every member; closing removes the union's directory") {
    val schema = new Schema(Seq(id, s).asJava)
    val (a, b) = (dataset(schema, 0 until 3), dataset(schema, 10 until 12, 20 until 22))
    val Some((schemaA, memberA)) = member(a)
    val Some((schemaB, memberB)) = member(b, Some(Seq(1)))
    assert(schemaA == schemaB && memberB.fragments.map(_.getId) == Seq(1))
    val union = LeafUnion.create(schemaA, Seq(memberA, memberB), lance)
    val directory = java.nio.file.Paths.get(java.net.URI.create(union.dataset.uri()))
    try assert(rows(union.dataset) == (Seq(0, 1, 2, 20, 21).map(v => s"$v\ts$v").toSet))
    finally union.close()
    assert(!Files.exists(directory))
  }

  test("a table whose columns have other Lance field ids is not of the same union, and its own reads right") {
    val x = field("x", new ArrowType.Utf8())
    val plain = dataset(new Schema(Seq(id, s).asJava), 0 until 2)
    // the same Arrow schema, with field ids 1 and 2 once x is dropped
    val shifted = Seq(5 until 7, 8 until 9).map(dataset(new Schema(Seq(x, id, s).asJava), _))
    shifted.foreach(uri => Lance.using(lance.open(uri))(_.dropColumns(Seq("x").asJava)))
    val Some((plainSchema, _)) = member(plain)
    val Seq(Some((shiftedSchema, first)), Some((secondSchema, second))) = shifted.map(member(_))
    assert(plainSchema.fields.map(_.getName) == shiftedSchema.fields.map(_.getName) && plainSchema != shiftedSchema)
    assert(secondSchema == shiftedSchema)
    Lance.using(LeafUnion.create(shiftedSchema, Seq(first, second), lance)) { union =>
      assert(rows(union.dataset) == Set("5\ts5", "6\ts6", "8\ts8"))
    }
  }

  test("a table with a deletion file in the fragments read has no union") {
    val schema = new Schema(Seq(id, s).asJava)
    val uri = dataset(schema, 0 until 2, 2 until 4)
    Lance.using(lance.open(uri))(_.delete("id = 3"))
    assert(member(uri).isEmpty)
    assert(member(uri, Some(Seq(0))).map(_._2.fragments.map(_.getId)).contains(Seq(0)))
  }

  test("a table's part of a union is kept per version: after another writer's commit, and for a table made anew at the same location, it is asked again") {
    val schema = new Schema(Seq(id, s).asJava)
    val uri = dataset(schema, 0 until 2)
    val Some((_, kept)) = member(uri)
    assert(member(uri).map(_._2).exists(_ eq kept))
    append(uri, schema, 5 until 6)
    assert(member(uri).map(_._2.fragments.map(_.getPhysicalRows.toLong)).contains(Seq(2L, 1L)))
    // version 2 again, with other rows
    Lance.using(Files.walk(java.nio.file.Paths.get(uri)))(_.sorted(java.util.Comparator.reverseOrder()).forEach(p =>
      Files.delete(p)))
    lance.create(uri, schema, Some("2.1"))
    append(uri, schema, 7 until 10)
    val Some((_, anew)) = member(uri)
    assert(lance.withDataset(uri)(_.version()) == 2 && anew.fragments.map(_.getPhysicalRows.toLong) == Seq(3L))
    Lance.using(LeafUnion.create(member(uri).get._1, Seq(anew), lance)) { union =>
      assert(rows(union.dataset) == Set("7\ts7", "8\ts8", "9\ts9"))
    }
  }
}
