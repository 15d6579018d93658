// A plain Lance table against a local SparkSession: what the statement of a row-level command
// reads when other writers commit while Spark plans it.
package lancepart.spark.plain

import java.nio.file.{Files, Path}

import lancepart.spark.PartitionedCatalog
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.Identifier
import org.apache.spark.sql.connector.write.{RowLevelOperation, RowLevelOperationInfo}
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

class PlainTableSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val root: Path = Files.createTempDirectory("plain-tables")
  private lazy val spark: SparkSession = SparkSession.builder()
    .master("local[2]")
    .config("spark.ui.enabled", "false")
    .config("spark.sql.catalog.lance", classOf[PartitionedCatalog].getName)
    .config("spark.sql.catalog.lance.root", root.toString)
    .getOrCreate()

  override def afterAll(): Unit = spark.stop()

  // Regression: Spark finds the fragments holding changed rows with a second scan of the table,
  // planned after the command; when it read a newer version, whose fragment ids the command's
  // scan did not have, the UPDATE rewrote nothing and reported success (a lost update).
  test("every scan of a row-level command's statement reads the version the command reads") {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lance.suite")
    spark.sql("CREATE TABLE lance.suite.counter (id BIGINT, v INT)")
    spark.sql("INSERT INTO lance.suite.counter VALUES (1, 0)")
    val catalog = spark.sessionState.catalogManager.catalog("lance").asInstanceOf[PartitionedCatalog]
    val table = catalog.loadTable(Identifier.of(Array("suite"), "counter")).asInstanceOf[PlainTable]
    val info = new RowLevelOperationInfo {
      override def options(): CaseInsensitiveStringMap = CaseInsensitiveStringMap.empty()
      override def command(): RowLevelOperation.Command = RowLevelOperation.Command.UPDATE
    }
    table.newRowLevelOperationBuilder(info).build()
    spark.sql("UPDATE lance.suite.counter SET v = v + 1") // another writer commits meanwhile
    val read = table.newScanBuilder(CaseInsensitiveStringMap.empty()).build().description()
    assert(read.contains(s"version=${table.lanceVersion}"), read)
  }
}
