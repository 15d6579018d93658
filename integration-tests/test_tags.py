"""Tags (ALTER TABLE ... CREATE / REPLACE / DROP TAG, VERSION AS OF '<tag>', `<table>.tag_<tag>`,
`<table>.refs`) on partitioned (strong mode) and plain tables: the same statements on Iceberg tables
in the same session give the same rows and the same failures (differential.py); expire_snapshots
keeps what tags name; a weak-mode table refuses tags, saying why. pylance reading the tags is in
test_interop.py (which runs under the newest pylance too)."""

from __future__ import annotations

import datetime

import lance
import pytest

import lancepart
from differential import Case, mismatch
from test_iceberg_ports import remember_snapshot

FUTURE = datetime.datetime(2999, 1, 1)
STRONG = "TBLPROPERTIES ('transaction.mode' = 'strong')"

# The same life of a table on each catalog: tags made at the current version and at an older one,
# kept across writes, moved, dropped; reads at each tag, through VERSION AS OF and `<table>.tag_<tag>`.
TAG_STEPS = (
    "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'c', 'x')",
    remember_snapshot("v1"),
    "ALTER TABLE {t} CREATE TAG first",
    "INSERT INTO {t} VALUES (4, 'd', 'y'), (5, 'e', 'z')",
    "DELETE FROM {t} WHERE category = 'x'",
    "ALTER TABLE {t} CREATE TAG `second-tag` RETAIN 7 DAYS",
    "ALTER TABLE {t} CREATE TAG IF NOT EXISTS first",
    "UPDATE {t} SET data = 'changed' WHERE id = 4",
    "ALTER TABLE {t} CREATE TAG old AS OF VERSION {v1}",
    "ALTER TABLE {t} CREATE TAG moved",
    "INSERT INTO {t} VALUES (6, 'f', 'x')",
    "ALTER TABLE {t} REPLACE TAG moved",
    "ALTER TABLE {t} CREATE TAG dropped",
    "ALTER TABLE {t} DROP TAG dropped",
    "ALTER TABLE {t} DROP TAG IF EXISTS never",
    "ALTER TABLE {t} REPLACE TAG `second-tag`",  # keeps its RETAIN, as Iceberg's
)
TAG_QUERIES = (
    "SELECT * FROM {t} VERSION AS OF 'first'",
    "SELECT * FROM {t} VERSION AS OF 'second-tag'",
    "SELECT * FROM {t} VERSION AS OF 'old'",
    "SELECT * FROM {t} VERSION AS OF 'moved'",
    "SELECT * FROM {t}.tag_first WHERE id > 1",
    "SELECT * FROM {t} VERSION AS OF 'dropped'",
    "SELECT * FROM {t} VERSION AS OF 'main'",
    "ALTER TABLE {t} CREATE TAG main",
    "INSERT INTO {t}.tag_first VALUES (7, 'g', 'x')",
    "DELETE FROM {t}.tag_first WHERE id = 1",
    "UPDATE {t}.tag_first SET data = 'no' WHERE id = 1",
    "ALTER TABLE {t}.tag_first CREATE TAG nested",
    "SELECT * FROM {t} VERSION AS OF 'nested'",
    "SELECT name, type, max_reference_age_in_ms, min_snapshots_to_keep, max_snapshot_age_in_ms FROM {t}.refs",
    "SELECT name FROM {t}.refs WHERE snapshot_id = {v1}",
    "ALTER TABLE {t} CREATE TAG first",
    "ALTER TABLE {t} REPLACE TAG never",
    "ALTER TABLE {t} DROP TAG never",
    "ALTER TABLE {t} CREATE TAG broken AS OF VERSION 987654321",
    "ALTER TABLE {t} CREATE OR REPLACE TAG first AS OF VERSION {v1}",
    "SELECT * FROM {t} VERSION AS OF 'first'",
)
CASES = [
    Case("tags of a partitioned table", (
        f"CREATE TABLE {{t}} (id BIGINT, data STRING, category STRING) PARTITIONED BY (category) {STRONG}",
        *TAG_STEPS), TAG_QUERIES),
    Case("tags of a plain table", (
        "CREATE TABLE {t} (id BIGINT, data STRING, category STRING)", *TAG_STEPS), TAG_QUERIES),
]


@pytest.mark.usefixtures("iceberg")
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_tags_as_iceberg(spark, ns, case):
    assert (found := mismatch(spark, case, ns)) is None, found


