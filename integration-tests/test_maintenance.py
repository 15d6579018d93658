"""Table maintenance procedures: compaction of partition tables (rewrite_data_files). Each test
checks what a user sees (the same rows, at the old manifest version too) and what Lance holds
(fragments, deletion files) by reading the partition tables with pylance."""

from __future__ import annotations

import datetime
import threading

import lance
import lancepart
import pytest
from py4j.protocol import Py4JJavaError
from pyspark.errors import AnalysisException, IllegalArgumentException

from test_transactions import leaf_rows, manifest, rows, version_read

MODES = ["weak", "strong"]


def create(spark, ns, mode, appends=4):
    """Partitions a, b, c, each written by `appends` INSERTs (a fragment each)."""
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, c STRING, v INT) PARTITIONED BY (c) "
              f"TBLPROPERTIES ('transaction.mode' = '{mode}')")
    for n in range(appends):
        values = ", ".join(f"({100 * n + 10 * k + j}, '{c}', {n})" for k, c in enumerate("abc") for j in range(3))
        spark.sql(f"INSERT INTO {t} VALUES {values}")
    return t


def leaf_datasets(root, ns):
    """Per partition value, its partition table at the version readers read."""
    return {c: lance.dataset(str(root / ns / "t" / r["location"]), version=version_read(root, ns, r))
            for c, r in leaf_rows(root, ns).items()}


def fragments(root, ns):
    return {c: len(ds.get_fragments()) for c, ds in leaf_datasets(root, ns).items()}


def compact(spark, t, *args):
    return spark.sql(f"CALL lance.system.rewrite_data_files(table => '{t.removeprefix('lance.')}'"
                     + "".join(f", {a}" for a in args) + ")").collect()


@pytest.mark.parametrize("mode", MODES)
def test_compaction_merges_fragments_and_keeps_every_row(spark, root, ns, mode):
    t = create(spark, ns, mode)
    before = rows(spark, f"SELECT * FROM {t}")
    version = manifest(root, ns).version
    assert fragments(root, ns) == {"a": 4, "b": 4, "c": 4}

    [result] = compact(spark, t)
    assert (result.rewritten_data_files_count, result.added_data_files_count,
            result.rewritten_partition_tables_count) == (12, 3, 3)
    assert fragments(root, ns) == {"a": 1, "b": 1, "c": 1}
    assert rows(spark, f"SELECT * FROM {t}") == before
    assert manifest(root, ns).version == version + 1, "one __manifest commit"
    if mode == "strong":
        assert rows(spark, f"SELECT * FROM {t} VERSION AS OF {version}") == before
    spark.sql(f"INSERT INTO {t} VALUES (1000, 'a', 9)")
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(37,)]

    [again] = compact(spark, t)
    assert tuple(again) == (2, 1, 1), "only a has two fragments"


@pytest.mark.parametrize("mode", MODES)
def test_where_selects_the_partitions_to_compact(spark, root, ns, mode):
    t = create(spark, ns, mode)
    [result] = compact(spark, t, "where => 'c IN (\\'a\\', \\'c\\')'")
    assert result.rewritten_partition_tables_count == 2
    assert fragments(root, ns) == {"a": 1, "b": 4, "c": 1}
    [none] = compact(spark, t, "where => '1 = 0'")
    assert tuple(none) == (0, 0, 0)


@pytest.mark.parametrize("mode", MODES)
def test_compaction_drops_deleted_rows(spark, root, ns, mode):
    t = create(spark, ns, mode, appends=1)
    spark.sql(f"DELETE FROM {t} WHERE id IN (1, 11, 21)")  # Lance deletion files, a row in each partition
    assert all(f.metadata.deletion_file is not None for ds in leaf_datasets(root, ns).values()
               for f in ds.get_fragments())
    [result] = compact(spark, t, "options => map('materialize-deletions-threshold', '0.01')")
    assert result.rewritten_partition_tables_count == 3
    for ds in leaf_datasets(root, ns).values():
        assert [f.metadata.deletion_file for f in ds.get_fragments()] == [None]
        assert ds.count_rows() == 2
    assert rows(spark, f"SELECT id FROM {t} WHERE c = 'b'") == [(10,), (12,)]


def test_bad_arguments_name_the_problem(spark, ns):
    t = create(spark, ns, "weak", appends=2)
    with pytest.raises(IllegalArgumentException, match="rewrite_data_files has no option 'target-file-size-bytes'"):
        compact(spark, t, "options => map('target-file-size-bytes', '1')")
    with pytest.raises(IllegalArgumentException, match="option 'max-rows-per-group' takes a number or true/false, not 'many'"):
        compact(spark, t, "options => map('max-rows-per-group', 'many')")
    with pytest.raises(AnalysisException, match="nope"):
        compact(spark, t, "where => 'nope = 1'")
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(18,)]


