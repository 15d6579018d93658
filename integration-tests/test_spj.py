"""Storage-partitioned joins: the executed plan has no shuffle Exchange where SPJ applies, a
shuffle where it must not, and the same rows as with partitioning reports turned off."""

import math

import pyspark
import pytest
from pyspark.sql import functions as F

import lancepart

N = 2000
SPARK_LINE = tuple(int(part) for part in pyspark.__version__.split(".")[:2])
# Spark 3.5 has no reducible functions: partitionings of different bucket counts or calendar
# levels join with a shuffle there (the same rows)
REDUCES = SPARK_LINE >= (4, 0)


@pytest.fixture(scope="module")
def tables(spark, admin):
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lance.spj")
    specs = {"b16": ["bucket(16, k)"], "b16b": ["bucket(16, k)"], "b8": ["bucket(8, k)"], "b12": ["bucket(12, k)"],
             "idn": ["k"], "idn2": ["k"]}
    for name, partition_by in specs.items():
        admin.create_table(f"spj.{name}", "k BIGINT, v STRING", partition_by)
        # keys 0..N-1 plus NULL keys; every table a different subset so some partitions are empty on one side
        step = {"b16": 1, "b16b": 2, "b8": 3, "b12": 1, "idn": 1, "idn2": 5}[name]
        spark.sql(f"""INSERT INTO lance.spj.{name}
            SELECT IF(id % 97 = 0, NULL, id % 50 * {step}) AS k, CONCAT('{name}-', id) AS v FROM range({N})""")
    return specs


def plan_of(df):
    return df._jdf.queryExecution().executedPlan().toString()


def join(spark, left, right):
    return spark.sql(f"SELECT l.k, l.v AS lv, r.v AS rv FROM lance.spj.{left} l JOIN lance.spj.{right} r ON l.k = r.k")


@pytest.mark.parametrize("left,right,shuffle", [
    ("idn", "idn2", False),   # identical identity partitions
    ("b16", "b16b", False),   # bucket(16) with bucket(16)
    ("b16", "b8", not REDUCES),   # bucket(16) with bucket(8): reduced to 8
    ("b16", "b12", not REDUCES),  # bucket(16) with bucket(12): both reduced to their common divisor 4
    # differently partitioned: a shuffle, but on Spark 4.2, which groups the identity side's keys
    # into bucket(16) with lancepart's bucket function (the same rows either way)
    ("b16", "idn", SPARK_LINE < (4, 2)),
])
def test_join_plans_and_rows(spark, tables, left, right, shuffle):
    df = join(spark, left, right)
    plan = plan_of(df)
    assert ("Exchange" in plan) == shuffle, plan
    rows = sorted(df.collect())
    spark.conf.set("spark.sql.sources.v2.bucketing.enabled", "false")
    try:
        baseline = sorted(join(spark, left, right).collect())
    finally:
        spark.conf.set("spark.sql.sources.v2.bucketing.enabled", "true")
    assert rows == baseline and rows


def test_aggregation_by_partition_source_avoids_the_shuffle(spark, tables):
    df = spark.sql("SELECT k, count(*) AS n FROM lance.spj.idn GROUP BY k")
    assert "Exchange" not in plan_of(df)
    expected = spark.read.option("pruning", "false").table("lance.spj.idn").groupBy("k").count().collect()
    assert sorted(map(tuple, df.collect()), key=repr) == sorted(map(tuple, expected), key=repr)


