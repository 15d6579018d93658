// The Spark layers against a local SparkSession and real Lance files: the catalog's DDL, every
// kind of write, and scans that prune partitions and columns and report their partitioning.
// Expected rows come from Spark itself over the same data held in memory.
package lancepart.spark

import java.nio.file.{Files, Path}

import lancepart.spark.read.PartitionedScan
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.connector.read.partitioning.KeyGroupedPartitioning
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

class PartitionedTableSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val root: Path = Files.createTempDirectory("spark-layers")
  private lazy val spark: SparkSession = SparkSession.builder()
    .master("local[2]")
    .config("spark.ui.enabled", "false")
    .config("spark.sql.shuffle.partitions", "2")
    .config("spark.sql.session.timeZone", "UTC")
    .config("spark.sql.sources.v2.bucketing.enabled", "true")
    .config("spark.sql.catalog.lance", classOf[PartitionedCatalog].getName)
    .config("spark.sql.catalog.lance.root", root.toString)
    // the tables here are small: report their partitioning anyway
    .config(s"spark.sql.catalog.lance.${PartitionedCatalog.SpjMinKeyBytesOption}", "0")
    .getOrCreate()

  override def afterAll(): Unit = spark.stop()

  /** The events every test starts from, as an in-memory view `source`. */
  private def source(): DataFrame = {
    val df = spark.sql(
      """SELECT id, c, CAST(DATE'2025-12-10' + CAST(id % 3 AS INT) AS DATE) AS d, CAST(id * 1.5 AS DOUBLE) AS v
        |FROM range(0, 60) CROSS JOIN (SELECT explode(array('a', 'b', 'c')) AS c)""".stripMargin)
      .where("NOT (c = 'c' AND id % 2 = 0)")
    df.createOrReplaceTempView("source")
    df
  }

  private def sorted(rows: Array[Row]): Seq[String] = rows.map(_.toString).toSeq.sorted

  private def same(table: String, expected: String): Unit =
    assert(sorted(spark.table(table).collect()) == sorted(spark.sql(expected).collect()))

  private def create(name: String): String = {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lance.suite")
    val t = s"lance.suite.$name"
    spark.sql(s"CREATE TABLE $t (id BIGINT, c STRING, d DATE, v DOUBLE) PARTITIONED BY (c, bucket(4, id), days(d))")
    t
  }

  private def scanOf(df: DataFrame): BatchScanExec = df.queryExecution.executedPlan.collectFirst {
    case s: BatchScanExec => s
  }.getOrElse(fail(s"no batch scan in ${df.queryExecution.executedPlan}"))

  test("the catalog creates, lists, loads and drops a partitioned table, naming it in errors") {
    val t = create("ddl")
    assert(spark.sql("SHOW TABLES IN lance.suite").collect().map(_.getString(1)).contains("ddl"))
    val partitioning = spark.sql(s"DESCRIBE TABLE $t").collect().map(r => r.getString(0) -> r.getString(1)).toMap
    assert(
      partitioning.get("Part 0").contains("c") && partitioning.get("Part 1").contains("lance_bucket(4, id)") &&
        partitioning.get("Part 2").contains("days(d)"),
      partitioning
    )
    val twice = intercept[Exception](spark.sql(s"CREATE TABLE $t (id BIGINT) PARTITIONED BY (id)"))
    assert(twice.getMessage.contains("`suite`.`ddl` because it already exists"), twice.getMessage)
    spark.sql(s"DROP TABLE $t")
    assert(!spark.sql("SHOW TABLES IN lance.suite").collect().map(_.getString(1)).contains("ddl"))
    assert(!Files.exists(root.resolve("suite").resolve("ddl")), "DROP TABLE deletes the table's directory")
  }

  test("INSERT, dynamic INSERT OVERWRITE, DataFrameWriterV2 append and DELETE land the rows Spark computes") {
    val t = create("writes")
    source()
    spark.sql(s"INSERT INTO $t SELECT * FROM source")
    same(t, "SELECT * FROM source")

    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try spark.sql(s"INSERT OVERWRITE $t SELECT id, c, d, v * 10 FROM source WHERE c = 'a' AND id < 30")
    finally spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    // a dynamic overwrite replaces the partitions it writes: (c, bucket, day) groups of the new rows
    val replaced = "SELECT DISTINCT c, lance.system.lance_bucket(4, id) AS b, d FROM source WHERE c = 'a' AND id < 30"
    same(
      t,
      s"""SELECT s.* FROM source s LEFT ANTI JOIN ($replaced) r
               |  ON s.c = r.c AND lance.system.lance_bucket(4, s.id) = r.b AND s.d = r.d
               |UNION ALL SELECT id, c, d, v * 10 FROM source WHERE c = 'a' AND id < 30""".stripMargin
    )
    val afterOverwrite = sorted(spark.table(t).collect())

    spark.sql("SELECT id + 100 AS id, c, d, v FROM source WHERE id < 5").writeTo(t).append()
    spark.sql(s"DELETE FROM $t WHERE c = 'b'")
    val expected = (afterOverwrite ++ sorted(spark.sql("SELECT id + 100, c, d, v FROM source WHERE id < 5").collect()))
      .filterNot(_.contains(",b,"))
    assert(sorted(spark.table(t).collect()) == expected.sorted)
  }

  test("scans prune partitions and columns, apply data filters exactly and report their partitioning") {
    val t = create("reads")
    source()
    spark.sql(s"INSERT INTO $t SELECT * FROM source")
    val total = spark.sql(s"SELECT DISTINCT c, lance.system.lance_bucket(4, id), d FROM source").count()

    val pruned = spark.sql(s"SELECT id, v FROM $t WHERE c = 'a' AND d = DATE'2025-12-11'")
    val scan = scanOf(pruned)
    val expectedTables = spark.sql(
      "SELECT DISTINCT lance.system.lance_bucket(4, id) FROM source WHERE c = 'a' AND d = DATE'2025-12-11'").count()
    assert(scan.scan.description().contains(s"tables=$expectedTables/$total"), scan.scan.description())
    // the identity filter on c is exact and not evaluated again; d's is (days() prunes a superset)
    assert(scan.scan.readSchema().fieldNames.toSeq == Seq("id", "d", "v"), "only the columns the query needs")
    assert(sorted(pruned.collect()) == sorted(
      spark.sql("SELECT id, v FROM source WHERE c = 'a' AND d = DATE'2025-12-11'").collect()))

    def filtered(from: String) = s"SELECT id, c FROM $from WHERE v > 40 AND id % 7 = 1"
    assert(sorted(spark.sql(filtered(t)).collect()) == sorted(spark.sql(filtered("source")).collect()))

    scanOf(spark.table(t)).scan match {
      case s: PartitionedScan =>
        val reported = s.outputPartitioning()
        assert(reported.isInstanceOf[KeyGroupedPartitioning], reported)
        val keys = reported.asInstanceOf[KeyGroupedPartitioning].keys().map(_.describe()).toSeq
        assert(keys == Seq("c", "bucket(4, id)", "lance_calendar_year_month_day(d)"), keys) // a day is a calendar key
        assert(reported.asInstanceOf[KeyGroupedPartitioning].numPartitions() == total)
      case other => fail(s"unexpected scan $other")
    }
  }
}
