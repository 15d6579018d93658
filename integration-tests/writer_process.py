"""A writer with its own process and Spark session, for the concurrency and fault tests.

``python writer_process.py <root> <table> <writer> <batches> <rows per partition> <partitions>``
appends ``batches`` batches to ``table`` (columns id, c, writer, batch; partitioned by c). Batch b
writes ``rows per partition`` rows to each partition of ``partitions`` (a JSON list of names in
which ``{b}`` is replaced by the batch number), with ids ``<writer hash><batch><row>``. It prints
``READY`` once its session is up and ``COMMITTED <b>`` after each batch's commit returned.
"""

from __future__ import annotations

import json
import sys

import lancepart


def batch_rows(writer: int, batch: int, partitions: list[str], per_partition: int) -> list[tuple]:
    """The rows of one batch; ids are unique across writers, batches and partitions."""
    rows = []
    for p, c in enumerate(partitions):
        for k in range(per_partition):
            rows.append((((writer * 1000 + batch) * 100 + p) * 100_000 + k, c.format(b=batch), str(writer), batch))
    return rows


def main(root: str, table: str, writer: int, batches: int, per_partition: int, partitions: list[str]) -> None:
    spark = lancepart.spark_session(root, master="local[1]", **{
        "spark.ui.enabled": "false", "spark.driver.memory": "512m", "spark.sql.shuffle.partitions": "2"})
    spark.sparkContext.setLogLevel("ERROR")
    print("READY", flush=True)
    for batch in range(batches):
        rows = batch_rows(writer, batch, partitions, per_partition)
        spark.createDataFrame(rows, "id BIGINT, c STRING, writer STRING, batch INT").writeTo(table).append()
        print(f"COMMITTED {batch}", flush=True)
    spark.stop()


if __name__ == "__main__":
    root_arg, table_arg, writer_arg, batches_arg, per_partition_arg, partitions_arg = sys.argv[1:]
    main(root_arg, table_arg, int(writer_arg), int(batches_arg), int(per_partition_arg), json.loads(partitions_arg))
