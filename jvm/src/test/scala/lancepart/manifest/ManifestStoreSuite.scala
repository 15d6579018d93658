// __manifest I/O against real Lance datasets in a temporary directory.
package lancepart.manifest

import java.nio.file.Files

import lancepart.lance.{DatasetBranches, DatasetTags, Lance, LanceAccess, LeafStats}
import lancepart.spec._
import lancepart.transform.Transform
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType, Schema}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

class ManifestStoreSuite extends AnyFunSuite {
  private val schema = NamespaceSchema.fromSpark(
    StructType(Seq(
      StructField("id", LongType),
      StructField("d", DateType),
      StructField("c", StringType))),
    "t")
  private val spec = PartitionSpec(
    1,
    Seq(
      PartitionField("d", Seq(1), Some(Transform.Identity), None, PartitionSpec.resultTypeJson(DateType)),
      PartitionField("c", Seq(2), Some(Transform.Identity), None, PartitionSpec.resultTypeJson(StringType))
    )
  )
  private val meta = TableMetadata.create("t", schema, spec)

  private def newStore(): ManifestStore =
    new ManifestStore(Files.createTempDirectory("manifest").toString, "t", LanceAccess(Map.empty))

  private def leaf(name: String, d: Any, c: String, version: Long): ManifestRow =
    ManifestRow(
      s"v1$$$name$$dataset",
      Naming.TableType,
      Some(Naming.location(s"v1$$$name$$dataset", "seed")),
      Some(version),
      Map("d" -> d, "c" -> Option(c).map(UTF8String.fromString).orNull)
    )

  test("create writes the metadata properties and the v1 namespace row") {
    val store = newStore()
    store.create(meta)
    val manifest = store.load()
    assert(manifest.meta.properties == meta.properties)
    assert(store.properties() == meta.properties)
    val rows = store.rows(manifest, "true")
    assert(rows == Seq(ManifestRow("v1", Naming.NamespaceType, None, None, Map("d" -> null, "c" -> null))))
  }