@pytest.mark.parametrize("mode", MODES)
def test_compaction_beside_concurrent_appends_loses_no_row(spark, root, ns, mode):
    t = create(spark, ns, mode, appends=6)
    errors = []

    def append():
        try:
            for n in range(6):
                spark.sql(f"INSERT INTO {t} VALUES ({10_000 + n}, 'a', -1), ({20_000 + n}, 'd', -1)")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    writer = threading.Thread(target=append)
    writer.start()
    outcomes = []
    for _ in range(3):
        try:
            outcomes.append(compact(spark, t)[0])
        except Py4JJavaError as e:
            assert "while it was compacted" in str(e.java_exception), e
            outcomes.append(None)
    writer.join()
    assert not errors
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(54 + 12,)]
    assert rows(spark, f"SELECT count(*) FROM {t} WHERE v = -1") == [(12,)]
    # strong mode may have lost every race to an append; alone, a compaction leaves one fragment each
    compact(spark, t)
    assert set(fragments(root, ns).values()) == {1}
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(54 + 12,)]


def call(spark, procedure, t, *args):
    return spark.sql(f"CALL lance.system.{procedure}(table => '{t.removeprefix('lance.')}'"
                     + "".join(f", {a}" for a in args) + ")").collect()


@pytest.mark.parametrize("mode", MODES)
def test_rewrite_manifests_merges_the_manifest_fragments(spark, root, ns, mode):
    t = create(spark, ns, mode)
    spark.sql(f"DELETE FROM {t} WHERE c = 'b'")
    before = rows(spark, f"SELECT * FROM {t}")
    version = manifest(root, ns).version
    grown = len(manifest(root, ns).get_fragments())
    assert grown > 1, "fragments of the commits"

    [result] = call(spark, "rewrite_manifests", t)
    assert (result.rewritten_fragments_count, result.added_fragments_count) == (grown, 1)
    after = manifest(root, ns)
    assert len(after.get_fragments()) == 1
    assert [f.metadata.deletion_file for f in after.get_fragments()] == [None], "replaced rows dropped"
    assert after.to_table().num_rows == manifest(root, ns).checkout_version(version).to_table().num_rows
    assert rows(spark, f"SELECT * FROM {t}") == before
    if mode == "strong":
        assert rows(spark, f"SELECT * FROM {t} VERSION AS OF {version - 1}") != before
    spark.sql(f"INSERT INTO {t} VALUES (7, 'b', 7)")
    assert rows(spark, f"SELECT id FROM {t} WHERE c = 'b'") == [(7,)]
    assert tuple(call(spark, "rewrite_manifests", t)[0]) == (2, 1)


def test_rollback_restores_rows_schema_and_specs(spark, root, ns):
    t = create(spark, ns, "strong", appends=1)
    first = manifest(root, ns).version
    at_first = rows(spark, f"SELECT * FROM {t}")
    spark.sql(f"INSERT INTO {t} VALUES (50, 'd', 5)")
    spark.sql(f"UPDATE {t} SET v = v + 100 WHERE c = 'a'")
    spark.sql(f"ALTER TABLE {t} ADD COLUMN extra STRING")
    spark.sql(f"INSERT INTO {t} VALUES (60, 'a', 6, 'x')")
    latest = manifest(root, ns).version

    [result] = call(spark, "rollback_to_version", t, f"version => {first}")
    assert tuple(result) == (latest, first, latest + 1)
    assert rows(spark, f"SELECT * FROM {t}") == at_first
    assert spark.table(t).columns == ["id", "c", "v"], "the schema as that version recorded it"
    assert rows(spark, f"SELECT * FROM {t} VERSION AS OF {latest}") != at_first, "later versions stay readable"

    spark.sql(f"INSERT INTO {t} VALUES (70, 'a', 7)")
    assert rows(spark, f"SELECT id FROM {t} WHERE c = 'a'") == [(0,), (1,), (2,), (70,)]
    # the time lancepart itself reads (pylance's `versions()` computes microseconds in floating point and
    # can give one too few, before the version was committed); as Iceberg's, rollback_to_timestamp
    # takes the newest version strictly before the time: at the commit's own microsecond, the one before
    [(committed,)] = spark.sql(f"SELECT committed_at FROM {t}.snapshots WHERE snapshot_id = {latest}").collect()
    [before] = call(spark, "rollback_to_timestamp", t, f"timestamp => TIMESTAMP '{committed.isoformat()}'")
    assert before.restored_version == latest - 1
    after = committed + datetime.timedelta(microseconds=1)
    [again] = call(spark, "rollback_to_timestamp", t, f"timestamp => TIMESTAMP '{after.isoformat()}'")
    assert again.restored_version == latest
    assert rows(spark, f"SELECT count(*) FROM {t} WHERE extra = 'x'") == [(1,)]


