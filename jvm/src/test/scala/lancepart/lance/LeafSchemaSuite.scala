// Which leaf column holds which namespace column (tag, name, Lance field id), and what a leaf
// renames to match the namespace schema.
package lancepart.lance

import lancepart.spec.SchemaField
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType}
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import scala.jdk.CollectionConverters._

class LeafSchemaSuite extends AnyFunSuite {
  private val long = new ArrowType.Int(64, true)
  private val utf8 = new ArrowType.Utf8()

  private def column(name: String, lanceId: Int, t: ArrowType = long, tag: Option[Int] = None) = LeafColumn(
    new Field(
      name,
      new FieldType(true, t, null, tag.map(i => Map(LeafSchema.FieldIdKey -> i.toString)).orNull.asJava),
      null),
    lanceId)

  private val namespace =
    Seq(SchemaField(0, "id", LongType, nullable = true), SchemaField(2, "nation", StringType, nullable = true))
  private val nation = namespace(1)

  test("a tagged column is found by its tag whatever its name, before a name match") {
    val leaf = Seq(column("id", 0, tag = Some(0)), column("nation", 1, utf8), column("country", 2, utf8, Some(2)))
    assert(LeafSchema.find(leaf, nation, namespace).map(_.name).contains("country"))
  }

  test("an untagged column is found by name, else by Lance field id when the leaf's ids agree") {
    assert(LeafSchema.find(Seq(column("id", 0), column("nation", 5, utf8)), nation, namespace).map(_.name)
      .contains("nation"))
    // another writer renamed country to nation in the namespace but not yet in this leaf
    val lagging = Seq(column("id", 0), column("country", 2, utf8))
    assert(LeafSchema.find(lagging, nation, namespace).map(_.name).contains("country"))
    // ids that do not follow the namespace (id has Lance id 3): no match by id
    assert(LeafSchema.find(Seq(column("id", 3), column("country", 2, utf8)), nation, namespace).isEmpty)
    // nor one whose type cannot be read as the namespace's
    assert(LeafSchema.find(Seq(column("id", 0), column("country", 2, new ArrowType.Bool())), nation, namespace).isEmpty)
    // tagged columns are never matched by name or Lance id
    assert(LeafSchema.find(Seq(column("nation", 2, utf8, Some(7))), nation, namespace).isEmpty)
    // a leaf with no untagged column of a namespace name (lancepart's) gives no evidence: a column
    // another client added to it alone has the Lance id the namespace's next ADD COLUMN takes
    assert(LeafSchema.find(Seq(column("id", 0, tag = Some(0)), column("extra", 2, utf8)), nation, namespace).isEmpty)
  }

  test("alignment renames held columns at once, tags untagged ones it renames, moves leaf-only ones aside") {
    val ns = Seq(
      SchemaField(0, "a", LongType, nullable = true),
      SchemaField(1, "b", LongType, nullable = true),
      SchemaField(2, "nation", StringType, nullable = true),
      SchemaField(4, "d", LongType, nullable = true)
    )
    // a and b swapped names; another writer (whose ids d shows) renamed country to nation; x is the leaf's own
    val leaf = Seq(
      column("b", 0, tag = Some(0)),
      column("a", 1, tag = Some(1)),
      column("country", 2, utf8),
      column("x", 3),
      column("d", 4))
    val change = LeafSchema.aligned(leaf, ns)
    assert(change.renames == Map("b" -> "a", "a" -> "b", "country" -> "nation"))
    assert(change.tags == Map("country" -> 2))
    val displaced = LeafSchema.aligned(Seq(column("a", 0, tag = Some(0)), column("b", 1, tag = Some(9))), ns)
    assert(displaced == LeafChange(Map("b" -> "b_deprecated_9"), Map.empty))
    assert(LeafSchema.aligned(Seq(column("a", 0, tag = Some(0)), column("b", 1, tag = Some(1))), ns).isEmpty)
  }
}
