"""Writers killed with SIGKILL at random points of multi-partition writes, 12 times in each mode:
the manifest always opens, strong mode shows each write whole or not at all, weak mode shows
whole leaf commits only, and vacuum then leaves no orphan and loses nothing committed."""

from __future__ import annotations

import collections
import datetime as dt
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import lance

import lancepart

TRIALS = 12
PER_PARTITION = 100
# two partitions that exist, two that each batch creates
PARTITIONS = ["US", "FR", "T{trial}-{{b}}-a", "T{trial}-{{b}}-b"]
SCRIPT = Path(__file__).with_name("writer_process.py")
# a warm writer commits a batch about every 0.3-0.6 s: kills land anywhere in the next few
KILL_WINDOW_SECONDS = 1.5


def kill_a_writer(root: Path, table: str, trial: int, rng: random.Random) -> set[int]:
    """Starts a writer that appends batch after batch and kills it (and its JVM) at a random time
    within the next few batches after its first (slow, cold-JVM) batch committed; returns the
    batches whose commit it reported."""
    partitions = [p.format(trial=trial) for p in PARTITIONS]
    # A JVM unpacks lance-core's native library (173 MB) into java.io.tmpdir and deletes it only
    # when it exits normally: a killed writer's copy goes with this directory.
    with tempfile.TemporaryFile() as stderr, tempfile.TemporaryDirectory(prefix="writer-jvm-") as jvm_tmp:
        env = {**os.environ, "JAVA_TOOL_OPTIONS": f"-Djava.io.tmpdir={jvm_tmp}"}
        proc = subprocess.Popen(
            [sys.executable, str(SCRIPT), str(root), table, str(trial), "1000", str(PER_PARTITION), json.dumps(partitions)],
            stdout=subprocess.PIPE, stderr=stderr, text=True, start_new_session=True, env=env)
        try:
            for expected in ("READY", "COMMITTED 0"):
                line = proc.stdout.readline().strip()
                if line != expected:
                    stderr.seek(0)
                    raise AssertionError(f"trial {trial}: the writer printed {line!r}, not {expected!r}; its stderr "
                                         f"ends:\n{stderr.read().decode(errors='replace')[-4000:]}")
            time.sleep(rng.uniform(0.0, KILL_WINDOW_SECONDS))
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return {0} | {int(line.split()[1]) for line in proc.stdout.read().splitlines() if line.startswith("COMMITTED")}


def check_after_kill(spark, table_dir: Path, table: str, mode: str, trial: int, reported: set[int]) -> None:
    lance.dataset(str(table_dir / "__manifest")).to_table()  # the manifest opens
    counts = collections.Counter()
    for r in spark.sql(f"SELECT batch, c, count(*) AS n FROM {table} WHERE writer = '{trial}' GROUP BY batch, c").collect():
        counts[(r.batch, r.c)] = r.n
    batches = {b for b, _ in counts} | reported
    for b in batches:
        per_partition = [counts.get((b, p.format(trial=trial).format(b=b)), 0) for p in PARTITIONS]
        if mode == "strong" or b in reported:
            assert per_partition in ([0] * 4, [PER_PARTITION] * 4), f"trial {trial} batch {b}: {per_partition}"
        else:  # weak: a leaf shows a writer's commit whole or not at all
            assert all(n in (0, PER_PARTITION) for n in per_partition), f"trial {trial} batch {b}: {per_partition}"
        if b in reported:
            assert per_partition == [PER_PARTITION] * 4, f"trial {trial}: committed batch {b} lost"


def unreferenced(table_dir: Path) -> list[str]:
    """Files and leaf directories no manifest version's rows lead to, found with pylance alone:
    leaf directories no `table`/`table_version` row of any manifest version names, and in the
    others data files, deletion files and detached manifests that neither a main-branch version
    nor a version some manifest row pins uses."""
    manifest = lance.dataset(str(table_dir / "__manifest"))
    pinned = collections.defaultdict(set)
    for v in manifest.versions():
        at = lance.dataset(str(table_dir / "__manifest"), version=v["version"])
        for r in at.to_table(columns=["location", "read_version"],
                             filter="object_type IN ('table', 'table_version')").to_pylist():
            pinned[r["location"]].add(r["read_version"])
    found = []
    for leaf in sorted(p for p in table_dir.iterdir() if p.name != "__manifest"):
        if leaf.name not in pinned:
            found.append(leaf.name)
            continue
        main = {v["version"] for v in lance.dataset(str(leaf)).versions()}
        detached = {v for v in pinned[leaf.name] if v is not None and v not in main}
        used = {f"_versions/d{v}.manifest" for v in detached}
        for version in main | detached:
            for fragment in lance.dataset(str(leaf), version=version).get_fragments():
                meta = fragment.metadata
                used |= {f"data/{f.path}" for f in meta.files}
                if meta.deletion_file is not None:
                    used.add(meta.deletion_file.path(meta.id))
        present = [f"data/{p.name}" for p in (leaf / "data").glob("*")] + \
                  [f"_deletions/{p.name}" for p in (leaf / "_deletions").glob("*")] + \
                  [f"_versions/{p.name}" for p in (leaf / "_versions").glob("d*.manifest")]
        found += [f"{leaf.name}/{f}" for f in present if f not in used]
    return found


def run_mode(spark, admin, root: Path, ns: str, mode: str) -> dict:
    name = f"faults_{mode}"
    table = f"lance.{ns}.{name}"
    table_dir = root / ns / name
    spark.sql(f"CREATE TABLE {table} (id BIGINT, c STRING, writer STRING, batch INT) PARTITIONED BY (c) "
              f"TBLPROPERTIES ('transaction.mode' = '{mode}')")
    spark.sql(f"INSERT INTO {table} VALUES (-1, 'US', 'seed', -1), (-2, 'FR', 'seed', -1)")
    rng = random.Random(f"{mode}-{os.getpid()}")
    reported = 0
    for trial in range(TRIALS):
        batches = kill_a_writer(root, table, trial, rng)
        reported += len(batches)
        check_after_kill(spark, table_dir, table, mode, trial, batches)
    orphans_before = unreferenced(table_dir)
    before = sorted(r.id for r in spark.sql(f"SELECT id FROM {table}").collect())
    removed = admin.vacuum(f"{ns}.{name}", older_than=dt.timedelta(0), retention_check=False)
    after = sorted(r.id for r in spark.sql(f"SELECT id FROM {table}").collect())
    assert after == before, "vacuum lost committed rows"
    assert unreferenced(table_dir) == []
    assert sorted(removed["removed_directories"] + removed["removed_files"]) == sorted(orphans_before)
    lancepart.crosscheck(spark, table)
    return {"reported": reported, "orphans": len(orphans_before)}


def test_writers_killed_at_random_points(spark, admin, root, ns):
    spark._jvm.lancepart.lance.Lance.loadNative()  # this session's own copy is unpacked before the count
    native_copies = set(Path(tempfile.gettempdir()).glob("liblance_jni*.so"))
    with ThreadPoolExecutor(2) as pool:  # the two modes at once: each kill waits on a JVM start
        results = dict(zip(["weak", "strong"], pool.map(lambda m: run_mode(spark, admin, root, ns, m), ["weak", "strong"])))
    leaked = set(Path(tempfile.gettempdir()).glob("liblance_jni*.so")) - native_copies
    assert not leaked, f"killed writers left {len(leaked)} copies of lance-core's native library in the temp dir"
    for mode, result in results.items():
        assert result["reported"] > 0, f"{mode}: no write committed before its kill"
        assert result["orphans"] > 0, f"{mode}: no kill landed inside a write"
