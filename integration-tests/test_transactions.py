"""Transactions through Spark SQL: the transaction.mode property, strong-mode commits (detached
leaf versions, table_version rows), INSERT OVERWRITE static and dynamic, DELETE, time travel and
snapshot reads. Concurrent writers and crashes are in test_concurrency.py and test_faults.py."""

import datetime as dt

import lance
import lance_namespace as ln
import pytest
from lance.namespace import DirectoryNamespace

import lancepart
from conftest import tables_scanned

MODES = ["weak", "strong"]


def create(spark, ns, mode, name="t"):
    spark.sql(f"CREATE TABLE lance.{ns}.{name} (id BIGINT, c STRING, v INT) PARTITIONED BY (c) "
              f"TBLPROPERTIES ('transaction.mode' = '{mode}')")
    spark.sql(f"INSERT INTO lance.{ns}.{name} VALUES (1, 'US', 10), (2, 'US', 20), (3, 'FR', 30), (4, 'JP', 40)")
    return f"lance.{ns}.{name}"


def rows(spark, query):
    return sorted(tuple(r) for r in spark.sql(query).collect())


def manifest(root, ns, name="t"):
    return lance.dataset(str(root / ns / name / "__manifest"))


def leaf_rows(root, ns, name="t"):
    return {r["partition_field_c"]: r for r in manifest(root, ns, name).to_table(filter="object_type = 'table'").to_pylist()}


def version_read(root, ns, row, name="t"):
    """The leaf version readers read: its read_version, or its latest where that is NULL (weak mode)."""
    if row["read_version"] is not None:
        return row["read_version"]
    return lance.dataset(str(root / ns / name / row["location"])).version


def test_transaction_mode_is_a_table_property(spark, root, ns):
    t = create(spark, ns, "weak")
    props = dict((r.key, r.value) for r in spark.sql(f"SHOW TBLPROPERTIES {t}").collect())
    assert props["transaction.mode"] == "weak"
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('transaction.mode' = 'strong')")
    assert manifest(root, ns).metadata["transaction.mode"] == "strong"
    with pytest.raises(Exception, match="cannot go from strong back to weak"):
        spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('transaction.mode' = 'weak')")
    with pytest.raises(Exception, match=rf"table lance.{ns}.u: transaction.mode is 'sometimes'; expected 'weak' or 'strong'"):
        spark.sql(f"CREATE TABLE lance.{ns}.u (id INT) PARTITIONED BY (id) TBLPROPERTIES ('transaction.mode' = 'sometimes')")
    assert not (root / ns / "u").exists()
    # data written in weak mode stays readable after the switch, and strong writes add to it
    spark.sql(f"INSERT INTO {t} VALUES (5, 'US', 50)")
    assert rows(spark, f"SELECT id FROM {t} WHERE c = 'US'") == [(1,), (2,), (5,)]
    lancepart.crosscheck(spark, t)


