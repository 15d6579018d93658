"""Eight writer processes, each with its own Spark session, append at once to partitions they
share, partitions only they write, and partitions they all create in the same batch; meanwhile
this process reads, and in strong mode every read sees one version of every partition. The
writer processes are a pool the module's tests share (``writer_pool.py``)."""

from __future__ import annotations

import collections
import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import lance
import pytest

import lancepart
from writer_pool import WriterPool
from writer_process import batch_rows

WRITERS = 8
BATCHES = 3
PER_PARTITION = 50
# shared existing partitions, one per writer, and one per batch that every writer creates at once
PARTITIONS = ["US", "FR", "JP", "W{writer}", "N{{b}}"]


@pytest.fixture(scope="module")
def writers(root):
    pool = WriterPool(root)
    yield pool
    pool.close()


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_eight_writers_append_at_once(spark, root, ns, writers, mode):
    t = f"lance.{ns}.events"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, c STRING, writer STRING, batch INT) PARTITIONED BY (c) "
              f"TBLPROPERTIES ('transaction.mode' = '{mode}')")
    spark.sql(f"INSERT INTO {t} VALUES (-1, 'US', 'seed', -1), (-2, 'FR', 'seed', -1), (-3, 'JP', 'seed', -1)")
    partitions = [[p.format(writer=w) for p in PARTITIONS] for w in range(WRITERS)]
    taken = writers.take(WRITERS)
    with ThreadPoolExecutor(WRITERS) as threads:
        # every writer's first batch at once, then (the writers stepping: writer_process.py) a read
        # between batches, which must see exactly those (a read that sees part of the writes,
        # whatever the machine's speed), then the other batches at once; reads run while they commit
        for w, writer in enumerate(taken):
            writer.send({"batches": BATCHES, "step": True, "table": t, "writer": w, "per_partition": PER_PARTITION,
                         "partitions": partitions[w]})
        first = [threads.submit(writer.event) for writer in taken]
        snapshots = read_while_running(spark, t, first)
        assert [f.result() for f in first] == [{"committed": 0}] * WRITERS
        between = read(spark, t)
        for writer in taken:
            for _ in range(1, BATCHES):
                writer.send("next")
        running = [threads.submit(writer.until_done) for writer in taken]
        snapshots += read_while_running(spark, t, running)
        events = [[f.result(), *r.result()] for f, r in zip(first, running)]
    assert sum(between.values()) == WRITERS * len(PARTITIONS) * PER_PARTITION and consistent(between), between
    if mode == "strong":
        torn = [s for s in snapshots if not consistent(s)]
        assert not torn, f"{len(torn)} of {len(snapshots)} reads saw part of a write: {torn[0]}"
    expected = {-1, -2, -3}
    for w in range(WRITERS):
        assert [e["committed"] for e in events[w]] == list(range(BATCHES)), f"writer {w}: {events[w]}"
        expected |= {r[0] for b in range(BATCHES) for r in batch_rows(w, b, partitions[w], PER_PARTITION)}

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


def read(spark, table, wait: float = 0) -> dict:
    """Rows per (writer, partition) of a read planned, then run after ``wait`` seconds."""
    planned = spark.sql(f"SELECT writer, c, count(*) AS n FROM {table} WHERE writer <> 'seed' GROUP BY writer, c").rdd
    time.sleep(wait)
    return {(r.writer, r.c): r.n for r in planned.collect()}


def read_while_running(spark, table, running) -> list[dict]:
    """Reads (``read``) made until the writers finish (``running``: their futures), each waiting a
    moment after planning for commits to land (a long read)."""
    snapshots = []
    while not all(r.done() for r in running):
        snapshots.append(read(spark, table, wait=0.5))
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


# Mixed operations: processes (mixed_writer.py) append, overwrite (static and dynamic), delete,
# add columns and evolve the spec on the same partitions at once; each logs what it did, and the
# final table is judged against the logs.
WRITE_KINDS = {"append", "dynamic", "static"}
TAG_REMOVER_KINDS = {"delete_tag", "rewrite_delete_tag", "merge_delete_tag"}
REMOVER_KINDS = {"dynamic", "static", "delete_partition", "replace", *TAG_REMOVER_KINDS}


