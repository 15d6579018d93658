"""Operations on one table that a writer process (``writer_process.py``) runs alongside others,
for the mixed-operation concurrency tests.

``run_operations`` runs ``operations`` (a list) in order on ``table`` (columns id BIGINT, p STRING,
tag STRING, v INT, maybe more added later). An operation is ``{"kind": ..., "partitions": [...]}`` with kind one of ``append``,
``dynamic`` (dynamic INSERT OVERWRITE), ``static`` (INSERT OVERWRITE ... PARTITION (p = ...), one
partition), ``delete_partition`` (DELETE WHERE p IN ...), ``delete_tag`` (DELETE WHERE tag = the
operation's ``target``), ``rewrite_delete_tag`` and ``merge_delete_tag`` (the same as a DELETE with a
subquery and as a MERGE, which Spark rewrites), ``update_tag`` (UPDATE of ``target``'s rows), ``add_column`` (ALTER TABLE ADD COLUMN ``column``), ``rename_column``
(ALTER TABLE RENAME COLUMN ``column`` TO ``to``), ``evolve`` (CALL
system.evolve_partition_spec to ``fields``), ``compact``, ``rewrite_manifests`` and ``expire`` (the
maintenance procedures rewrite_data_files, rewrite_manifests, expire_snapshots of every version but
the latest) and ``replace`` (REPLACE TABLE ... AS SELECT * FROM the
table itself, partitioned by p). Writes tag every row with ``w<writer>-<index>``
(``tag_rows`` gives them). Each operation's log entry holds the operation, its tag, ``start`` and
``end`` (epoch seconds), ``ok`` and the error's first line when it failed.
"""

from __future__ import annotations

import time

ROWS_PER_PARTITION = 3


def tag_of(writer: int, index: int) -> str:
    return f"w{writer}-{index}"


def tag_rows(writer: int, index: int, partitions: list[str]) -> list[tuple]:
    """(id, p, tag, v) rows a write puts into each of ``partitions``; ids are unique per table."""
    return [((writer * 1000 + index) * 1000 + j * ROWS_PER_PARTITION + k, p, tag_of(writer, index), index)
            for j, p in enumerate(partitions) for k in range(ROWS_PER_PARTITION)]


def statement(table: str, writer: int, index: int, op: dict) -> str:
    kind, partitions = op["kind"], op.get("partitions", [])
    values = ", ".join(f"({i}, '{p}', '{t}', {v})" for i, p, t, v in tag_rows(writer, index, partitions))
    if kind == "append":
        return f"INSERT INTO {table} (id, p, tag, v) VALUES {values}"
    if kind == "dynamic":
        return f"INSERT OVERWRITE {table} (id, p, tag, v) VALUES {values}"
    if kind == "static":
        (p,) = partitions
        return f"INSERT OVERWRITE {table} PARTITION (p = '{p}') (id, tag, v) SELECT id, tag, v FROM VALUES {values} AS s(id, p, tag, v)"
    if kind == "delete_partition":
        return f"DELETE FROM {table} WHERE p IN ({', '.join(repr(p) for p in partitions)})"
    if kind == "delete_tag":
        return f"DELETE FROM {table} WHERE tag = '{op['target']}'"
    if kind == "rewrite_delete_tag":
        return f"DELETE FROM {table} WHERE tag IN (SELECT tag FROM VALUES ('{op['target']}') AS s(tag))"
    if kind == "merge_delete_tag":
        return f"MERGE INTO {table} t USING (SELECT '{op['target']}' AS tag) s ON t.tag = s.tag WHEN MATCHED THEN DELETE"
    if kind == "update_tag":
        return f"UPDATE {table} SET v = v + 1000 WHERE tag = '{op['target']}'"
    if kind == "replace":
        return f"REPLACE TABLE {table} PARTITIONED BY (p) AS SELECT * FROM {table}"
    if kind == "add_column":
        return f"ALTER TABLE {table} ADD COLUMN {op['column']} STRING"
    if kind == "rename_column":
        return f"ALTER TABLE {table} RENAME COLUMN {op['column']} TO {op['to']}"
    if kind in ("compact", "rewrite_manifests", "expire"):
        name = table.split(".", 1)[1]
        if kind == "expire":
            return f"CALL lance.system.expire_snapshots(table => '{name}', older_than => current_timestamp())"
        return f"CALL lance.system.{'rewrite_data_files' if kind == 'compact' else kind}(table => '{name}')"
    if kind == "evolve":
        name = table.split(".", 1)[1]
        fields = ", ".join(f"'{f}'" for f in op["fields"])
        return f"CALL lance.system.evolve_partition_spec(table => '{name}', fields => array({fields}))"
    raise ValueError(f"unknown operation {kind}")


def run_operations(spark, table: str, writer: int, operations: list[dict]):
    """Runs ``operations`` in order on ``table``; yields the log entry of each."""
    for index, op in enumerate(operations):
        spark.conf.set("spark.sql.shuffle.partitions", "1")
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", "static" if op["kind"] == "static" else "dynamic")
        start = time.time()
        try:
            spark.sql(statement(table, writer, index, op)).collect()
            ok, error = True, None
        except Exception as e:  # noqa: BLE001 - the log records every failure; the test judges it
            ok, error = False, str(getattr(e, "java_exception", e)).strip().splitlines()[0][:500]
        yield {**op, "writer": writer, "tag": tag_of(writer, index), "start": start, "end": time.time(), "ok": ok,
               "error": error}
