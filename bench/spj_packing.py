"""What reporting partitioning for storage-partitioned joins costs a scan that does not join: the
5% range query and the point query of bench/run.py over a 1,000-partition events table, with
lancepart's default catalog options (a scan whose partition keys hold under 2 MB on average
packs its partition tables), with a catalog that reports every key (the behaviour before
`spj.min-bytes-per-partition-key`) and with Iceberg, in turn; median of --repeats after a
warm-up. The tables are written under --root when missing. Records go to
bench/results/spj-packing.json; docs/benchmarks.md reads them.

    .venv/bin/python bench/spj_packing.py --root /tmp/spjrun [--rows 10000000] [--partitions 1000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import run as bench
from metrics import write_records
from systems import ICEBERG, LANCEPART

RESULTS = Path(__file__).parent / "results"
ICEBERG_JAR = Path(__file__).parent.parent / "target" / "bench" / "iceberg-spark-runtime-4.1_2.13-1.12.0.jar"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--partitions", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    root = Path(args.root)
    spark = bench.session(root, str(ICEBERG_JAR))
    spark.conf.set("spark.sql.catalog.lance_every_key", "lancepart.spark.PartitionedCatalog")
    spark.conf.set("spark.sql.catalog.lance_every_key.root", str(root / "lance"))
    spark.conf.set("spark.sql.catalog.lance_every_key.spj.min-bytes-per-partition-key", "0")
    name = f"events_{args.partitions}"
    for system in (LANCEPART, ICEBERG):
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {system.catalog}.bench")
        if not spark.catalog.tableExists(system.table(name)):
            spark.sql(f"INSERT INTO {system.create_events(spark, name)} BY NAME "
                      f"{bench.events_query(args.rows, args.partitions)}")
    configurations = {"lancepart": f"lance.bench.{name}", "lancepart, every key reported": f"lance_every_key.bench.{name}",
                      "iceberg": ICEBERG.table(name)}
    records = []
    for workload in ("range_query_5pct", "point_query"):
        queries = {label: bench.read_queries(table, args.partitions)[workload] for label, table in configurations.items()}
        for sql in queries.values():  # warm-up
            spark.sql(sql).collect()
        # the configurations in turn, so that drift (JIT, caches, the machine) affects them alike
        times = {label: [] for label in queries}
        for _ in range(args.repeats):
            for label, sql in queries.items():
                start = time.perf_counter()
                spark.sql(sql).collect()
                times[label].append(time.perf_counter() - start)
        for label, sql in queries.items():
            tasks = spark.sql(sql.replace("count(*), sum(amount)", "amount")).rdd.getNumPartitions()
            records.append({"system": label, "workload": workload, "rows": args.rows, "partitions": args.partitions,
                            "scan_tasks": tasks, "seconds": round(statistics.median(times[label]), 4)})
            print(json.dumps(records[-1]), flush=True)
    spark.stop()
    write_records(RESULTS / "spj-packing.json", args.repeats, records)


if __name__ == "__main__":
    main()
