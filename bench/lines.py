"""The full scan and MERGE workloads of bench/run.py at 1,000 partitions on the installed pyspark's
Spark line: run.py's `events` (write, full scan + aggregate and the other reads) and `merge` (the
four MERGEs, then the full scan of the merged table), lancepart and Iceberg taking turns in one
session; lancepart alone without --iceberg-jar (Iceberg publishes no runtime for Spark 4.2).
`make bench-lines` runs it in each line's environment; each run replaces its line's entry of
bench/results/lines.json and writes the "Spark lines" section of docs/benchmarks.md from all of
them.

    .venv-spark-3.5_2.12/bin/python bench/lines.py --iceberg-jar target/bench/iceberg-spark-runtime-3.5_2.12-1.9.2.jar
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import tempfile
from pathlib import Path

from lancepart.jar import LINES, spark_line
from report import cell, replace_section
from run import RESULTS, Run, events, merge, session
from systems import ICEBERG, LANCEPART

PARTITIONS = 1000
# the workloads of the docs' table, in the order they run
WORKLOADS = ["write", "full_scan_aggregate", "merge_1pct_spread", "merge_1pct_of_partitions",
             "merge_1pct_spread_merge_on_read", "merge_1pct_of_partitions_merge_on_read", "full_scan_after_merges"]
DOC = Path(__file__).parent.parent / "docs" / "benchmarks.md"
START, END = "<!-- lines:start (bench/lines.py writes this part) -->", "<!-- lines:end -->"


def markdown(results: dict[str, dict]) -> str:
    """A table of the runs (one per line) and one of the workloads' seconds, lancepart's and
    Iceberg's (with its ratio to lancepart's) per line."""
    lines = ["| line | Spark | Iceberg | date | rows | partitions | repeats | minutes | load average (15 min, at end) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for line, result in results.items():
        lines.append(f"| {line} | {result['spark']} | {result['iceberg'] or 'none published'} | {result['date']} | "
                     f"{result['rows']:,} | {result['partitions']:,} | {result['repeats']} | {result['minutes']} | "
                     f"{result['load_average']} |")
    lines += ["", "| workload | " + " | ".join(f"{line} lancepart | {line} iceberg" for line in results) + " |",
              "|---|" + "---|---|" * len(results)]
    for workload in WORKLOADS:
        cells = []
        for result in results.values():
            found = {r["system"]: r for r in result["records"] if r["workload"] == workload}
            cells += [cell(found.get(LANCEPART.name), None), cell(found.get(ICEBERG.name), found.get(LANCEPART.name))]
        lines.append(f"| {workload} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iceberg-jar", help="iceberg-spark-runtime of this Spark line (none: lancepart alone)")
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--output", type=Path, default=RESULTS / "lines.json")
    args = parser.parse_args()
    if args.iceberg_jar and not Path(args.iceberg_jar).is_file():
        parser.error(f"--iceberg-jar {args.iceberg_jar}: no such file (`make bench-lines` fetches each line's)")
    line = spark_line()
    root = Path(tempfile.mkdtemp(prefix=f"lancepart-bench-{line}-"))
    spark = session(root, args.iceberg_jar)
    systems = [LANCEPART, ICEBERG] if args.iceberg_jar else [LANCEPART]
    for system in systems:
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {system.catalog}.bench")
    run = Run(spark, args.repeats, root)  # root/latest.json: what a run cut short measured
    merge(run, args.rows, PARTITIONS, events(run, args.rows, PARTITIONS, systems))
    spark.stop()
    shutil.rmtree(root)
    results = json.loads(args.output.read_text()) if args.output.exists() else {}
    results[f"{line}_{LINES[line]}"] = {
        **run.result(), "date": dt.date.today().isoformat(), "rows": args.rows, "partitions": PARTITIONS,
        "iceberg": Path(args.iceberg_jar).name if args.iceberg_jar else None,
        "load_average": round(os.getloadavg()[2], 1)}  # other work on the machine during the run
    results = dict(sorted(results.items(), key=lambda kv: [int(n) for n in kv[0].split("_")[0].split(".")]))
    args.output.write_text(json.dumps(results, indent=1) + "\n")
    replace_section(DOC, START, END, markdown(results))


if __name__ == "__main__":
    main()
