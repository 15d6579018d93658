"""Namespace schema evolution: ADD, RENAME, DROP (kept as deprecated) and widening ALTER COLUMN
TYPE; leaves are not rewritten by ALTER, reads follow the consistency rules, and writes align a
leaf before new rows land in it."""

import datetime as dt
import decimal
import json

import lance
import pytest
from pyspark.errors import AnalysisException

import lancepart
from conftest import tables_scanned


def schema_json(root, ns, table="e"):
    return json.loads(lance.dataset(str(root / ns / table / "__manifest")).metadata["schema"])


def leaves(root, ns, table="e"):
    return [lance.dataset(str(p)) for p in (root / ns / table).iterdir() if p.name != "__manifest"]


@pytest.fixture
def events(spark, ns):
    t = f"lance.{ns}.e"
    spark.sql(f"CREATE TABLE {t} (id INT, event_date DATE, country STRING, amount FLOAT) PARTITIONED BY (event_date)")
    spark.sql(f"INSERT INTO {t} VALUES (1, DATE'2025-12-10', 'US', 1.5), (2, DATE'2025-12-11', 'FR', 2.5)")
    return t


def test_rename_a_source_column_then_prune_and_write(spark, root, ns, events):
    spark.sql(f"ALTER TABLE {events} RENAME COLUMN event_date TO day")
    assert [f.name for f in spark.table(events).schema.fields] == ["id", "day", "country", "amount"]
    query = f"SELECT id FROM {events} WHERE day = DATE'2025-12-10'"
    assert tables_scanned(spark, query) == (1, 2)
    assert [r.id for r in spark.sql(query).collect()] == [1]
    spark.sql(f"INSERT INTO {events} VALUES (3, DATE'2025-12-10', 'DE', 3.5), (4, DATE'2025-12-12', 'JP', 4.5)")
    assert sorted((r.id, r.day) for r in spark.table(events).collect()) == [
        (1, dt.date(2025, 12, 10)), (2, dt.date(2025, 12, 11)), (3, dt.date(2025, 12, 10)), (4, dt.date(2025, 12, 12))]
    assert sorted(r.id for r in spark.sql(query).collect()) == [1, 3]
    lancepart.crosscheck(spark, events)
    ids = [f["metadata"]["lance:field_id"] for f in schema_json(root, ns)["fields"]]
    assert ids == ["0", "1", "2", "3"]  # the rename kept the id, so the spec still points at it


def test_added_column_reads_null_in_old_partitions_and_lands_in_them(spark, root, ns, events):
    before = {d.uri: d.version for d in leaves(root, ns)}
    spark.sql(f"ALTER TABLE {events} ADD COLUMN note STRING")
    assert {d.uri: d.version for d in leaves(root, ns)} == before  # ALTER rewrote no leaf
    assert [f["metadata"]["lance:field_id"] for f in schema_json(root, ns)["fields"]][-1] == "4"
    assert sorted((r.id, r.note) for r in spark.table(events).collect()) == [(1, None), (2, None)]
    spark.sql(f"INSERT INTO {events} VALUES (3, DATE'2025-12-10', 'US', 0.5, 'new')")
    assert sorted((r.id, r.note) for r in spark.table(events).collect()) == [(1, None), (2, None), (3, "new")]
    lancepart.crosscheck(spark, events)


def test_dropped_column_is_not_readable_and_its_id_is_never_reused(spark, admin, root, ns, events):
    spark.sql(f"ALTER TABLE {events} DROP COLUMN amount")
    assert "amount" not in spark.table(events).columns
    with pytest.raises(AnalysisException):
        spark.sql(f"SELECT amount FROM {events}").collect()
    dropped = next(f for f in schema_json(root, ns)["fields"] if f["name"] == "amount")
    assert dropped["metadata"] == {"lance:field_id": "3", "lancepart:deprecated": "true"}
    spark.sql(f"ALTER TABLE {events} ADD COLUMN amount DOUBLE")
    assert [r.amount for r in spark.table(events).collect()] == [None, None]  # not the dropped values
    assert schema_json(root, ns)["fields"][-1]["metadata"]["lance:field_id"] == "4"
    spark.sql(f"INSERT INTO {events} VALUES (3, DATE'2025-12-10', 'US', 9.0)")
    assert sorted((r.id, r.amount) for r in spark.table(events).collect()) == [(1, None), (2, None), (3, 9.0)]
    lancepart.crosscheck(spark, events)


