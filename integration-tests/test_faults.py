"""Writers killed with SIGKILL in the middle of multi-partition writes, 3 times in each mode
(once in each commit phase): the manifest always opens, strong mode shows each write whole or not
at all, weak mode shows whole leaf commits only, and vacuum then leaves no orphan and loses nothing
committed.

The harness picks each kill point: it watches the table's files while a writer's next batch
commits and kills the writer when the phase it chose began (the first fragment file written, the
first partition-table version committed, or the new __manifest version: each phase in turn), up
to 5 ms after (the random delays are seeded by the mode, the same in every run). When the writer
reported the batch before the kill came, the harness tries again on its next batch instead of
killing it (a new writer is a JVM start); a kill that landed after the writer reported the batch,
or before the manifest commit but left no orphan, is retried with a new writer. So every counted
kill lands before the writer reported its write (and one after the manifest commit, the commit
point, must find the batch whole). A writer whose
batch raised fails the test with its traceback: a failed write is not a kill."""

from __future__ import annotations

import collections
import datetime as dt
import os
import random
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import lance

import lancepart
from writer_pool import Writer

# kills per mode, each phase in turn; LANCEPART_FAULT_TRIALS raises it for a deeper run
TRIALS = int(os.environ.get("LANCEPART_FAULT_TRIALS", "3"))
PHASES = ("fragments", "leaf commit", "manifest commit")
ATTEMPTS = 5  # writers started per mode, at most ATTEMPTS * TRIALS, retries included
BATCHES = 6  # batches a writer may commit: the first, then one per kill tried until one lands
PER_PARTITION = 100
# two partitions that exist, two that each batch creates
PARTITIONS = ["US", "FR", "T{trial}-{{b}}-a", "T{trial}-{{b}}-b"]


def phase_of(path: str) -> str | None:
    """The commit phase a new file ``<dir>/<data|_versions>/<name>`` of the table shows."""
    directory, kind, name = path.split("/")
    if kind == "_versions" and name.endswith(".manifest"):
        return "manifest commit" if directory == "__manifest" else "leaf commit"
    return "fragments" if kind == "data" and directory != "__manifest" else None


def phase_files(table_dir: Path, phase: str) -> set[str]:
    """The table's files that show ``phase``. The manifest commit's are in one directory, listed in
    tens of microseconds: the kill after it has to land before the writer reports, milliseconds later."""
    if phase == "manifest commit":
        found = {f"__manifest/_versions/{e.name}" for e in os.scandir(table_dir / "__manifest" / "_versions")}
    else:
        found = table_files(table_dir)
    return {f for f in found if phase_of(f) == phase}


def table_files(table_dir: Path) -> set[str]:
    found = set()
    for directory in os.scandir(table_dir):
        for kind in ("data", "_versions"):
            try:
                found |= {f"{directory.name}/{kind}/{e.name}" for e in os.scandir(os.path.join(directory.path, kind))}
            except (FileNotFoundError, NotADirectoryError):
                pass
    return found


def kill_delay(rng: random.Random) -> float:
    """How long after a fragment or partition-table phase began a kill comes: up to 5 ms, long enough
    to land later in the phase (more files written, more partition tables committed)."""
    return rng.uniform(0, 0.005)


