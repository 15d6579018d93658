"""Branches of partitioned tables (ALTER TABLE ... CREATE / REPLACE / DROP BRANCH, reads and writes
through `<table>.branch_<b>`, VERSION AS OF '<branch>', write-audit-publish with `spark.wap.branch`,
CALL ... fast_forward, `<table>.refs`): the same statements on Iceberg tables in the same session
give the same rows and the same failures (differential.py); expire_snapshots and vacuum keep what
branches read; what a branch refuses says why. pylance reading a branch is in test_interop.py
(which runs under the newest pylance too)."""

from __future__ import annotations

import datetime

import lance
import pytest

import lancepart
from differential import Case, mismatch

FUTURE = datetime.datetime(2999, 1, 1)
CREATE = ("CREATE TABLE {t} (id BIGINT, data STRING, category STRING) PARTITIONED BY (category) "
          "TBLPROPERTIES ('transaction.mode' = 'strong', 'write.wap.enabled' = 'true')")
PLAIN = "CREATE TABLE {t} (id BIGINT, data STRING, category STRING)"
MERGE = ("MERGE INTO {t}.branch_audit AS target USING (SELECT 4L AS id, 'D' AS data, 'z' AS category UNION ALL "
         "SELECT 5L, 'e', 'y') AS source ON target.id = source.id WHEN MATCHED THEN UPDATE SET data = source.data "
         "WHEN NOT MATCHED THEN INSERT *")

# The same life of a branch on each catalog: writes to it change it only (main reads as before),
# reads through each of its names, the statements' failures, a replaced branch.
BRANCH_STEPS = (
    "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'y')",
    "ALTER TABLE {t} CREATE BRANCH audit",
    "INSERT INTO {t}.branch_audit VALUES (3, 'c', 'x'), (4, 'd', 'z')",
    "DELETE FROM {t}.branch_audit WHERE id = 1",
    "UPDATE {t}.branch_audit SET data = 'B' WHERE id = 2",
    MERGE,
    "INSERT INTO {t} VALUES (6, 'f', 'x')",
    "ALTER TABLE {t} CREATE BRANCH IF NOT EXISTS audit",
    "ALTER TABLE {t} CREATE BRANCH `other-branch` RETAIN 7 DAYS",
    "ALTER TABLE {t} CREATE BRANCH dropped",
    "ALTER TABLE {t} DROP BRANCH dropped",
    "ALTER TABLE {t} DROP BRANCH IF EXISTS never",
)
BRANCH_QUERIES = (
    "SELECT * FROM {t}.branch_audit",
    "SELECT * FROM {t}.branch_audit WHERE category = 'x'",
    "SELECT * FROM {t} VERSION AS OF 'audit'",
    "SELECT * FROM {t}.`branch_other-branch`",
    "SELECT count(*) FROM {t}.branch_audit",
    "SELECT name, type, max_reference_age_in_ms FROM {t}.refs",
    "SELECT * FROM {t}.branch_dropped",
    "SELECT * FROM {t}.branch_main",
    "ALTER TABLE {t} CREATE BRANCH audit",
    "ALTER TABLE {t} DROP BRANCH never",
    "ALTER TABLE {t} REPLACE BRANCH never",
    "INSERT INTO {t} VERSION AS OF 'audit' VALUES (7, 'g', 'x')",
    "ALTER TABLE {t} REPLACE BRANCH `other-branch`",
    "SELECT name, max_reference_age_in_ms FROM {t}.refs WHERE name = 'other-branch'",
    "SELECT * FROM {t}.`branch_other-branch`",
    "ALTER TABLE {t} CREATE OR REPLACE BRANCH audit",
    "SELECT * FROM {t}.branch_audit",
)
# publishing: fast_forward while main has not been written, again after more writes to the branch,
# and not once main was written
PUBLISH_STEPS = (
    "INSERT INTO {t} VALUES (1, 'a', 'x')",
    "ALTER TABLE {t} CREATE BRANCH audit",
    "INSERT INTO {t}.branch_audit VALUES (2, 'b', 'y'), (3, 'c', 'x')",
    "DELETE FROM {t}.branch_audit WHERE id = 1",
    "CALL {catalog}.system.fast_forward('{t}', 'main', 'audit')",
    "UPDATE {t}.branch_audit SET data = 'C' WHERE id = 3",
    "CALL {catalog}.system.fast_forward('{t}', 'main', 'audit')",
    "CALL {catalog}.system.fast_forward('{t}', 'main', 'audit')",
    "INSERT INTO {t}.branch_audit VALUES (5, 'e', 'z')",
    "INSERT INTO {t} VALUES (9, 'm', 'x')",
)
PUBLISH_QUERIES = (
    "SELECT * FROM {t}",
    "SELECT * FROM {t}.branch_audit",
    "CALL {catalog}.system.fast_forward('{t}', 'main', 'audit')",
    "CALL {catalog}.system.fast_forward('{t}', 'main', 'never')",
)

