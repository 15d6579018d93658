"""Every benchmark workload for every system, in one Spark session and one run.

    make bench      (or: .venv/bin/python bench/run.py --iceberg-jar <jar> [--rows N] ...)

Workloads (issue 7): bulk partitioned write; full scan with a light aggregation; point query on
one partition (and, for the first variant, the same query over that partition's rows cached in
Spark: the floor of its plan); range query over 5% of partitions; COUNT(*) without and with a
partition filter; planning time (EXPLAIN) of a point query, on the real tables and on metadata-only lancepart
tables of 10 to 100,000 partitions; a join of tables bucketed 16 and 8 ways on the key, with and
without storage-partitioned joins; (issue 18) MERGE INTO of 1% of the rows into the events table
of the first variant, the rows spread over every partition or all in 1% of the partitions,
copy-on-write then merge-on-read, then a full scan of the merged table; a
table of --compaction-partitions partitions after 20 small INSERTs into every partition: full
scan, rewrite_data_files, full scan again. Each number is the median of --repeats runs after one warm-up
(writes warm up on a tenth of the rows). Writes bench/results/latest.json, latest.png and the
results section of docs/benchmarks.md; with --output DIR, only DIR/latest.json and DIR/latest.png
(`make bench-quick`: the 1,000-partition scans of lancepart and Iceberg, to iterate with).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession

import lancepart
from manifests import metadata_only_table
from metrics import median_seconds, shuffle_bytes
from report import chart, write_report
from systems import COUNTRIES, FIRST_DAY, LANCEPART, PARQUET, PYLANCE, SPARK_FLOOR, SPARK_SYSTEMS, System, events_query

RESULTS = Path(__file__).parent / "results"


def session(root: Path, iceberg_jar: str | None) -> SparkSession:
    """A local[2] session with lancepart's catalog `lance`, Spark's own catalog and, with
    ``iceberg_jar`` (an iceberg-spark-runtime of the running Spark's line), Iceberg's catalog
    `iceberg` and its extensions."""
    jars = ",".join([lancepart.jar.jar_path(), *([iceberg_jar] if iceberg_jar else [])])
    builder = lancepart.configure(SparkSession.builder.master("local[2]").appName("lancepart-bench"), str(root / "lance"))
    conf = {
        "spark.jars": jars, "spark.driver.extraClassPath": jars.replace(",", ":"),
        "spark.executor.extraClassPath": jars.replace(",", ":"),
        "spark.sql.warehouse.dir": str(root / "spark-warehouse"),
        "spark.driver.memory": "12g", "spark.ui.enabled": "false",
        "spark.sql.autoBroadcastJoinThreshold": "-1", "spark.sql.session.timeZone": "UTC",
        "spark.ui.showConsoleProgress": "false",
    }
    if iceberg_jar:
        conf.update({
            "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
            "spark.sql.catalog.iceberg": "org.apache.iceberg.spark.SparkCatalog",
            "spark.sql.catalog.iceberg.type": "hadoop",
            "spark.sql.catalog.iceberg.warehouse": str(root / "iceberg"),
            # Iceberg reports its partitioning (for storage-partitioned joins) only when asked to
            "spark.sql.iceberg.planning.preserve-data-grouping": "true",
        })
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


class Run:
    """Collects result records, saving them to latest.json as they come (a run cut short keeps
    what it measured)."""

    def __init__(self, spark: SparkSession, repeats: int, output: Path):
        self.spark, self.repeats, self.output, self.records = spark, repeats, output, []
        self.started = time.time()

    def result(self) -> dict:
        return {"cores": os.cpu_count(), "spark": self.spark.version, "repeats": self.repeats,
                "minutes": round((time.time() - self.started) / 60, 1), "records": self.records}

    def save(self) -> None:
        self.output.mkdir(parents=True, exist_ok=True)
        (self.output / "latest.json").write_text(json.dumps(self.result(), indent=1) + "\n")

    def add(self, workload: str, system: str, seconds: float, rows: int, partitions: int,
            shuffle: int | None = None, notes: str = "") -> None:
        self.records.append({"workload": workload, "system": system, "seconds": round(seconds, 4), "rows": rows,
                             "partitions": partitions, "shuffle_bytes": shuffle, "spark": self.spark.version,
                             "notes": notes})
        print(f"{workload:<28} {system:<40} {partitions:>7} partitions {seconds:9.3f}s"
              + (f"  shuffle {shuffle:,} B" if shuffle is not None else ""), flush=True)
        self.save()

    def query(self, sql: str) -> float:
        return median_seconds(lambda: self.spark.sql(sql).collect(), self.repeats)


def day(offset: int) -> str:
    return (dt.date.fromisoformat(FIRST_DAY) + dt.timedelta(days=offset)).isoformat()


def read_queries(t: str, partitions: int) -> dict[str, str]:
    days = max(1, partitions // COUNTRIES)
    span = max(1, days // 20)  # 5% of the days, every country: 5% of the partitions
    return {
        "full_scan_aggregate": f"SELECT country, count(*), sum(amount) FROM {t} GROUP BY country",
        "point_query": f"SELECT count(*), sum(amount) FROM {t} WHERE event_date = DATE'{day(1)}' AND country = 'C07'",
        "range_query_5pct": f"SELECT count(*), sum(amount) FROM {t} "
                            f"WHERE event_date BETWEEN DATE'{day(1)}' AND DATE'{day(span)}'",
        "count_star": f"SELECT count(*) FROM {t}",
        "count_star_partition_filter": f"SELECT count(*) FROM {t} WHERE event_date = DATE'{day(1)}'",
        "planning_point_query": f"EXPLAIN SELECT * FROM {t} WHERE event_date = DATE'{day(1)}' AND country = 'C07'",
    }


def events(run: Run, rows: int, partitions: int, systems: list[System]) -> dict[str, str]:
    """Writes and queries the events table of each of ``systems``; returns their table names."""
    tables = {}
    for system in systems:
        name = f"events_{partitions}"

        def write(n: int, system=system, name=name) -> None:
            t = system.create_events(run.spark, name)
            run.spark.sql(f"INSERT INTO {t} BY NAME {events_query(n, partitions)}")

        seconds = median_seconds(lambda: write(rows), run.repeats, warm_up=lambda: write(rows // 10))
        run.add("write", system.name, seconds, rows, partitions, notes="CREATE TABLE + INSERT; warm-up on a tenth")
        tables[system.name] = system.table(name)
        for workload, sql in read_queries(tables[system.name], partitions).items():
            run.add(workload, system.name, run.query(sql), rows, partitions)
    return tables


def floor_view(spark: SparkSession, rows: int, partitions: int) -> tuple[DataFrame, int]:
    """Caches the rows of the point query's partition as one input partition, with no table
    format under it, as the temporary view `point_floor`; returns the cached frame and its row
    count. The rows are cached from an RDD, whose partitioning Spark does not know, so that the
    point query's plan over them keeps the exchange before the final aggregate that a table
    scan's plan has (a cached `coalesce(1)` is known to be one partition, and its plan has no
    exchange)."""
    selected = spark.sql(f"SELECT * FROM ({events_query(rows, partitions)}) "
                         f"WHERE event_date = DATE'{day(1)}' AND country = 'C07'").coalesce(1)
    cached = spark.createDataFrame(selected.rdd, selected.schema).cache()
    count = cached.count()
    cached.createOrReplaceTempView("point_floor")
    return cached, count


def spark_floor(run: Run, rows: int, partitions: int) -> None:
    """Spark's own cost for the point query's plan: the same query over that partition's rows
    cached in memory (see `floor_view`)."""
    cached, count = floor_view(run.spark, rows, partitions)
    run.add("point_query", SPARK_FLOOR, run.query(read_queries("point_floor", partitions)["point_query"]), rows,
            partitions, notes=f"{count:,} rows cached as one input partition")
    cached.unpersist()


def merge(run: Run, rows: int, partitions: int, tables: dict[str, str]) -> None:
    """MERGE INTO the events table of each system (not Parquet, which has no MERGE) with a source
    of 1% as many rows as the table: the ids of twice the table's whose user_id (a hash of the
    id) is a multiple of 200, spread over every partition and half of them new; or the rows of 1%
    of the partitions (the first day, the first countries), all matched. The same source runs every time: the table keeps its row count after
    the first run (the warm-up)."""
    countries = min(COUNTRIES, max(1, partitions // 100))
    sources = {
        "merge_1pct_spread": f"SELECT * FROM ({events_query(2 * rows, partitions)}) WHERE user_id % 200 = 0",
        "merge_1pct_of_partitions": f"SELECT * FROM ({events_query(rows, partitions)}) "
                                    f"WHERE event_date = DATE'{day(0)}' AND country < 'C{countries:02d}'",
    }
    merging = {system: t for system, t in tables.items() if system != PARQUET.name}
    for mode, suffix in (("copy-on-write", ""), ("merge-on-read", "_merge_on_read")):
        for t in merging.values():
            run.spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.merge.mode' = '{mode}')")
        for workload, source in sources.items():
            for system, t in merging.items():
                sql = (f"MERGE INTO {t} t USING ({source}) s ON t.id = s.id "
                       "WHEN MATCHED THEN UPDATE SET amount = s.amount + 1 WHEN NOT MATCHED THEN INSERT *")
                run.add(workload + suffix, system, run.query(sql), rows, partitions,
                        notes=f"{mode} on both; the first run (warm-up) inserts the new half")
    for system, t in merging.items():
        run.add("full_scan_after_merges", system, run.query(read_queries(t, partitions)["full_scan_aggregate"]), rows,
                partitions, notes="after the copy-on-write and merge-on-read merges (deletion files, appended rows)")


def compaction(run: Run, partitions: int, appends: int, rows: int, systems: list[System]) -> None:
    """``appends`` small INSERTs of ``rows`` rows each into every one of ``partitions`` partitions
    (a fragment or file per partition each), then a full scan, rewrite_data_files (Lance
    compaction; Iceberg's bin-packing) and the full scan again, for each system that compacts."""
    for system in (s for s in systems if s is not PARQUET):
        t = system.create_events(run.spark, f"small_appends_{partitions}")
        for i in range(appends):
            run.spark.sql(f"INSERT INTO {t} BY NAME SELECT id + {i * rows} AS id, ts, event_date, country, user_id, "
                          f"amount, payload FROM ({events_query(rows, partitions)})")
        scan = read_queries(t, partitions)["full_scan_aggregate"]
        total = appends * rows
        note = f"{appends} INSERTs of {rows:,} rows, each into every partition"
        run.add("scan_after_small_appends", system.name, run.query(scan), total, partitions, notes=note)
        started = time.perf_counter()
        run.spark.sql(f"CALL {system.catalog}.system.rewrite_data_files(table => '{t}')").collect()
        run.add("rewrite_data_files", system.name, time.perf_counter() - started, total, partitions,
                notes=note + "; once (it changes the table)")
        run.add("scan_after_compaction", system.name, run.query(scan), total, partitions, notes=note)


def pylance_reference(run: Run, parquet_dir: Path, lance_dir: Path, rows: int) -> None:
    """The same rows as one unpartitioned Lance dataset, written and read with pylance alone."""
    import lance
    import pyarrow.compute as pc
    import pyarrow.dataset as pads

    source = pads.dataset(str(parquet_dir), format="parquet", partitioning="hive")

    def write(limit: int | None = None) -> None:
        shutil.rmtree(lance_dir, ignore_errors=True)
        data = source.head(limit) if limit else source.scanner(batch_size=65536).to_reader()
        lance.write_dataset(data, str(lance_dir), max_rows_per_file=1_000_000)

    run.add("write", PYLANCE, median_seconds(write, run.repeats, warm_up=lambda: write(rows // 10)), rows, 1,
            notes="from the Parquet table's files via pyarrow.dataset")
    ds = lance.dataset(str(lance_dir))
    point = f"event_date = '{day(1)}' AND country = 'C07'"
    workloads = {
        "full_scan_aggregate": lambda: ds.to_table(columns=["country", "amount"]).group_by("country").aggregate(
            [("amount", "sum"), ("amount", "count")]),
        "point_query": lambda: pc.sum(ds.to_table(columns=["amount"], filter=point)["amount"]),
        "count_star": lambda: ds.count_rows(),
        "count_star_partition_filter": lambda: ds.count_rows(filter=f"event_date = '{day(1)}'"),
    }
    for workload, fn in workloads.items():
        run.add(workload, PYLANCE, median_seconds(fn, run.repeats), rows, 1, notes="filter scans the whole dataset")


def planning(run: Run, root: Path, sizes: list[int]) -> None:
    """EXPLAIN of a point query over metadata-only lancepart tables of every size."""
    (root / "lance" / "plan").mkdir(parents=True)
    for size in sizes:
        metadata_only_table(root / "lance" / "plan" / f"p{size}", size)
        sql = f"EXPLAIN SELECT * FROM lance.plan.p{size} WHERE d = DATE'2000-01-02' AND c = 'C07'"
        run.add("planning_point_query", LANCEPART.name, run.query(sql), 0, size, notes="metadata-only table")


def join(run: Run, rows: int, systems: list[System]) -> None:
    """Tables bucketed 16 and 8 ways on k, joined on k, with and without storage-partitioned joins
    (Spark's bucketed-table join for Parquet, coalescing 16 buckets to 8)."""
    spark = run.spark
    for system in systems:
        left, right = system.create_bucketed(spark, "orders", 16), system.create_bucketed(spark, "customers", 8)
        for t in (left, right):
            spark.sql(f"INSERT INTO {t} SELECT id % {rows // 4} AS k, id AS v, repeat('x', 32) AS payload FROM range({rows})")
        sql = f"SELECT count(*), sum(o.v + c.v) FROM {left} o JOIN {right} c ON o.k = c.k"
        for spj in (True, False):
            if system is PARQUET:
                spark.conf.set("spark.sql.sources.bucketing.enabled", str(spj).lower())
                spark.conf.set("spark.sql.bucketing.coalesceBucketsInJoin.enabled", str(spj).lower())
            else:
                spark.conf.set("spark.sql.sources.v2.bucketing.enabled", str(spj).lower())
            seconds = run.query(sql)
            plan = spark.sql(sql)._jdf.queryExecution().executedPlan().toString()
            run.add("join_bucketed" if spj else "join_bucketed_spj_off", system.name, seconds, 2 * rows, 24,
                    shuffle=shuffle_bytes(spark.sql(sql)),
                    notes=f"join input shuffled: {'Exchange hashpartitioning' in plan}")
        spark.conf.unset("spark.sql.sources.bucketing.enabled")
        spark.conf.unset("spark.sql.bucketing.coalesceBucketsInJoin.enabled")
        spark.conf.set("spark.sql.sources.v2.bucketing.enabled", "true")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iceberg-jar", required=True)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--variants", default="1000,10000", help="partition counts of the events tables ('' for none)")
    parser.add_argument("--planning-sizes", default="10,100,1000,10000,100000", help="('' for none)")
    parser.add_argument("--join-rows", type=int, default=10_000_000, help="(0: no join)")
    parser.add_argument("--systems", default=",".join(s.name for s in SPARK_SYSTEMS),
                        help="Spark systems of the events and join workloads")
    parser.add_argument("--merge", action=argparse.BooleanOptionalAction, default=True,
                        help="the MERGE INTO workloads, on the first variant's tables")
    parser.add_argument("--compaction-partitions", type=int, default=100,
                        help="partitions of the small-appends table compacted (0: none)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--root", help="working directory (default: a new temporary one, removed at the end)")
    parser.add_argument("--output", type=Path, help="where latest.json and latest.png go, leaving bench/results "
                                                    "and docs/benchmarks.md as they are (default: bench/results)")
    args = parser.parse_args()
    root = Path(args.root or tempfile.mkdtemp(prefix="lancepart-bench-"))
    spark = session(root, args.iceberg_jar)
    for catalog in ("lance", "spark_catalog", "iceberg"):
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {catalog}.bench")
    run = Run(spark, args.repeats, args.output or RESULTS)
    systems = [s for s in SPARK_SYSTEMS if s.name in args.systems.split(",")]
    for i, partitions in enumerate(int(v) for v in args.variants.split(",") if v):
        tables = events(run, args.rows, partitions, systems)
        if i == 0:
            spark_floor(run, args.rows, partitions)
        if i == 0 and args.merge:
            merge(run, args.rows, partitions, tables)
        if i == 0 and PARQUET in systems:
            pylance_reference(run, root / "spark-warehouse" / "bench.db" / f"events_{partitions}",
                              root / "unpartitioned.lance", args.rows)
    if args.compaction_partitions:
        compaction(run, args.compaction_partitions, appends=20, rows=50_000, systems=systems)
    planning(run, root, [int(s) for s in args.planning_sizes.split(",") if s])
    if args.join_rows:
        join(run, args.join_rows, systems)
    if args.output:
        chart(run.result(), args.output / "latest.png")
    else:
        write_report(run.result(), RESULTS / "latest.png", Path(__file__).parent.parent / "docs" / "benchmarks.md")
    spark.stop()
    if not args.root:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
