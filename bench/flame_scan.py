"""CPU flame graphs of lancepart's full scan + aggregate, driver and tasks together (local mode:
one JVM), on the events tables a `bench/run.py --root` run left: async-profiler (Maven Central
`tools.profiler:async-profiler`, its Java API over py4j) samples every thread, Lance's native
ones included, on CPU time (perf events, every 1 ms) while the query runs `--repeats` times. One
HTML flame graph per partition count, in bench/profiles/.

    mvn dependency:copy -Dartifact=tools.profiler:async-profiler:4.1 -DoutputDirectory=target/bench
    .venv/bin/python bench/flame_scan.py --root /tmp/benchrun --profiler-jar target/bench/async-profiler-4.1.jar
"""

from __future__ import annotations

import argparse
import tempfile
import zipfile
from pathlib import Path

import lancepart

PROFILES = Path(__file__).parent / "profiles"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True)
    parser.add_argument("--profiler-jar", required=True)
    parser.add_argument("--partitions", default="1000,10000")
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
        query = f"SELECT country, count(*), sum(amount) FROM lance.bench.events_{partitions} GROUP BY country"
        spark.sql(query).collect()  # warm-up
        profiler.execute("start,event=cpu,interval=1ms")
        for _ in range(args.repeats):
            spark.sql(query).collect()
        out = PROFILES / f"full-scan-{partitions}.html"
        profiler.execute(f"stop,file={out},title=lancepart full scan {partitions} partitions")
        print(out, flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