CASES = [
    Case("branches of a partitioned table", (CREATE, *BRANCH_STEPS), BRANCH_QUERIES),
    Case("branches of a plain table", (PLAIN, *BRANCH_STEPS), BRANCH_QUERIES),
    Case("publishing a plain table's branch", (PLAIN, *PUBLISH_STEPS), PUBLISH_QUERIES),
    # write-audit-publish: with spark.wap.branch set, writes go to that branch (made by the first
    # write) and reads read it; fast_forward publishes it to main while main has not moved
    Case("write-audit-publish", (
        CREATE,
        "INSERT INTO {t} VALUES (1, 'a', 'x')",
        "SET spark.wap.branch = audit",
        "INSERT INTO {t} VALUES (2, 'b', 'y'), (3, 'c', 'x')",
        "DELETE FROM {t} WHERE id = 1",
        "UPDATE {t} SET data = 'C' WHERE id = 3",
        "RESET spark.wap.branch",
        "CALL {catalog}.system.fast_forward('{t}', 'main', 'audit')",
        "INSERT INTO {t}.branch_audit VALUES (4, 'd', 'z')",
        "ALTER TABLE {t} SET TBLPROPERTIES ('note' = 'a property change does not move main away from the branch')",
        "CALL {catalog}.system.fast_forward('{t}', 'main', 'audit')",
        "CALL {catalog}.system.fast_forward('{t}', 'main', 'audit')",
        "INSERT INTO {t}.branch_audit VALUES (5, 'e', 'z')",
        "INSERT INTO {t} VALUES (9, 'm', 'x')",
    ), (
        "SELECT * FROM {t}",
        "SELECT * FROM {t}.branch_audit",
        "CALL {catalog}.system.fast_forward('{t}', 'main', 'audit')",
        "CALL {catalog}.system.fast_forward('{t}', 'main', 'never')",
        "SET spark.wap.branch = audit",
        "SELECT * FROM {t}",
        "SELECT * FROM {t} WHERE category = 'z'",
        "SELECT * FROM {t} VERSION AS OF 'main'",
        "SELECT * FROM {t}.branch_main",
        "SET spark.wap.branch = fresh",
        "SELECT * FROM {t}",
        "RESET spark.wap.branch",
        "SELECT name, type FROM {t}.refs",
    )),
    Case("write-audit-publish on a plain table", (
        PLAIN + " TBLPROPERTIES ('write.wap.enabled' = 'true')",
        "INSERT INTO {t} VALUES (1, 'a', 'x')",
        "SET spark.wap.branch = audit",
        "INSERT INTO {t} VALUES (2, 'b', 'y'), (3, 'c', 'x')",
        "DELETE FROM {t} WHERE id = 1",
        "UPDATE {t} SET data = 'C' WHERE id = 3",
        "RESET spark.wap.branch",
        "CALL {catalog}.system.fast_forward('{t}', 'main', 'audit')",
        "SET spark.wap.branch = audit",
        "INSERT INTO {t} VALUES (4, 'd', 'z')",
        "RESET spark.wap.branch",
    ), (
        "SELECT * FROM {t}",
        "SELECT * FROM {t}.branch_audit",
        "SET spark.wap.branch = audit",
        "SELECT * FROM {t}",
        "SELECT * FROM {t} VERSION AS OF 'main'",
        "SELECT * FROM {t}.branch_main",
        "RESET spark.wap.branch",
    )),
]


