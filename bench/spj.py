"""Join of two bucketed tables (16 and 8 buckets on the join key), with storage-partitioned joins
and with them disabled, in one run: wall time (median of repeats after a warm-up) and shuffle
bytes from Spark's SQL metrics. Writes bench/results/spj.json.

    .venv/bin/python bench/spj.py [--rows 10000000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import lancepart


def shuffle_bytes(df) -> int:
    """Runs ``df`` and sums the 'shuffle bytes written' metric of every shuffle in its final plan
    (adaptive plans included)."""
    df.collect()
    total = 0
    nodes = [df._jdf.queryExecution().executedPlan()]
    while nodes:
        node = nodes.pop()
        kind = node.getClass().getSimpleName()
        if kind == "AdaptiveSparkPlanExec":
            nodes.append(node.executedPlan())
        elif kind.endswith("QueryStageExec"):
            nodes.append(node.plan())
        metric = node.metrics().get("shuffleBytesWritten")
        if metric.isDefined():
            total += metric.get().value()
        children = node.children()
        nodes.extend(children.apply(i) for i in range(children.size()))
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "spj.json"))
    args = parser.parse_args()
    root = tempfile.mkdtemp(prefix="lancepart-spj-")
    spark = lancepart.spark_session(root, **{"spark.ui.enabled": "false", "spark.driver.memory": "8g",
                                             "spark.sql.autoBroadcastJoinThreshold": "-1"})
    spark.sparkContext.setLogLevel("ERROR")
    admin = lancepart.Admin(spark)
    spark.sql("CREATE NAMESPACE lance.bench")
    for name, buckets in (("orders", 16), ("customers", 8)):
        admin.create_table(f"bench.{name}", "k BIGINT, v BIGINT, payload STRING", [f"bucket({buckets}, k)"])
        t = time.perf_counter()
        spark.sql(f"""INSERT INTO lance.bench.{name}
            SELECT id % {args.rows // 4} AS k, id AS v, repeat('x', 32) AS payload FROM range({args.rows})""")
        print(f"wrote {args.rows:,} rows into {name} (bucket({buckets}, k)) in {time.perf_counter() - t:.1f}s", flush=True)
    query = ("SELECT count(*), sum(o.v + c.v) FROM lance.bench.orders o JOIN lance.bench.customers c ON o.k = c.k")
    records = []
    for spj in (True, False):
        spark.conf.set("spark.sql.sources.v2.bucketing.enabled", str(spj).lower())
        df = spark.sql(query)
        plan = df._jdf.queryExecution().executedPlan().toString()
        df.collect()  # warm-up
        times = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            result = spark.sql(query).collect()[0]
            times.append(time.perf_counter() - t)
        shuffled = shuffle_bytes(spark.sql(query))
        records.append({"workload": "join_bucket16_bucket8", "system": "lancepart" + ("" if spj else " (SPJ off)"),
                        "seconds": statistics.median(times), "rows": args.rows, "partitions": 24,
                        "shuffle_bytes": shuffled, "spark": spark.version,
                        "notes": f"median of {args.repeats} after a warm-up; {os.cpu_count()} cores; "
                                 f"join input shuffled: {'Exchange hashpartitioning' in plan}; result {tuple(result)}"})
        print(f"SPJ {'on ' if spj else 'off'}: {statistics.median(times):.2f}s, shuffle bytes {shuffled:,}, "
              f"join input shuffled: {'Exchange hashpartitioning' in plan}", flush=True)
    on, off = records
    print(f"time ratio (SPJ off / on): {off['seconds'] / on['seconds']:.2f}")
    Path(args.out).write_text(json.dumps(records, indent=1) + "\n")
    spark.stop()


if __name__ == "__main__":
    main()