def test_rollback_refuses_what_it_cannot_restore(spark, root, ns):
    weak = create(spark, ns, "weak", appends=1)
    with pytest.raises(Exception, match="rollback needs transaction.mode=strong"):
        call(spark, "rollback_to_version", weak, "version => 1")
    spark.sql(f"ALTER TABLE {weak} SET TBLPROPERTIES ('transaction.mode' = 'strong')")
    weak_version = manifest(root, ns).version - 1
    with pytest.raises(Exception, match=f"manifest version {weak_version} was committed in weak mode"):
        call(spark, "rollback_to_version", weak, f"version => {weak_version}")
    with pytest.raises(Exception, match="has no manifest version 999"):
        call(spark, "rollback_to_version", weak, "version => 999")
    with pytest.raises(Exception, match="has no manifest version before 2001-01-01"):
        call(spark, "rollback_to_timestamp", weak, "timestamp => TIMESTAMP '2001-01-01 00:00:00'")
    assert rows(spark, f"SELECT count(*) FROM {weak}") == [(9,)]


def history_of(spark, t):
    return spark.sql(f"SELECT snapshot_id, parent_id, operation, summary FROM {t}.snapshots ORDER BY snapshot_id").collect()


@pytest.mark.parametrize("mode", MODES)
def test_snapshots_name_each_commit_and_count_what_it_changed(spark, root, ns, mode):
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, c STRING) PARTITIONED BY (c) "
              f"TBLPROPERTIES ('transaction.mode' = '{mode}')")
    created = manifest(root, ns).version
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'a'), (3, 'b')")
    spark.sql(f"INSERT INTO {t} VALUES (4, 'a'), (5, 'c')")
    spark.sql(f"DELETE FROM {t} WHERE c = 'c'")  # the partition goes
    spark.sql(f"DELETE FROM {t} WHERE id = 1")  # a row of a goes
    spark.sql(f"UPDATE {t} SET id = id + 10 WHERE id = 2")  # a rewritten
    spark.sql(f"INSERT OVERWRITE {t} VALUES (7, 'b')")  # b replaced, a dropped
    spark.sql(f"ALTER TABLE {t} ADD COLUMN x INT")
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('owner.team' = 'x')")
    spark.sql(f"ALTER TABLE {t} ADD PARTITION FIELD bucket(2, id)")  # __manifest columns, spec, v2 row

    snapshots = history_of(spark, t)
    # version 1 is an empty __manifest, before the table's spec is published
    assert [s.snapshot_id for s in snapshots] == [v["version"] for v in manifest(root, ns).versions()][1:]
    assert [s.parent_id for s in snapshots] == [None] + [s.snapshot_id for s in snapshots[:-1]]
    assert {s.operation for s in snapshots if s.snapshot_id <= created} == {"create"}
    keys = ["added-records", "deleted-records", "added-partition-tables", "deleted-partition-tables",
            "changed-partition-tables", "total-records", "total-partition-tables"]
    changes = [(s.operation, *(int(s.summary.get(k, 0)) for k in keys)) for s in snapshots if s.snapshot_id > created]
    assert "deleted-records" not in snapshots[-1].summary, "counts of zero are left out, as in Iceberg"
    assert changes == [
        ("append", 3, 0, 2, 0, 0, 3, 2),
        ("append", 2, 0, 1, 0, 1, 5, 3),
        ("delete", 0, 1, 0, 1, 0, 4, 2),
        ("delete", 0, 1, 0, 0, 1, 3, 2),
        ("overwrite", 2, 2, 0, 0, 1, 3, 2),
        ("overwrite", 1, 3, 0, 1, 1, 1, 1),
        *[("alter", 0, 0, 0, 0, 0, 1, 1)] * 5,
    ]
    history = spark.sql(f"SELECT * FROM {t}.history ORDER BY snapshot_id").collect()
    assert [h.snapshot_id for h in history] == [s.snapshot_id for s in snapshots]
    assert all(h.is_current_ancestor for h in history)
    assert all(a.made_current_at <= b.made_current_at for a, b in zip(history, history[1:]))


