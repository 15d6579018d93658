// The named __manifest queries, run by Lance against a real __manifest holding rows of every kind.
package lancepart.manifest

import java.nio.file.Files

import lancepart.lance.LanceAccess
import lancepart.spec._
import lancepart.transform.Transform
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

class ManifestQuerySuite extends AnyFunSuite {
  private val schema =
    NamespaceSchema.fromSpark(StructType(Seq(StructField("id", LongType), StructField("c", StringType))), "t")
  private def spec(id: Int) = PartitionSpec(
    id,
    Seq(
      PartitionField("c", Seq(1), Some(Transform.Identity), None, PartitionSpec.resultTypeJson(StringType))))
  private val v1 = TableMetadata.create("t", schema, spec(1))
  private val meta = v1.withSpec(spec(2))

  // Namespace names as object ids may hold them: a quote, and spec version 1 next to 11.
  private val namespaces = Seq("v1$it's", "v1$b", "v2$b", "v11$b")
  private val tables = namespaces.map(_ + "$dataset")

  private lazy val store = {
    val s = new ManifestStore(Files.createTempDirectory("queries").toString, "t", LanceAccess(Map.empty))
    s.create(v1)
    s.evolve(v1, meta)
    val value = Map("c" -> UTF8String.fromString("x"))
    s.upsert(ManifestRow("v11", Naming.NamespaceType, None, None, Map.empty) +:
      namespaces.map(ManifestRow(_, Naming.NamespaceType, None, None, value)) ++:
      tables.map(id => ManifestRow(id, Naming.TableType, Some(Naming.location(id, "seed")), Some(1L), value)) :+
      ManifestRow(
        "v1$b$dataset",
        Naming.TableType,
        Some(Naming.location("v1$b$dataset", "seed")),
        Some(1L),
        value).versionRecord(1L, 1L))
    s
  }

  private def selected(filter: String): Set[String] = store.rows(store.load(), filter).map(_.objectId).toSet

  test("tables: the partition tables of the declared spec versions only") {
    assert(selected(ManifestQuery.tables(meta)) == Set("v1$it's$dataset", "v1$b$dataset", "v2$b$dataset"))
    assert(selected(ManifestQuery.tables(meta, v => if (v == 1) Some("false") else None)) == Set("v2$b$dataset"))
  }

  test("byId and namespaceRow quote the object ids; pinnedTables: tables with a read_version") {
    assert(selected(ManifestQuery.byId(Seq("v1$it's$dataset", "v1$b", "v2$b$dataset"))) == Set(
      "v1$it's$dataset",
      "v1$b",
      "v2$b$dataset"))
    assert(selected(ManifestQuery.pinnedTables) == tables.toSet)
    assert(selected(ManifestQuery.namespaceRow("v1$it's")) == Set("v1$it's"))
    assert(selected(ManifestQuery.namespaceRow("v1$it's$dataset")).isEmpty)
  }

  test("specRows and specVersionRows: spec version 1 is not 11") {
    assert(selected(ManifestQuery.specRows(1)) == Set(
      "v1$it's",
      "v1$b",
      "v1$it's$dataset",
      "v1$b$dataset",
      "v1$b$dataset$1"))
    assert(selected(ManifestQuery.specVersionRows(Seq(2))) == Set("v2", "v2$b", "v2$b$dataset"))
    assert(selected(ManifestQuery.specNamespaces) == Set("v1", "v2", "v11"))
  }
}
