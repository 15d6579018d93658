"""Flame graphs of lancepart's scan workloads (bench/run.py's queries), driver and tasks together
(local mode: one JVM), on the events tables a `bench/run.py --root` (or `bench/scans.py --root`)
run left: async-profiler (Maven Central `tools.profiler:async-profiler`, its Java API over py4j)
samples every thread while the query runs `--repeats` times after `--warm-ups` runs (a short
query needs a few dozen before the JIT compilers stop taking much of the CPU). `--event cpu`
samples CPU time (perf events, every 1 ms; Lance's native threads included), `--event wall`
samples every thread every 1 ms whether it runs or waits, split by thread: what a short query's
latency is made of. One HTML flame graph per workload and partition count in bench/profiles/,
and the same stacks collapsed (one line per stack, for grep) in a temporary directory.

    mvn -N dependency:copy -Dartifact=tools.profiler:async-profiler:4.1 -DoutputDirectory=target/bench
    .venv/bin/python bench/flame_scan.py --root /tmp/benchrun --profiler-jar target/bench/async-profiler-4.1.jar \
        [--workload full_scan_aggregate] [--partitions 1000,10000] [--event cpu] [--warm-ups 1] [--repeats 3]
"""

from __future__ import annotations

import argparse
import tempfile
import zipfile
from pathlib import Path

import lancepart
from run import read_queries

PROFILES = Path(__file__).parent / "profiles"
# The file name of each workload's flame graph
NAMES = {"full_scan_aggregate": "full-scan", "range_query_5pct": "range-5pct", "count_star": "count-star",
         "point_query": "point-query"}
EVENTS = {"cpu": "event=cpu,interval=1ms", "wall": "event=wall,interval=1ms,threads"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True)
    parser.add_argument("--profiler-jar", required=True)
    parser.add_argument("--workload", choices=sorted(NAMES), default="full_scan_aggregate")
    parser.add_argument("--partitions", default="1000,10000")
    parser.add_argument("--event", choices=sorted(EVENTS), default="cpu")
    parser.add_argument("--warm-ups", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    native = Path(tempfile.mkdtemp(prefix="async-profiler-"))
    with zipfile.ZipFile(args.profiler_jar) as jar:
        library = Path(jar.extract("linux-x64/libasyncProfiler.so", native))
    class_path = f"{lancepart.jar.jar_path()}:{Path(args.profiler_jar).resolve()}"
    spark = lancepart.spark_session(str(Path(args.root) / "lance"), **{
        "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false", "spark.driver.memory": "12g",
        "spark.driver.extraClassPath": class_path})
    spark.sparkContext.setLogLevel("ERROR")
    profiler = spark._jvm.one.profiler.AsyncProfiler.getInstance(str(library))
    PROFILES.mkdir(exist_ok=True)
    for partitions in (int(p) for p in args.partitions.split(",")):
        query = read_queries(f"lance.bench.events_{partitions}", partitions)[args.workload]
        for _ in range(args.warm_ups):
            spark.sql(query).collect()
        profiler.execute(f"start,{EVENTS[args.event]}")
        for _ in range(args.repeats):
            spark.sql(query).collect()
        name = f"{NAMES[args.workload]}-{partitions}" + ("" if args.event == "cpu" else f"-{args.event}")
        collapsed = native / f"{name}.collapsed"
        profiler.execute(f"dump,file={collapsed}")
        out = PROFILES / f"{name}.html"
        profiler.execute(f"stop,file={out},title=lancepart {args.workload} {partitions} partitions ({args.event})")
        print(out, collapsed, flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
