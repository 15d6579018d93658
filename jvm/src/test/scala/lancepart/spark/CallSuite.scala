// CALL statements of lancepart's procedures on every Spark line (Spark 4 runs CALL itself, Spark 3.5
// through lancepart's extension): arguments by position and by name, defaults, the catalog named or
// current, comments and string literals holding commas and parentheses, the errors for a
// parameter unknown, missing or given twice or an argument that does not fit, a catalog without
// procedures, and one run per CALL.
package lancepart.spark

import java.nio.file.{Files, Path}

import org.apache.spark.sql.{Row, SparkSession}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

class CallSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val root: Path = Files.createTempDirectory("call")
  private lazy val spark: SparkSession = SparkSession.builder()
    .master("local[2]")
    .config("spark.ui.enabled", "false")
    .config("spark.sql.shuffle.partitions", "2")
    .config("spark.sql.extensions", classOf[LancepartSparkSessionExtensions].getName)
    .config("spark.sql.catalog.lance", classOf[PartitionedCatalog].getName)
    .config("spark.sql.catalog.lance.root", root.resolve("lance").toString)
    .config("spark.sql.warehouse.dir", root.resolve("spark-warehouse").toString)
    .getOrCreate()

  override def beforeAll(): Unit = {
    spark.sql("CREATE NAMESPACE lance.ns")
    spark.sql("CREATE TABLE lance.ns.t (id BIGINT, region STRING) PARTITIONED BY (region)")
    // one fragment per insert: three in partition 'eu', one in 'us'
    Seq("(1, 'eu')", "(2, 'eu')", "(3, 'eu')", "(4, 'us')").foreach(v => spark.sql(s"INSERT INTO lance.ns.t VALUES $v"))
  }

  override def afterAll(): Unit = spark.stop()

  private def describe(sql: String): Seq[Any] = {
    val rows = spark.sql(sql).collect()
    assert(rows.length == 1, sql)
    Seq(rows.head.getAs[String]("name"), rows.head.getAs[Boolean]("partitioned"))
  }

  test("arguments by position or by name, in the named catalog or the current one") {
    val expected = Seq("lance.ns.t", true)
    assert(describe("CALL lance.system.describe('ns.t')") == expected)
    assert(describe("CALL lance.system.describe(table => 'lance.ns.t');") == expected)
    spark.sql("USE lance")
    try assert(describe("call system.describe(\n  -- the table\n  table /* named */ => 'ns.t')") == expected)
    finally spark.sql("USE spark_catalog")
  }

  test("omitted arguments take their defaults; strings may hold commas and parentheses") {
    // options default to map(): a condition selecting no partition rewrites nothing
    assert(spark.sql("CALL lance.system.rewrite_data_files('ns.t', 'region = \"x, (y)\"')").collect().toSeq ==
      Seq(Row(0L, 0L, 0)))
    assert(spark.table("lance.ns.t").count() == 4)
    val compacted = spark.sql("CALL lance.system.rewrite_data_files(where => 'region = \\'eu\\'', table => 'ns.t')")
    assert(compacted.collect().toSeq == Seq(Row(3L, 1L, 1)))
    assert(spark.table("lance.ns.t").orderBy("id").collect().toSeq.map(_.getLong(0)) == Seq(1L, 2L, 3L, 4L))
  }

  private def manifestVersion: Long =
    spark.sql("CALL lance.system.describe('ns.t')").head().getAs[Long]("manifest_version")

  test("a parameter unknown, missing or given twice, or an argument that does not fit, fails and nothing runs") {
    def failure(sql: String): String = intercept[Exception](spark.sql(sql).collect()).getMessage
    val before = manifestVersion
    assert(failure("CALL lance.system.rewrite_data_files(tabel => 'ns.t')").contains("tabel"))
    assert(failure("CALL lance.system.rewrite_data_files()").contains("table"))
    assert(failure("CALL lance.system.rewrite_data_files('ns.t', table => 'ns.t')").contains("table"))
    assert(failure("CALL lance.system.rewrite_data_files(table => 'ns.t', 'region = \\'us\\'')").nonEmpty)
    assert(failure("CALL lance.system.rewrite_data_files('ns.t', 'region = \\'us\\'', map(), 'extra')").nonEmpty)
    assert(failure("CALL lance.system.rewrite_data_files('ns.t') 'trailing'").nonEmpty)
    assert(failure("CALL lance.system.vacuum('ns.t', retention_check => 'maybe')").contains("maybe"))
    // a NULL would read as false: the retention check off
    assert(failure("CALL lance.system.vacuum('ns.t', retention_check => NULL)").contains("'retention_check' is NULL"))
    assert(failure("CALL lance.system.expire_snapshots('ns.t', retain_last => NULL)").contains("'retain_last' is NULL"))
    assert(failure("CALL lance.system.no_such_procedure('ns.t')").contains("no_such_procedure"))
    assert(manifestVersion == before)
  }

  test("a CALL in a catalog without procedures fails naming the catalog") {
    val message = intercept[Exception](spark.sql("CALL spark_catalog.system.describe('ns.t')").collect()).getMessage
    val expected =
      if (org.apache.spark.SPARK_VERSION.startsWith("3.5"))
        "on Spark 3.5 lancepart runs CALL for the procedures of its own catalogs, and catalog spark_catalog is of class"
      else "Catalog spark_catalog does not support procedures"
    assert(message.contains(expected), message)
  }

  test("a CALL runs once, when the statement runs, however often its rows are read") {
    spark.sql("INSERT INTO lance.ns.t VALUES (5, 'us')")
    val before = manifestVersion
    val compacted = spark.sql("CALL lance.system.rewrite_data_files(table => 'ns.t', where => 'region = \\'us\\'')")
    assert(manifestVersion == before + 1)
    assert(compacted.collect().toSeq == Seq(Row(2L, 1L, 1)) && compacted.count() == 1)
    assert(compacted.collect().toSeq == Seq(Row(2L, 1L, 1)) && manifestVersion == before + 1)
  }
}
