"""Streaming appends into a partitioned table, lancepart and Iceberg taking turns in one session: a
file source of --files Parquet files (--rows in all, over --partitions values of the partition
column `p`), one file a micro-batch, drained with Trigger.AvailableNow into a new table and
checkpoint per system and round. Per system, the medians over --repeats rounds (after a warm-up
round on a copy of the first two files) of: the drain's wall time and so its rows per second,
and the micro-batches' own durations (Spark's progress reports, `triggerExecution`). Then, per
system in turn, the delay from a commit to its rows reaching a read stream: a stream of the table
(default trigger: the next micro-batch as soon as the last ended) hands each micro-batch to
foreachBatch, while --commits one-row INSERTs into random partitions of a table of --partitions
partitions follow each other, each once the stream saw the last, 0-200 ms apart; a delay is from
the INSERT returning to its micro-batch's rows collected on the driver. lancepart runs in both
transaction modes. Writes bench/results/streaming.json and the "Streaming" section of
docs/benchmarks.md.

    .venv/bin/python bench/streaming.py --iceberg-jar target/bench/iceberg-spark-runtime-4.1_2.13-1.12.0.jar
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from report import replace_section
from run import RESULTS, session

DOC = Path(__file__).parent.parent / "docs" / "benchmarks.md"
START, END = "<!-- streaming:start (bench/streaming.py writes this part) -->", "<!-- streaming:end -->"
COLUMNS = "id BIGINT, ts TIMESTAMP, p INT, payload STRING"
# the steps of a micro-batch that the visibility measure reports (Spark's progress reports' durationMs)
STEPS = ("latestOffset", "queryPlanning", "addBatch", "triggerExecution")
# (name in results, catalog, the CREATE TABLE clauses after the columns)
SYSTEMS = [
    ("lancepart weak", "lance", "PARTITIONED BY (p)"),
    ("lancepart strong", "lance", "PARTITIONED BY (p) TBLPROPERTIES ('transaction.mode' = 'strong')"),
    ("iceberg", "iceberg", "USING iceberg PARTITIONED BY (p)"),
]


def write_source(spark, directory: Path, rows: int, files: int, partitions: int) -> None:
    """``rows`` rows in ``files`` Parquet files, each with rows of every partition value."""
    (spark.range(rows).selectExpr(
        "id", "timestamp_seconds(1735689600 + id) AS ts", f"CAST(id % {partitions} AS INT) AS p",
        "repeat(md5(CAST(id AS STRING)), 3) AS payload")
     .repartition(files).write.parquet(str(directory)))


def durations(query, step: str = "triggerExecution") -> list[float]:
    """The seconds of each micro-batch the query ran that read rows, or of its step ``step``
    (its progress reports' durationMs: latestOffset, queryPlanning, addBatch, ...)."""
    reports = [json.loads(p.json) if hasattr(p, "json") else p for p in query.recentProgress]
    return [r["durationMs"].get(step, 0) / 1000 for r in reports if r.get("numInputRows", 0) > 0]


def drain(spark, source: Path, catalog: str, clauses: str, name: str, checkpoint: Path) -> tuple[float, list[float]]:
    """Creates ``catalog``.bench.``name`` and streams ``source`` into it, one file a micro-batch;
    returns the wall seconds and the micro-batches' seconds."""
    table = f"{catalog}.bench.{name}"
    spark.sql(f"CREATE TABLE {table} ({COLUMNS}) {clauses}")
    stream = spark.readStream.schema(COLUMNS).option("maxFilesPerTrigger", 1).parquet(str(source))
    started = time.perf_counter()
    query = (stream.writeStream.option("checkpointLocation", str(checkpoint)).trigger(availableNow=True)
             .toTable(table))
    query.awaitTermination()
    seconds = time.perf_counter() - started
    spark.sql(f"DROP TABLE {table}")
    return seconds, durations(query)


def visibility(spark, catalog: str, clauses: str, name: str, checkpoint: Path, partitions: int,
               commits: int) -> tuple[list[float], dict[str, float]]:
    """Creates ``catalog``.bench.``name`` with a row in each of ``partitions`` partitions, reads it
    as a stream and makes ``commits`` one-row INSERTs, each once the stream saw the last; returns
    the seconds from each INSERT returning to the stream's micro-batch holding its row, and the
    median seconds of the steps of those micro-batches."""
    table = f"{catalog}.bench.{name}"
    spark.sql(f"CREATE TABLE {table} ({COLUMNS}) {clauses}")
    spark.sql(f"INSERT INTO {table} SELECT -id - 1, TIMESTAMP '2025-01-01', CAST(id AS INT), '' FROM range({partitions})")
    seen: dict[int, float] = {}

    def record(batch, _):
        ids = [row.id for row in batch.select("id").collect()]
        now = time.perf_counter()
        seen.update((i, now) for i in ids)

    def wait_for(row_id: int) -> float:
        while row_id not in seen:
            time.sleep(0.001)
        return seen[row_id]

    query = (spark.readStream.table(table).writeStream.foreachBatch(record)
             .option("checkpointLocation", str(checkpoint)).start())
    wait_for(-partitions)
    rng, delays = random.Random(name), []
    for k in range(commits):
        spark.sql(f"INSERT INTO {table} VALUES ({k}, TIMESTAMP '2025-01-01', {rng.randrange(partitions)}, '')")
        committed = time.perf_counter()
        delays.append(wait_for(k) - committed)
        time.sleep(rng.uniform(0, 0.2))
    query.stop()
    spark.sql(f"DROP TABLE {table}")
    return delays, {step: statistics.median(durations(query, step)) for step in STEPS}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iceberg-jar", required=True)
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--partitions", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--commits", type=int, default=30)
    parser.add_argument("--output", type=Path, default=RESULTS / "streaming.json")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="lancepart-bench-streaming-"))
    spark = session(root, args.iceberg_jar)
    for catalog in {c for _, c, _ in SYSTEMS}:
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {catalog}.bench")
    source = root / "source"
    write_source(spark, source, args.rows, args.files, args.partitions)
    warm_up = root / "warm-up"
    warm_up.mkdir()
    for f in sorted(source.glob("*.parquet"))[:2]:
        shutil.copy(f, warm_up / f.name)
    started = time.time()
    walls, batches = {s: [] for s, _, _ in SYSTEMS}, {s: [] for s, _, _ in SYSTEMS}
    for round_ in range(args.repeats + 1):
        for system, catalog, clauses in SYSTEMS:  # in turn
            name = f"s{round_}_{system.replace(' ', '_')}"
            seconds, micro = drain(spark, warm_up if round_ == 0 else source, catalog, clauses, name, root / "checkpoints" / name)
            print(f"round {round_} {system:<18} {seconds:8.2f} s, micro-batches {len(micro)} (median "
                  f"{statistics.median(micro):.2f} s)", flush=True)
            if round_ > 0:
                walls[system].append(seconds)
                batches[system].append(statistics.median(micro))
    delays, steps = {}, {}
    for system, catalog, clauses in SYSTEMS:  # in turn, after a warm-up of 3 commits
        name = f"visible_{system.replace(' ', '_')}"
        visibility(spark, catalog, clauses, name + "_warm", root / "checkpoints" / (name + "_warm"), args.partitions, 3)
        delays[system], steps[system] = visibility(spark, catalog, clauses, name, root / "checkpoints" / name,
                                                   args.partitions, args.commits)
        print(f"visibility {system:<18} median {statistics.median(delays[system]):.3f} s, "
              f"90th percentile {percentile(delays[system], 0.9):.3f} s, micro-batch steps {steps[system]}", flush=True)
    result = {
        "date": dt.date.today().isoformat(), "spark": spark.version, "iceberg": Path(args.iceberg_jar).name,
        "cores": os.cpu_count(), "rows": args.rows, "files": args.files, "partitions": args.partitions,
        "repeats": args.repeats, "commits": args.commits, "minutes": round((time.time() - started) / 60, 1),
        "load_average": round(os.getloadavg()[2], 1),
        "systems": {s: {"seconds": round(statistics.median(walls[s]), 2),
                        "rows_per_second": round(args.rows / statistics.median(walls[s])),
                        "micro_batch_seconds": round(statistics.median(batches[s]), 3),
                        "runs": [round(w, 2) for w in walls[s]],
                        "visibility_seconds": {"median": round(statistics.median(delays[s]), 3),
                                               "p90": round(percentile(delays[s], 0.9), 3),
                                               "micro_batch_steps": {k: round(v, 3) for k, v in steps[s].items()}}}
                    for s in walls},
    }
    spark.stop()
    shutil.rmtree(root)
    args.output.write_text(json.dumps(result, indent=1) + "\n")
    replace_section(DOC, START, END, markdown(result))