def run_mixed(spark, root, writers: WriterPool, table: str, plans: list[list[dict]]) -> list[dict]:
    """Runs one plan per writer of the pool, all starting at once; returns their log entries, the
    seed write (one append to partitions a and b) first."""
    from mixed_writer import statement

    seed = {"kind": "append", "partitions": ["a", "b"], "writer": 99, "tag": "w99-0", "start": 0, "end": 0, "ok": True,
            "error": None}
    spark.sql(statement(table, 99, 0, seed))
    go = root / f"go-{table}"
    taken = writers.take(len(plans))
    for w, (writer, plan) in enumerate(zip(taken, plans)):
        writer.send({"operations": plan, "table": table, "writer": w, "go": str(go)})
    go.touch()
    log = [seed]
    for w, writer in enumerate(taken):
        entries = writer.until_done()
        assert len(entries) == len(plans[w]), f"writer {w} logged too few operations: {entries}"
        log += entries
    print("\n".join(f"{e['tag']} {e['kind']} {e.get('partitions')} {e['start']:.2f}-{e['end']:.2f} ok={e['ok']} {e['error']}"
                    for e in sorted(log, key=lambda e: e["start"])))
    return log


def check_against_log(spark, table: str, log: list[dict], mode: str) -> None:
    """Checks the table against the log (``check_log``); on a failure, prints what each manifest
    version and each partition table version held, to find the commit that went wrong."""
    try:
        check_log(spark, table, log, mode)
    except AssertionError:
        print(table_history(spark, table))
        raise


def table_history(spark, table: str) -> str:
    """Per __manifest version the partition tables added and removed; per partition table its
    versions with the Lance operation, the rows per write tag and the fragment ids."""
    uri, _ = lancepart.table_uri(spark, table)
    lines, before = [], {}
    manifest = lance.dataset(f"{uri}/__manifest")
    for v in manifest.versions():
        rows = {r["object_id"]: r["location"] for r in
                lance.dataset(f"{uri}/__manifest", version=v["version"]).to_table().to_pylist()
                if r["object_type"] == "table"}
        lines.append(f"__manifest v{v['version']} {v['timestamp']}: added "
                     f"{ {k: l for k, l in rows.items() if before.get(k) != l} } removed {sorted(set(before) - set(rows))}")
        before = rows
    datasets = {p.name for p in Path(uri).iterdir() if p.name != "__manifest" and (p / "_versions").exists()}
    for location in sorted(set(before.values()) | datasets):
        leaf = lance.dataset(f"{uri}/{location}")
        lines.append(f"{location} ({'in' if location in before.values() else 'not in'} the manifest)")
        for v in leaf.versions():
            at = lance.dataset(f"{uri}/{location}", version=v["version"])
            tags = collections.Counter(at.to_table(columns=["tag"]).column("tag").to_pylist())
            operation = type(leaf.read_transaction(v["version"]).operation).__name__
            fragments = [f.fragment_id for f in at.get_fragments()]
            lines.append(f"  v{v['version']} {v['timestamp']} {operation}: {dict(sorted(tags.items()))} "
                         f"fragments {fragments}")
    return "\n".join(lines)