def test_strong_mode_publishes_detached_leaf_versions(spark, root, ns):
    t = create(spark, ns, "strong")
    spark.sql(f"INSERT INTO {t} VALUES (5, 'US', 50), (6, 'FR', 60)")
    leaves = leaf_rows(root, ns)
    us = leaves["US"]
    leaf = lance.dataset(str(root / ns / "t" / us["location"]))
    assert leaf.version == 1, "the main branch keeps the version that created the leaf"
    assert us["read_version"] >= 2 ** 63, "read_version is a detached version"
    assert lance.dataset(str(root / ns / "t" / us["location"]), version=us["read_version"]).count_rows() == 3
    records = manifest(root, ns).to_table(filter="object_type = 'table_version'").to_pylist()
    us_records = sorted(r["read_version"] for r in records if r["object_id"].startswith(us["object_id"] + "$"))
    assert us_records == sorted([1, us["read_version"]])
    # numbered by the __manifest version that wrote them: a partition's highest is its current version
    assert max((r for r in records if r["object_id"].startswith(us["object_id"] + "$")),
               key=lambda r: int(r["object_id"].rsplit("$", 1)[1]))["read_version"] == us["read_version"]
    assert len(records) == 5, "one record per published leaf version: 3 created, then US and FR appended"
    assert leaves["JP"]["read_version"] == 1
    listed = spark.sql(f"SELECT read_version, row_count FROM {t}.partitions WHERE c = 'US'").collect()
    assert [(int(r.read_version), r.row_count) for r in listed] == [(us["read_version"], 3)]
    assert rows(spark, f"SELECT id FROM {t}") == [(i,) for i in range(1, 7)]
    lancepart.crosscheck(spark, t)
    # Lance's own DirectoryNamespace still sees exactly one table per partition
    dirns = DirectoryNamespace(root=str(root / ns / "t"))
    names = dirns.list_namespaces(ln.ListNamespacesRequest(id=["v1"])).namespaces
    assert len(names) == 3
    assert all(dirns.list_tables(ln.ListTablesRequest(id=["v1", n])).tables == ["dataset"] for n in names)


@pytest.mark.parametrize("mode", MODES)
def test_static_insert_overwrite_replaces_the_partitions_it_names(spark, root, ns, mode):
    t = create(spark, ns, mode)
    before = leaf_rows(root, ns)
    spark.sql(f"INSERT OVERWRITE {t} PARTITION (c = 'US') VALUES (7, 70)")
    assert rows(spark, f"SELECT id, c FROM {t}") == [(3, "FR"), (4, "JP"), (7, "US")]
    after = leaf_rows(root, ns)
    assert after["US"]["object_id"] == before["US"]["object_id"] and after["US"]["location"] != before["US"]["location"]
    assert after["FR"] == before["FR"] and after["JP"] == before["JP"]
    # without PARTITION, a static overwrite replaces everything; partitions it does not write go
    spark.sql(f"INSERT OVERWRITE {t} VALUES (8, 'FR', 80)")
    assert rows(spark, f"SELECT id, c FROM {t}") == [(8, "FR")]
    assert set(leaf_rows(root, ns)) == {"FR"}
    lancepart.crosscheck(spark, t)


@pytest.mark.parametrize("mode", MODES)
def test_dynamic_insert_overwrite_replaces_only_partitions_the_data_touches(spark, root, ns, mode):
    t = create(spark, ns, mode)
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        spark.sql(f"INSERT OVERWRITE {t} VALUES (9, 'US', 90), (10, 'DE', 100)")
    finally:
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    assert rows(spark, f"SELECT id, c FROM {t}") == [(3, "FR"), (4, "JP"), (9, "US"), (10, "DE")]
    spark.createDataFrame([(11, "FR", 110)], "id BIGINT, c STRING, v INT").writeTo(t).overwritePartitions()
    assert rows(spark, f"SELECT id, c FROM {t}") == [(4, "JP"), (9, "US"), (10, "DE"), (11, "FR")]
    lancepart.crosscheck(spark, t)


@pytest.mark.parametrize("mode", MODES)
def test_delete_on_partition_columns_removes_whole_partitions_from_the_manifest(spark, root, ns, mode):
    t = create(spark, ns, mode)
    before = leaf_rows(root, ns)
    spark.sql(f"DELETE FROM {t} WHERE c IN ('US', 'JP')")
    after = leaf_rows(root, ns)
    assert set(after) == {"FR"} and after["FR"] == before["FR"]
    for c in ("US", "JP"):  # a metadata change: the leaves are untouched (older versions still read them)
        assert lance.dataset(str(root / ns / "t" / before[c]["location"])).version == 1
    assert rows(spark, f"SELECT id FROM {t}") == [(3,)]
    assert tables_scanned(spark, f"SELECT * FROM {t}") == (1, 1)


