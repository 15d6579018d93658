// The local Spark session of the streaming suites: catalog `lance` over a new directory, holding
// namespace `ns`.
package lancepart.spark

import java.nio.file.{Files, Path}

import org.apache.spark.sql.SparkSession
import org.scalatest.{BeforeAndAfterAll, Suite}

trait StreamingSession extends BeforeAndAfterAll { this: Suite =>
  protected lazy val root: Path = Files.createTempDirectory("streaming")
  protected lazy val spark: SparkSession = SparkSession.builder()
    .master("local[2]")
    .config("spark.ui.enabled", "false")
    .config("spark.sql.shuffle.partitions", "2")
    .config("spark.sql.catalog.lance", classOf[PartitionedCatalog].getName)
    .config("spark.sql.catalog.lance.root", root.resolve("warehouse").toString)
    .getOrCreate()

  override def beforeAll(): Unit = spark.sql("CREATE NAMESPACE lance.ns")

  override def afterAll(): Unit = spark.stop()
}