def test_widened_column_reads_old_partitions_and_takes_wide_values(spark, root, ns, events):
    spark.sql(f"ALTER TABLE {events} ALTER COLUMN id TYPE BIGINT")
    spark.sql(f"ALTER TABLE {events} ALTER COLUMN amount TYPE DOUBLE")
    assert spark.table(events).schema["id"].dataType.simpleString() == "bigint"
    assert sorted((r.id, r.amount) for r in spark.table(events).collect()) == [(1, 1.5), (2, 2.5)]
    # a new partition stores the wide type; an old one takes values that fit its narrower column
    spark.sql(f"INSERT INTO {events} VALUES (5000000000, DATE'2026-01-01', 'US', 1e300), (3, DATE'2025-12-10', 'US', 0.25)")
    assert sorted((r.id, r.amount) for r in spark.table(events).collect()) == [
        (1, 1.5), (2, 2.5), (3, 0.25), (5000000000, 1e300)]
    lancepart.crosscheck(spark, events)
    manifest_version = lance.dataset(str(root / ns / "e" / "__manifest")).version
    with pytest.raises(Exception, match=r"stores column 'id' as INT; the value 6000000000 of the widened namespace "
                                        r"column does not fit it.*dynamic INSERT OVERWRITE"):
        spark.sql(f"INSERT INTO {events} VALUES (6000000000, DATE'2025-12-10', 'US', 1.0)")
    assert lance.dataset(str(root / ns / "e" / "__manifest")).version == manifest_version
    assert 6000000000 not in [r.id for r in spark.table(events).collect()]


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_dynamic_overwrite_puts_wide_values_into_an_old_partition(spark, ns, mode):
    # the remedy the refusal above names: the partition's rows and the new ones, rewritten in the
    # namespace's types; later writes then take wide values too
    t = f"lance.{ns}.w"
    spark.sql(f"CREATE TABLE {t} (id INT, p STRING, dec DECIMAL(5, 2), f FLOAT) PARTITIONED BY (p) "
              f"TBLPROPERTIES ('transaction.mode' = '{mode}')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 123.45, 0.5), (2, 'a', NULL, NULL), (3, 'b', -0.01, 1.5)")
    for column, wide in [("id", "BIGINT"), ("dec", "DECIMAL(20, 2)"), ("f", "DOUBLE")]:
        spark.sql(f"ALTER TABLE {t} ALTER COLUMN {column} TYPE {wide}")
    new_row = "SELECT 5000000000, 'a', 123456789012345678.91BD, 0.1D"
    with pytest.raises(Exception, match=r"does not fit it.*dynamic INSERT OVERWRITE"):
        spark.sql(f"INSERT INTO {t} {new_row}")
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        spark.sql(f"INSERT OVERWRITE {t} SELECT * FROM {t} WHERE p = 'a' UNION ALL {new_row}")
    finally:
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    spark.sql(f"INSERT INTO {t} VALUES (6000000000, 'a', 1.25, 1e300)")
    expected = spark.createDataFrame([
        (1, "a", decimal.Decimal("123.45"), 0.5), (2, "a", None, None), (3, "b", decimal.Decimal("-0.01"), 1.5),
        (5000000000, "a", decimal.Decimal("123456789012345678.91"), 0.1), (6000000000, "a", decimal.Decimal("1.25"), 1e300),
    ], "id BIGINT, p STRING, dec DECIMAL(20, 2), f DOUBLE")
    back = spark.table(t)
    assert back.schema == expected.schema
    assert back.exceptAll(expected).count() == 0 and expected.exceptAll(back).count() == 0
    lancepart.crosscheck(spark, t)


@pytest.mark.parametrize("statement,message", [
    # Spark checks these two itself; its messages name the table, column and types.
    ("ALTER TABLE {t} ALTER COLUMN amount TYPE INT", r"NOT_SUPPORTED_CHANGE_COLUMN.*`amount` with type \"FLOAT\" to `amount` with type \"INT\""),
    ("ALTER TABLE {t} DROP COLUMN event_date", r"column 'event_date' is a source of partition field\(s\) event_date"),
    ("ALTER TABLE {t} ADD COLUMN country STRING", r"already exists"),
    ("ALTER TABLE {t} RENAME COLUMN country TO id", r"FIELD_ALREADY_EXISTS.*`id` already exists"),
    ("ALTER TABLE {t} ALTER COLUMN amount TYPE DECIMAL(10, 2)", r"NOT_SUPPORTED_CHANGE_COLUMN|cannot change from FLOAT"),
])
def test_bad_schema_changes_fail_and_change_nothing(spark, root, ns, events, statement, message):
    before = lance.dataset(str(root / ns / "e" / "__manifest"))
    with pytest.raises(Exception, match=message):
        spark.sql(statement.format(t=events))
    after = lance.dataset(str(root / ns / "e" / "__manifest"))
    assert (after.version, after.metadata) == (before.version, before.metadata)


def test_new_specs_may_not_use_a_dropped_column(spark, admin, ns, events):
    spark.sql(f"ALTER TABLE {events} DROP COLUMN country")
    with pytest.raises(lancepart.LancepartError, match=r"PARTITIONED BY column 'country' is not a column"):
        admin.evolve_partition_spec(f"{ns}.e", ["country"])
