"""DELETE, UPDATE and MERGE INTO that Spark rewrites (copy-on-write): which partition tables they
replace, the `_partition_table` metadata column that tells them, and how they meet concurrent
writes at each isolation level. Results against Iceberg are in test_differential_iceberg.py, races
with other writers in test_concurrency.py."""

from __future__ import annotations

import threading
import time

import lance
import pyarrow as pa
import pytest
from pyspark.sql import functions as F

from test_transactions import leaf_rows, manifest, rows, version_read

MODES = ["weak", "strong"]
PARTITIONS = ["a", "b", "c", "d", "e"]


def create(spark, ns, mode, name="t"):
    """Partitions a..e with ids 10*k .. 10*k+2 in the k-th."""
    t = f"lance.{ns}.{name}"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, c STRING, v INT) PARTITIONED BY (c) "
              f"TBLPROPERTIES ('transaction.mode' = '{mode}')")
    values = ", ".join(f"({10 * k + j}, '{c}', {j})" for k, c in enumerate(PARTITIONS) for j in range(3))
    spark.sql(f"INSERT INTO {t} VALUES {values}")
    return t


def leaves(root, ns):
    """Per partition value, where its partition table is and which version readers read."""
    return {c: (r["location"], version_read(root, ns, r)) for c, r in leaf_rows(root, ns).items()}


@pytest.mark.parametrize("mode", MODES)
def test_only_the_partition_tables_holding_changed_rows_are_rewritten(spark, root, ns, mode):
    t = create(spark, ns, mode)
    before = leaves(root, ns)

    spark.sql(f"UPDATE {t} SET v = -1 WHERE id % 10 = 1 AND id < 30")  # rows of a, b, c; not d, e
    after = leaves(root, ns)
    assert {c for c in PARTITIONS if after[c] != before[c]} == {"a", "b", "c"}
    assert {c for c in "abc" if after[c][0] != before[c][0]} == {"a", "b", "c"}, "rewritten at new locations"

    spark.sql(f"MERGE INTO {t} x USING (SELECT 41L AS id, 'z' AS c, 5 AS v UNION ALL SELECT 99L, 'z', 6) s "
              "ON x.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")
    merged = leaves(root, ns)
    assert {c for c in merged if merged[c] != after.get(c)} == {"e", "z"}, "e rewritten, z created"
    assert rows(spark, f"SELECT id, c, v FROM {t} WHERE id IN (41, 99)") == [(41, "e", 5), (99, "z", 6)]

    version = manifest(root, ns).version
    spark.sql(f"DELETE FROM {t} WHERE id % 1000 = 999")  # no row matches: nothing to commit
    assert manifest(root, ns).version == version
    spark.sql(f"DELETE FROM {t} WHERE id % 10 = 2 AND c = 'd'")
    assert {c for c, leaf in leaves(root, ns).items() if leaf != merged[c]} == {"d"}
    assert rows(spark, f"SELECT id FROM {t} WHERE c = 'd'") == [(30,), (31,)]
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(15,)]


def test_the_partition_table_metadata_column_names_each_rows_table(spark, root, ns):
    t = create(spark, ns, "weak")
    ids = {c: r["object_id"] for c, r in leaf_rows(root, ns).items()}
    found = rows(spark, f"SELECT c, _partition_table, count(*) FROM {t} GROUP BY c, _partition_table")
    assert found == sorted((c, ids[c], 3) for c in PARTITIONS)
    assert rows(spark, f"SELECT id FROM {t} WHERE _partition_table = '{ids['b']}'") == [(10,), (11,), (12,)]
    assert "_partition_table" not in spark.table(t).columns, "a metadata column is not one of SELECT *'s"


def test_a_column_that_hides_the_metadata_column_refuses_rewrites_by_name(spark, ns):
    t = f"lance.{ns}.hidden"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, c STRING, _partition_table STRING) PARTITIONED BY (c)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'mine'), (2, 'b', 'ours')")
    assert rows(spark, f"SELECT _partition_table FROM {t}") == [("mine",), ("ours",)]
    with pytest.raises(Exception, match=f"table lance.{ns}.hidden: cannot UPDATE rows: its column '_partition_table'"):
        spark.sql(f"UPDATE {t} SET id = 3 WHERE id % 2 = 1")
    assert rows(spark, f"SELECT * FROM {t}") == [(1, "a", "mine"), (2, "b", "ours")]
    spark.sql(f"DELETE FROM {t} WHERE c = 'a'")  # Spark does not rewrite this one
    assert rows(spark, f"SELECT id FROM {t}") == [(2,)]