@pytest.mark.parametrize("mode", MODES)
def test_delete_on_data_columns_deletes_rows_in_the_affected_leaves(spark, root, ns, mode):
    t = create(spark, ns, mode)
    before = leaf_rows(root, ns)
    before_versions = {c: version_read(root, ns, r) for c, r in before.items()}
    spark.sql(f"DELETE FROM {t} WHERE v >= 20 AND c <> 'JP'")
    assert rows(spark, f"SELECT id FROM {t}") == [(1,), (4,)]
    after = leaf_rows(root, ns)
    assert version_read(root, ns, after["JP"]) == before_versions["JP"], "pruned away: not touched"
    assert version_read(root, ns, after["US"]) != before_versions["US"]
    assert after["FR"]["location"] == before["FR"]["location"]
    spark.sql(f"DELETE FROM {t} WHERE v > 1000")  # matches nothing
    assert rows(spark, f"SELECT id FROM {t}") == [(1,), (4,)]
    lancepart.crosscheck(spark, t)


@pytest.mark.parametrize("mode", MODES)
def test_count_star_uses_recorded_counts_only_for_the_versions_the_manifest_pins(spark, root, ns, mode):
    t = create(spark, ns, mode)
    spark.sql(f"DELETE FROM {t} WHERE v = 20")
    spark.sql(f"INSERT INTO {t} VALUES (5, 'FR', 50)")
    # another client appends to the US partition table's main branch
    us = leaf_rows(root, ns)["US"]
    lance.write_dataset(lance.dataset(str(root / ns / "t" / us["location"])).to_table(), str(root / ns / "t" / us["location"]),
                        mode="append")
    expected = len(spark.table(t).collect())
    assert expected == (4 if mode == "strong" else 5)  # strong readers read the pinned version
    assert spark.sql(f"SELECT count(*) FROM {t}").first()[0] == expected
    if mode == "strong":
        # the counts of pinned versions come from __manifest: no partition table is opened
        moved = {}
        for row in leaf_rows(root, ns).values():
            leaf = root / ns / "t" / row["location"]
            moved[leaf] = leaf.rename(leaf.with_name(leaf.name + ".away"))
        try:
            assert spark.sql(f"SELECT count(*) FROM {t}").first()[0] == expected
        finally:
            for leaf, away in moved.items():
                away.rename(leaf)


def test_time_travel_reads_each_leaf_at_the_version_the_manifest_recorded(spark, root, ns):
    t = create(spark, ns, "strong")
    v1 = manifest(root, ns).version
    first = rows(spark, f"SELECT * FROM {t}")
    stamp = dt.datetime.now(dt.timezone.utc)
    spark.sql(f"INSERT INTO {t} VALUES (5, 'US', 50), (6, 'DE', 60)")
    spark.sql(f"DELETE FROM {t} WHERE c = 'FR'")
    assert rows(spark, f"SELECT * FROM {t} VERSION AS OF {v1}") == first
    assert rows(spark, f"SELECT * FROM {t} TIMESTAMP AS OF '{stamp.strftime('%Y-%m-%d %H:%M:%S.%f')}'") == first
    assert rows(spark, f"SELECT id FROM {t}") == [(1,), (2,), (4,), (5,), (6,)]
    assert rows(spark, f"SELECT count(*) FROM {t} VERSION AS OF {v1}") == [(4,)]
    with pytest.raises(Exception, match=rf"table lance.{ns}.t has no manifest version 999"):
        spark.sql(f"SELECT * FROM {t} VERSION AS OF 999").collect()
    with pytest.raises(Exception, match="has no manifest version at or before 2001-01-01"):
        spark.sql(f"SELECT * FROM {t} TIMESTAMP AS OF '2001-01-01 00:00:00'").collect()


def test_time_travel_on_a_weak_table_says_why_it_cannot(spark, root, ns):
    t = create(spark, ns, "weak")
    with pytest.raises(Exception, match=r"VERSION AS OF 1 needs transaction.mode=strong"):
        spark.sql(f"SELECT * FROM {t} VERSION AS OF 1").collect()


