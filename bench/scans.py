"""The scan workloads of bench/run.py, lancepart and Iceberg side by side in one session: full scan
+ aggregate, range over 5%, COUNT(*) and the point query (with Spark's floor for its plan), on the
events tables under --root (created when missing, as bench/run.py creates them). For each
workload the systems run in turn: --warm-ups runs each, then --repeats rounds of one run each;
the median of each system's runs. The records go to --output (bench/results/scans.json) under
the partition count.
The loop to measure scan changes with; `make bench` stays the judge.

    .venv/bin/python bench/scans.py --iceberg-jar <jar> --root /tmp/scans --partitions 1000
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from metrics import interleaved_median_seconds
from run import RESULTS, Run, events_query, floor_view, read_queries, session
from systems import ICEBERG, LANCEPART, SPARK_FLOOR

WORKLOADS = ["full_scan_aggregate", "range_query_5pct", "count_star", "point_query"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iceberg-jar", required=True)
    parser.add_argument("--root", required=True, help="where the events tables are, or go")
    parser.add_argument("--partitions", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=10_000_000, help="rows of tables created here")
    parser.add_argument("--warm-ups", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--output", type=Path, default=RESULTS / "scans.json")
    args = parser.parse_args()
    spark = session(Path(args.root), args.iceberg_jar)
    run = Run(spark, args.repeats, Path(tempfile.mkdtemp(prefix="scans-")))
    name = f"events_{args.partitions}"
    rows = {}
    for system in (LANCEPART, ICEBERG):
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {system.catalog}.bench")
        if not spark.catalog.tableExists(system.table(name)):
            t = system.create_events(spark, name)
            spark.sql(f"INSERT INTO {t} BY NAME {events_query(args.rows, args.partitions)}")
        rows[system.name] = spark.table(system.table(name)).count()
    queries = {system.name: read_queries(system.table(name), args.partitions) for system in (LANCEPART, ICEBERG)}
    cached, _ = floor_view(spark, rows[LANCEPART.name], args.partitions)
    queries[SPARK_FLOOR] = {"point_query": read_queries("point_floor", args.partitions)["point_query"]}
    for workload in WORKLOADS:
        runs = {system: (lambda sql=sql[workload]: spark.sql(sql).collect())
                for system, sql in queries.items() if workload in sql}
        for system, seconds in interleaved_median_seconds(runs, args.repeats, args.warm_ups).items():
            run.add(workload, system, seconds, rows[LANCEPART.name], args.partitions)
    cached.unpersist()
    results = json.loads(args.output.read_text()) if args.output.exists() else {}
    results[str(args.partitions)] = run.result()
    args.output.write_text(json.dumps(results, indent=1) + "\n")
    spark.stop()


if __name__ == "__main__":
    main()