def run_while_paused(spark, tmp_path, statement: str, meanwhile) -> Exception | None:
    """Runs ``statement``, which calls ``pause_until_go``: once that pauses it (after Spark planned
    it), runs ``meanwhile()``, then lets it finish. Returns its error, None when it committed."""
    started, go = tmp_path / "started", tmp_path / "go"

    def pause(x):
        import os, time as clock  # noqa: E401 - runs in a Python worker
        open(started, "w").close()
        deadline = clock.time() + 120
        while not os.path.exists(go) and clock.time() < deadline:
            clock.sleep(0.05)
        return x

    spark.udf.register("pause_until_go", pause, "bigint")
    outcome = []

    def run():
        try:
            spark.sql(statement).collect()
            outcome.append(None)
        except Exception as e:  # noqa: BLE001 - the caller judges it
            outcome.append(e)

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.time() + 120
    while not started.exists() and time.time() < deadline:
        time.sleep(0.05)
    assert started.exists(), "the statement did not start"
    meanwhile()
    go.touch()
    thread.join(180)
    assert outcome, "the statement did not finish"
    return outcome[0]


def merge_racing_an_append(spark, tmp_path, t: str) -> Exception | None:
    """A MERGE that updates a row of partition a while an INSERT appends a row to partition b."""
    return run_while_paused(
        spark, tmp_path,
        f"MERGE INTO {t} x USING (SELECT pause_until_go(1L) AS id) s ON x.id = s.id WHEN MATCHED THEN UPDATE SET v = 100",
        lambda: spark.sql(f"INSERT INTO {t} VALUES (19, 'b', 9)"))


@pytest.mark.parametrize("mode", MODES)
def test_a_serializable_merge_fails_when_a_table_its_condition_selects_is_written_meanwhile(
        spark, root, ns, tmp_path, mode):
    t = create(spark, ns, mode)
    error = merge_racing_an_append(spark, tmp_path, t)
    assert error is not None and "TransactionConflict" in str(error), error
    assert "partition (c=b)" in str(error) and "after this MERGE INTO read the table; at serializable isolation " \
        "(table property write.merge.isolation-level)" in str(error)
    assert rows(spark, f"SELECT id, v FROM {t} WHERE id IN (1, 19)") == [(1, 1), (19, 9)], "the MERGE changed nothing"


@pytest.mark.parametrize("mode", MODES)
def test_a_snapshot_isolated_merge_commits_beside_an_append_to_a_table_it_does_not_rewrite(
        spark, root, ns, tmp_path, mode):
    t = create(spark, ns, mode)
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.merge.isolation-level' = 'snapshot')")
    assert merge_racing_an_append(spark, tmp_path, t) is None
    assert rows(spark, f"SELECT id, v FROM {t} WHERE id IN (1, 19)") == [(1, 100), (19, 9)]
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(16,)]


def test_a_weak_update_fails_when_another_client_appended_to_a_table_it_rewrites(spark, root, ns, tmp_path):
    """In weak mode other clients append to a partition table's main branch without changing
    __manifest (the spec's weak mode); an UPDATE that rewrote the table from what it read before
    that append lost the appended rows (regression)."""
    t = create(spark, ns, "weak")
    uri = str(root / ns / "t" / leaf_rows(root, ns)["a"]["location"])

    def append_with_pylance():
        schema = lance.dataset(uri).schema
        lance.write_dataset(pa.table({"id": [9], "c": ["a"], "v": [9]}, schema=schema), uri, mode="append")

    error = run_while_paused(spark, tmp_path, f"UPDATE {t} SET v = CAST(pause_until_go(v) + 100 AS INT) WHERE c = 'a'",
                             append_with_pylance)
    assert error is not None and "TransactionConflict" in str(error), error
    assert "partition (c=a)" in str(error) and "read its partition table (at version" in str(error)
    assert rows(spark, f"SELECT id, v FROM {t} WHERE c = 'a'") == [(0, 0), (1, 1), (2, 2), (9, 9)]
    spark.sql(f"UPDATE {t} SET v = v + 100 WHERE c = 'a'")  # run again, it sees the appended row
    assert rows(spark, f"SELECT id, v FROM {t} WHERE c = 'a'") == [(0, 100), (1, 101), (2, 102), (9, 109)]


def test_an_update_in_strong_mode_leaves_the_older_version_readable(spark, root, ns):
    t = create(spark, ns, "strong")
    version = manifest(root, ns).version
    spark.sql(f"UPDATE {t} SET v = v + 10 WHERE id % 2 = 0")
    assert rows(spark, f"SELECT sum(v) FROM {t} VERSION AS OF {version}") == [(15,)]
    assert rows(spark, f"SELECT sum(v) FROM {t}") == [(15 + 10 * 10,)]


