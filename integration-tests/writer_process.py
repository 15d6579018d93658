"""A writer with its own process and Spark session, for the concurrency and fault tests.

``python writer_process.py <root>`` starts a Spark session with the plugin on warehouse ``root``,
prints ``{"ready": true}`` and then runs the commands it reads from stdin, one JSON object per
line, printing one JSON line per event and ``{"done": true, "error": <null or the traceback>}``
after each command:

- ``{"batches": ..., "table": ..., "writer": w, "per_partition": n, "partitions": [...]}`` appends
  batch after batch to ``table`` (columns id, c, writer, batch; partitioned by c). Batch b writes
  ``n`` rows to each partition of ``partitions`` (names in which ``{b}`` is replaced by the batch
  number), the rows ``batch_rows`` lists (``batch_frame`` makes them in Spark); it prints
  ``{"committed": b}`` after each batch's commit returned. With ``"step": true`` it reads a line
  from stdin before every batch after the first.
- ``{"operations": [...], "table": ..., "writer": w, "go": <file>}`` waits for ``go`` to exist
  and runs the operations of ``mixed_writer.py`` in order, printing its log entry for each.

A test keeps a pool of them (``writer_pool.py``) or kills one in the middle of a write.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback

import lancepart
from mixed_writer import run_operations


def batch_rows(writer: int, batch: int, partitions: list[str], per_partition: int) -> list[tuple]:
    """The rows of one batch; ids are unique across writers, batches and partitions."""
    rows = []
    for p, c in enumerate(partitions):
        for k in range(per_partition):
            rows.append((((writer * 1000 + batch) * 100 + p) * 100_000 + k, c.format(b=batch), str(writer), batch))
    return rows


def batch_frame(spark, writer: int, batch: int, partitions: list[str], per_partition: int):
    """The rows of ``batch_rows`` as a DataFrame Spark computes: a DataFrame of Python rows would
    have each writer start Python workers too."""
    names = ", ".join("'" + c.format(b=batch).replace("'", "\\'") + "'" for c in partitions)
    return spark.range(len(partitions) * per_partition).selectExpr(
        f"(({writer} * 1000 + {batch}) * 100 + id div {per_partition}) * 100000 + id % {per_partition} AS id",
        f"element_at(array({names}), CAST(id div {per_partition} AS INT) + 1) AS c",
        f"'{writer}' AS writer", f"{batch} AS batch")


def emit(event: dict) -> None:
    print(json.dumps(event), flush=True)


def append_batches(spark, command: dict) -> None:
    spark.conf.set("spark.sql.shuffle.partitions", "2")
    for batch in range(command["batches"]):
        if batch > 0 and command.get("step"):
            sys.stdin.readline()
        batch_frame(spark, command["writer"], batch, command["partitions"], command["per_partition"]) \
            .writeTo(command["table"]).append()
        emit({"committed": batch})


def run_mixed(spark, command: dict) -> None:
    while not os.path.exists(command["go"]):
        time.sleep(0.02)
    for entry in run_operations(spark, command["table"], command["writer"], command["operations"]):
        emit(entry)


def main(root: str) -> None:
    spark = lancepart.spark_session(root, master="local[1]", **{
        "spark.ui.enabled": "false", "spark.driver.memory": "512m"})
    spark.sparkContext.setLogLevel("OFF")
    emit({"ready": True})
    for line in iter(sys.stdin.readline, ""):
        command = json.loads(line)
        try:
            append_batches(spark, command) if "batches" in command else run_mixed(spark, command)
            emit({"done": True, "error": None})
        except Exception:  # noqa: BLE001 - the test that sent the command judges the failure
            emit({"done": True, "error": traceback.format_exc()[-3000:]})
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])
