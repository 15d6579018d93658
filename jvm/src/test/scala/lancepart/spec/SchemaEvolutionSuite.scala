// Namespace schema evolution: ids stay with columns and are never reused.
package lancepart.spec

import lancepart.spec.SchemaEvolution._
import lancepart.transform.Transform
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

class SchemaEvolutionSuite extends AnyFunSuite {
  private val schema = NamespaceSchema.fromSpark(
    StructType(Seq(
      StructField("id", IntegerType),
      StructField("d", DateType),
      StructField("point", StructType(Seq(StructField("x", FloatType), StructField("y", FloatType)))))),
    "t"
  )
  private val meta = TableMetadata.create(
    "t",
    schema,
    PartitionSpec(
      1,
      Seq(
        PartitionField("d", Seq(1), Some(Transform.Identity), None, PartitionSpec.resultTypeJson(DateType)))))

  test("a new column takes an id above every id ever used, nested and dropped ones included") {
    assert(schema.maxFieldId == 4)
    val dropped = SchemaEvolution(meta, Seq(AddColumn("a", StringType), DropColumn("a"), AddColumn("a", LongType)))
    assert(dropped.fields.map(f => (f.id, f.name)) == Seq((0, "id"), (1, "d"), (2, "point"), (6, "a")))
    assert(dropped.sparkSchema.fieldNames.toSeq == Seq("id", "d", "point", "a"))
    assert(dropped.byId(5).isEmpty, "a dropped column leaves the schema")
    // the high-water mark survives dropping the column with the largest id, also after a reload
    val reloaded = NamespaceSchema.parse(SchemaEvolution(meta.copy(schema = dropped), Seq(DropColumn("a"))).json, "t")
    assert(reloaded.fields.map(_.name) == Seq("id", "d", "point"))
    assert(reloaded.maxFieldId == 6)
    assert(SchemaEvolution(
      meta.copy(schema = reloaded),
      Seq(AddColumn("b", IntegerType))).byName("b").map(_.id).contains(7))
  }

  test("rename keeps the id; widening changes only the type") {
    val next = SchemaEvolution(meta, Seq(RenameColumn("d", "day"), WidenColumn("id", LongType)))
    assert(next.fields.take(2) == Seq(
      SchemaField(0, "id", LongType, nullable = true),
      SchemaField(1, "day", DateType, nullable = true)))
    val bound = TableMetadata.fromProperties(meta.properties + ("schema" -> next.json), "t")
    assert(bound.currentSpec.fields.head.source.map(_.name).contains("day"))
  }

  test("a move changes only the order: ids and the partition spec's sources stay") {
    val first = SchemaEvolution(meta, Seq(MoveColumn("point", None)))
    assert(first.fields.map(f => (f.id, f.name)) == Seq((2, "point"), (0, "id"), (1, "d")))
    val after = SchemaEvolution(meta, Seq(MoveColumn("id", Some("point")), MoveColumn("point", Some("d"))))
    assert(after.fields.map(_.name) == Seq("d", "point", "id"))
    assert(after.maxFieldId == schema.maxFieldId && after.byName("point") == schema.byName("point"))
    val bound = TableMetadata.fromProperties(meta.properties + ("schema" -> after.json), "t")
    assert(bound.currentSpec.fields.head.source.map(_.name).contains("d"))
    assert(intercept[IllegalArgumentException](SchemaEvolution(meta, Seq(MoveColumn("d", Some("d"))))).getMessage ==
      "table t: column 'd' cannot be moved after itself")
  }

  test("narrowing, dropping a partition source and name clashes are refused with the reason") {
    def err(change: Change) = intercept[IllegalArgumentException](SchemaEvolution(meta, Seq(change))).getMessage
    assert(err(WidenColumn("id", ShortType)) == "table t: column 'id' cannot change from INT to SMALLINT " +
      "(only int to bigint, float to double and a larger decimal precision with the same scale)")
    assert(err(DropColumn("d")) == "table t: column 'd' is a source of partition field(s) d of the current spec; evolve the partition spec first")
    assert(err(AddColumn("ID", LongType)) == "table t: a column named 'ID' already exists")
    assert(err(RenameColumn("nope", "x")) == "table t: no column 'nope' (columns: id, d, point)")
    assert(isWidening(DecimalType(10, 2), DecimalType(12, 2)) && !isWidening(DecimalType(10, 2), DecimalType(12, 3)))
  }

  test("widening a column some spec hashes is refused, unless only a decimal's precision grows") {
    val hashed = StructType(Seq(
      StructField("a", IntegerType),
      StructField("b", ShortType),
      StructField("c", FloatType),
      StructField("dec", DecimalType(6, 2))))
    def field(id: String, sources: Seq[Int], t: Option[Transform], e: Option[String]) =
      PartitionField(id, sources, t, e, PartitionSpec.resultTypeJson(IntegerType))
    val spec = PartitionSpec(
      1,
      Seq(
        field("a_bucket_4", Seq(0), Some(Transform.Bucket(4)), None),
        field("a_b", Seq(0, 1), Some(Transform.MultiBucket(8)), None),
        field("h", Seq(2), None, Some("abs(MURMUR3(col0)) % 4")),
        field("dec_bucket_2", Seq(3), Some(Transform.Bucket(2)), None)
      )
    )
    val m = TableMetadata.create("t", NamespaceSchema.fromSpark(hashed, "t"), spec)
    def err(change: Change) = intercept[IllegalArgumentException](SchemaEvolution(m, Seq(change))).getMessage
    assert(err(WidenColumn("a", LongType)) == "table t: column 'a' cannot change from INT to BIGINT: it is hashed by " +
      "partition field(s) a_bucket_4, a_b, and the hash of a BIGINT differs from the hash of the same INT value")
    assert(err(WidenColumn("b", IntegerType)).contains("hashed by partition field(s) a_b,"))
    assert(err(WidenColumn("c", DoubleType)).contains("hashed by partition field(s) h,"))
    assert(SchemaEvolution(
      m,
      Seq(WidenColumn("dec", DecimalType(12, 2)))).byName("dec").map(_.dataType).contains(DecimalType(12, 2)))
  }
}