def test_an_isolation_level_must_be_serializable_or_snapshot(spark, ns):
    t = create(spark, ns, "weak")
    with pytest.raises(Exception, match=f"table lance.{ns}.t: write.update.isolation-level 'strict' is not an isolation level"):
        spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.update.isolation-level' = 'strict')")
    with pytest.raises(Exception, match="write.delete.isolation-level 'none' is not an isolation level"):
        spark.sql(f"CREATE TABLE lance.{ns}.u (id BIGINT) PARTITIONED BY (id) "
                  "TBLPROPERTIES ('write.delete.isolation-level' = 'none')")


# ---- merge-on-read (write.<command>.mode = merge-on-read) ----

def merge_on_read(spark, t):
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.delete.mode' = 'merge-on-read', "
              "'write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'merge-on-read')")


@pytest.mark.parametrize("mode", MODES)
def test_merge_on_read_deletes_rows_in_place_and_appends_their_new_versions(spark, root, ns, mode):
    t = create(spark, ns, mode)
    merge_on_read(spark, t)
    before = leaves(root, ns)
    spark.sql(f"UPDATE {t} SET v = v + 100 WHERE id = 11")
    spark.sql(f"MERGE INTO {t} x USING (SELECT 21L AS id) s ON x.id = s.id WHEN MATCHED THEN DELETE")
    spark.sql(f"DELETE FROM {t} WHERE id % 10 = 2 AND upper(c) = 'D'")  # a condition Lance cannot evaluate
    assert rows(spark, f"SELECT id, v FROM {t} WHERE c IN ('b', 'c', 'd')") == \
        [(10, 0), (11, 101), (12, 2), (20, 0), (22, 2), (30, 0), (31, 1)]
    after = leaves(root, ns)
    assert {c: loc for c, (loc, _) in after.items()} == {c: loc for c, (loc, _) in before.items()}, \
        "no partition table was replaced"
    for c, deleted in (("b", 1), ("c", 1), ("d", 1)):
        location, version = after[c]
        ds = lance.dataset(str(root / ns / "t" / location), version=version)
        assert sum(f.metadata.deletion_file.num_deleted_rows for f in ds.get_fragments()
                   if f.metadata.deletion_file is not None) == deleted, c
    assert len(lance.dataset(str(root / ns / "t" / after["b"][0]), version=after["b"][1]).get_fragments()) == 2, \
        "the updated row was appended as a new fragment"
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(13,)]


def test_a_weak_change_that_deletes_and_appends_rows_is_one_commit_of_the_partition_table(spark, root, ns):
    """Regression (test_concurrency's race of a DELETE with an UPDATE of the same rows): in weak
    mode a merge-on-read UPDATE committed the deletion of the old rows to the partition table's main
    branch, then the append of their new versions; a DELETE that read between the two saw neither,
    reported success, and the rows it had to delete came back. Every version readers may read holds
    each row, old or new: an UPDATE, a MERGE and an overwrite by condition each make one."""
    t = create(spark, ns, "weak")
    merge_on_read(spark, t)
    leaf = str(root / ns / "t" / leaves(root, ns)["b"][0])
    first = lance.dataset(leaf).version
    spark.sql(f"UPDATE {t} SET v = v + 100 WHERE id = 11")
    spark.sql(f"MERGE INTO {t} x USING (SELECT 12L AS id) s ON x.id = s.id WHEN MATCHED THEN UPDATE SET v = 7")
    spark.sql("SELECT 10L AS id, 'b' AS c, 9 AS v").writeTo(t).overwrite(F.col("id") == 10)
    versions = range(first, lance.dataset(leaf).version + 1)
    for v in versions:
        ids = lance.dataset(leaf, version=v).to_table(columns=["id"]).column("id").to_pylist()
        assert sorted(ids) == [10, 11, 12], f"version {v} of partition b"
    assert len(versions) == 4, "one version per command"
    assert rows(spark, f"SELECT id, v FROM {t} WHERE c = 'b'") == [(10, 9), (11, 101), (12, 7)]


