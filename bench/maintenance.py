"""Maintenance after a day of writes, lancepart and Iceberg taking turns in one session: per round
and system, a new table of --rows events over --partitions partitions (run.py's events, written by
--appends INSERTs, each a snapshot), then an UPDATE, a DELETE and a MERGE INTO of 1% of the rows
each (copy-on-write, both systems' default; the MERGE is timed), then expire_snapshots of every
snapshot but the last (timed; the manifest versions and partition-table files only they used for
lancepart, snapshots and their unreferenced files for Iceberg), and a full scan after it (checked
to count the same rows on both systems). Medians over --repeats rounds after a warm-up round.
Writes bench/results/maintenance.json and the "Maintenance" section of docs/benchmarks.md.

    .venv/bin/python bench/maintenance.py --iceberg-jar target/bench/iceberg-spark-runtime-4.1_2.13-1.12.0.jar
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from report import replace_section
from run import RESULTS, session
from systems import ICEBERG, LANCEPART, System, events_query

DOC = Path(__file__).parent.parent / "docs" / "benchmarks.md"
START, END = "<!-- maintenance:start (bench/maintenance.py writes this part) -->", "<!-- maintenance:end -->"
STEPS = ("writes", "merge_1pct", "expire_snapshots", "full_scan_after")


def timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def one_round(spark, system: System, name: str, rows: int, partitions: int, appends: int) -> dict[str, float]:
    """The seconds of each step of ``STEPS`` on a new table ``name`` of ``system``."""
    t = system.create_events(spark, name)
    query = events_query(rows, partitions)

    def writes():
        for k in range(appends):
            spark.sql(f"INSERT INTO {t} SELECT * FROM ({query}) WHERE id % {appends} = {k}")
        spark.sql(f"UPDATE {t} SET amount = amount + 1 WHERE id % 100 = 1")
        spark.sql(f"DELETE FROM {t} WHERE id % 100 = 2")
    seconds = {"writes": timed(writes)}
    source = f"SELECT id, 'merged' AS payload FROM range({rows}) WHERE id % 100 = 3"
    seconds["merge_1pct"] = timed(lambda: spark.sql(
        f"MERGE INTO {t} x USING ({source}) s ON x.id = s.id WHEN MATCHED THEN UPDATE SET payload = s.payload"))
    table = t.split(".", 1)[1]
    seconds["expire_snapshots"] = timed(lambda: spark.sql(
        f"CALL {system.catalog}.system.expire_snapshots(table => '{table}', older_than => current_timestamp(), "
        "retain_last => 1)").collect())
    counted = []
    seconds["full_scan_after"] = timed(lambda: counted.append(
        spark.sql(f"SELECT count(*), sum(amount) FROM {t} WHERE payload = 'merged'").first()))
    seconds["check"] = counted[0]
    spark.sql(f"DROP TABLE {t}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iceberg-jar", required=True)
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--partitions", type=int, default=100)
    parser.add_argument("--appends", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--output", type=Path, default=RESULTS / "maintenance.json")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="lancepart-maintenance-"))
    spark = session(root, args.iceberg_jar)
    systems = [LANCEPART, ICEBERG]
    for system in systems:
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {system.catalog}.bench")
    started, runs = time.time(), {s.name: [] for s in systems}
    try:
        for repeat in range(args.repeats + 1):  # round 0 warms up on a tenth of the rows
            rows = args.rows // 10 if repeat == 0 else args.rows
            for system in systems:
                result = one_round(spark, system, f"m{repeat}", rows, args.partitions, args.appends)
                if repeat:
                    runs[system.name].append(result)
                print(system.name, repeat, {k: v if k == "check" else round(v, 3) for k, v in result.items()}, flush=True)
        checks = {name: {tuple(r["check"]) for r in results} for name, results in runs.items()}
        if len({frozenset(c) for c in checks.values()}) != 1:
            raise SystemExit(f"the systems disagree on the merged rows: {checks}")
    finally:
        spark.stop()
        shutil.rmtree(root, ignore_errors=True)
    result = {
        "date": dt.date.today().isoformat(), "rows": args.rows, "partitions": args.partitions,
        "appends": args.appends, "repeats": args.repeats, "minutes": round((time.time() - started) / 60, 1),
        "load_average": round(os.getloadavg()[2], 2),
        "medians": {name: {step: round(statistics.median(r[step] for r in results), 3) for step in STEPS}
                    for name, results in runs.items()},
    }
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    replace_section(DOC, START, END, markdown(result))
    print(json.dumps(result, indent=2))


def markdown(result: dict) -> str:
    medians = result["medians"]
    lines = [f"{result['date']}: {result['rows']:,} rows, {result['partitions']:,} partitions, {result['appends']} "
             f"INSERTs, medians of {result['repeats']} rounds ({result['minutes']} minutes; load average "
             f"{result['load_average']} at the end).", "",
             "| step | lancepart (s) | iceberg (s) | iceberg / lancepart |", "|---|---|---|---|"]
    for step in STEPS:
        a, b = medians[LANCEPART.name][step], medians[ICEBERG.name][step]
        lines.append(f"| {step} | {a:.3f} | {b:.3f} | {b / a:.2f}x |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
