// Per-version projection of Spark filters, run against a real __manifest.
package lancepart.prune

import java.nio.file.Files

import lancepart.lance.LanceAccess
import lancepart.manifest.{ManifestRow, ManifestStore, Naming}
import lancepart.spec._
import org.apache.spark.sql.sources._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

class ManifestFilterSuite extends AnyFunSuite {
  private val schemaJson =
    """{"fields":[{"name":"id","type":{"type":"int64"},"metadata":{"lance:field_id":"0"}},
      |{"name":"event_date","type":{"type":"date32"},"metadata":{"lance:field_id":"1"}},
      |{"name":"country","type":{"type":"utf8"},"metadata":{"lance:field_id":"2"}}]}""".stripMargin
  private val meta = TableMetadata.fromProperties(
    Map(
      "schema" -> schemaJson,
      "partition_spec_v1" -> """{"id":1,"fields":[{"field_id":"event_date","source_ids":[1],"transform":{"type":"identity"},"result_type":{"type":"date32"}}]}""",
      "partition_spec_v2" -> """{"id":2,"fields":[{"field_id":"event_year","source_ids":[1],"transform":{"type":"year"},"result_type":{"type":"int32"}},{"field_id":"country","source_ids":[2],"transform":{"type":"identity"},"result_type":{"type":"utf8"}}]}"""
    ),
    "t"
  )
  private val dec10 = java.time.LocalDate.of(2025, 12, 10)
  private val dec11 = dec10.plusDays(1)

  private lazy val store = {
    val s = new ManifestStore(Files.createTempDirectory("prune").toString, "t", LanceAccess(Map.empty))
    s.create(meta)
    def table(id: String, values: (String, Any)*) =
      ManifestRow(id, Naming.TableType, Some(Naming.location(id, "seed")), Some(1L), values.toMap)
    s.upsert(Seq(
      table("v1$a$dataset", "event_date" -> dec10.toEpochDay.toInt),
      table("v1$b$dataset", "event_date" -> dec11.toEpochDay.toInt),
      table("v1$n$dataset", "event_date" -> null),
      table("v2$y$us$dataset", "event_year" -> 2025, "country" -> UTF8String.fromString("US")),
      table("v2$y$fr$dataset", "event_year" -> 2025, "country" -> UTF8String.fromString("FR")),
      table("v2$y$nl$dataset", "event_year" -> 2025, "country" -> null)
    ))
    s
  }

  private def selected(filters: Filter*): Set[String] = selectedWith(meta, filters: _*)

  private def selectedWith(m: TableMetadata, filters: Filter*): Set[String] =
    store.rows(
      store.load().copy(meta = m),
      ManifestFilter.tables(m, filters)).map(_.objectId.stripSuffix("$dataset")).toSet

  test("Appendix D: each version prunes with its own fields") {
    // v1 prunes on event_date; v2 on year(event_date) = 2025 and country.
    assert(selected(EqualTo("event_date", dec10), EqualTo("country", "US")) == Set("v1$a", "v2$y$us"))
  }

  test("comparisons, IN, null tests and combinations") {
    val all = Set("v1$a", "v1$b", "v1$n", "v2$y$us", "v2$y$fr", "v2$y$nl")
    val v2 = Set("v2$y$us", "v2$y$fr", "v2$y$nl")
    assert(selected() == all)
    assert(selected(GreaterThan("event_date", dec10)) == v2 + "v1$b")
    assert(selected(LessThanOrEqual("event_date", dec10)) == v2 + "v1$a")
    assert(selected(In("event_date", Array(dec11, null))) == v2 + "v1$b")
    assert(selected(IsNull("event_date")) == Set("v1$n"), "year(event_date) IS NULL exactly when event_date is")
    assert(selected(EqualTo("event_date", java.time.LocalDate.of(2024, 1, 1))) == Set.empty)
    assert(selected(EqualNullSafe("country", null)) == Set("v1$a", "v1$b", "v1$n", "v2$y$nl"))
    assert(selected(IsNotNull("country")) == Set("v1$a", "v1$b", "v1$n", "v2$y$us", "v2$y$fr"))
    assert(selected(Or(EqualTo("country", "US"), EqualTo("country", "FR"))) == all - "v2$y$nl")
    assert(selected(Not(EqualTo("country", "US"))) == all - "v2$y$us" - "v2$y$nl")
    // NOT (country <=> 'US') holds where country is NULL (regression: that partition was pruned).
    assert(selected(Not(EqualNullSafe("country", "US"))) == all - "v2$y$us")
    assert(selected(StringStartsWith("country", "F")) == all - "v2$y$us" - "v2$y$nl")
    assert(selected(In("country", Array.empty[Any])) == Set("v1$a", "v1$b", "v1$n"))
  }

  test("a part that cannot be projected never prunes a partition that could match") {
    val all = Set("v1$a", "v1$b", "v1$n", "v2$y$us", "v2$y$fr", "v2$y$nl")
    assert(selected(Or(EqualTo("country", "US"), EqualTo("id", 1L))) == all)
    assert(selected(Not(And(EqualTo("country", "US"), EqualTo("id", 1L)))) == all)
    assert(selected(And(EqualTo("country", "US"), EqualTo("id", 1L))) == Set("v1$a", "v1$b", "v1$n", "v2$y$us"))
  }

  test("string literals are quoted, whatever they hold") {
    assert(selected(EqualTo("country", "x' OR '1'='1")) == Set("v1$a", "v1$b", "v1$n"))
  }

  test("a table without partition values is selected by every filter, and no filter is exact") {
    val props = meta.properties ++ Map(TableMetadata.UnpartitionedKey -> """["v1$b$dataset"]""")
    val unknown = TableMetadata.fromProperties(props, "t")
    assert(unknown.unpartitioned == Set("v1$b$dataset"))
    val v1 = meta.copy(specs = meta.specs.take(1)) // identity on event_date: exact
    assert(ManifestFilter.isExact(v1, EqualTo("event_date", dec10)))
    assert(!ManifestFilter.isExact(v1.copy(unpartitioned = unknown.unpartitioned), EqualTo("event_date", dec10)))
    assert(selectedWith(unknown, EqualTo("event_date", dec10), EqualTo("country", "US")) == Set(
      "v1$a",
      "v1$b",
      "v2$y$us"))
    assert(selectedWith(unknown, EqualTo("event_date", java.time.LocalDate.of(2024, 1, 1))) == Set("v1$b"))
    val rows = store.rows(store.load().copy(meta = unknown), ManifestFilter.tables(unknown, Seq.empty))
    assert(rows.find(_.objectId == "v1$b$dataset").exists(_.values.isEmpty), "its values are unknown, not NULL")
    assert(rows.find(_.objectId == "v1$a$dataset").exists(_.values.nonEmpty))
    val bad = intercept[FormatException](TableMetadata.fromProperties(
      props + (TableMetadata.UnpartitionedKey -> """{"v1": 1}"""),
      "t")).getMessage
    assert(bad == """table t: __manifest metadata lancepart.unpartitioned-tables is not a JSON array of object ids: {"v1": 1}""")
  }
}
