// expire_snapshots against a real __manifest in a temporary directory.
package lancepart.maintenance

import java.nio.file.Files

import lancepart.lance.{DatasetTags, LanceAccess}
import lancepart.manifest.{ManifestStore, ManifestVersion, TableFiles}
import lancepart.spec.{NamespaceSchema, PartitionField, PartitionSpec, TableMetadata}
import lancepart.storage.HadoopDirectories
import lancepart.transform.Transform
import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}
import org.scalatest.funsuite.AnyFunSuite

class ExpireSnapshotsSuite extends AnyFunSuite {
  private val schema =
    NamespaceSchema.fromSpark(StructType(Seq(StructField("id", LongType), StructField("c", StringType))), "t")
  private val spec = PartitionSpec(
    1,
    Seq(PartitionField("c", Seq(1), Some(Transform.Identity), None, PartitionSpec.resultTypeJson(StringType))))

  test("a commit between loading the manifest and listing its versions expires the loaded version too") {
    // Regression (test_concurrency): the expiry read its loaded version after removing it and failed.
    val dir = Files.createTempDirectory("expire").toString
    var raced = false
    val store = new ManifestStore(dir, "t", LanceAccess(Map.empty)) {
      override def committed(): Seq[ManifestVersion] = {
        if (!raced) { raced = true; updateMetadata(Map("raced" -> "true")) } // another client's commit
        super.committed()
      }
    }
    store.create(TableMetadata.create("t", schema, spec))
    store.updateMetadata(Map("before" -> "true"))
    val loaded = store.latestVersion()
    val files = new TableFiles(dir, new HadoopDirectories(new Configuration()))
    val result = ExpireSnapshots.run(store, files, Long.MaxValue, retainLast = 1)
    assert(result.expiredVersions == loaded)
    assert(store.versions() == Seq(loaded + 1))
    assert(store.properties().get("raced").contains("true"))
  }

  test("a tag keeps its version until its retention passes; then the expiry removes the tag and the version") {
    val dir = Files.createTempDirectory("expire").toString
    val lance = LanceAccess(Map.empty)
    val store = new ManifestStore(dir, "t", lance)
    store.create(TableMetadata.create("t", schema, spec))
    (1 to 3).foreach(i => store.updateMetadata(Map("step" -> i.toString)))
    val versions = store.versions()
    val (kept, aged, latest) = (versions(versions.size - 4), versions(versions.size - 3), versions.last)
    DatasetTags.create(lance, store.uri, "t", "kept", kept, Some(24 * 3600 * 1000L), DatasetTags.Fail)
    DatasetTags.create(lance, store.uri, "t", "aged", aged, Some(1L), DatasetTags.Fail)
    Thread.sleep(5)
    val files = new TableFiles(dir, new HadoopDirectories(new Configuration()))
    val result = ExpireSnapshots.run(store, files, Long.MaxValue, retainLast = 1)
    assert(DatasetTags.list(lance, store.uri).map(t => (t.name, t.version)) == Seq(("kept", kept)))
    assert(store.versions() == Seq(kept, latest))
    assert(result.expiredVersions == versions.size - 2)
  }
}