def kill_a_writer(root: Path, table_dir: Path, table: str, trial: int, phase: str,
                  rng: random.Random) -> tuple[int | None, set[int]]:
    """Starts a writer that commits batch 0, then batch after batch when told, and kills it (and its
    JVM) while the commit of one of them is in ``phase``: ``kill_delay`` after the phase began (none
    for the manifest commit). A batch the writer reported before the kill came is not killed: the
    next one is tried in the same writer, up to BATCHES. Returns the batch killed (None: every batch
    was reported first) and the batches the writer reported committed."""
    partitions = [p.format(trial=trial) for p in PARTITIONS]
    # A JVM unpacks lance-core's native library (173 MiB) into java.io.tmpdir and deletes it only
    # when it exits normally: a killed writer's copy goes with this directory.
    with tempfile.TemporaryDirectory(prefix="writer-jvm-") as jvm_tmp:
        options = f"{os.environ.get('JAVA_TOOL_OPTIONS', '')} -Djava.io.tmpdir={jvm_tmp}".strip()
        writer = Writer(root, {**os.environ, "JAVA_TOOL_OPTIONS": options})
        reported, killed, began, stderr = {0}, None, True, ""
        try:
            writer.wait_ready()
            writer.send({"batches": BATCHES, "step": True, "table": table, "writer": trial,
                         "per_partition": PER_PARTITION, "partitions": partitions})
            assert writer.event() == {"committed": 0}, f"trial {trial}: {writer.stderr()}"
            for batch in range(1, BATCHES):
                before = phase_files(table_dir, phase)
                writer.send("next")
                deadline = time.monotonic() + 120
                while not (began := bool(phase_files(table_dir, phase) - before)) and time.monotonic() < deadline:
                    time.sleep(0.0005)
                if not began:
                    stderr = writer.stderr()  # before the kill closes it
                    break
                time.sleep(0 if phase == "manifest commit" else kill_delay(rng))
                if not writer.has_event():
                    killed = batch
                    break
                # the writer reported the batch before the kill came: the next batch, same writer
                event = writer.event()
                assert event == {"committed": batch}, f"trial {trial}: {event}; {writer.stderr()}"
                reported.add(batch)
        finally:
            events = writer.kill()
        # a batch that raised is a failed write, not a kill: its traceback is in the writer's events
        errors = [e["error"] for e in events if e.get("error")]
        assert not errors, f"trial {trial}: the writer failed before it was killed:\n{errors[0]}"
        assert began, f"trial {trial}: no {phase} in 120 s; the writer's stderr ends:\n{stderr}"
        # the writer unpacked its copy into its own temp dir, which goes with the dir
        assert list(Path(jvm_tmp).glob("liblance_jni*.so")), f"trial {trial}: no native library in {jvm_tmp}"
    return killed, reported | {e["committed"] for e in events if "committed" in e}


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
        # detached manifests, and the staged copy (<name>#<n>) of one a kill interrupted
        present = [f"data/{p.name}" for p in (leaf / "data").glob("*")] + \
                  [f"_deletions/{p.name}" for p in (leaf / "_deletions").glob("*")] + \
                  [f"_versions/{p.name}" for p in (leaf / "_versions").glob("d*")]
        found += [f"{leaf.name}/{f}" for f in present if f not in used]
    return found


def run_mode(spark, admin, root: Path, ns: str, mode: str) -> dict:
    name = f"faults_{mode}"
    table = f"lance.{ns}.{name}"
    table_dir = root / ns / name
    spark.sql(f"CREATE TABLE {table} (id BIGINT, c STRING, writer STRING, batch INT) PARTITIONED BY (c) "
              f"TBLPROPERTIES ('transaction.mode' = '{mode}')")
    spark.sql(f"INSERT INTO {table} VALUES (-1, 'US', 'seed', -1), (-2, 'FR', 'seed', -1)")
    rng = random.Random(mode)
    kills, orphans = collections.Counter(), set()
    for trial in range(TRIALS * ATTEMPTS):
        if sum(kills.values()) == TRIALS:
            break
        # each phase in turn
        phase = PHASES[sum(kills.values()) % len(PHASES)]
        killed, batches = kill_a_writer(root, table_dir, table, trial, phase, rng)
        left = set(unreferenced(table_dir))
        # inside the write: before the writer reported it, and before the manifest commit, an orphan;
        # after the manifest commit (the commit point) and before the report, the batch is all there
        counted = killed is not None and killed not in batches and (phase == "manifest commit" or bool(left - orphans))
        committed = batches | {killed} if counted and phase == "manifest commit" else batches
        check_after_kill(spark, table_dir, table, mode, trial, committed)
        if counted:
            kills[phase] += 1
        orphans = left
    assert sum(kills.values()) == TRIALS, f"{mode}: {TRIALS * ATTEMPTS} writers, yet only {dict(kills)} kills " \
                                          "landed inside a write"
    before = sorted(r.id for r in spark.sql(f"SELECT id FROM {table}").collect())
    removed = admin.vacuum(f"{ns}.{name}", older_than=dt.timedelta(0), retention_check=False)
    after = sorted(r.id for r in spark.sql(f"SELECT id FROM {table}").collect())
    assert after == before, "vacuum lost committed rows"
    assert unreferenced(table_dir) == []
    assert sorted(removed["removed_directories"] + removed["removed_files"]) == sorted(orphans)
    lancepart.crosscheck(spark, table)
    return {"kills": kills, "orphans": len(orphans)}


def test_writers_killed_in_every_commit_phase(spark, admin, root, ns):
    with ThreadPoolExecutor(2) as pool:  # the two modes at once: each kill waits on a JVM start
        results = dict(zip(["weak", "strong"], pool.map(lambda m: run_mode(spark, admin, root, ns, m), ["weak", "strong"])))
    for mode, result in results.items():
        assert set(result["kills"]) == set(PHASES), f"{mode}: kills per phase {result['kills']}"
        assert result["orphans"] > 0, f"{mode}: no kill left an orphan for vacuum"