def markdown(result: dict) -> str:
    lines = [f"Spark {result['spark']}, {result['iceberg']}, {result['date']}: {result['rows']:,} rows in "
             f"{result['files']} files (micro-batches) over {result['partitions']} partitions, median of "
             f"{result['repeats']} rounds, {result['cores']} cores, load average {result['load_average']} (15 min, at the "
             f"end), {result['minutes']} minutes.", "",
             "| system | drain (s) | rows per second | micro-batch (s, median) | commit to read stream (s, median; 90th percentile) |",
             "|---|---|---|---|---|"]
    for system, r in result["systems"].items():
        v = r["visibility_seconds"]
        lines.append(f"| {system} | {r['seconds']:.2f} | {r['rows_per_second']:,} | {r['micro_batch_seconds']:.3f} | "
                     f"{v['median']:.3f}; {v['p90']:.3f} |")
    lines += ["", f"The delay from commit to read stream: {result['commits']} one-row INSERTs into random partitions "
              f"of a table of {result['partitions']} partitions, each once a read stream of the table (default trigger) "
              "saw the last; from the INSERT returning to the stream's micro-batch rows collected on the driver. "
              "Those micro-batches' steps (Spark's progress reports, medians in seconds):", "",
              "| system | " + " | ".join(STEPS) + " |", "|---|" + "---|" * len(STEPS)]
    for system, r in result["systems"].items():
        lines.append(f"| {system} | " + " | ".join(f"{r['visibility_seconds']['micro_batch_steps'][s]:.3f}"
                                                   for s in STEPS) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