@pytest.mark.parametrize("partitioned", [True, False], ids=["partitioned", "plain"])
def test_expire_snapshots_keeps_tagged_versions(spark, admin, root, ns, partitioned):
    t = f"lance.{ns}.t"
    spec = f"PARTITIONED BY (category) {STRONG}" if partitioned else ""
    spark.sql(f"CREATE TABLE {t} (id BIGINT, category STRING) {spec}")
    for i in range(4):
        spark.sql(f"INSERT INTO {t} VALUES ({i}, '{'xy'[i % 2]}')")
        if i == 1:
            spark.sql(f"ALTER TABLE {t} CREATE TAG kept")
    spark.sql(f"DELETE FROM {t} WHERE id = 0")
    versions = [r.snapshot_id for r in spark.sql(f"SELECT snapshot_id FROM {t}.snapshots").collect()]
    uri = str(root / ns / "t" / "__manifest" if partitioned else root / ns / "t.lance")
    listed = {v["version"] for v in lance.dataset(uri).versions()}
    tagged = spark.sql(f"SELECT snapshot_id FROM {t}.refs WHERE name = 'kept'").first()[0]
    result = admin.expire_snapshots(f"{ns}.t", older_than=FUTURE, retain_last=1)
    def kept():  # of the versions before the expiry (which commits the records it removes: a version more)
        return [r.snapshot_id for r in spark.sql(f"SELECT snapshot_id FROM {t}.snapshots").collect()
                if r.snapshot_id <= versions[-1]]
    assert kept() == [tagged, versions[-1]]
    assert result["expired_versions_count"] == len(listed - {v["version"] for v in lance.dataset(uri).versions()})
    assert lance.dataset(uri).tags.list()["kept"]["version"] == tagged
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {t} VERSION AS OF 'kept'").collect()) == [0, 1]
    assert lancepart.crosscheck(spark, t, version="kept")["rows"] == 2
    with pytest.raises(Exception, match="retain_last must be at least 1, not 0"):
        admin.expire_snapshots(f"{ns}.t", older_than=FUTURE, retain_last=0)
    # a version no tag names is gone
    with pytest.raises(Exception, match=f"no (manifest )?version {versions[-2]}"):
        spark.sql(f"SELECT * FROM {t} VERSION AS OF {versions[-2]}").collect()
    # once the tag is dropped, its version expires too
    spark.sql(f"ALTER TABLE {t} DROP TAG kept")
    admin.expire_snapshots(f"{ns}.t", older_than=FUTURE, retain_last=1)
    assert tagged not in kept() and lance.dataset(uri).tags.list() == {}
    assert sorted(r.id for r in spark.table(t).collect()) == [1, 2, 3]


def test_a_weak_mode_table_refuses_tags_saying_why(spark, ns):
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, category STRING) PARTITIONED BY (category)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'x')")
    with pytest.raises(Exception, match=rf"table lance.{ns}.t: a tag needs transaction.mode=strong; in weak mode"):
        spark.sql(f"ALTER TABLE {t} CREATE TAG release")
    # a version committed in weak mode pins nothing, also once the table is strong
    weak = spark.sql(f"SELECT max(snapshot_id) FROM {t}.snapshots").first()[0]
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('transaction.mode' = 'strong')")
    spark.sql(f"INSERT INTO {t} VALUES (2, 'y')")
    with pytest.raises(Exception, match=rf"manifest version {weak} was committed in weak mode"):
        spark.sql(f"ALTER TABLE {t} CREATE TAG release AS OF VERSION {weak}")
    # nor is it read by time travel (it was, reading its partition tables at their latest versions)
    with pytest.raises(Exception, match=rf"manifest version {weak}, committed while the table was weak, does not pin"):
        spark.sql(f"SELECT * FROM {t} VERSION AS OF {weak}").collect()
    # the partition written in weak mode is read at its latest version until a strong-mode write pins it
    with pytest.raises(Exception, match=r"has 1 partition tables whose rows pin no version"):
        spark.sql(f"ALTER TABLE {t} CREATE TAG release")
    spark.sql(f"INSERT INTO {t} VALUES (3, 'x')")
    spark.sql(f"ALTER TABLE {t} CREATE TAG release")
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {t} VERSION AS OF 'release'").collect()) == [1, 2, 3]


@pytest.mark.parametrize("statement, error", [
    ("CREATE TAG", r"expected a tag name at the end"),
    ("CREATE TAG a AS OF VERSION x", r"expected a version number at 'x'"),
    ("CREATE TAG a RETAIN 3 WEEKS", r"expected DAYS, HOURS or MINUTES at 'WEEKS'"),
    ("CREATE TAG a RETAIN 0 DAYS", r"RETAIN must be a positive time, not 0 DAYS"),
    ("DROP TAG a b", r"expected the end of the statement at 'b'"),
    ("CREATE TAG `bad/name`", r"cannot create tag 'bad/name'"),
    # Lance 7.0.0 stores these but cannot list them back: no tag of the table would read (a trial)
    ("CREATE TAG `ü`", r"cannot create tag 'ü': Lance stores tag names of ASCII characters only"),
    ("CREATE TAG " + "x" * 300, r"a tag name has at most 200 characters"),
])
def test_errors_name_the_table_and_change_nothing(spark, ns, statement, error):
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT)")
    spark.sql(f"INSERT INTO {t} VALUES (1)")
    with pytest.raises(Exception, match=error):
        spark.sql(f"ALTER TABLE {t} {statement}")
    assert spark.sql(f"SELECT name FROM {t}.refs").collect() == [("main",)]