def test_a_scan_over_two_versions_reports_only_their_common_fields(spark, admin, ns):
    admin.create_table(f"{ns}.two", "k BIGINT, c STRING", ["c"])
    spark.sql(f"INSERT INTO lance.{ns}.two SELECT id, CAST(id % 3 AS STRING) FROM range(60)")
    admin.evolve_partition_spec(f"{ns}.two", ["c", "bucket(4, k)"])
    spark.sql(f"INSERT INTO lance.{ns}.two SELECT id, CAST(id % 3 AS STRING) FROM range(60, 90)")
    by_c = spark.sql(f"SELECT c, count(*) AS n FROM lance.{ns}.two GROUP BY c")
    assert "Exchange" not in plan_of(by_c)            # c is in both versions
    assert sorted(map(tuple, by_c.collect())) == [("0", 30), ("1", 30), ("2", 30)]
    by_k = spark.sql(f"SELECT k, count(*) FROM lance.{ns}.two GROUP BY k")
    assert "Exchange" in plan_of(by_k)                # bucket(4, k) only in v2
    assert by_k.count() == 90
    admin.create_table(f"{ns}.byc", "c STRING, w INT", ["c"])
    spark.sql(f"INSERT INTO lance.{ns}.byc VALUES ('0', 1), ('1', 2), ('3', 3), (NULL, 4)")
    joined = spark.sql(f"SELECT t.k, b.w FROM lance.{ns}.two t JOIN lance.{ns}.byc b ON t.c = b.c")
    assert "Exchange hashpartitioning" not in plan_of(joined)
    assert sorted(map(tuple, joined.collect())) == sorted((k, 1 if k % 3 == 0 else 2) for k in range(90) if k % 3 != 2)


def test_calendar_partitioned_joins(spark, admin, ns):
    # regression: joins over calendar transforms failed while planning (a reducer was asked for);
    # the time hierarchy: (year, month, day) joins (year, month) and year without a shuffle (but on
    # Spark 3.5, without reducers)
    for name, fields in (("ymd", ["days(d)"]), ("ymd2", ["days(d)"]), ("ym", ["months(d)"]), ("y", ["years(d)"])):
        admin.create_table(f"{ns}.{name}", "d DATE, v INT", fields)
        spark.sql(f"INSERT INTO lance.{ns}.{name} SELECT date_add(DATE'2025-01-01', CAST(id % 90 AS INT)), "
                  "CAST(id AS INT) FROM range(1000)")
    same = spark.sql(f"SELECT count(*) FROM lance.{ns}.ymd a JOIN lance.{ns}.ymd2 b ON a.d = b.d")
    assert "Exchange hashpartitioning" not in plan_of(same)
    coarser = spark.sql(f"SELECT count(*) FROM lance.{ns}.ymd a JOIN lance.{ns}.ym b ON a.d = b.d")
    assert ("Exchange hashpartitioning" in plan_of(coarser)) == (not REDUCES)
    yearly = spark.sql(f"SELECT count(*) FROM lance.{ns}.y a JOIN lance.{ns}.ymd b ON a.d = b.d")
    assert ("Exchange hashpartitioning" in plan_of(yearly)) == (not REDUCES)
    expected = sum(c * c for c in [sum(1 for i in range(1000) if i % 90 == day) for day in range(90)])
    assert same.collect()[0][0] == coarser.collect()[0][0] == yearly.collect()[0][0] == expected
    spark.conf.set("spark.sql.sources.v2.bucketing.enabled", "false")
    try:
        assert spark.sql(f"SELECT count(*) FROM lance.{ns}.ymd a JOIN lance.{ns}.ym b ON a.d = b.d").collect()[0][0] == expected
    finally:
        spark.conf.set("spark.sql.sources.v2.bucketing.enabled", "true")


def test_a_lance_bucket_is_never_taken_for_sparks_bucket(spark, tables, tmp_path):
    # Spark's own bucketed table hashes k with Spark's Murmur3 into 16 buckets: a different hash.
    spark.table("lance.spj.b16").write.bucketBy(16, "k").option("path", str(tmp_path / "pq")) \
        .saveAsTable("spark_catalog.default.pq_b16")
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    try:
        df = spark.sql("SELECT l.k, l.v, r.v FROM lance.spj.b16 l JOIN spark_catalog.default.pq_b16 r ON l.k = r.k")
        assert "Exchange hashpartitioning" in plan_of(df)
        spark.conf.set("spark.sql.sources.v2.bucketing.enabled", "false")
        try:
            baseline = sorted(map(tuple, df.collect()), key=repr)
        finally:
            spark.conf.set("spark.sql.sources.v2.bucketing.enabled", "true")
        assert sorted(map(tuple, df.collect()), key=repr) == baseline and baseline
    finally:
        spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")
        spark.sql("DROP TABLE spark_catalog.default.pq_b16")