@pytest.mark.usefixtures("iceberg")
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_branches_as_iceberg(spark, ns, case):
    assert (found := mismatch(spark, case, ns)) is None, found


def rows(spark, table: str) -> list[tuple]:
    return sorted(tuple(r) for r in spark.table(table).collect())


def test_expire_snapshots_and_vacuum_keep_what_a_branch_reads(spark, admin, root, ns):
    t = f"lance.{ns}.t"
    spark.sql(CREATE.format(t=t))
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'y')")
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH audit")
    spark.sql(f"INSERT INTO {t}.branch_audit VALUES (3, 'c', 'z')")  # a partition table only the branch has
    spark.sql(f"UPDATE {t}.branch_audit SET data = 'A' WHERE id = 1")  # a version only the branch reads
    spark.sql(f"DELETE FROM {t} WHERE id = 1")
    spark.sql(f"INSERT OVERWRITE {t} SELECT 5, 'e', 'y'")  # main's y partition gets a new table
    spark.sql(f"INSERT INTO {t} VALUES (6, 'f', 'x')")
    branch = [(1, "A", "x"), (2, "b", "y"), (3, "c", "z")]
    assert rows(spark, f"{t}.branch_audit") == branch
    result = admin.expire_snapshots(f"{ns}.t", older_than=FUTURE, retain_last=1)
    assert result["expired_versions_count"] > 0
    admin.vacuum(f"{ns}.t", older_than=datetime.timedelta(0), retention_check=False)
    assert rows(spark, f"{t}.branch_audit") == branch
    assert lancepart.crosscheck(spark, t, version="audit")["rows"] == 3
    assert rows(spark, t) == [(5, "e", "y"), (6, "f", "x")]
    # main's partitions changed after the branch was made: it is not published over them
    with pytest.raises(Exception, match="main is not an ancestor of it"):
        admin.fast_forward(f"{ns}.t", "audit")
    spark.sql(f"ALTER TABLE {t} REPLACE BRANCH audit")
    spark.sql(f"INSERT INTO {t}.branch_audit VALUES (7, 'g', 'z')")
    assert admin.fast_forward(f"{ns}.t", "audit")["branch_updated"] == "main"
    assert rows(spark, t) == [(5, "e", "y"), (6, "f", "x"), (7, "g", "z")]
    assert lancepart.crosscheck(spark, t)["rows"] == 3
    # a dropped branch's partition tables go with the next expiry and vacuum
    spark.sql(f"ALTER TABLE {t} DROP BRANCH audit")
    admin.expire_snapshots(f"{ns}.t", older_than=FUTURE, retain_last=1)
    admin.vacuum(f"{ns}.t", older_than=datetime.timedelta(0), retention_check=False)
    assert rows(spark, t) == [(5, "e", "y"), (6, "f", "x"), (7, "g", "z")]
    assert lancepart.crosscheck(spark, t)["rows"] == 3


def test_a_branch_is_published_over_expiries_and_property_changes_of_main(spark, admin, ns):
    """Regression (a review and a trial): expire_snapshots and SET TBLPROPERTIES moved main's
    version, and fast_forward then refused the branch as though main had been written."""
    t = f"lance.{ns}.t"
    spark.sql(CREATE.format(t=t))
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'x')")
    spark.sql(f"INSERT INTO {t} VALUES (2, 'b', 'y')")
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH audit")
    spark.sql(f"INSERT INTO {t}.branch_audit VALUES (3, 'c', 'z')")
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('note' = 'kept')")
    admin.expire_snapshots(f"{ns}.t", older_than=FUTURE, retain_last=1)
    assert admin.fast_forward(f"{ns}.t", "audit")["branch_updated"] == "main"
    assert rows(spark, t) == [(1, "a", "x"), (2, "b", "y"), (3, "c", "z")]
    assert spark.sql(f"SHOW TBLPROPERTIES {t} ('note')").first().value == "kept"
    assert lancepart.crosscheck(spark, t)["rows"] == 3
    # the branch goes on from what it published
    spark.sql(f"DELETE FROM {t}.branch_audit WHERE id = 1")
    admin.fast_forward(f"{ns}.t", "audit")
    assert rows(spark, t) == [(2, "b", "y"), (3, "c", "z")]