  test("upsert inserts new rows and replaces rows with the same object_id in one commit") {
    val store = newStore()
    store.create(meta)
    val v0 = store.load().version
    val a = leaf("aaaaaaaaaaaaaaaa", 20000, "US", 1)
    val b = leaf("bbbbbbbbbbbbbbbb", null, "a$'\"/=", 1)
    val v1 = store.upsert(Seq(a, b))
    assert(v1 == v0 + 1)
    val a2 = a.copy(readVersion = Some(Long.MaxValue))
    assert(store.upsert(Seq(a2)) == v1 + 1)
    val manifest = store.load()
    val read = store.rows(manifest, "object_type = 'table'").sortBy(_.objectId)
    assert(read.map(_.copy(metadata = None)) == Seq(a2, b))
    // the metadata JSON keeps the values and read_version, for a repair after a foreign rewrite
    val types = meta.allFields.map(f => f.fieldId -> f.valueType).toMap
    assert(read.map(r => RowMetadata.parse(r.metadata.get, types, "t", r.objectId)) ==
      Seq(a2, b).map(r => RowMetadata(r.values, r.readVersion, None)))
    // a NULL value is listed, never a JSON null (Lance's DirectoryNamespace reads a map of strings)
    val bText = read.find(_.objectId == b.objectId).get.metadata.get
    assert(
      bText.contains(""""lancepart.null_partitions":"[\"d\"]"""") && !bText.contains("null,") &&
        !bText.contains("null}"),
      bText)
    // as lancepart wrote it before: JSON null
    assert(RowMetadata.parse("""{"partition.d": null}""", types, "t", b.objectId).values == Map("d" -> null))
    assert(store.tableCount(manifest) == 2)
    assert(store.rows(manifest, "`partition_field_c` = 'a$''\"/='").map(_.objectId) == Seq(b.objectId))
    assert(store.rows(
      manifest,
      "`partition_field_d` IS NULL AND object_type = 'table'").map(_.objectId) == Seq(b.objectId))
    // Older versions stay readable as they were.
    assert(store.rows(manifest.copy(version = v1), "object_type = 'table'").sortBy(_.objectId).map(_.copy(metadata =
      None)) == Seq(a, b))
  }

  test("a row count comes from the recorded stats only when they are of the version read") {
    val store = newStore()
    val location = "leaf"
    val schema = new Schema(java.util.Collections.singletonList(Field.nullable("x", new ArrowType.Int(32, true))))
    store.lance.create(store.leafUri(location), schema, None) // empty, version 1
    val recorded = ManifestRow(
      "v1$a$dataset",
      Naming.TableType,
      Some(location),
      None,
      Map.empty,
      stats = Some(LeafStats(1, 999, 0))
    ) // rows unlike the leaf's: shows where a count came from
    assert(store.leafRowCount(recorded, _ => Some(1)) == 999) // weak: the leaf's latest is the recorded version
    assert(store.leafRowCount(recorded, _ => Some(2)) == 0) // weak: another client committed since
    var listed = false
    assert(store.leafRowCount(recorded.copy(readVersion = Some(1)), _ => { listed = true; None }) == 999)
    assert(!listed) // a pinned version needs no listing
    assert(store.leafRowCount(recorded.copy(stats = None), _ => Some(1)) == 0)
  }

  test("reading a manifest version that expire_snapshots removed meanwhile says so") {
    val store = newStore()
    store.create(meta)
    store.upsert(Seq(leaf("aaaaaaaaaaaaaaaa", 20000, "US", 1)))
    val planned = store.load()
    store.upsert(Seq(leaf("bbbbbbbbbbbbbbbb", 20001, "FR", 1)))
    store.lance.withDataset(store.uri)(
      _.cleanupWithPolicy(org.lance.cleanup.CleanupPolicy.builder().withBeforeVersion(store.latestVersion()).build()))
    val e = intercept[IllegalStateException](store.rows(planned, "true"))
    assert(e.getMessage.contains(s"manifest version ${planned.version}, which this statement read, was removed"))
    assert(store.rows(store.load(), "object_type = 'table'").size == 2)
  }

  test("a manifest version's rows are kept for its next read; a new version, and a manifest made anew at the same location, are read") {
    val store = newStore()
    store.create(meta)
    store.upsert(Seq(leaf("aaaaaaaaaaaaaaaa", 20000, "US", 1)))
    val first = store.load()
    val rows = store.rows(first, "object_type = 'table'", keep = true)
    assert(store.rows(first, "object_type = 'table'", keep = true) eq rows)
    assert(!(store.rows(first, "object_type = 'table'") eq rows)) // not kept: read
    store.upsert(Seq(leaf("bbbbbbbbbbbbbbbb", 20001, "FR", 1)))
    assert(store.rows(store.load(), "object_type = 'table'", keep = true).size == 2)
    Lance.using(Files.walk(java.nio.file.Paths.get(store.uri)))(_.sorted(java.util.Comparator.reverseOrder()).forEach(
      p =>
        Files.delete(p)))
    store.create(meta)
    store.upsert(Seq(leaf("cccccccccccccccc", 20002, "DE", 1)))
    val anew = store.load()
    assert(anew.version == first.version)
    assert(store.rows(anew, "object_type = 'table'", keep = true).map(_.objectId) == Seq("v1$cccccccccccccccc$dataset"))
    // a kept version that expire_snapshots removed is not read from what was kept
    store.upsert(Seq(leaf("dddddddddddddddd", 20003, "IT", 1)))
    store.lance.withDataset(store.uri)(
      _.cleanupWithPolicy(org.lance.cleanup.CleanupPolicy.builder().withBeforeVersion(store.latestVersion()).build()))
    val e = intercept[IllegalStateException](store.rows(anew, "object_type = 'table'", keep = true))
    assert(e.getMessage.contains(s"manifest version ${anew.version}, which this statement read, was removed"))
  }

  test("a commit on top of a manifest version that expire_snapshots removed meanwhile is a conflict, retried") {
    // Regression (test_concurrency): the commit failed with Lance's "Dataset at path ... was not found".
    val store = newStore()
    store.create(meta)
    val expected = store.latestVersion()
    store.upsert(Seq(leaf("aaaaaaaaaaaaaaaa", 20000, "US", 1)))
    store.lance.withDataset(store.uri)(
      _.cleanupWithPolicy(org.lance.cleanup.CleanupPolicy.builder().withBeforeVersion(store.latestVersion()).build()))
    val e =
      intercept[ManifestConflict](store.commit(expected, Seq(leaf("bbbbbbbbbbbbbbbb", 20001, "FR", 1)), Seq.empty))
    assert(e.getMessage == s"table t: __manifest changed after version $expected")
    assert(store.rows(store.load(), "object_type = 'table'").map(_.objectId) == Seq("v1$aaaaaaaaaaaaaaaa$dataset"))
  }

  test("a branch's commits stay on the branch; fast-forward publishes them while main's partitions are the branch's") {
    val store = newStore()
    store.create(meta)
    val namespace = ManifestRow("v1", Naming.NamespaceType, None, None, Map.empty)
    val base = store.upsert(Seq(leaf("aaaaaaaaaaaaaaaa", 20000, "US", 1)))
    DatasetBranches.create(store.lance, store.uri, "t", "b", base, None, DatasetTags.Fail)
    val branch = store.onBranch("b")
    val b = leaf("bbbbbbbbbbbbbbbb", 20001, "FR", 2)
    branch.commit(branch.latestVersion(), Seq(b, namespace), Seq("v1$aaaaaaaaaaaaaaaa$dataset"))
    def ids(s: ManifestStore) = s.rows(s.load(), ManifestQuery.tables(meta)).map(_.objectId).sorted
    assert(ids(store) == Seq("v1$aaaaaaaaaaaaaaaa$dataset") && ids(branch) == Seq(b.objectId))
    // a transaction changed main's partitions: main is no ancestor of the branch
    val moved = store.commit(base, Seq(leaf("cccccccccccccccc", 20002, "DE", 1), namespace), Seq.empty).version
    assert(store.fastForward(branch, since = base).isEmpty && store.latestVersion() == moved)
    // a branch made now is published over a metadata commit on main, which stays
    DatasetBranches.create(store.lance, store.uri, "t", "c", moved, None, DatasetTags.Fail)
    val c = store.onBranch("c")
    val changed = leaf("cccccccccccccccc", 20002, "DE", 5)
    c.commit(c.latestVersion(), Seq(changed, namespace), Seq("v1$aaaaaaaaaaaaaaaa$dataset"))
    store.updateMetadata(Map("comment" -> "kept"))
    val before = store.latestVersion()
    assert(store.fastForward(c, since = moved).contains((before, before + 1)))
    assert(ids(store) == Seq(changed.objectId) && store.properties().get("comment").contains("kept"))
    assert(store.rows(store.load(), ManifestQuery.tables(meta)) == c.rows(c.load(), ManifestQuery.tables(meta)))
    // the published partition table's record is numbered by main's version, above every earlier one
    val records = store.rows(store.load(), ManifestQuery.versionRecords).filter(_.location == changed.location)
    assert(records.map(_.objectId).max == s"${changed.objectId}$$${before + 1}" && records.last.readVersion.contains(5))
    // published already: nothing to do
    assert(store.fastForward(c, since = c.latestVersion()).contains((before + 1, before + 1)))
  }

  test("what expire and vacuum keep counts a branch published and dropped after main's versions were listed") {
    val store = newStore()
    store.create(meta)
    val namespace = ManifestRow("v1", Naming.NamespaceType, None, None, Map.empty)
    val base = store.upsert(Seq(leaf("aaaaaaaaaaaaaaaa", 20000, "US", 1)))
    DatasetBranches.create(store.lance, store.uri, "t", "b", base, None, DatasetTags.Fail)
    val branch = store.onBranch("b")
    val onlyBranch = leaf("bbbbbbbbbbbbbbbb", 20001, "FR", 1)
    branch.commit(branch.latestVersion(), Seq(onlyBranch, namespace), Seq.empty)
    val listed = store.versions()
    // published and dropped meanwhile (a review found vacuum deleting such a partition table)
    assert(store.fastForward(branch, since = base).isDefined)
    DatasetBranches.drop(store.lance, store.uri, "t", "b", ifExists = false)
    assert(store.keptLeafReferences(listed, listed).contains(onlyBranch.location.get))
  }

  test("a manifest without a declared partition column is refused with the column's name") {
    val store = newStore()
    store.create(TableMetadata.create("t", schema, spec.copy(fields = spec.fields.take(1))))
    val wider = TableMetadata.create("t", schema, spec)
    store.lance.withDataset(store.uri) { ds =>
      val update = org.lance.operation.UpdateConfig.builder().tableMetadataUpdates(
        org.lance.operation.UpdateMap.builder().updates(java.util.Map.of(
          "partition_spec_v1",
          wider.specs.head.spec.toJson))
          .replace(false).build()).build()
      Lance.using(ds.newTransactionBuilder().operation(update).build())(_.commit().close())
    }
    val e = intercept[FormatException](store.load())
    assert(e.getMessage.startsWith(
      "table t: __manifest has no column 'partition_field_c' for field 'c' of partition_spec_v1"))
  }

  test("rows committed on top of a REPLACE that no longer declares their spec are a conflict, not a success") {
    val store = newStore()
    store.create(meta)
    val guard = ManifestRow("v1", Naming.NamespaceType, None, None, Map.empty)
    val row = leaf("aaaaaaaaaaaaaaaa", 20000, "US", 1)
    // another writer's table-metadata commit that keeps v1 declared does not hide the rows
    val before = store.latestVersion()
    store.updateMetadata(Map("property.owner" -> "x"))
    store.commit(before, Seq(guard, row), Seq.empty)
    assert(store.rows(store.load(), "object_type = 'table'").map(_.copy(metadata = None)) == Seq(row))
    // a REPLACE publishing a table of spec v2 only, after this writer read the manifest
    val started = store.latestVersion()
    store.publish(store.properties(), TableMetadata.create("t", schema, spec.copy(id = 2)).stored)
    val e = intercept[ManifestConflict](store.commit(started, Seq(guard, row.copy(readVersion = Some(2))), Seq.empty))
    assert(e.getCause.getMessage.startsWith("partition_spec_v1 was replaced or removed while version"))
  }

  test("partition columns added while other writers commit rows are added, not refused as a conflict") {
    val store = newStore()
    store.create(meta)
    val upserts = new java.util.concurrent.atomic.AtomicLong()
    val done = new java.util.concurrent.atomic.AtomicBoolean(false)
    @volatile var failure: Option[Throwable] = None
    val writer = new Thread(() =>
      try while (!done.get()) {
          store.upsert(Seq(leaf("aaaaaaaaaaaaaaaa", 20000, "US", upserts.get())))
          upserts.incrementAndGet()
        }
      catch { case e: Throwable => failure = Some(e) })
    writer.start()
    try for (i <- 1 to 30) {
        while (upserts.get() < i && failure.isEmpty) Thread.sleep(1)
        store.addColumns(Seq(new Field(s"partition_field_x$i", FieldType.nullable(new ArrowType.Int(32, true)), null)))
      }
    finally { done.set(true); writer.join() }
    assert(failure.isEmpty, failure)
    assert((1 to 30).map(i => s"x$i").toSet.subsetOf(store.partitionColumnTypes().keySet))
  }
}