def check_log(spark, table: str, log: list[dict], mode: str) -> None:
    """The table reads, crosscheck passes, and per (write, partition) its rows are all there or
    none; a write that reported success is there unless an overwrite or delete that may have
    committed after it replaced it (in weak mode, one that failed too), and is gone when one that
    started after it ended succeeded (a dynamic overwrite only when no spec evolution may lie
    between them: it replaces partitions of the current spec only; a REPLACE ... AS SELECT * FROM
    the table copies what it read, so it only loses writes it may have run alongside, and may bring
    back rows an overwrite or delete it ran alongside removed); in strong mode a failed write left
    nothing."""
    from mixed_writer import tag_rows

    rows = spark.sql(f"SELECT * FROM {table}").collect()
    assert spark.sql(f"SELECT count(*) FROM {table}").first()[0] == len(rows)
    assert len({r.id for r in rows}) == len(rows), "ids are unique"
    present = collections.defaultdict(set)
    for r in rows:
        present[(r.tag, r.p)].add(r.id)
    removers = [e for e in log if e["ok"] and e["kind"] in REMOVER_KINDS]
    # in weak mode a remover that failed may have left its partition-table commits (docs/format.md):
    # a DELETE whose __manifest commit failed, after it deleted rows in the partition tables
    may_have_removed = [e for e in log if e["kind"] in REMOVER_KINDS and (e["ok"] or mode == "weak")]
    evolutions = [e for e in log if e["kind"] == "evolve" and e["ok"]]

    def removes(remover: dict, write: dict, p: str) -> bool:
        if remover["kind"] == "replace":
            return True
        if remover["kind"] in TAG_REMOVER_KINDS:
            return remover["target"] == write["tag"]
        return remover is not write and p in remover["partitions"]

    def evolved_between(write: dict, remover: dict) -> bool:
        return any(e["end"] > write["start"] and e["start"] < remover["end"] for e in evolutions)

    def copied_back(remover: dict) -> bool:
        return any(r["kind"] == "replace" and r["start"] < remover["end"] and r["end"] > remover["start"]
                   for r in removers)

    for w in (e for e in log if e["kind"] in WRITE_KINDS):
        index = int(w["tag"].split("-")[1])
        for p in w["partitions"]:
            expected = {i for i, q, _, _ in tag_rows(w["writer"], index, w["partitions"]) if q == p}
            found = present.pop((w["tag"], p), set())
            what = f"{w['kind']} {w['tag']} into {p} (ok={w['ok']}, {w['error']})"
            assert found in (set(), expected), f"{what}: part of its rows: {sorted(found)}"
            if not w["ok"]:
                assert mode == "weak" or not found, f"{what} failed in strong mode, yet its rows are there"
                continue
            later = [r for r in may_have_removed if removes(r, w, p) and r["end"] > w["start"]]
            assert found or later, f"{what} reported success; its rows are gone and no overwrite or delete " \
                                   "that committed after it explains it"
            replaced = [r for r in removers if removes(r, w, p) and r["start"] > w["end"] and r["kind"] != "replace"
                        and not copied_back(r) and not (r["kind"] == "dynamic" and evolved_between(w, r))]
            assert not (found and replaced), f"{what}: its rows survived {replaced[0]['kind']} {replaced[0]['tag']}"
    assert not present, f"rows of no logged write: {sorted(present)}"
    assert lancepart.crosscheck(spark, table)["rows"] == len(rows)


def test_the_checker_takes_a_failed_weak_delete_as_one_that_may_have_removed_rows(spark, admin, ns):
    """A weak-mode DELETE whose __manifest commit fails after its partition-table commits leaves
    those rows deleted (docs/format.md): the checker takes it as what may explain an append's
    missing rows (it once reported them lost), and still finds the loss when nothing explains it."""
    from mixed_writer import statement

    t = create_mixed_table(spark, ns, "weak")
    append = {"kind": "append", "partitions": ["a"], "writer": 0, "tag": "w0-0", "start": 1.0, "end": 2.0,
              "ok": True, "error": None}
    spark.sql(statement(t, 0, 0, append))
    # what the failed DELETE left: the rows deleted on the partition table's main branch, __manifest as it was
    location = admin.describe(f"{ns}.mixed")["location"]
    [partition] = admin.partitions(f"{ns}.mixed")
    lance.dataset(f"{location}/{partition['location']}").delete("tag = 'w0-0'")
    failed = {"kind": "delete_tag", "target": "w0-0", "partitions": [], "writer": 1, "tag": "w1-0", "start": 3.0,
              "end": 4.0, "ok": False, "error": "manifest version 1 was not found"}
    check_log(spark, t, [append, failed], "weak")
    with pytest.raises(AssertionError, match="append w0-0 into a .* reported success; its rows are gone"):
        check_log(spark, t, [append], "weak")


def create_mixed_table(spark, ns: str, mode: str) -> str:
    t = f"lance.{ns}.mixed"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING, tag STRING, v INT) PARTITIONED BY (p) "
              f"TBLPROPERTIES ('transaction.mode' = '{mode}')")
    return t


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_dynamic_overwrite_races_append_on_one_partition(spark, root, ns, writers, mode):
    """Issue 14 item 3: an append committing after a dynamic overwrite replaced its partition was
    committed into the new partition table while its file stayed in the old one's directory, and
    every later scan failed ("Object at location ... not found")."""
    t = create_mixed_table(spark, ns, mode)
    rounds = 8
    log = run_mixed(spark, root, writers, t, [[{"kind": "dynamic", "partitions": ["a"]}] * rounds,
                                     [{"kind": "append", "partitions": ["a"]}] * rounds])
    check_against_log(spark, t, log, mode)
    assert any(e["ok"] for e in log[1:]), log