def test_another_clients_tag_of_a_branch_version_is_refused_not_read_at_main(spark, root, ns):
    """Regression (a spike): a tag of version 2 of branch 'b' was read as main's version 2."""
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT)")
    spark.sql(f"INSERT INTO {t} VALUES (1)")
    spark.sql(f"INSERT INTO {t} VALUES (2)")
    ds = lance.dataset(str(root / ns / "t.lance"))
    branch = ds.create_branch("b", 2)
    branch.insert(branch.to_table().slice(0, 1))
    head = ds.checkout_version(("b", None)).version
    ds.tags.create("on-branch", ("b", head))
    with pytest.raises(Exception, match=f"tag 'on-branch' names version {head} of branch 'b'"):
        spark.sql(f"SELECT * FROM {t} VERSION AS OF 'on-branch'").collect()
    # the branch is listed, its tag is not
    assert [r.name for r in spark.sql(f"SELECT name FROM {t}.refs").collect()] == ["main", "b"]


def test_a_plain_table_with_tags_is_not_made_partitioned(spark, root, ns):
    """Regression (a review): the tags went with the dataset into a partition table, `.refs` lost
    them, and every later expire_snapshots failed on the partition table's tagged versions."""
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, category STRING)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'x')")
    spark.sql(f"ALTER TABLE {t} CREATE TAG release")
    with pytest.raises(Exception, match=rf"a plain Lance table with tags or branches \(tag release\) cannot be made partitioned"):
        spark.sql(f"ALTER TABLE {t} ADD PARTITION FIELD category")
    assert [r.name for r in spark.sql(f"SELECT name FROM {t}.refs").collect()] == ["main", "release"]
    spark.sql(f"ALTER TABLE {t} DROP TAG release")
    spark.sql(f"ALTER TABLE {t} ADD PARTITION FIELD category")
    assert [r.id for r in spark.table(t).collect()] == [1]


def test_a_number_is_a_version_and_tag_names_a_tag_named_like_one(spark, ns):
    """As Iceberg 1.12 (a number is a snapshot id there, then refs): `VERSION AS OF 3` and
    `<table>.snapshot_id_3` read version 3 even when a tag is named 3, which `<table>.tag_3` reads
    (a trial found a tag or branch named like a number read instead of the version)."""
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT)")
    for i in range(3):
        spark.sql(f"INSERT INTO {t} VALUES ({i})")
    versions = [r.snapshot_id for r in spark.sql(f"SELECT snapshot_id FROM {t}.snapshots").collect()]
    first, last = versions[-3], versions[-1]
    spark.sql(f"ALTER TABLE {t} CREATE TAG `{last}` AS OF VERSION {first}")
    assert spark.sql(f"SELECT count(*) FROM {t} VERSION AS OF {last}").first()[0] == 3
    assert spark.sql(f"SELECT count(*) FROM {t} VERSION AS OF '{last}'").first()[0] == 3
    assert spark.sql(f"SELECT count(*) FROM {t}.snapshot_id_{last}").first()[0] == 3
    assert spark.sql(f"SELECT count(*) FROM {t}.tag_{last}").first()[0] == 1
    assert lancepart.crosscheck(spark, t, version=last)["rows"] == 3
    assert lancepart.crosscheck(spark, t, version=str(last))["rows"] == 3


def test_replacing_tables_keeps_tags_or_refuses(spark, ns):
    """A strong table replaced as weak still reads its strong versions' tags; a plain table with
    tags is not replaced by a partitioned one, whose publication deletes the dataset and its tags
    (a trial found them gone)."""
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, category STRING) PARTITIONED BY (category) {STRONG}")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'x')")
    spark.sql(f"ALTER TABLE {t} CREATE TAG release")
    spark.sql(f"CREATE OR REPLACE TABLE {t} (id BIGINT, category STRING) PARTITIONED BY (category) "
              "TBLPROPERTIES ('transaction.mode' = 'weak')")
    assert [r.id for r in spark.sql(f"SELECT id FROM {t} VERSION AS OF 'release'").collect()] == [1]
    u = f"lance.{ns}.u"
    spark.sql(f"CREATE TABLE {u} (id BIGINT)")
    spark.sql(f"INSERT INTO {u} VALUES (1)")
    spark.sql(f"ALTER TABLE {u} CREATE TAG release")
    with pytest.raises(Exception, match=r"with tags or branches \(tag release\) cannot be replaced by a partitioned table"):
        spark.sql(f"REPLACE TABLE {u} (id BIGINT) PARTITIONED BY (bucket(2, id))")
    assert [r.id for r in spark.sql(f"SELECT id FROM {u} VERSION AS OF 'release'").collect()] == [1]

