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
