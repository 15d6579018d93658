"""The scan workloads of bench/run.py, lancepart and Iceberg side by side in one session: full scan
+ aggregate, range over 5%, COUNT(*) and the point query (with Spark's floor for its plan), median
of --repeats after a warm-up, on the events tables under --root (created when missing, as
bench/run.py creates them). The records go to --output (bench/results/scans.json) under the
partition count.
The loop to measure scan changes with; `make bench` stays the judge.

    .venv/bin/python bench/scans.py --iceberg-jar <jar> --root /tmp/scans --partitions 1000
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from run import RESULTS, Run, events_query, read_queries, session, spark_floor
from systems import ICEBERG, LANCEPART

WORKLOADS = ["full_scan_aggregate", "range_query_5pct", "count_star", "point_query"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iceberg-jar", required=True)
    parser.add_argument("--root", required=True, help="where the events tables are, or go")
    parser.add_argument("--partitions", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=10_000_000, help="rows of tables created here")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--output", type=Path, default=RESULTS / "scans.json")
    args = parser.parse_args()
    spark = session(Path(args.root), args.iceberg_jar)
    run = Run(spark, args.repeats, Path(tempfile.mkdtemp(prefix="scans-")))
    name = f"events_{args.partitions}"
    for system in (LANCEPART, ICEBERG):
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {system.catalog}.bench")
        if not spark.catalog.tableExists(system.table(name)):
            t = system.create_events(spark, name)
            spark.sql(f"INSERT INTO {t} BY NAME {events_query(args.rows, args.partitions)}")
        rows = spark.table(system.table(name)).count()
        queries = read_queries(system.table(name), args.partitions)
        for workload in WORKLOADS:
            run.add(workload, system.name, run.query(queries[workload]), rows, args.partitions)
    spark_floor(run, rows, args.partitions)
    results = json.loads(args.output.read_text()) if args.output.exists() else {}
    results[str(args.partitions)] = run.result()
    args.output.write_text(json.dumps(results, indent=1) + "\n")
    spark.stop()


if __name__ == "__main__":
    main()
