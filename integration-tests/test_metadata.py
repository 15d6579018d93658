"""Runtime namespace properties (Appendix E), the `<table>.partitions` metadata table, and COUNT(*)
answered from Lance metadata."""

import datetime as dt
import json

import lance
import pyarrow as pa
import pytest

import lancepart
from conftest import local_relation


@pytest.fixture
def events(spark, ns):
    t = f"lance.{ns}.e"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, event_date DATE, country STRING) PARTITIONED BY (event_date)")
    spark.sql(f"INSERT INTO {t} VALUES (1, DATE'2025-12-10', 'US'), (2, DATE'2025-12-10', 'FR'), (3, DATE'2025-12-11', 'US')")
    spark.sql(f"CALL lance.system.evolve_partition_spec(table => '{ns}.e', fields => array('years(event_date)', 'country'))")
    spark.sql(f"INSERT INTO {t} VALUES (4, DATE'2025-12-10', 'US'), (5, NULL, 'FR')")
    return t


def test_describe_namespace_returns_appendix_e_properties(admin, root, ns, events):
    rows = lance.dataset(str(root / ns / "e" / "__manifest")).to_table(filter="object_type = 'namespace'").to_pylist()
    by_id = {r["object_id"]: r for r in rows}
    assert json.loads(admin.describe_namespace(f"{ns}.e", ["v1"])["properties"]["partition_spec"]) == \
        json.loads(lance.dataset(str(root / ns / "e" / "__manifest")).metadata["partition_spec_v1"])
    day = next(oid for oid, r in by_id.items() if oid.startswith("v1$") and r["partition_field_event_date"] == dt.date(2025, 12, 10))
    assert admin.describe_namespace(f"{ns}.e", day.split("$")) == {"properties": {"partition.event_date": "2025-12-10"}}
    country = next(oid for oid, r in by_id.items() if oid.count("$") == 2 and r["partition_field_country"] == "US")
    year = country.rsplit("$", 1)[0]
    assert admin.describe_namespace(f"{ns}.e", year.split("$")) == {"properties": {"partition.event_date_year": "2025"}}
    assert admin.describe_namespace(f"{ns}.e", country.split("$")) == {"properties": {"partition.country": "US"}}
    with pytest.raises(lancepart.LancepartError, match=r"has no namespace \[v1, nope\]"):
        admin.describe_namespace(f"{ns}.e", ["v1", "nope"])


def test_partitions_metadata_table(spark, admin, events):
    rows = spark.sql(f"SELECT * FROM {events}.partitions ORDER BY object_id").collect()
    assert [f.name for f in spark.table(f"{events}.partitions").schema.fields] == [
        "spec_id", "event_date", "event_date_year", "country", "object_id", "location", "read_version",
        "row_count", "data_size_bytes", "indexes"]
    expected = {p["object_id"]: p for p in admin.partitions(events.split(".", 1)[1])}
    assert len(rows) == len(expected) == 4
    for r in rows:
        p = expected[r.object_id]
        assert (r.spec_id, r.location, r.read_version, r.row_count) == (
            p["spec_id"], p["location"], p["read_version"], p["row_count"])
        assert {k: getattr(r, k) for k in p["values"]} == p["values"]
        assert r.data_size_bytes > 0
        assert r.indexes == [] == p["indexes"]
    assert spark.sql(f"SELECT sum(row_count) AS n FROM {events}.partitions WHERE spec_id = 2").collect()[0].n == 2


@pytest.fixture
def single_spec(spark, ns):
    t = f"lance.{ns}.s"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, event_date DATE, country STRING) PARTITIONED BY (event_date, country)")
    spark.sql(f"INSERT INTO {t} VALUES (1, DATE'2025-12-10', 'US'), (2, DATE'2025-12-10', 'FR'), "
              "(3, DATE'2025-12-11', 'US'), (4, DATE'2025-12-10', 'US'), (5, NULL, 'FR')")
    return t


@pytest.mark.parametrize("table,where,expected", [
    ("single_spec", "", 5),
    ("single_spec", "WHERE event_date = DATE'2025-12-10'", 3),
    ("single_spec", "WHERE country = 'FR' AND event_date IS NULL", 1),
    ("single_spec", "WHERE country IN ('US', 'DE') OR event_date > DATE'2025-12-10'", 3),
    ("events", "", 5),                          # two spec versions
    ("events", "WHERE event_date IS NULL", 1),  # exact in both: identity (v1) and year (v2)
])
def test_count_star_is_answered_from_metadata(spark, root, ns, request, table, where, expected):
    t = request.getfixturevalue(table)
    query = f"SELECT count(*) FROM {t} {where}"
    plan = spark.sql(f"EXPLAIN {query}").collect()[0][0]
    assert "LocalTableScan" in plan and "BatchScan" not in plan, plan
    # Proof that no data file is read: remove them all; the count still comes from the manifests.
    for data_file in (root / ns / t.split(".")[-1]).glob("*_v*/data/*.lance"):
        data_file.unlink()
    assert spark.sql(query).collect()[0][0] == expected


def test_weak_count_star_follows_commits_of_other_clients(spark, root, ns, single_spec):
    """The row count lancepart recorded at its commit answers COUNT(*) only while it is of the leaf's
    latest version: not after another client appends or deletes, nor when the recorded version is
    tagged and the versions after it are cleaned up (it is then no longer followed by its successor)."""
    def count():
        return spark.sql(f"SELECT count(*) FROM {single_spec}").collect()[0][0]

    assert count() == 5
    location = spark.sql(f"SELECT location FROM {single_spec}.partitions "
                         "WHERE country = 'US' AND event_date = DATE'2025-12-10'").collect()[0][0]
    leaf = str(root / ns / "s" / location)
    ds = lance.dataset(leaf)
    recorded = ds.version
    ds.tags.create("kept", recorded)
    rows = ds.to_table()  # ids 1 and 4
    index = rows.schema.get_field_index("id")
    lance.write_dataset(rows.set_column(index, rows.schema.field(index), pa.array([100, 101], pa.int64())),
                        leaf, mode="append")
    assert count() == 7
    lance.dataset(leaf).delete("id = 100")
    assert count() == 6
    lance.dataset(leaf).cleanup_old_versions(older_than=dt.timedelta(0), delete_unverified=True,
                                             error_if_tagged_old_versions=False)
    assert [v["version"] for v in lance.dataset(leaf).versions()] == [recorded, recorded + 2]
    assert count() == 6


@pytest.mark.parametrize("where", ["WHERE id > 2", "WHERE event_date = DATE'2025-12-10'"])
def test_count_needing_row_filters_reads_data(spark, events, where):
    # id is no partition column; event_date is inexact for v2 (year(event_date)).
    query = f"SELECT count(*) FROM {events} {where}"
    assert "BatchScan" in spark.sql(f"EXPLAIN {query}").collect()[0][0]
    want = local_relation(spark, spark.table(events).collect(), spark.table(events).schema).where(where[6:]).count()
    assert spark.sql(query).collect()[0][0] == want
