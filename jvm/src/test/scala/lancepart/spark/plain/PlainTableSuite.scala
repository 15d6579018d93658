// A plain Lance table against a local SparkSession: what the statement of a row-level command
// reads when other writers commit while Spark plans it, and a failed conversion to a partitioned table.
package lancepart.spark.plain

import java.nio.file.{Files, Path}

import lancepart.manifest.ManifestStore
import lancepart.spark.{DdlPartitioning, PartitionedCatalog, PartitionedTable, Warehouse}
import lancepart.spec.{NamespaceSchema, SpecEvolution, TableMetadata}
import lancepart.storage.HadoopDirectories
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

  private lazy val catalog = spark.sessionState.catalogManager.catalog("lance").asInstanceOf[PartitionedCatalog]

  /** Plain table `suite.<name>` of rows (1, a), (2, b), and the metadata converting it to a table
   * partitioned by `p` (spec v1 without fields, v2 by p). */
  private def plainToConvert(name: String): (PlainTable, TableMetadata) = {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lance.suite")
    spark.sql(s"CREATE TABLE lance.suite.$name (id BIGINT, p STRING)")
    spark.sql(s"INSERT INTO lance.suite.$name VALUES (1, 'a'), (2, 'b')")
    val plain = catalog.loadTable(Identifier.of(Array("suite"), name)).asInstanceOf[PlainTable]
    val unpartitioned = PartitionedCatalog.newTable(
      plain.name(),
      NamespaceSchema.fromSpark(plain.schema(), plain.name()),
      Array.empty,
      CaseInsensitiveStringMap.empty())
    val requested = DdlPartitioning.fields(plain.name(), unpartitioned.schema, DdlPartitioning.items(Seq("p")))
    (plain, unpartitioned.withSpec(SpecEvolution.next(unpartitioned, requested)))
  }

  private def warehouse(plain: PlainTable) =
    new Warehouse(root.toString, plain.lance, new HadoopDirectories(spark.sparkContext.hadoopConfiguration))

  private def rowsOf(name: String): Seq[String] =
    spark.sql(s"SELECT id, p FROM lance.suite.$name ORDER BY id").collect().map(_.toString).toSeq

  test("a conversion to a partitioned table that fails after the move puts the dataset back") {
    val (plain, meta) = plainToConvert("moving")
    val tableUri = s"$root/suite/moving"
    val store = new ManifestStore(tableUri, plain.name(), plain.lance) {
      override def publish(expected: Map[String, String], next: Map[String, String]): Unit = {
        assert(!Files.exists(Path.of(plain.uri)), "the dataset was moved before the metadata commit")
        throw new IllegalStateException("injected: the metadata commit failed")
      }
    }
    val e = intercept[IllegalStateException](PlainToPartitioned.convert(warehouse(plain), plain, store, meta))
    assert(e.getMessage == s"table ${plain.name()}: could not make the plain Lance table partitioned: injected: the " +
      "metadata commit failed")
    assert(!Files.exists(Path.of(tableUri)), "the partitioned table's directory is removed")
    assert(rowsOf("moving") == Seq("[1,a]", "[2,b]"))
  }

  test("a conversion that ended between the move and the metadata commit is finished by the next load") {
    val (plain, meta) = plainToConvert("ended")
    val store = new ManifestStore(s"$root/suite/ended", plain.name(), plain.lance) {
      override def publish(expected: Map[String, String], next: Map[String, String]): Unit =
        throw new InterruptedException("injected: the process ends") // no NonFatal: nothing is taken back
    }
    intercept[InterruptedException](PlainToPartitioned.convert(warehouse(plain), plain, store, meta))
    assert(!Files.exists(Path.of(plain.uri)), "moved")
    assert(catalog.loadTable(Identifier.of(Array("suite"), "ended")).isInstanceOf[PartitionedTable])
    assert(rowsOf("ended") == Seq("[1,a]", "[2,b]"))
    assert(spark.sql("SELECT count(*) FROM lance.suite.ended.partitions").first().getLong(0) == 1)
  }

  test("a conversion that ended before the move is taken back by the next one") {
    val (plain, meta) = plainToConvert("restarted")
    val ending = new Warehouse(
      root.toString,
      plain.lance,
      new HadoopDirectories(spark.sparkContext.hadoopConfiguration) {
        override def transferDirectory(from: String, to: String): Boolean =
          throw new InterruptedException("injected: the process ends")
      }
    )
    val store = new ManifestStore(s"$root/suite/restarted", plain.name(), plain.lance)
    intercept[InterruptedException](PlainToPartitioned.convert(ending, plain, store, meta))
    assert(rowsOf("restarted") == Seq("[1,a]", "[2,b]"), "the plain table is read meanwhile")
    spark.sql("ALTER TABLE lance.suite.restarted ADD PARTITION FIELD p")
    assert(rowsOf("restarted") == Seq("[1,a]", "[2,b]"))
    assert(catalog.loadTable(Identifier.of(Array("suite"), "restarted")).isInstanceOf[PartitionedTable])
  }
}