def test_history_after_a_rollback_leaves_the_rolled_back_versions_out(spark, root, ns):
    t = create(spark, ns, "strong", appends=3)
    versions = [v["version"] for v in manifest(root, ns).versions()]
    target = versions[-2]
    call(spark, "rollback_to_version", t, f"version => {target}")
    [rollback] = spark.sql(f"SELECT * FROM {t}.snapshots WHERE operation = 'rollback'").collect()
    assert rollback.summary["restored-version"] == str(target) and rollback.parent_id == versions[-1]
    ancestors = {h.snapshot_id: h.is_current_ancestor for h in spark.sql(f"SELECT * FROM {t}.history").collect()}
    assert ancestors == {**{v: v <= target for v in versions[1:]}, rollback.snapshot_id: True}


def expire(spark, t, *args):
    [result] = call(spark, "expire_snapshots", t, *args)
    return result


def files_under(path):
    return {str(p.relative_to(path)) for p in path.rglob("*") if p.is_file()}


@pytest.mark.parametrize("mode", MODES)
def test_expire_snapshots_removes_old_versions_and_only_what_they_used(spark, root, ns, mode):
    t = create(spark, ns, mode)
    old_a = leaf_rows(root, ns)["a"]["location"]
    spark.sql(f"UPDATE {t} SET v = -1 WHERE c = 'a'")  # a gets a new partition table
    compact(spark, t)  # b and c: new data files, the old ones used only by older versions
    before = rows(spark, f"SELECT * FROM {t}")
    versions = [v["version"] for v in manifest(root, ns).versions()]
    # A write still running: a data file no version uses yet.
    stray = root / ns / "t" / leaf_rows(root, ns)["b"]["location"] / "data" / "running-write.lance"
    stray.write_bytes(b"not committed yet")

    result = expire(spark, t, "older_than => current_timestamp()")
    assert result.expired_versions_count == len(versions) - 1
    assert result.deleted_partition_tables_count == 1 and result.deleted_files_count > 0
    remaining = [v["version"] for v in manifest(root, ns).versions()]
    # strong mode: one more commit deletes the records of the partition table versions that went
    assert remaining == versions[-1:] + ([versions[-1] + 1] if mode == "strong" else [])
    for record in manifest(root, ns).to_table(filter="object_type = 'table_version'").to_pylist():
        lance.dataset(str(root / ns / "t" / record["location"]), version=record["read_version"]).count_rows()
    assert not (root / ns / "t" / old_a).exists()
    assert stray.exists(), "files of no version are a running write's"
    assert rows(spark, f"SELECT * FROM {t}") == before
    for c, ds in leaf_datasets(root, ns).items():
        main = lance.dataset(ds.uri)  # strong mode: a partition table's main branch keeps its first version
        used = {f"data/{f.path}" for d in (ds, main) for frag in d.get_fragments() for f in frag.data_files()}
        data = {p for p in files_under(root / ns / "t" / leaf_rows(root, ns)[c]["location"]) if p.startswith("data/")}
        assert data - {"data/running-write.lance"} == used, c
        if mode == "weak":
            assert len(ds.versions()) == 1, "Lance cleaned the partition table's own old versions"
    if mode == "strong":
        with pytest.raises(Exception, match=f"has no manifest version {versions[-2]}"):
            spark.sql(f"SELECT * FROM {t} VERSION AS OF {versions[-2]}").collect()
        assert rows(spark, f"SELECT * FROM {t} VERSION AS OF {versions[-1]}") == before
    spark.sql(f"INSERT INTO {t} VALUES (1000, 'a', 1)")
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(len(before) + 1,)]
    assert tuple(expire(spark, t)) == (0, 0, 0), "by default only versions older than 5 days expire"


def test_expire_snapshots_keeps_the_newest_retain_last_versions(spark, root, ns):
    t = create(spark, ns, "strong", appends=3)
    with pytest.raises(IllegalArgumentException, match="retain_last must be at least 1, not 0"):
        expire(spark, t, "older_than => current_timestamp()", "retain_last => 0")
    versions = [v["version"] for v in manifest(root, ns).versions()]
    assert expire(spark, t, "older_than => current_timestamp()", "retain_last => 2").expired_versions_count == \
        len(versions) - 2
    assert rows(spark, f"SELECT count(*) FROM {t} VERSION AS OF {versions[-2]}") == [(18,)]
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(27,)]
    kept = spark.sql(f"SELECT snapshot_id, parent_id, operation FROM {t}.snapshots ORDER BY snapshot_id").collect()
    assert len(kept) == 3, "two kept, one deleting records"
    assert (kept[0].operation, kept[0].parent_id) == ("unknown", kept[0].snapshot_id - 1), "its parent expired"
    with pytest.raises(Exception, match=f"has no manifest version {kept[0].parent_id}"):
        spark.sql(f"SELECT * FROM {t} VERSION AS OF {kept[0].parent_id}").collect()