def test_named_branches_options_and_wap_ids(spark, ns):
    """Regressions (a trial): the read option `branch` read main, `spark.wap.id` committed to main
    (Iceberg stages such a write), `.refs` gave a branch a version number that VERSION AS OF reads
    as main's, and DROP TABLE of a branch reported success."""
    t = f"lance.{ns}.t"
    spark.sql(CREATE.format(t=t))
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'x')")
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH audit")
    spark.createDataFrame([(2, "b", "y")], "id BIGINT, data STRING, category STRING").writeTo(t) \
        .option("branch", "audit").append()
    assert sorted(r.id for r in spark.read.option("branch", "audit").table(t).collect()) == [1, 2]
    assert sorted(r.id for r in spark.read.option("branch", "main").table(t).collect()) == [1]
    with pytest.raises(Exception, match="option branch = 'main' names another version"):
        spark.read.option("branch", "main").table(f"{t}.branch_audit").collect()
    assert spark.sql(f"SELECT snapshot_id FROM {t}.refs WHERE name = 'audit'").first()[0] is None
    # crosscheck compares main, also where write-audit-publish reads the branch (a trial found it failing)
    spark.conf.set("spark.wap.branch", "audit")
    try:
        assert lancepart.crosscheck(spark, t)["rows"] == 1
    finally:
        spark.conf.unset("spark.wap.branch")
    spark.conf.set("spark.wap.id", "abc")
    try:
        with pytest.raises(Exception, match=r"spark.wap.id \(write-audit-publish by staged commits"):
            spark.sql(f"INSERT INTO {t} VALUES (3, 'c', 'x')")
    finally:
        spark.conf.unset("spark.wap.id")
    with pytest.raises(Exception, match=r"is a branch, a version or a metadata table of table .*: DROP TABLE drops"):
        spark.sql(f"DROP TABLE {t}.branch_audit")
    assert rows(spark, t) == [(1, "a", "x")] and len(rows(spark, f"{t}.branch_audit")) == 2


def test_a_weak_mode_table_refuses_branches_saying_why(spark, ns):
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, category STRING) PARTITIONED BY (category) "
              "TBLPROPERTIES ('write.wap.enabled' = 'true')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'x')")
    with pytest.raises(Exception, match=rf"table lance.{ns}.t: a branch needs transaction.mode=strong"):
        spark.sql(f"ALTER TABLE {t} CREATE BRANCH audit")
    spark.conf.set("spark.wap.branch", "audit")
    try:
        with pytest.raises(Exception, match=r"a branch needs transaction.mode=strong"):
            spark.sql(f"INSERT INTO {t} VALUES (2, 'y')")
    finally:
        spark.conf.unset("spark.wap.branch")
    assert rows(spark, t) == [(1, "x")]
    assert [r.name for r in spark.sql(f"SELECT name FROM {t}.refs").collect()] == ["main"]


