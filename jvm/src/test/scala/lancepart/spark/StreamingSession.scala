// The local Spark session of the streaming suites: catalog `lance` over a new directory, holding
// namespace `ns`. Their tests carry the tag `lancepart.streaming`, which the module of Spark 4.0
// excludes (its pom.xml): the streaming code is the same on every line, run by make test on Spark 3.5
// (Scala 2.12) and 4.1 (make test's time, docs/testing.md).
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

  abstract override def tags: Map[String, Set[String]] =
    testNames.iterator.map(name => name -> (super.tags.getOrElse(name, Set.empty) + StreamingSession.Tag)).toMap
}

object StreamingSession {
  val Tag = "lancepart.streaming"
}