def test_admin_methods_run_the_procedures(spark, admin, root, ns):
    t = create(spark, ns, "strong")
    name = f"{ns}.t"
    assert admin.rewrite_data_files(name, where="c = 'a'", options={"target-rows-per-fragment": 1000}) == {
        "rewritten_data_files_count": 4, "added_data_files_count": 1, "rewritten_partition_tables_count": 1}
    assert fragments(root, ns) == {"a": 1, "b": 4, "c": 4}
    assert admin.rewrite_manifests(name)["added_fragments_count"] == 1
    first_rows = manifest(root, ns).versions()[3]  # the first INSERT
    # pylance computes the timestamp from Lance's nanoseconds in floating point (about 0.25 us off
    # at today's epoch), so it may be 1 us before the commit's own; 1 ms after it is still before
    # the next INSERT
    rolled = admin.rollback_to_timestamp(name, first_rows["timestamp"] + datetime.timedelta(milliseconds=1))
    assert rolled["restored_version"] == first_rows["version"]
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(9,)]
    assert admin.rollback_to_version(name, rolled["previous_version"])["current_version"] == \
        rolled["current_version"] + 1
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(36,)]
    expired = admin.expire_snapshots(name, older_than=datetime.datetime.now(datetime.timezone.utc), retain_last=2)
    assert expired["expired_versions_count"] > 0
    with pytest.raises(lancepart.LancepartError, match="has no manifest version 1"):
        admin.rollback_to_version(name, 1)


def test_vacuum_refuses_an_older_than_that_reaches_running_writes(spark, admin, root, ns):
    """Regression: vacuum(older_than=0) beside INSERTs removed files a running write then
    committed, and the table no longer read. Under an hour it needs retention_check=False."""
    t = create(spark, ns, "strong", appends=1)
    stray = root / ns / "t" / leaf_rows(root, ns)["a"]["location"] / "data" / "failed-write.lance"
    stray.write_bytes(b"left by a failed write")
    with pytest.raises(lancepart.LancepartError, match=r"vacuum with older_than \S+, less than 1 hour ago, would remove the files of "
                                                       r"writes still running .* turn retention_check off"):
        admin.vacuum(f"{ns}.t", older_than=datetime.timedelta(0))
    with pytest.raises(lancepart.LancepartError, match="less than 1 hour ago"):
        admin.vacuum(f"{ns}.t", older_than=datetime.timedelta(minutes=59, seconds=59))
    assert stray.exists()
    assert admin.vacuum(f"{ns}.t", older_than=datetime.timedelta(hours=1))["removed_files"] == []
    removed = admin.vacuum(f"{ns}.t", older_than=datetime.timedelta(0), retention_check=False)["removed_files"]
    assert removed == [f"{leaf_rows(root, ns)['a']['location']}/data/failed-write.lance"]
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(9,)]


def test_vacuum_repair_and_progress_are_procedures(spark, root, ns):
    """SQL-first administration (a Spark Connect session has no py4j): vacuum and repair as CALL
    procedures, and the progress of either read with CALL system.progress under its progress_id."""
    t = create(spark, ns, "strong", appends=1)
    stray = root / ns / "t" / leaf_rows(root, ns)["a"]["location"] / "data" / "failed-write.lance"
    stray.write_bytes(b"left by a failed write")
    recent = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=59)
    vacuum = f"CALL lance.system.vacuum(table => '{ns}.t', older_than => "
    with pytest.raises(Exception, match=rf"table lance.{ns}.t: vacuum with older_than \S+, less than 1 hour ago, "
                                        r"would remove the files of writes still running .* turn retention_check off"):
        spark.sql(vacuum + f"TIMESTAMP '{recent:%Y-%m-%d %H:%M:%S}')").collect()  # the session's time zone is UTC
    assert stray.exists()
    [done] = spark.sql(vacuum + "current_timestamp(), retention_check => false, progress_id => 'v-1')").collect()
    assert done.removed_files == [f"{leaf_rows(root, ns)['a']['location']}/data/failed-write.lance"]
    assert done.removed_directories == [] and not stray.exists()
    # the counter of an ended operation is read once more (3 partition-table directories), then gone
    assert [tuple(r) for r in spark.sql("CALL lance.system.progress(id => 'v-1')").collect()] == [(3, 3, True)]
    assert spark.sql("CALL lance.system.progress(id => 'v-1')").collect() == []
    [repaired] = spark.sql(f"CALL lance.system.repair(table => '{ns}.t')").collect()
    assert tuple(repaired) == (0, [], [])
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(9,)]