@pytest.mark.parametrize("mode", MODES)
def test_a_planned_read_keeps_its_snapshot_while_writers_commit(spark, root, ns, mode):
    """A query's partitions are fixed when it is planned; strong mode also pins each leaf's
    version, so commits made before its tasks run stay invisible. Weak mode reads each leaf's
    latest version, so the same read sees them (which shows the test can tell the two apart)."""
    t = create(spark, ns, mode)
    planned = spark.sql(f"SELECT c, count(*) AS n FROM {t} GROUP BY c").rdd  # planning pins the manifest version
    for i in range(3):
        spark.sql(f"INSERT INTO {t} VALUES ({100 + i}, 'US', 0), ({200 + i}, 'FR', 0), ({300 + i}, 'JP', 0)")
    counts = dict((r.c, r.n) for r in planned.collect())
    if mode == "strong":
        assert counts == {"US": 2, "FR": 1, "JP": 1}
    else:
        assert counts == {"US": 5, "FR": 4, "JP": 4}


def test_a_failed_commit_leaves_no_trace_a_reader_sees(spark, root, ns):
    t = create(spark, ns, "strong")
    before = rows(spark, f"SELECT * FROM {t}")
    spark.sql(f"ALTER TABLE {t} ADD COLUMN w INT")
    # a new column: the JP leaf predates it, strong mode cannot align a leaf in place, so the write
    # rewrites the partition; a rewrite cannot also delete rows from it: refused at commit
    with pytest.raises(Exception, match="cannot combine with deleting rows from it"):
        spark.sql(f"INSERT INTO {t} REPLACE WHERE v > 100 VALUES (9, 'JP', 90, 1)")
    assert rows(spark, f"SELECT id, c, v FROM {t}") == before
    spark.sql(f"INSERT INTO {t} VALUES (9, 'JP', 90, 1)")
    assert rows(spark, f"SELECT id, w FROM {t} WHERE c = 'JP'") == [(4, None), (9, 1)]
    lancepart.crosscheck(spark, t)


def test_admin_creates_strong_tables(spark, admin, root, ns):
    admin.create_table(f"{ns}.a", "id BIGINT, c STRING", ["c"], properties={"transaction.mode": "strong"})
    assert manifest(root, ns, "a").metadata["transaction.mode"] == "strong"
    assert admin.describe(f"{ns}.a")["name"] == f"lance.{ns}.a"


def test_a_reader_following_appendix_c_reads_the_new_leaf_after_insert_overwrite(spark, root, ns):
    """Appendix C's reader takes a partition's highest-numbered table_version row; after INSERT
    OVERWRITE that must be the new leaf's version, never the replaced leaf's."""
    t = create(spark, ns, "strong")
    spark.sql(f"INSERT INTO {t} VALUES (5, 'US', 50)")
    spark.sql(f"INSERT OVERWRITE {t} PARTITION (c = 'US') VALUES (7, 70)")
    spark.sql(f"INSERT INTO {t} VALUES (8, 'FR', 80)")
    table_dir = root / ns / "t"
    everything = manifest(root, ns).to_table().to_pylist()
    seen = []
    for row in (r for r in everything if r["object_type"] == "table"):
        records = [r for r in everything if r["object_type"] == "table_version"
                   and r["object_id"].rsplit("$", 1)[0] == row["object_id"]]
        latest = max(records, key=lambda r: int(r["object_id"].rsplit("$", 1)[1]))
        leaf = lance.dataset(str(table_dir / row["location"]), version=latest["read_version"])
        seen += leaf.to_table(columns=["id"])["id"].to_pylist()
    assert sorted(seen) == [r[0] for r in rows(spark, f"SELECT id FROM {t}")] == [3, 4, 7, 8]