def test_merge_on_read_writes_each_partitions_new_rows_as_one_fragment(spark, root, ns):
    """The source's rows alternate between partitions (in whatever order the join gives them):
    Spark must bring each partition's inserts together, or every switch writes a fragment."""
    t = create(spark, ns, "weak")
    merge_on_read(spark, t)
    source = " UNION ALL ".join(f"SELECT {i}L AS id, '{PARTITIONS[i % 2]}' AS c, {i} AS v" for i in range(100, 140))
    spark.sql(f"MERGE INTO {t} x USING ({source}) s ON x.id = s.id "
              "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")
    assert rows(spark, f"SELECT count(*), sum(v) FROM {t} WHERE c IN ('a', 'b')") == [(46, sum(range(100, 140)) + 6)]
    for c in ("a", "b"):
        location, version = leaves(root, ns)[c]
        fragments = lance.dataset(str(root / ns / "t" / location), version=version).get_fragments()
        assert len(fragments) == 2, f"partition {c}: its first rows, then the MERGE's as one fragment, not {len(fragments)}"


def test_a_merge_on_read_update_fails_when_a_compaction_rewrote_its_rows_meanwhile(spark, root, ns, tmp_path):
    t = create(spark, ns, "weak")
    spark.sql(f"INSERT INTO {t} VALUES (3, 'a', 3)")  # a second fragment in partition a, for the compaction
    merge_on_read(spark, t)
    # snapshot isolation: only the compaction of the rows the UPDATE deletes makes it fail
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.update.isolation-level' = 'snapshot')")
    error = run_while_paused(
        spark, tmp_path, f"UPDATE {t} SET v = CAST(pause_until_go(v) + 100 AS INT) WHERE id = 1",
        lambda: spark.sql(f"CALL lance.system.rewrite_data_files(table => '{t.removeprefix('lance.')}')").collect())
    assert error is not None and "TransactionConflict" in str(error), error
    assert "partition (c=a)" in str(error) and "changed the fragments holding rows this write deletes" in str(error)
    assert rows(spark, f"SELECT id, v FROM {t} WHERE c = 'a'") == [(0, 0), (1, 1), (2, 2), (3, 3)], \
        "neither the old nor a duplicate row"


def test_a_merge_on_read_update_commits_beside_an_append_to_its_partition(spark, root, ns, tmp_path):
    t = create(spark, ns, "weak")
    merge_on_read(spark, t)
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.update.isolation-level' = 'snapshot')")
    error = run_while_paused(
        spark, tmp_path, f"UPDATE {t} SET v = CAST(pause_until_go(v) + 100 AS INT) WHERE id = 1",
        lambda: spark.sql(f"INSERT INTO {t} VALUES (5, 'a', 5)"))
    assert error is None
    assert rows(spark, f"SELECT id, v FROM {t} WHERE c = 'a'") == [(0, 0), (1, 101), (2, 2), (5, 5)]


def test_merge_on_read_refuses_a_table_whose_column_hides_a_row_id_column(spark, ns):
    """Regression: Spark's own check failed first, with an error that did not say why."""
    t = f"lance.{ns}.hiding"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, _partition_table STRING) PARTITIONED BY (id)")
    merge_on_read(spark, t)
    with pytest.raises(Exception, match="its column '_partition_table' hides the metadata column of that name"):
        spark.sql(f"UPDATE {t} SET _partition_table = 'x' WHERE id = 1")


def test_a_write_mode_must_be_copy_on_write_or_merge_on_read(spark, ns):
    t = create(spark, ns, "weak")
    with pytest.raises(Exception, match=f"table lance.{ns}.t: write.merge.mode 'fast' is not a write mode; expected "
                                        "copy-on-write or merge-on-read"):
        spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.merge.mode' = 'fast')")
    spark.sql(f"CREATE TABLE lance.{ns}.plain (id BIGINT)")
    with pytest.raises(Exception, match=f"table lance.{ns}.plain: write.delete.mode 'fast' is not a write mode"):
        spark.sql(f"ALTER TABLE lance.{ns}.plain SET TBLPROPERTIES ('write.delete.mode' = 'fast')")


def test_a_strong_merge_on_read_update_fails_when_its_partition_was_written_meanwhile(spark, root, ns, tmp_path):
    """Row addresses hold at the partition table version the manifest pinned when the command read
    it; a strong-mode commit on top of another version fails rather than delete other rows."""
    t = create(spark, ns, "strong")
    merge_on_read(spark, t)
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.update.isolation-level' = 'snapshot')")
    error = run_while_paused(
        spark, tmp_path, f"UPDATE {t} SET v = CAST(pause_until_go(v) + 100 AS INT) WHERE id = 1",
        lambda: spark.sql(f"INSERT INTO {t} VALUES (5, 'a', 5)"))
    assert error is not None and "TransactionConflict" in str(error), error
    assert "partition (c=a)" in str(error) and "after this UPDATE read the rows it deletes" in str(error)
    assert rows(spark, f"SELECT id, v FROM {t} WHERE c = 'a'") == [(0, 0), (1, 1), (2, 2), (5, 5)]
