// Partition keys: equality and hashing on Spark's internal value classes, and the key a task
// computes finding the partition read back from a real __manifest.
package lancepart.txn

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, ObjectInputStream, ObjectOutputStream}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import lancepart.lance.LanceAccess
import lancepart.manifest.{ManifestRow, ManifestStore, Naming}
import lancepart.spec._
import lancepart.transform.Transform
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

class PartitionKeySuite extends AnyFunSuite {
  private val ids = Seq("1", "2")

  private def assertSame(a: PartitionKey, b: PartitionKey): Unit = {
    assert(a == b)
    assert(a.hashCode == b.hashCode)
    assert(Map(a -> "leaf").get(b).contains("leaf"))
  }

  /** "US" inside a larger buffer: equal content, another array and offset. */
  private def sliced(s: String): UTF8String = {
    val bytes = s"xx${s}yy".getBytes(UTF_8)
    UTF8String.fromBytes(bytes, 2, bytes.length - 4)
  }

  test("strings are equal by content, wherever their bytes are") {
    assertSame(PartitionKey(ids, Seq(UTF8String.fromString("US"), 1)), PartitionKey(ids, Seq(sliced("US"), 1)))
    assert(PartitionKey(ids, Seq(UTF8String.fromString("US"), 1)) != PartitionKey(
      ids,
      Seq(UTF8String.fromString("us"), 1)))
    assertSame(PartitionKey(ids, Seq(UTF8String.fromString("😀"), 1)), PartitionKey(ids, Seq(sliced("😀"), 1)))
  }

  test("decimals are equal by value, whether held as a long or a BigDecimal") {
    val asLong = Decimal(1250L, 10, 2)
    val asBig = Decimal(new java.math.BigDecimal("12.50"), 10, 2)
    assertSame(PartitionKey(ids, Seq(asLong, null)), PartitionKey(ids, Seq(asBig, null)))
    assert(PartitionKey(ids, Seq(asLong, null)) != PartitionKey(ids, Seq(Decimal(1251L, 10, 2), null)))
  }

  test("NULL equals NULL and nothing else") {
    assertSame(PartitionKey(ids, Seq(null, null)), PartitionKey(ids, Seq(null, null)))
    assert(PartitionKey(ids, Seq(null, 0)) != PartitionKey(ids, Seq(0, 0)))
    assert(PartitionKey(ids, Seq(null, 0)) != PartitionKey(ids, Seq(UTF8String.fromString(""), 0)))
  }

  test("booleans, integers, days and microseconds by value, in field order") {
    assertSame(
      PartitionKey(ids, Seq(true, 19000)),
      PartitionKey(ids, Seq(java.lang.Boolean.TRUE, Integer.valueOf(19000))))
    assertSame(PartitionKey(ids, Seq(1.toByte, Long.MinValue)), PartitionKey(ids, Seq(1.toByte, Long.MinValue)))
    assert(PartitionKey(ids, Seq(1, 2)) != PartitionKey(ids, Seq(2, 1)))
    assert(PartitionKey(ids, Seq(1L, 2L)) != PartitionKey(Seq("1", "3"), Seq(1L, 2L)), "keys of other fields differ")
  }

  test("prefixes, field-id maps and keys of manifest values") {
    val key = PartitionKey(ids, Seq(UTF8String.fromString("US"), null))
    assert(key.prefix(1) == PartitionKey(Seq("1"), Seq(UTF8String.fromString("US"))))
    assert(key.byFieldId == Map("1" -> UTF8String.fromString("US"), "2" -> null))
    assertSame(PartitionKey.of(ids, Map("1" -> sliced("US"), "9" -> 5)), key)
    assert(intercept[IllegalArgumentException](PartitionKey(
      ids,
      Seq(1))).getMessage.contains("fields 1, 2 has 1 values"))
  }

  test("a key is equal after Java serialization (tasks and driver exchange them)") {
    val key = PartitionKey(ids, Seq(sliced("US"), Decimal(1250L, 10, 2)))
    val out = new ByteArrayOutputStream()
    val oos = new ObjectOutputStream(out)
    oos.writeObject(key)
    oos.close()
    val back = new ObjectInputStream(new ByteArrayInputStream(out.toByteArray)).readObject().asInstanceOf[PartitionKey]
    assertSame(back, key)
  }

  test(
    "the key a task computes finds the partition and namespaces read back from __manifest, for every partition type") {
    val columns = Seq(
      "b" -> BooleanType,
      "y" -> ByteType,
      "s" -> ShortType,
      "i" -> IntegerType,
      "l" -> LongType,
      "str" -> StringType,
      "d" -> DateType,
      "ts" -> TimestampType,
      "ntz" -> TimestampNTZType,
      "dec" -> DecimalType(10, 2)
    )
    val schema = NamespaceSchema.fromSpark(StructType(columns.map { case (n, t) => StructField(n, t) }), "t")
    val spec = PartitionSpec(
      1,
      columns.zipWithIndex.map { case ((n, t), i) =>
        PartitionField(n, Seq(i), Some(Transform.Identity), None, PartitionSpec.resultTypeJson(t))
      })
    val store = new ManifestStore(Files.createTempDirectory("partitionkey").toString, "t", LanceAccess(Map.empty))
    store.create(TableMetadata.create("t", schema, spec, TransactionMode.Weak))
    val fieldIds = columns.map(_._1)
    val stored = Seq(
      true,
      7.toByte,
      (-3).toShort,
      42,
      Long.MaxValue,
      UTF8String.fromString("Zürich"),
      19000,
      1700000000123456L,
      -1L,
      Decimal(new java.math.BigDecimal("-12.50"), 10, 2)
    )
    val withNull = stored.updated(5, null)
    val rows = Seq(stored, withNull).zipWithIndex.map { case (values, n) =>
      val id = Naming.objectId(Seq("v1", s"p$n", Naming.LeafName))
      ManifestRow(id, Naming.TableType, Some(Naming.location(id, "seed")), Some(1L), fieldIds.zip(values).toMap)
    }
    val namespace = ManifestRow(Naming.objectId(Seq("v1", "p0")), Naming.NamespaceType, None, None, Map("b" -> true))
    store.upsert(namespace +: rows)
    val manifest = store.load()
    val directory = PartitionDirectory.load(store, manifest, manifest.meta.currentSpec, "seed")

    val computed = Seq(
      java.lang.Boolean.TRUE,
      java.lang.Byte.valueOf(7.toByte),
      java.lang.Short.valueOf((-3).toShort),
      Integer.valueOf(42),
      java.lang.Long.valueOf(Long.MaxValue),
      sliced("Zürich"),
      Integer.valueOf(19000),
      java.lang.Long.valueOf(1700000000123456L),
      java.lang.Long.valueOf(-1L),
      Decimal(-1250L, 10, 2)
    )
    val found = directory.resolve(PartitionKey(fieldIds, computed))
    assert(!found.isNew && found.objectId == rows(0).objectId)
    assert(directory.resolve(PartitionKey(fieldIds, computed.updated(5, null))).objectId == rows(1).objectId)
    assert(directory.resolve(PartitionKey(fieldIds, computed.updated(3, Integer.valueOf(43)))).isNew)
    assert(
      directory.newNamespaces(PartitionKey(
        fieldIds,
        computed.updated(3, Integer.valueOf(43)))).size == fieldIds.size - 1,
      "the first level's namespace is known"
    )
  }
}