@pytest.mark.parametrize("statement, error", [
    ("ALTER TABLE {t}.branch_audit ADD COLUMNS (extra INT)", r"is branch 'audit' of a table: cannot run DDL"),
    ("ALTER TABLE {t}.branch_audit CREATE TAG x", r"is branch 'audit' of a table: cannot name versions of a branch"),
    ("ALTER TABLE {t}.branch_audit CREATE BRANCH x", r"is branch 'audit' of a table: cannot run branch statements on a branch"),
    ("SELECT * FROM {t}.branch_audit.snapshots", r"cannot read metadata tables of a branch"),
    ("CALL lance.system.rewrite_data_files('{t}.branch_audit')", r"cannot run rewrite_data_files\(\) on a branch"),
    ("SELECT * FROM {t}.branch_audit VERSION AS OF 1",
     r"VERSION AS OF 1 cannot read a version of a table named as a version already"),
    ("ALTER TABLE {t} CREATE BRANCH b WITH SNAPSHOT RETENTION 3 SNAPSHOTS", r"WITH SNAPSHOT RETENTION is not supported"),
    ("ALTER TABLE {t} CREATE BRANCH `ü`", r"cannot create branch 'ü': Lance stores branch names of ASCII"),
    ("ALTER TABLE {t} CREATE BRANCH `a/b`", r"cannot create branch 'a/b': Lance keeps a branch in directory"),
    ("ALTER TABLE {t} CREATE BRANCH main", r"cannot create branch 'main'"),
    ("ALTER TABLE {t} CREATE TAG audit", r"cannot create tag 'audit': the table has a branch of that name"),
    ("ALTER TABLE {t} CREATE BRANCH b AS OF VERSION 987654321", r"no manifest version 987654321"),
    ("CALL lance.system.fast_forward('{t}', 'audit', 'main')", r"publishes a branch to main only"),
])
def test_what_a_branch_refuses_says_why_and_changes_nothing(spark, ns, statement, error):
    t = f"lance.{ns}.t"
    spark.sql(CREATE.format(t=t))
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'x')")
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH audit")
    refs = sorted(tuple(r) for r in spark.sql(f"SELECT name, snapshot_id FROM {t}.refs").collect())
    with pytest.raises(Exception, match=error):
        spark.sql(statement.format(t=t)).collect()
    assert sorted(tuple(r) for r in spark.sql(f"SELECT name, snapshot_id FROM {t}.refs").collect()) == refs
    assert rows(spark, f"{t}.branch_audit") == rows(spark, t) == [(1, "a", "x")]


def test_streams_refuse_branches(spark, ns, tmp_path):
    t = f"lance.{ns}.t"
    spark.sql(CREATE.format(t=t))
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH audit")
    with pytest.raises(Exception, match=r"cannot stream from a branch"):
        spark.readStream.table(f"{t}.branch_audit").writeStream.format("noop") \
            .option("checkpointLocation", str(tmp_path / "c1")).start().processAllAvailable()


@pytest.mark.parametrize("statement, error", [
    ("ALTER TABLE {t}.branch_audit ADD COLUMNS (extra INT)", r"is branch 'audit' of a table: cannot run DDL"),
    ("ALTER TABLE {t}.branch_audit CREATE TAG x", r"cannot name versions of a branch"),
    ("SELECT * FROM {t}.branch_audit.snapshots", r"cannot read metadata tables of a branch"),
    ("CALL lance.system.rewrite_data_files('{t}.branch_audit')", r"cannot run rewrite_data_files\(\) on a branch"),
    ("DROP TABLE {t}.branch_audit", r"is a branch, a version or a metadata table of table"),
    ("ALTER TABLE {t} ADD PARTITION FIELD category", r"with tags or branches \(branch audit\) cannot be made"),
])
def test_what_a_plain_tables_branch_refuses_says_why(spark, ns, statement, error):
    t = f"lance.{ns}.t"
    spark.sql(PLAIN.format(t=t))
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'x')")
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH audit")
    spark.sql(f"INSERT INTO {t}.branch_audit VALUES (2, 'b', 'y')")
    with pytest.raises(Exception, match=error):
        spark.sql(statement.format(t=t)).collect()
    assert rows(spark, t) == [(1, "a", "x")] and rows(spark, f"{t}.branch_audit") == [(1, "a", "x"), (2, "b", "y")]


