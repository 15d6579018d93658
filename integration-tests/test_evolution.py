"""Partition-spec evolution (spec: Partition Evolution, Field ID Reuse): new versions, writes with
the newest spec, reads and pruning across every version, and evolutions that must fail."""

import datetime as dt

import lance
import pytest

import lancepart
from conftest import tables_scanned


def manifest(root, ns, table="e"):
    return lance.dataset(str(root / ns / table / "__manifest"))


@pytest.fixture
def evolved(spark, ns):
    """Daily identity partitions (v1), then (year, country) (v2) through the SQL procedure."""
    t = f"lance.{ns}.e"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, event_date DATE, country STRING) PARTITIONED BY (event_date)")
    spark.sql(f"INSERT INTO {t} VALUES (1, DATE'2025-12-10', 'US'), (2, DATE'2025-12-10', 'FR'), "
              "(3, DATE'2025-12-11', 'US')")
    result = spark.sql(f"CALL lance.system.evolve_partition_spec(table => '{ns}.e', "
                       "fields => array('years(event_date)', 'country'))").collect()
    assert result[0].spec_id == 2
    spark.sql(f"INSERT INTO {t} VALUES (4, DATE'2025-12-10', 'US'), (5, DATE'2025-03-01', 'FR'), "
              "(6, DATE'2026-01-01', 'US'), (7, NULL, NULL)")
    return t


def test_new_writes_use_the_new_spec_and_reads_span_both(spark, admin, root, ns, evolved):
    parts = admin.partitions(f"{ns}.e")
    assert sorted(repr((p["spec_id"], p["values"])) for p in parts) == sorted(repr(v) for v in [
        (1, {"event_date": dt.date(2025, 12, 10)}), (1, {"event_date": dt.date(2025, 12, 11)}),
        (2, {"event_date_year": 2025, "country": "US"}), (2, {"event_date_year": 2025, "country": "FR"}),
        (2, {"event_date_year": 2026, "country": "US"}), (2, {"event_date_year": None, "country": None})])
    assert sorted(r.id for r in spark.table(evolved).collect()) == [1, 2, 3, 4, 5, 6, 7]
    m = manifest(root, ns)
    assert {"partition_field_event_date", "partition_field_event_date_year", "partition_field_country"} <= set(m.schema.names)
    assert "partition_spec_v2" in m.metadata
    assert lancepart.crosscheck(spark, evolved)["tables"] == 6


@pytest.mark.parametrize("predicate,tables,ids", [
    ("event_date = DATE'2025-12-10' AND country = 'US'", 2, [1, 4]),   # the spec's example
    ("event_date = DATE'2025-12-10'", 3, [1, 2, 4]),
    ("country = 'FR'", 3, [2, 5]),                                      # v1 cannot prune on country
    ("event_date >= DATE'2026-01-01'", 1, [6]),
    ("event_date IS NULL", 1, [7]),
])
def test_pruning_handles_each_version_with_its_own_spec(spark, evolved, predicate, tables, ids):
    query = f"SELECT id FROM {evolved} WHERE {predicate}"
    assert tables_scanned(spark, query) == (tables, 6)
    assert sorted(r.id for r in spark.sql(query).collect()) == ids


def test_field_ids_are_reused_for_the_same_definition_only(admin, ns, evolved):
    described = admin.evolve_partition_spec(f"{ns}.e", ["event_date", "bucket(4, country)"])
    assert described["current_spec_id"] == 3
    v3 = described["specs"]["3"]["fields"]
    assert [f["field_id"] for f in v3] == ["event_date", "country_bucket_4"]
    again = admin.evolve_partition_spec(f"{ns}.e", [
        {"field_id": "cc", "expression": "lower(col0)", "sources": ["country"], "result_type": "string"},
        "years(event_date)"])
    assert [f["field_id"] for f in again["specs"]["4"]["fields"]] == ["cc", "event_date_year"]


@pytest.mark.parametrize("fields,message", [
    (["nope"], r"PARTITIONED BY column 'nope' is not a column of the table"),
    ([{"field_id": "country", "expression": "upper(col0)", "sources": ["country"], "result_type": "string"}],
     r"field_id 'country' already names identity\(source 2\) in partition_spec_v2; a field_id is never reused"),
    ([{"field_id": "cy", "expression": "col0 * 2", "sources": ["country"], "result_type": "int"}],
     r"field 'cy': expression 'col0 \* 2' over \(STRING\) as INT: .*Cannot coerce arithmetic expression Utf8 \* Int64"),
    (["hours(event_date)"], r"transform 'hour' does not apply to DATE"),
    (["bucket(0, id)"], r"'bucket\(0, id\)' needs a positive number of buckets"),
])
def test_failed_evolutions_change_nothing(admin, root, ns, evolved, fields, message):
    before = manifest(root, ns)
    version, metadata = before.version, dict(before.metadata)
    with pytest.raises(lancepart.LancepartError, match=message):
        admin.evolve_partition_spec(f"{ns}.e", fields)
    after = manifest(root, ns)
    assert (after.version, dict(after.metadata)) == (version, metadata)