def test_grouping_bucketed_doubles_puts_zero_and_negative_zero_in_one_group(spark, ns):
    # Lance's murmur3 hashes a double's raw bits, so 0.0 and -0.0 (one group in Spark) land in
    # different buckets: a bucket over a double is not reported, so the aggregation shuffles.
    spark.sql(f"CREATE TABLE lance.{ns}.g (d DOUBLE, v STRING) PARTITIONED BY (bucket(4, d))")
    spark.sql(f"INSERT INTO lance.{ns}.g VALUES (0.0D, 'a'), (-0.0D, 'b'), (1.5D, 'c'), (1.5D, 'd')")
    df = spark.sql(f"SELECT d, count(*) AS n FROM lance.{ns}.g GROUP BY d")
    expected = spark.sql("SELECT d, count(*) AS n FROM VALUES (0.0D), (-0.0D), (1.5D), (1.5D) AS t(d) GROUP BY d")
    assert sorted(df.collect()) == sorted(expected.collect()) == [(0.0, 2), (1.5, 2)]


def test_a_scan_over_more_keys_than_the_bound_packs_partition_tables(spark, root, ns):
    # catalog option spj.max-partition-keys: above it a scan reports no partitioning and packs
    # several partition tables into each task (regression: one task per partition table, always)
    lancepart.register_catalog(spark, "lance_few_keys", str(root))
    spark.conf.set("spark.sql.catalog.lance_few_keys.spj.max-partition-keys", "10")
    spark.sql(f"CREATE TABLE lance.{ns}.many (k BIGINT, v BIGINT) PARTITIONED BY (k)")
    spark.sql(f"INSERT INTO lance.{ns}.many SELECT id % 40, id FROM range(400)")
    query = "SELECT k, count(*) AS n, sum(v) AS s FROM {}.{}.many GROUP BY k"
    reported, packed = (spark.sql(query.format(catalog, ns)) for catalog in ("lance", "lance_few_keys"))
    assert "Exchange" not in plan_of(reported)  # 40 keys, within the default bound of 200
    assert "Exchange" in plan_of(packed)
    # 40 tables of one open cost each, spread over the default parallelism, up to 128 MB per split
    open_cost = spark._jvm.lancepart.spark.read.SplitSizing.DefaultOpenCostBytes()
    per_split = min((128 << 20) // open_cost, max(1, 40 // spark.sparkContext.defaultParallelism))
    assert spark.table(f"lance.{ns}.many").rdd.getNumPartitions() == 40
    assert spark.table(f"lance_few_keys.{ns}.many").rdd.getNumPartitions() == math.ceil(40 / per_split)
    expected = [(k, 10, sum(range(k, 400, 40))) for k in range(40)]
    assert sorted(map(tuple, reported.collect())) == expected
    assert sorted(map(tuple, packed.collect())) == expected
    filtered = spark.sql(f"SELECT v FROM lance_few_keys.{ns}.many WHERE k IN (3, 17) AND v < 300")
    assert sorted(r.v for r in filtered.collect()) == [v for v in range(300) if v % 40 in (3, 17)]


def test_a_scan_whose_keys_hold_little_data_packs_partition_tables(spark, root, ns):
    # catalog option spj.min-bytes-per-partition-key (default 2 MB; this suite's catalog `lance`
    # sets 0 for its small tables): keys holding fewer data bytes on average, by the sizes commits
    # recorded, are not worth a task each (regression: a range query over 50 small partition
    # tables ran 50 tasks)
    lancepart.register_catalog(spark, "lance_default_spj", str(root))
    lancepart.register_catalog(spark, "lance_small_keys", str(root))
    spark.conf.set("spark.sql.catalog.lance_small_keys.spj.min-bytes-per-partition-key", str(16 << 10))
    for name in ("keyed", "keyed2"):  # 4 keys of at most 0.3 MB of hashes each
        spark.sql(f"CREATE TABLE lance.{ns}.{name} (k BIGINT, payload STRING) PARTITIONED BY (k)")
        spark.sql(f"INSERT INTO lance.{ns}.{name} SELECT id % 4, sha2(CAST(id AS STRING), 512) FROM range(10000)")
    query = "SELECT count(*) FROM {0}.{1}.keyed l JOIN {0}.{1}.keyed2 r ON l.k = r.k AND l.payload = r.payload"
    packed, reported = (spark.sql(query.format(catalog, ns)) for catalog in ("lance_default_spj", "lance_small_keys"))
    # (the global count exchanges to one partition either way)
    assert "Exchange hashpartitioning" in plan_of(packed)
    assert "Exchange hashpartitioning" not in plan_of(reported)
    assert spark.table(f"lance_default_spj.{ns}.keyed").rdd.getNumPartitions() < 4
    assert spark.table(f"lance_small_keys.{ns}.keyed").rdd.getNumPartitions() == 4
    assert packed.collect() == reported.collect() == [(10000,)]
    with pytest.raises(Exception, match="catalog lance_bad_spj: option spj.min-bytes-per-partition-key must be a "
                                        "byte count of at least 0, not '4MB'"):
        lancepart.register_catalog(spark, "lance_bad_spj", str(root))
        spark.conf.set("spark.sql.catalog.lance_bad_spj.spj.min-bytes-per-partition-key", "4MB")
        spark.sql("SHOW NAMESPACES IN lance_bad_spj").collect()


def test_packing_weighs_partition_tables_by_the_size_their_commit_recorded(spark, root, ns):
    # a split takes partition tables up to its target size of data bytes, as each table's last
    # commit recorded them, plus an open cost each: a large table gets a split of its own
    # (regression: every table weighed one open cost, whatever its size). Both are read options,
    # or table properties, under Iceberg's names.
    lancepart.register_catalog(spark, "lance_sized", str(root))
    spark.conf.set("spark.sql.catalog.lance_sized.spj.max-partition-keys", "0")
    t = f"lance_sized.{ns}.sized"
    spark.sql(f"CREATE TABLE {t} (k STRING, payload STRING) PARTITIONED BY (k)")
    spark.sql(f"INSERT INTO {t} SELECT 'big', sha2(CAST(id AS STRING), 512) FROM range(40000)")
    spark.sql(f"INSERT INTO {t} SELECT concat('small', id % 7), 'x' FROM range(70)")

    def splits(df):
        found = {}
        for r in df.select(F.spark_partition_id().alias("split"), "k").collect():
            found.setdefault(r.split, set()).add(r.k)
        return sorted(map(sorted, found.values()))

    by_size = [["big"], [f"small{i}" for i in range(7)]]
    assert splits(spark.read.options(**{"split-size": str(1 << 20), "file-open-cost": "1024"}).table(t)) == by_size
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('read.split.target-size' = '{1 << 20}', "
              "'read.split.open-file-cost' = '1024')")
    assert splits(spark.table(t)) == by_size
    # an open cost above the target: one table per split
    assert len(splits(spark.read.option("file-open-cost", str(2 << 20)).table(t))) == 8
    with pytest.raises(Exception, match=f"table {t}: file-open-cost '1MB' is not a positive number of bytes"):
        spark.read.option("file-open-cost", "1MB").table(t).collect()


def test_a_bound_of_zero_packs_every_scan_and_reads_the_same_rows(spark, root, ns, tables):
    lancepart.register_catalog(spark, "lance_no_keys", str(root))
    spark.conf.set("spark.sql.catalog.lance_no_keys.spj.max-partition-keys", "0")
    for name in tables:
        packed = spark.table(f"lance_no_keys.spj.{name}")
        assert packed.rdd.getNumPartitions() < spark.table(f"lance.spj.{name}").rdd.getNumPartitions()
        assert sorted(packed.collect(), key=repr) == sorted(spark.table(f"lance.spj.{name}").collect(), key=repr)
    joined = spark.sql("SELECT l.k, l.v AS lv, r.v AS rv FROM lance_no_keys.spj.b16 l JOIN lance_no_keys.spj.b16b r "
                       "ON l.k = r.k")
    assert "Exchange" in plan_of(joined)
    assert sorted(joined.collect()) == sorted(join(spark, "b16", "b16b").collect())
