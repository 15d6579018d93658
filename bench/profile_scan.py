"""Where a lancepart full scan spends its time, on the events tables `make bench` left in --root:
the scan itself, Spark's cost of one task per partition table (an empty job with as many tasks),
and Lance's cost of opening each partition table and reading the scanned columns (pylance, one
thread).

    .venv/bin/python bench/profile_scan.py --root /tmp/benchrun [--partitions 1000,10000]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import lancepart


def seconds(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True)
    parser.add_argument("--partitions", default="1000,10000")
    args = parser.parse_args()
    import lance

    spark = lancepart.spark_session(str(Path(args.root) / "lance"), **{
        "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false", "spark.driver.memory": "8g"})
    spark.sparkContext.setLogLevel("ERROR")
    for partitions in (int(p) for p in args.partitions.split(",")):
        table_dir = Path(args.root) / "lance" / "bench" / f"events_{partitions}"
        query = f"SELECT country, count(*), sum(amount) FROM lance.bench.events_{partitions} GROUP BY country"
        spark.sql(query).collect()
        scan = seconds(lambda: spark.sql(query).collect())
        leaves = lance.dataset(str(table_dir / "__manifest")).to_table(filter="object_type = 'table'")
        tasks = seconds(lambda: spark.range(0, len(leaves), 1, len(leaves)).count())
        sample = leaves["location"].to_pylist()[:500]
        read = seconds(lambda: [lance.dataset(str(table_dir / loc)).to_table(columns=["country", "amount"])
                                for loc in sample]) / len(sample)
        print(f"{partitions} partition tables: full scan {scan:.2f}s; {len(leaves)} empty Spark tasks {tasks:.2f}s; "
              f"open + read 2 columns per table {read * 1000:.1f} ms (x {len(leaves)} = {read * len(leaves):.1f}s "
              f"on one thread)", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
