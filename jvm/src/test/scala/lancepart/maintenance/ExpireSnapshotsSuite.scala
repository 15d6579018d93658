// expire_snapshots against a real __manifest in a temporary directory.
package lancepart.maintenance

import java.nio.file.Files

import lancepart.lance.LanceAccess
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
}