def test_expire_snapshots_keeps_a_plain_tables_branch(spark, admin, ns):
    t = f"lance.{ns}.t"
    spark.sql(PLAIN.format(t=t))
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'y')")
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH audit")
    spark.sql(f"UPDATE {t}.branch_audit SET data = 'A' WHERE id = 1")
    spark.sql(f"INSERT OVERWRITE {t} SELECT 5, 'e', 'y'")
    spark.sql(f"INSERT INTO {t} VALUES (6, 'f', 'x')")
    admin.expire_snapshots(f"{ns}.t", older_than=FUTURE, retain_last=1)
    assert rows(spark, f"{t}.branch_audit") == [(1, "A", "x"), (2, "b", "y")]
    assert lancepart.crosscheck(spark, t, version="audit")["rows"] == 2
    assert rows(spark, t) == [(5, "e", "y"), (6, "f", "x")]
    spark.sql(f"ALTER TABLE {t} DROP BRANCH audit")
    admin.expire_snapshots(f"{ns}.t", older_than=FUTURE, retain_last=1)
    assert rows(spark, t) == [(5, "e", "y"), (6, "f", "x")]


def test_the_branch_option_reads_and_writes_a_plain_tables_branch(spark, ns):
    t = f"lance.{ns}.t"
    spark.sql(PLAIN.format(t=t))
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'x')")
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH audit")
    spark.createDataFrame([(2, "b", "y")], "id BIGINT, data STRING, category STRING").writeTo(t) \
        .option("branch", "audit").append()
    assert sorted(r.id for r in spark.read.option("branch", "audit").table(t).collect()) == [1, 2]
    assert rows(spark, t) == [(1, "a", "x")]
    with pytest.raises(Exception, match="has no branch 'never'"):
        spark.read.option("branch", "never").table(t).collect()
    # regression (a review): through <table>.branch_main the option read and wrote main
    with pytest.raises(Exception, match="option branch = 'audit' names another version"):
        spark.read.option("branch", "audit").table(f"{t}.branch_main").collect()
    assert rows(spark, f"{t}.branch_main") == [(1, "a", "x")]


def test_a_plain_tables_branch_is_published_with_main_field_ids(spark, ns):
    """Regression (a review): the rows written into main carried field ids 0, 1, ..., which main,
    whose ids had a gap from a dropped column, could no longer read."""
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, gone STRING, data STRING)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'g', 'a'), (2, 'g', 'b')")
    spark.sql(f"ALTER TABLE {t} DROP COLUMN gone")
    spark.sql(f"ALTER TABLE {t} ADD COLUMN extra INT")
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH audit")
    spark.sql(f"INSERT INTO {t}.branch_audit VALUES (3, 'c', 33)")
    spark.sql(f"CALL lance.system.fast_forward('{t}', 'main', 'audit')")
    assert rows(spark, t) == [(1, "a", None), (2, "b", None), (3, "c", 33)]
    assert lancepart.crosscheck(spark, t)["rows"] == 3


@pytest.mark.parametrize("create", [CREATE, PLAIN], ids=["partitioned", "plain"])
def test_a_rollback_of_main_to_where_a_branch_started_lets_it_be_published(spark, admin, ns, create):
    """As Iceberg: main rolled back to the version a branch was made from is its ancestor again."""
    t = f"lance.{ns}.t"
    spark.sql(create.format(t=t))
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'x')")
    start = spark.sql(f"SELECT snapshot_id FROM {t}.refs WHERE name = 'main'").first()[0]
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH audit")
    spark.sql(f"INSERT INTO {t}.branch_audit VALUES (2, 'b', 'y')")
    spark.sql(f"INSERT INTO {t} VALUES (9, 'm', 'x')")
    with pytest.raises(Exception, match="main is not an ancestor of it"):
        admin.fast_forward(f"{ns}.t", "audit")
    admin.rollback_to_version(f"{ns}.t", start)
    assert rows(spark, f"{t}.branch_audit") == [(1, "a", "x"), (2, "b", "y")]
    # and so does a property change on main
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('note' = 'kept')")
    admin.fast_forward(f"{ns}.t", "audit")
    assert rows(spark, t) == [(1, "a", "x"), (2, "b", "y")]
    assert lancepart.crosscheck(spark, t)["rows"] == 2