def mixed_plans() -> list[list[dict]]:
    """Four processes on partitions a and b: one appends, one overwrites (dynamic and static),
    one deletes (whole partitions and one write's rows) between appends, one changes the schema
    and the spec between appends (the spec keeps one partition per value of p)."""
    def op(kind, *partitions, **more):
        return {"kind": kind, "partitions": list(partitions), **more}
    return [
        [op("append", "a"), op("append", "b"), op("append", "a", "b"), op("append", "a"), op("append", "b"),
         op("append", "a", "b")],
        [op("dynamic", "a"), op("static", "b"), op("dynamic", "a", "b"), op("static", "a"), op("dynamic", "b"),
         op("dynamic", "a")],
        [op("append", "a"), op("delete_tag", target="w0-0"), op("delete_partition", "b"), op("append", "b"),
         op("delete_tag", target="w0-2"), op("append", "a")],
        [op("append", "b"), op("append", "a"), op("evolve", fields=["p", "bucket(1, id)"]), op("append", "a", "b"),
         op("add_column", column="x1"), op("append", "b")],
    ]


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_mixed_operations_on_shared_partitions(spark, root, ns, writers, mode):
    t = create_mixed_table(spark, ns, mode)
    log = run_mixed(spark, root, writers, t, mixed_plans())
    check_against_log(spark, t, log, mode)
    assert sum(e["ok"] for e in log) > len(log) // 3, "most operations conflicted: the test shows little"


@pytest.mark.parametrize("write_mode", ["copy-on-write", "merge-on-read"])
@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_row_level_commands_race_writers(spark, root, ns, writers, mode, write_mode):
    """DELETE with a subquery, MERGE and UPDATE (copy-on-write: they replace the partition tables
    they read; merge-on-read: they delete rows by address and append their new versions) while
    other processes append, overwrite, delete and (merge-on-read) compact: no write that reported
    success loses rows to a command that did not remove them, and none comes back after a removal.
    The commands run at snapshot isolation: serializable ones conflict with nearly every append."""
    t = create_mixed_table(spark, ns, mode)
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.delete.isolation-level' = 'snapshot', "
              "'write.update.isolation-level' = 'snapshot', 'write.merge.isolation-level' = 'snapshot', "
              f"'write.delete.mode' = '{write_mode}', 'write.update.mode' = '{write_mode}', "
              f"'write.merge.mode' = '{write_mode}')")
    compact = [{"kind": "compact", "partitions": []}] if write_mode == "merge-on-read" else []
    def op(kind, *partitions, **more):
        return {"kind": kind, "partitions": list(partitions), **more}
    log = run_mixed(spark, root, writers, t, [
        [op("append", "a"), op("append", "b"), op("append", "a", "b"), op("append", "a"), op("append", "b"),
         op("append", "a", "b")],
        [op("update_tag", target="w0-0"), op("rewrite_delete_tag", target="w0-1"), op("update_tag", target="w0-2"),
         op("merge_delete_tag", target="w0-3"), op("update_tag", target="w99-0"), op("merge_delete_tag", target="w2-0")],
        [op("append", "a"), *compact, op("dynamic", "b"), op("delete_tag", target="w0-2"), op("append", "a", "b"),
         *compact, op("update_tag", target="w2-3")]])
    check_against_log(spark, t, log, mode)
    commands = [e for e in log if e["kind"] in {"update_tag", "rewrite_delete_tag", "merge_delete_tag"}]
    assert any(e["ok"] for e in commands), commands
    failures = [e["error"] for e in commands if not e["ok"]]
    assert all("TransactionConflict" in f for f in failures), failures


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_maintenance_races_writers(spark, root, ns, writers, mode):
    """Compaction, manifest compaction and expiry of every old version while other processes
    append, overwrite, delete and update: they change no rows, so the log checker finds every
    write's rows as if they had not run; they fail, if at all, only as a conflict."""
    t = create_mixed_table(spark, ns, mode)
    def op(kind, *partitions, **more):
        return {"kind": kind, "partitions": list(partitions), **more}
    log = run_mixed(spark, root, writers, t, [
        [op("append", "a"), op("append", "b"), op("append", "a", "b"), op("dynamic", "a"), op("append", "a", "b"),
         op("delete_tag", target="w0-1"), op("append", "b")],
        [op("compact"), op("rewrite_manifests"), op("compact"), op("expire"), op("compact"), op("expire"),
         op("compact")],
        [op("append", "b"), op("update_tag", target="w0-0"), op("append", "a"), op("static", "b"),
         op("append", "a", "b")]])
    check_against_log(spark, t, log, mode)
    maintenance = [e for e in log if e["kind"] in {"compact", "rewrite_manifests", "expire"}]
    failures = [e["error"] for e in maintenance if not e["ok"]]
    assert all("TransactionConflict" in f or "onflict" in f for f in failures), failures
    # after the race (strong mode may have lost every compaction to a write), one compacts and keeps every row
    spark.sql(f"CALL lance.system.rewrite_data_files(table => '{t.removeprefix('lance.')}')").collect()
    check_against_log(spark, t, log, mode)


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_replace_races_writers(spark, root, ns, writers, mode):
    """REPLACE TABLE ... AS SELECT (staged: rows under a spec version no reader reads, then one
    table-metadata commit) while other processes append and overwrite: the table reads after
    every run, each write is all there or not at all, and a write that committed its rows after
    a REPLACE stopped declaring their spec fails instead of reporting success (the deterministic
    case is ManifestStoreSuite's)."""
    t = create_mixed_table(spark, ns, mode)
    def op(kind, *partitions):
        return {"kind": kind, "partitions": list(partitions)}
    log = run_mixed(spark, root, writers, t, [
        [op("replace")] * 3,
        [op("append", "a"), op("append", "b"), op("append", "a", "b")] * 2,
        [op("append", "b"), op("dynamic", "a"), op("append", "a"), op("static", "b")]])
    check_against_log(spark, t, log, mode)
    assert spark.sql(f"SHOW TBLPROPERTIES {t} ('transaction.mode')").first()[1] == mode
    failures = [e["error"] for e in log if not e["ok"]]
    assert all("TransactionConflict" in f or "changed while" in f for f in failures), failures


