// ALTER TABLE ... ADD / DROP / REPLACE PARTITION FIELD through LancepartSparkSessionExtensions, in a
// local SparkSession over real Lance files: the spec each statement makes (field ids included), the
// rows written under every spec read back, errors naming table and field, and other SQL unchanged.
package lancepart.spark

import java.nio.file.{Files, Path}

import lancepart.spark.extensions.AlterTableParser
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.connector.catalog.Identifier
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

class PartitionFieldDdlSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val root: Path = Files.createTempDirectory("partition-field-ddl")
  private lazy val spark: SparkSession = SparkSession.builder()
    .master("local[2]")
    .config("spark.ui.enabled", "false")
    .config("spark.sql.shuffle.partitions", "2")
    .config("spark.sql.session.timeZone", "UTC")
    .config("spark.sql.extensions", classOf[LancepartSparkSessionExtensions].getName)
    .config("spark.sql.catalog.lance", classOf[PartitionedCatalog].getName)
    .config("spark.sql.catalog.lance.root", root.resolve("lance").toString)
    .config("spark.sql.catalog.other", classOf[PartitionedCatalog].getName)
    .config("spark.sql.catalog.other.root", root.resolve("other").toString)
    .config("spark.sql.warehouse.dir", root.resolve("spark-warehouse").toString)
    .getOrCreate()

  override def afterAll(): Unit = spark.stop()

  /** Rows `from` until `until` of every table here: NULLs in each column now and then. */
  private def rows(from: Int, until: Int): String =
    s"""SELECT id,
       |  CASE WHEN id % 11 = 0 THEN NULL ELSE TIMESTAMP'2024-11-28 10:00:00' + make_dt_interval(CAST(id * 3 AS INT), CAST(id % 24 AS INT)) END AS ts,
       |  CASE WHEN id % 7 = 0 THEN NULL ELSE element_at(array('eu', 'us', 'apac'), CAST(id % 3 + 1 AS INT)) END AS region,
       |  concat('n', id) AS name
       |FROM range($from, $until)""".stripMargin

  private def sorted(rows: Array[Row]): Seq[String] = rows.map(_.toString).toSeq.sorted

  private var written = Map.empty[String, Int]

  /** Appends the next `n` rows to `t` and checks that it reads back every row written so far. */
  private def writeAndCheck(t: String, n: Int = 40): Unit = {
    val from = written.getOrElse(t, 0)
    spark.sql(s"INSERT INTO $t ${rows(from, from + n)}")
    written += t -> (from + n)
    assert(sorted(spark.table(t).collect()) == sorted(spark.sql(rows(0, from + n)).collect()), t)
  }

  private def create(catalog: String, ns: String, name: String, partitionedBy: String): String = {
    spark.sql(s"CREATE NAMESPACE IF NOT EXISTS $catalog.$ns")
    val t = s"$catalog.$ns.$name"
    spark.sql(s"CREATE TABLE $t (id BIGINT, ts TIMESTAMP, region STRING, name STRING) PARTITIONED BY ($partitionedBy)")
    t
  }

  private def table(t: String): PartitionedTable = {
    val Array(catalog, ns, name) = t.split('.')
    spark.sessionState.catalogManager.catalog(catalog).asInstanceOf[PartitionedCatalog]
      .loadPartitioned(Identifier.of(Array(ns), name))
  }

  /** The current spec's version and field ids. */
  private def spec(t: String): (Int, Seq[String]) = {
    val current = table(t).manifest.meta.currentSpec
    (current.id, current.fields.map(_.fieldId))
  }

  /** The partitioning DESCRIBE shows. */
  private def partitioning(t: String): Seq[String] =
    spark.sql(s"DESCRIBE TABLE $t").collect().collect {
      case r if r.getString(0).startsWith("Part ") => r.getString(1)
    }.toSeq

  test("ADD PARTITION FIELD adds identity, bucket, years and named fields; rows written under every spec read back") {
    val t = create("lance", "adds", "t", "region")
    writeAndCheck(t)
    spark.sql(s"ALTER TABLE $t ADD PARTITION FIELD bucket(4, id)")
    assert(spec(t) == (2, Seq("region", "id_bucket_4")))
    writeAndCheck(t)
    // keywords in any case; the transform as PARTITIONED BY takes it
    spark.sql(s"alter table $t Add Partition Field YEARS(ts)")
    assert(spec(t) == (3, Seq("region", "id_bucket_4", "ts_year")))
    writeAndCheck(t)
    spark.sql(s"ALTER TABLE $t ADD PARTITION FIELD name")
    assert(spec(t) == (4, Seq("region", "id_bucket_4", "ts_year", "name")))
    writeAndCheck(t)
    spark.sql(s"ALTER TABLE $t ADD PARTITION FIELD truncate(2, region) AS initials")
    assert(spec(t) == (5, Seq("region", "id_bucket_4", "ts_year", "name", "initials")))
    writeAndCheck(t)
    assert(partitioning(t) == Seq("region", "lance_bucket(4, id)", "years(ts)", "name", "lance_truncate(2, region)"))
    // each write went to the spec current at the time: 40 rows per version
    val perSpec = spark.sql(s"SELECT spec_id, sum(row_count) FROM $t.partitions GROUP BY spec_id ORDER BY spec_id")
      .collect().map(r => (r.getInt(0), r.getLong(1))).toSeq
    assert(perSpec == (1 to 5).map(_ -> 40L))
    val initials = spark.sql(s"SELECT DISTINCT initials FROM $t.partitions WHERE spec_id = 5")
      .collect().map(r => Option(r.getString(0))).toSet
    assert(initials == Set(Some("eu"), Some("us"), Some("ap"), None))
  }

  test("DROP by name and by transform and REPLACE in place keep field ids; a field added again gets its old id") {
    val t = create("lance", "drops", "t", "region, bucket(4, id), months(ts)")
    writeAndCheck(t)
    spark.sql(s"ALTER TABLE $t ADD PARTITION FIELD bucket(8, name) AS shard")
    assert(spec(t) == (2, Seq("region", "id_bucket_4", "ts_year", "ts_month", "shard")))
    writeAndCheck(t)
    spark.sql(s"ALTER TABLE $t DROP PARTITION FIELD shard")
    assert(spec(t) == (3, Seq("region", "id_bucket_4", "ts_year", "ts_month")))
    writeAndCheck(t)
    spark.sql(s"ALTER TABLE $t DROP PARTITION FIELD bucket(4, id)")
    assert(spec(t) == (4, Seq("region", "ts_year", "ts_month")))
    writeAndCheck(t)
    // months(ts) is one partition field (a calendar run); days(ts) takes its place, reusing year and month
    spark.sql(s"ALTER TABLE $t REPLACE PARTITION FIELD months(ts) WITH days(ts)")
    assert(spec(t) == (5, Seq("region", "ts_year", "ts_month", "ts_day")))
    assert(partitioning(t) == Seq("region", "days(ts)"))
    writeAndCheck(t)
    spark.sql(s"ALTER TABLE $t REPLACE PARTITION FIELD region WITH bucket(4, id)")
    assert(spec(t) == (6, Seq("id_bucket_4", "ts_year", "ts_month", "ts_day")))
    writeAndCheck(t)
    // the definition shard had comes back under its id
    spark.sql(s"ALTER TABLE $t ADD PARTITION FIELD bucket(8, name)")
    assert(spec(t) == (7, Seq("id_bucket_4", "ts_year", "ts_month", "ts_day", "shard")))
    writeAndCheck(t)
    // a field_id names one spec field: without its day the run is months(ts)
    spark.sql(s"ALTER TABLE $t DROP PARTITION FIELD ts_day")
    assert(spec(t) == (8, Seq("id_bucket_4", "ts_year", "ts_month", "shard")))
    assert(partitioning(t) == Seq("lance_bucket(4, id)", "months(ts)", "lance_bucket(8, name)"))
    writeAndCheck(t)
    val specs = spark.sql(s"SELECT DISTINCT spec_id FROM $t.partitions").collect().map(_.getInt(0)).toSet
    assert(specs == (1 to 8).toSet)
    // pruning through every version's spec still selects exactly the rows
    val where = "region = 'eu' AND ts >= TIMESTAMP'2025-01-01 00:00:00'"
    assert(sorted(spark.sql(s"SELECT * FROM $t WHERE $where").collect()) ==
      sorted(spark.sql(s"SELECT * FROM (${rows(0, written(t))}) WHERE $where").collect()))
  }

  test("one-part names resolve in the current catalog and namespace, of any lancepart catalog") {
    val t = create("other", "current", "t", "region")
    writeAndCheck(t)
    spark.sql("USE other.current")
    try {
      spark.sql(
        """ALTER TABLE /* the table */ `t` -- a comment
          |  ADD   PARTITION FIELD bucket( 2 , `id` )   AS `by id`;""".stripMargin)
      spark.sql("ALTER TABLE current.t REPLACE PARTITION FIELD `by id` WITH truncate(3, name)")
    } finally spark.sql("USE spark_catalog.default")
    assert(spec(t) == (3, Seq("region", "name_trunc_3")))
    writeAndCheck(t)
  }

  test("errors name the table and the field, and change nothing") {
    val t = create("lance", "errors", "t", "region, months(ts)")
    val single = create("lance", "errors", "single", "region")
    spark.sql("CREATE TABLE lance.errors.plain (id BIGINT)")
    spark.sql("CREATE TABLE spark_catalog.default.parquet_table (id BIGINT) USING parquet")
    def fails(sql: String, message: String): Unit = {
      val e = intercept[Exception](spark.sql(sql))
      assert(e.getMessage.contains(message), e.getMessage)
    }
    val current = "spec v1: region [region], months(ts) [ts_year, ts_month]"
    fails(
      s"ALTER TABLE $t ADD PARTITION FIELD region",
      s"table $t: cannot add partition field region: the current spec already has its field 'region' ($current)"
    )
    fails(
      s"ALTER TABLE $t ADD PARTITION FIELD days(ts)",
      s"table $t: cannot add partition field days(ts): the current spec already has its field 'ts_year'")
    fails(
      s"ALTER TABLE $t DROP PARTITION FIELD bucket(16, id)",
      s"table $t: the current spec has no partition field bucket(16, id) ($current)")
    fails(s"ALTER TABLE $t DROP PARTITION FIELD nope", s"table $t: the current spec has no partition field nope")
    fails(
      s"ALTER TABLE $t DROP PARTITION FIELD years(ts)",
      s"table $t: the current spec has no partition field years(ts)")
    fails(
      s"ALTER TABLE $t REPLACE PARTITION FIELD name WITH bucket(4, id)",
      s"table $t: the current spec has no partition field name")
    fails(
      s"ALTER TABLE $t ADD PARTITION FIELD bucket(4, id) AS region",
      s"table $t: field_id 'region' already names identity(source 2) in partition_spec_v1")
    fails(
      s"ALTER TABLE $t ADD PARTITION FIELD days(ts) AS day",
      s"table $t: cannot add partition field days(ts): the current spec already has its field 'ts_year'"
    )
    fails(
      s"ALTER TABLE $single ADD PARTITION FIELD days(ts) AS day",
      s"table $single: AS day names one partition field, but days(ts) makes 3 (ts_year, ts_month, ts_day)"
    )
    // unreadable or unknown transforms
    fails(
      s"ALTER TABLE $t ADD PARTITION FIELD bucket(16, id",
      s"table $t: cannot read ALTER TABLE ... ADD PARTITION FIELD: expected ',' or ')' at the end")
    fails(
      s"ALTER TABLE $t ADD PARTITION FIELD bucket(16, id) AS",
      s"table $t: cannot read ALTER TABLE ... ADD PARTITION FIELD: expected a name at the end")
    fails(
      s"ALTER TABLE $t REPLACE PARTITION FIELD region bucket(4, id)",
      s"table $t: cannot read ALTER TABLE ... REPLACE PARTITION FIELD: expected WITH at 'bucket' (character"
    )
    fails(
      s"ALTER TABLE $t DROP PARTITION FIELD region + 1",
      s"table $t: cannot read ALTER TABLE ... DROP PARTITION FIELD: expected the end of the statement at '+'"
    )
    fails(s"ALTER TABLE $t ADD PARTITION FIELD zorder(id)", s"table $t: unsupported partition transform 'zorder(id)'")
    fails(
      s"ALTER TABLE $t ADD PARTITION FIELD bucket(4, nope)",
      s"table $t: PARTITIONED BY column 'nope' is not a column of the table")
    fails(
      s"ALTER TABLE $t ADD PARTITION FIELD hours(region)",
      s"table $t: partition_spec_v2 field 'region_year': transform 'year' does not apply to STRING")
    // a plain table (ADD PARTITION FIELD makes it partitioned), and tables not of a lancepart catalog
    fails(
      "ALTER TABLE lance.errors.plain DROP PARTITION FIELD id",
      "table lance.errors.plain: the current spec has no partition field id (spec v1: no fields)"
    )
    fails("ALTER TABLE lance.errors.nope ADD PARTITION FIELD id", "`lance`.`errors`.`nope` cannot be found")
    fails(
      "ALTER TABLE spark_catalog.default.parquet_table ADD PARTITION FIELD id",
      "table spark_catalog.default.parquet_table: ALTER TABLE ... ADD PARTITION FIELD needs a table of a lancepart " +
        "catalog (lancepart.spark.PartitionedCatalog), and catalog spark_catalog is of class " +
        "org.apache.spark.sql.execution.datasources.v2.V2SessionCatalog"
    )
    assert(spec(t) == (1, Seq("region", "ts_year", "ts_month")))
    assert(spec(single) == (1, Seq("region")))
  }

  test("every other statement goes to Spark's parser unchanged") {
    assert(spark.sessionState.sqlParser.isInstanceOf[AlterTableParser])
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lance.others")
    spark.sql("CREATE TABLE lance.others.t (id BIGINT, region STRING) PARTITIONED BY (region)")
    spark.sql("INSERT INTO lance.others.t VALUES (1, 'eu'), (2, 'us')")
    spark.sql("ALTER TABLE lance.others.t ADD COLUMN note STRING")
    spark.sql("ALTER TABLE lance.others.t ADD COLUMNS (field STRING)") // a column named like the keyword
    spark.sql("INSERT INTO lance.others.t VALUES (3, 'eu', 'x', 'f')")
    assert(sorted(spark.sql("SELECT * FROM lance.others.t").collect()) ==
      Seq("[1,eu,null,null]", "[2,us,null,null]", "[3,eu,x,f]"))
    // named and positional parameters reach Spark's parser with their values
    assert(spark.sql("SELECT id FROM lance.others.t WHERE id = :id", Map("id" -> 2)).collect().map(_.getLong(0)).toSeq
      == Seq(2L))
    val evolved = spark.sql(
      "CALL lance.system.evolve_partition_spec(table => 'others.t', fields => array('region', 'bucket(2, id)'))")
      .collect()
    assert(evolved.map(_.getInt(0)).toSeq == Seq(2))
    // Spark's own ALTER TABLE ... PARTITION statements are still Spark's
    val e = intercept[Exception](spark.sql("ALTER TABLE lance.others.t ADD PARTITION (region = 'fr')"))
    assert(!e.getMessage.contains("PARTITION FIELD"), e.getMessage)
    assert(spark.sessionState.sqlParser.parseDataType("struct<a: int>").simpleString == "struct<a:int>")
    assert(spark.sessionState.sqlParser.parseMultipartIdentifier("a.`b.c`") == Seq("a", "b.c"))
  }

  test("tag statements read in any case, with comments, quoted names and a ';'; a column named tag stays Spark's") {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lance.tags")
    spark.sql("CREATE TABLE lance.tags.t (id BIGINT)")
    spark.sql("INSERT INTO lance.tags.t VALUES (1)")
    spark.sql("alter table lance.tags.t /* a tag */ create tag `end-of-day` -- the first\n retain 2 hours;")
    spark.sql("ALTER TABLE lance.tags.t ADD COLUMN tag STRING")
    spark.sql("INSERT INTO lance.tags.t VALUES (2, 'x')")
    spark.sql("Alter Table lance.tags.t Create Or Replace Tag latest")
    spark.sql("ALTER TABLE lance.tags.t DROP COLUMN tag")
    val refs = spark.sql("SELECT name, max_reference_age_in_ms FROM lance.tags.t.refs").collect().map(_.toString).toSeq
    assert(refs.sorted == Seq("[end-of-day,7200000]", "[latest,null]", "[main,null]"))
    assert(spark.sql("SELECT * FROM lance.tags.t VERSION AS OF 'end-of-day'").collect().map(_.getLong(0)).toSeq ==
      Seq(1L))
    assert(spark.sql("SELECT * FROM lance.tags.t VERSION AS OF 'latest'").columns.toSeq == Seq("id", "tag"))
    spark.sql("ALTER TABLE lance.tags.t drop TAG IF exists `end-of-day`")
    assert(spark.sql("SELECT name FROM lance.tags.t.refs").collect().map(_.getString(0)).sorted.toSeq ==
      Seq("latest", "main"))
  }

  test("branch statements read in any case; a branch takes writes that main does not see until fast_forward") {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lance.branches")
    spark.sql("CREATE TABLE lance.branches.t (id BIGINT, p STRING) PARTITIONED BY (p) " +
      "TBLPROPERTIES ('transaction.mode' = 'strong')")
    spark.sql("INSERT INTO lance.branches.t VALUES (1, 'a')")
    spark.sql("alter table lance.branches.t /* audit */ create branch `audit-1` retain 2 days;")
    spark.sql("Alter Table lance.branches.t Create Or Replace Branch scratch")
    spark.sql("INSERT INTO lance.branches.t.`branch_audit-1` VALUES (2, 'b')")
    def ids(table: String) = spark.table(table).collect().map(_.getLong(0)).sorted.toSeq
    assert(ids("lance.branches.t") == Seq(1L) && ids("lance.branches.t.`branch_audit-1`") == Seq(1L, 2L))
    val refs = spark.sql("SELECT name, type, max_reference_age_in_ms FROM lance.branches.t.refs").collect()
      .map(_.toString).toSeq
    assert(refs.sorted == Seq("[audit-1,BRANCH,172800000]", "[main,BRANCH,null]", "[scratch,BRANCH,null]"))
    spark.sql("ALTER TABLE lance.branches.t drop BRANCH IF exists scratch")
    spark.sql("CALL lance.system.fast_forward('branches.t', 'main', 'audit-1')")
    assert(ids("lance.branches.t") == Seq(1L, 2L))
  }
}
