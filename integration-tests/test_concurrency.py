"""Eight writer processes, each with its own Spark session, append at once to partitions they
share, partitions only they write, and partitions they all create in the same batch; meanwhile
this process reads, and in strong mode every read sees one version of every partition."""

from __future__ import annotations

import collections
import json
import subprocess
import sys
import time
from pathlib import Path

import lance
import pytest

import lancepart
from writer_process import batch_rows

WRITERS = 8
BATCHES = 3
PER_PARTITION = 50
# shared existing partitions, one per writer, and one per batch that every writer creates at once
PARTITIONS = ["US", "FR", "JP", "W{writer}", "N{{b}}"]


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_eight_writers_append_at_once(spark, root, ns, mode):
    t = f"lance.{ns}.events"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, c STRING, writer STRING, batch INT) PARTITIONED BY (c) "
              f"TBLPROPERTIES ('transaction.mode' = '{mode}')")
    spark.sql(f"INSERT INTO {t} VALUES (-1, 'US', 'seed', -1), (-2, 'FR', 'seed', -1), (-3, 'JP', 'seed', -1)")
    script = Path(__file__).with_name("writer_process.py")
    procs = []
    for w in range(WRITERS):
        partitions = [p.format(writer=w) for p in PARTITIONS]
        procs.append((partitions, subprocess.Popen(
            [sys.executable, str(script), str(root), t, str(w), str(BATCHES), str(PER_PARTITION), json.dumps(partitions)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    snapshots = read_while_running(spark, t, [p for _, p in procs])
    if mode == "strong":
        torn = [s for s in snapshots if not consistent(s)]
        assert not torn, f"{len(torn)} of {len(snapshots)} reads saw part of a write: {torn[0]}"
    assert any(0 < sum(s.values()) < WRITERS * BATCHES * len(PARTITIONS) * PER_PARTITION for s in snapshots), \
        "no read ran while the writers committed"
    expected = {-1, -2, -3}
    for w, (partitions, proc) in enumerate(procs):
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"writer {w} failed:\n{err[-3000:]}"
        assert out.split().count("COMMITTED") == BATCHES
        expected |= {r[0] for b in range(BATCHES) for r in batch_rows(w, b, partitions, PER_PARTITION)}

    ids = [r.id for r in spark.sql(f"SELECT id FROM {t}").collect()]
    assert len(ids) == len(expected) and set(ids) == expected, "every row present exactly once"
    manifest = lance.dataset(str(root / ns / "events" / "__manifest")).to_table().to_pylist()
    object_ids = [r["object_id"] for r in manifest]
    assert len(object_ids) == len(set(object_ids)), "object_id is unique"
    tables = collections.Counter(r["partition_field_c"] for r in manifest if r["object_type"] == "table")
    assert set(tables.values()) == {1}, f"one partition table per value: {tables}"
    assert set(tables) == {"US", "FR", "JP"} | {f"W{w}" for w in range(WRITERS)} | {f"N{b}" for b in range(BATCHES)}
    namespaces = collections.Counter(r["partition_field_c"] for r in manifest
                                     if r["object_type"] == "namespace" and r["object_id"] != "v1")
    assert set(namespaces.values()) == {1}, f"one partition namespace per value: {namespaces}"
    # leaf directories: exactly the ones the manifest names (writers that lost a race cleaned up)
    dirs = {p.name for p in (root / ns / "events").iterdir() if p.name != "__manifest"}
    assert dirs == {r["location"] for r in manifest if r["object_type"] == "table"}
    assert lancepart.crosscheck(spark, t)["rows"] == len(expected)


def read_while_running(spark, table, procs) -> list[dict]:
    """Rows per (writer, partition) from reads made until the writers finish. Each read is planned,
    then waits a moment for commits to land, then runs (a long read)."""
    snapshots = []
    while any(p.poll() is None for p in procs):
        planned = spark.sql(f"SELECT writer, c, count(*) AS n FROM {table} WHERE writer <> 'seed' "
                            "GROUP BY writer, c").rdd
        time.sleep(0.5)
        snapshots.append({(r.writer, r.c): r.n for r in planned.collect()})
    return snapshots


def consistent(snapshot: dict) -> bool:
    """Every batch a writer committed put PER_PARTITION rows into each of its partitions, so in one
    snapshot a writer's shared and own partitions hold the same number of its rows."""
    for w in range(WRITERS):
        counts = {snapshot.get((str(w), c), 0) for c in ("US", "FR", "JP", f"W{w}")}
        new = sum(n for (writer, c), n in snapshot.items() if writer == str(w) and c.startswith("N"))
        if len(counts) != 1 or new != counts.pop():
            return False
    return True