def leaf_names_follow_the_schema(root, ns: str, table: str) -> None:
    """Every partition table, as readers read it, names each column it holds (by lancepart's tag)
    as the namespace schema does."""
    table_dir = root / ns / table
    manifest = lance.dataset(str(table_dir / "__manifest"))
    names = {f["metadata"]["lance:field_id"]: f["name"] for f in json.loads(manifest.metadata["schema"])["fields"]}
    for row in manifest.to_table(filter="object_type = 'table'").to_pylist():
        leaf = lance.dataset(str(table_dir / row["location"]), version=row["read_version"])
        for f in leaf.schema:
            tag = (f.metadata or {}).get(b"lancepart:field_id", b"").decode()
            assert tag not in names or f.name == names[tag], \
                f"{row['object_id']}: column {f.name} is {names[tag]} in the schema ({leaf.schema.names})"


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_renames_race_writers(spark, root, ns, writers, mode):
    """RENAME COLUMN while other processes append and overwrite: every rename reaches every
    partition table, and a write planned before a rename never renames a table back (it fails)."""
    t = create_mixed_table(spark, ns, mode)
    spark.sql(f"ALTER TABLE {t} ADD COLUMN x0 STRING")
    def op(kind, *partitions, **more):
        return {"kind": kind, "partitions": list(partitions), **more}
    renames = [op("rename_column", column=f"x{i}", to=f"x{i + 1}") for i in range(3)]
    log = run_mixed(spark, root, writers, t, [
        [renames[0], op("append", "c"), renames[1], op("append", "a"), renames[2]],
        [op("append", "a"), op("append", "b"), op("append", "a", "b"), op("dynamic", "a"), op("append", "c")],
        [op("append", "b", "c"), op("append", "a"), op("static", "b"), op("append", "a", "b", "c")]])
    check_against_log(spark, t, log, mode)
    assert all(e["ok"] for e in log if e["kind"] == "rename_column"), log
    leaf_names_follow_the_schema(root, ns, "mixed")
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN v TO value")
    leaf_names_follow_the_schema(root, ns, "mixed")
