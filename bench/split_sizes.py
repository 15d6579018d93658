"""How the open cost a partition table weighs in the packing of input partitions changes a full
scan, on the events tables a `bench/run.py --root` run left (lancepart's): the number of input
partitions and the median time of the full scan + aggregate for each `file-open-cost`. Records go
to bench/results/split-sizes.json; docs/benchmarks.md ("Input partitions") reads them.

    .venv/bin/python bench/split_sizes.py --root /tmp/benchrun [--partitions 1000,10000]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import lancepart
from metrics import median_seconds, write_records

RESULTS = Path(__file__).parent / "results"
OPEN_COSTS = [4 << 20, 1 << 20, 256 << 10, 64 << 10]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True)
    parser.add_argument("--partitions", default="1000,10000")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    spark = lancepart.spark_session(str(Path(args.root) / "lance"), **{
        "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
        "spark.driver.memory": "12g"})
    spark.sparkContext.setLogLevel("ERROR")
    records = []
    for partitions in (int(p) for p in args.partitions.split(",")):
        for open_cost in OPEN_COSTS:
            def table(open_cost=open_cost, partitions=partitions):
                return spark.read.option("file-open-cost", str(open_cost)).table(f"lance.bench.events_{partitions}")

            splits = table().rdd.getNumPartitions()
            # a new DataFrame each time: collecting one twice reuses its shuffle output
            seconds = median_seconds(lambda: table().groupBy("country").agg({"*": "count", "amount": "sum"}).collect(),
                                     args.repeats)
            records.append({"partitions": partitions, "file_open_cost": open_cost, "input_partitions": splits,
                            "seconds": round(seconds, 4)})
            print(json.dumps(records[-1]), flush=True)
    spark.stop()
    write_records(RESULTS / "split-sizes.json", args.repeats, records)


if __name__ == "__main__":
    main()
