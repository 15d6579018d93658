"""Namespace schema evolution: ADD, RENAME, DROP (removed from the schema, ids never reused) and widening ALTER COLUMN
TYPE; leaves are not rewritten by ALTER, reads follow the consistency rules, and writes align a
leaf before new rows land in it."""

import datetime as dt
import decimal
import json

import lance
import pyarrow as pa
import pytest
from pyspark.errors import AnalysisException

import lancepart
from conftest import local_relation, tables_scanned
from test_transactions import manifest, version_read


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


def test_a_column_another_client_added_to_one_partition_table_is_not_read_as_a_later_added_column(
        spark, root, ns, events):
    """pylance adds a column to one partition table only; Lance gives it the next field id of that
    table, the id the namespace's next ADD COLUMN takes. The new column reads NULL there and the
    other client's column stays as it is (regression: it was taken for a column another writer had
    renamed: ADD COLUMN renamed it to the new column's name, whose values it then read), in Spark
    and in crosscheck."""
    [leaf] = [d for d in leaves(root, ns) if d.to_table(columns=["id"])["id"].to_pylist() == [1]]
    leaf.add_columns({"extra": "CAST(id * 10 AS INT)"})
    spark.sql(f"ALTER TABLE {events} ADD COLUMN later INT")
    after = lance.dataset(leaf.uri)
    assert after.schema.names[-1] == "extra" and after.to_table(columns=["extra"])["extra"].to_pylist() == [10]
    lance_ids = {f.name(): f.id() for f in after.lance_schema.fields()}
    assert lance_ids["extra"] == int(schema_json(root, ns)["fields"][-1]["metadata"]["lance:field_id"]), \
        "the ids collide"
    assert sorted((r.id, r.later) for r in spark.table(events).collect()) == [(1, None), (2, None)]
    lancepart.crosscheck(spark, events)
    # a write into that partition table adds the new column beside the other client's
    spark.sql(f"INSERT INTO {events} VALUES (3, DATE'2025-12-10', 'US', 0.5, 7)")
    assert sorted((r.id, r.later) for r in spark.table(events).collect()) == [(1, None), (2, None), (3, 7)]
    assert lance.dataset(leaf.uri).to_table(columns=["id", "extra"]).to_pylist() == \
        [{"id": 1, "extra": 10}, {"id": 3, "extra": None}]
    lancepart.crosscheck(spark, events)


def test_dropped_column_is_not_readable_and_its_id_is_never_reused(spark, admin, root, ns, events):
    spark.sql(f"ALTER TABLE {events} DROP COLUMN amount")
    assert "amount" not in spark.table(events).columns
    with pytest.raises(AnalysisException):
        spark.sql(f"SELECT amount FROM {events}").collect()
    # other readers see the column gone: the schema lists the live columns only, and keeps the
    # largest id ever used in its metadata
    stored = schema_json(root, ns)
    assert [f["name"] for f in stored["fields"]] == ["id", "event_date", "country"]
    assert stored["metadata"] == {"lancepart:max_field_id": "3"}
    spark.sql(f"ALTER TABLE {events} ADD COLUMN amount DOUBLE")
    assert [r.amount for r in spark.table(events).collect()] == [None, None]  # not the dropped values
    # nor for readers of the partition tables matching columns by name: the old column stepped aside
    for leaf in leaves(root, ns):
        assert leaf.schema.names == ["id", "event_date", "country", "amount_deprecated_3"]
    assert schema_json(root, ns)["fields"][-1]["metadata"]["lance:field_id"] == "4"
    spark.sql(f"INSERT INTO {events} VALUES (3, DATE'2025-12-10', 'US', 9.0)")
    assert sorted((r.id, r.amount) for r in spark.table(events).collect()) == [(1, None), (2, None), (3, 9.0)]
    lancepart.crosscheck(spark, events)


def test_widened_column_reads_old_partitions_and_takes_wide_values(spark, root, ns, events):
    spark.sql(f"ALTER TABLE {events} ALTER COLUMN id TYPE BIGINT")
    spark.sql(f"ALTER TABLE {events} ALTER COLUMN amount TYPE DOUBLE")
    assert spark.table(events).schema["id"].dataType.simpleString() == "bigint"
    assert sorted((r.id, r.amount) for r in spark.table(events).collect()) == [(1, 1.5), (2, 2.5)]
    # a new partition stores the wide type; an old one is rewritten in it
    spark.sql(f"INSERT INTO {events} VALUES (5000000000, DATE'2026-01-01', 'US', 1e300), (3, DATE'2025-12-10', 'US', 0.25)")
    assert sorted((r.id, r.amount) for r in spark.table(events).collect()) == [
        (1, 1.5), (2, 2.5), (3, 0.25), (5000000000, 1e300)]
    lancepart.crosscheck(spark, events)


def partition_tables(spark, t):
    """Partition value of p -> (object id, location) of its partition table."""
    return {r.p: (r.object_id, r.location) for r in spark.table(f"{t}.partitions").collect()}


def same_rows(spark, t, expected):
    back = spark.table(t)
    assert back.schema == expected.schema
    assert back.exceptAll(expected).count() == 0 and expected.exceptAll(back).count() == 0


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_wide_values_go_into_partitions_written_before_the_widening(spark, ns, mode):
    # lance-core cannot widen a partition table's column in place: a write into a partition whose
    # table is narrower rewrites it (its rows widened, then the new ones) as a new partition table
    # under the same object id; later writes append to that one
    t = f"lance.{ns}.w"
    spark.sql(f"CREATE TABLE {t} (id INT, p STRING, dec DECIMAL(10, 2), f FLOAT) PARTITIONED BY (p) "
              f"TBLPROPERTIES ('transaction.mode' = '{mode}')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 12345678.91, 0.5), (2, 'a', NULL, NULL), (-2147483648, 'b', -0.01, 1.5), "
              f"(4, 'c', 1.00, -2.0)")
    for column, wide in [("id", "BIGINT"), ("dec", "DECIMAL(20, 2)"), ("f", "DOUBLE")]:
        spark.sql(f"ALTER TABLE {t} ALTER COLUMN {column} TYPE {wide}")
    before = partition_tables(spark, t)
    spark.sql(f"INSERT INTO {t} VALUES (5000000000, 'a', 123456789012345678.91, 0.1D), (6, 'b', 1.25, 3.5)")
    rewritten = partition_tables(spark, t)
    for p in ["a", "b"]:  # same partition, new partition table (b's new row fits its old types: rewritten too)
        assert rewritten[p][0] == before[p][0] and rewritten[p][1] != before[p][1]
    assert rewritten["c"] == before["c"]
    spark.sql(f"INSERT INTO {t} VALUES (6000000000, 'a', 99999999999999.99, 1e300)")
    assert partition_tables(spark, t) == rewritten  # a plain append: no second rewrite
    expected = local_relation(spark, [
        (1, "a", decimal.Decimal("12345678.91"), 0.5), (2, "a", None, None),
        (-2147483648, "b", decimal.Decimal("-0.01"), 1.5), (4, "c", decimal.Decimal("1.00"), -2.0),
        (5000000000, "a", decimal.Decimal("123456789012345678.91"), 0.1), (6, "b", decimal.Decimal("1.25"), 3.5),
        (6000000000, "a", decimal.Decimal("99999999999999.99"), 1e300),
    ], "id BIGINT, p STRING, dec DECIMAL(20, 2), f DOUBLE")
    same_rows(spark, t, expected)
    assert spark.table(t).where("p = 'c'").collect() == expected.where("p = 'c'").collect()
    lancepart.crosscheck(spark, t)


def test_strong_mode_rewrites_a_partition_that_predates_add_column(spark, ns):
    # a strong-mode write appends at a partition table's read_version and does not alter it there (the
    # RENAME renamed both tables itself; the added column makes the write rewrite a)
    t = f"lance.{ns}.s"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING, v INT) PARTITIONED BY (p) TBLPROPERTIES ('transaction.mode' = 'strong')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 10), (2, 'b', 20)")
    spark.sql(f"ALTER TABLE {t} ADD COLUMN note STRING")
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN v TO value")
    before = partition_tables(spark, t)
    spark.sql(f"INSERT INTO {t} VALUES (3, 'a', 30, 'new')")
    rewritten = partition_tables(spark, t)
    assert rewritten["a"][0] == before["a"][0] and rewritten["a"][1] != before["a"][1]
    assert rewritten["b"] == before["b"]
    spark.sql(f"INSERT INTO {t} VALUES (4, 'a', 40, NULL)")
    assert partition_tables(spark, t) == rewritten
    expected = local_relation(spark, [(1, "a", 10, None), (2, "b", 20, None), (3, "a", 30, "new"), (4, "a", 40, None)],
                              "id BIGINT, p STRING, value INT, note STRING")
    same_rows(spark, t, expected)
    lancepart.crosscheck(spark, t)


def test_a_rewrite_is_not_combined_with_deleting_rows_from_the_partition(spark, ns):
    # INSERT INTO ... REPLACE WHERE on a non-partition column deletes rows in the partition table;
    # the rewrite copied them, so the write is refused at commit and changes nothing
    t = f"lance.{ns}.r"
    spark.sql(f"CREATE TABLE {t} (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'a')")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN id TYPE BIGINT")
    with pytest.raises(Exception, match=r"must be rewritten .* cannot combine with deleting rows from it"):
        spark.sql(f"INSERT INTO {t} REPLACE WHERE id = 2 VALUES (5000000000, 'a')")
    assert sorted(r.id for r in spark.table(t).collect()) == [1, 2]
    spark.sql(f"DELETE FROM {t} WHERE id = 2")
    spark.sql(f"INSERT INTO {t} VALUES (5000000000, 'a')")
    assert sorted(r.id for r in spark.table(t).collect()) == [1, 5000000000]
    lancepart.crosscheck(spark, t)


@pytest.mark.parametrize("statement,message", [
    # Spark checks these two itself; its messages name the table, column and types.
    ("ALTER TABLE {t} ALTER COLUMN amount TYPE INT", r"NOT_SUPPORTED_CHANGE_COLUMN.*`amount` with type \"FLOAT\" to `amount` with type \"INT\""),
    ("ALTER TABLE {t} DROP COLUMN event_date", r"column 'event_date' is a source of partition field\(s\) event_date"),
    ("ALTER TABLE {t} ADD COLUMN country STRING", r"already exists"),
    ("ALTER TABLE {t} RENAME COLUMN country TO id", r"FIELDS?_ALREADY_EXISTS.*`id` already exists"),
    ("ALTER TABLE {t} ALTER COLUMN amount TYPE DECIMAL(10, 2)", r"NOT_SUPPORTED_CHANGE_COLUMN|cannot change from FLOAT"),
])
def test_bad_schema_changes_fail_and_change_nothing(spark, root, ns, events, statement, message):
    before = lance.dataset(str(root / ns / "e" / "__manifest"))
    with pytest.raises(Exception, match=message):
        spark.sql(statement.format(t=events))
    after = lance.dataset(str(root / ns / "e" / "__manifest"))
    assert (after.version, after.metadata) == (before.version, before.metadata)


def test_drop_not_null_on_a_nullable_column_changes_nothing(spark, root, ns, events):
    """As with Iceberg; it failed with "ALTER TABLE change UpdateColumnNullability is not supported"."""
    before = lance.dataset(str(root / ns / "e" / "__manifest"))
    spark.sql(f"ALTER TABLE {events} ALTER COLUMN amount DROP NOT NULL")
    after = lance.dataset(str(root / ns / "e" / "__manifest"))
    assert (after.version, after.metadata) == (before.version, before.metadata)
    spark.sql(f"CREATE TABLE lance.{ns}.nn (id BIGINT NOT NULL, p STRING) PARTITIONED BY (p)")
    with pytest.raises(Exception, match=rf"table lance\.{ns}\.nn: column 'id' is NOT NULL, and making it nullable is not supported"):
        spark.sql(f"ALTER TABLE lance.{ns}.nn ALTER COLUMN id DROP NOT NULL")
    assert not spark.table(f"lance.{ns}.nn").schema["id"].nullable


def test_new_specs_may_not_use_a_dropped_column(spark, admin, ns, events):
    spark.sql(f"ALTER TABLE {events} DROP COLUMN country")
    with pytest.raises(lancepart.LancepartError, match=r"PARTITIONED BY column 'country' is not a column"):
        admin.evolve_partition_spec(f"{ns}.e", ["country"])


def test_widening_a_hashed_column_is_refused_and_changes_nothing(spark, root, ns):
    # bucket hashes an int as 4 bytes and a bigint as 8 (issue 16): widening would move every
    # row's bucket, so rows already written would be pruned away. A decimal's precision may grow:
    # its hashed display string keeps the scale.
    t = f"lance.{ns}.h"
    spark.sql(f"CREATE TABLE {t} (id INT, n INT, dec DECIMAL(6, 2)) PARTITIONED BY (bucket(4, n), bucket(2, id, n), bucket(3, dec))")
    spark.sql(f"INSERT INTO {t} VALUES (1, 10, 1.50), (2, 20, -2.25)")
    before = lance.dataset(str(root / ns / "h" / "__manifest"))
    with pytest.raises(Exception, match=rf"table lance\.{ns}\.h: column 'n' cannot change from INT to BIGINT: "
                                        r"it is hashed by partition field\(s\) n_bucket_4, id_n_bucket_2"):
        spark.sql(f"ALTER TABLE {t} ALTER COLUMN n TYPE BIGINT")
    after = lance.dataset(str(root / ns / "h" / "__manifest"))
    assert (after.version, after.metadata) == (before.version, before.metadata)
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN dec TYPE DECIMAL(10, 2)")
    assert spark.sql(f"SELECT id FROM {t} WHERE n = 20 AND dec = -2.25").collect() == [(2,)]


def test_dropping_the_source_of_an_older_spec_keeps_its_partitions_readable(spark, admin, root, ns, events):
    """Requirement 4: a spec field whose source left the schema reads as NULL; the table stays
    readable and writable, and old partitions are still read (never pruned on a lost column)."""
    admin.evolve_partition_spec(f"{ns}.e", ["country"])
    spark.sql(f"INSERT INTO {events} VALUES (3, DATE'2025-12-12', 'JP', 3.5)")
    spark.sql(f"ALTER TABLE {events} DROP COLUMN event_date")
    assert [f["name"] for f in schema_json(root, ns)["fields"]] == ["id", "country", "amount"]
    assert sorted(tuple(r) for r in spark.table(events).collect()) == [(1, "US", 1.5), (2, "FR", 2.5), (3, "JP", 3.5)]
    spark.sql(f"INSERT INTO {events} VALUES (4, 'US', 4.5)")
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {events} WHERE country = 'US'").collect()) == [1, 4]
    assert tables_scanned(spark, f"SELECT id FROM {events} WHERE country = 'US'") == (3, 4)
    lancepart.crosscheck(spark, events)



def namespace_ids(fields, prefix=""):
    """Field path to `lance:field_id` of the namespace schema's JSON fields, nested ones included."""
    ids = {}
    for f in fields:
        path = prefix + f["name"]
        ids[path] = int(f["metadata"]["lance:field_id"])
        ids.update(namespace_ids(f["type"].get("fields", []), path + "."))
    return ids


def leaf_ids(fields, prefix=""):
    """Field path to Lance field id of a partition table's Lance schema."""
    ids = {}
    for f in fields:
        path = prefix + f.name()
        ids[path] = f.id()
        ids.update(leaf_ids(f.children(), path + "."))
    return ids


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_partition_tables_carry_the_namespace_field_ids_after_drop_and_add_column(spark, root, ns, mode):
    """Spec: field ids "must remain consistent across partition tables". A partition table created
    after DROP COLUMN b + ADD COLUMN e has Lance field ids c=3, e=7 (not 2 and 3), and rows appended
    to it later name the same ids, so a reader that maps leaf columns by field id reads them right."""
    t = f"lance.{ns}.e"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, a STRING, b STRING, c STRING, s STRUCT<x: INT, y: STRING>) "
              f"PARTITIONED BY (a) TBLPROPERTIES ('transaction.mode' = '{mode}')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'old', 'b1', 'c1', named_struct('x', 1, 'y', 'y1'))")
    spark.sql(f"ALTER TABLE {t} DROP COLUMN b")
    spark.sql(f"ALTER TABLE {t} ADD COLUMN e STRING")
    spark.sql(f"INSERT INTO {t} VALUES (2, 'new', 'c2', named_struct('x', 2, 'y', 'y2'), 'e2')")
    spark.sql(f"INSERT INTO {t} VALUES (3, 'new', 'c3', named_struct('x', 3, 'y', 'y3'), 'e3'), "
              f"(4, 'old', 'c4', named_struct('x', 4, 'y', 'y4'), 'e4')")
    expected = namespace_ids(schema_json(root, ns)["fields"])
    assert (expected["c"], expected["s.x"], expected["e"]) == (3, 5, 7), expected
    inserted = {1: {"c": "c1", "s": {"x": 1, "y": "y1"}, "e": None}}
    inserted.update({i: {"c": f"c{i}", "s": {"x": i, "y": f"y{i}"}, "e": f"e{i}"} for i in (2, 3, 4)})
    assert_leaves_read_by_field_id(spark, root, ns, t, ("id", "c", "s", "s.x", "s.y", "e"), inserted, leaves=2)


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_columns_a_write_adds_to_an_older_partition_table_take_the_namespace_field_ids(spark, root, ns, mode):
    """x (id 3) added and dropped before the partition table had it: d (4) and x (5) added later
    reach it at the next write with ids 4 and 5, not Lance's next free 3 and 4 (x's read as d's)."""
    t = f"lance.{ns}.e"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, a STRING, b STRING) PARTITIONED BY (a) "
              f"TBLPROPERTIES ('transaction.mode' = '{mode}')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'q', 'b1')")
    for statement in ("ADD COLUMN x STRING", "DROP COLUMN x", "ADD COLUMN d STRING", "ADD COLUMN x INT"):
        spark.sql(f"ALTER TABLE {t} {statement}")
    spark.sql(f"INSERT INTO {t} VALUES (2, 'q', 'b2', 'd2', 22)")
    expected = namespace_ids(schema_json(root, ns)["fields"])
    assert (expected["d"], expected["x"]) == (4, 5), expected
    inserted = {1: {"b": "b1", "d": None, "x": None}, 2: {"b": "b2", "d": "d2", "x": 22}}
    assert_leaves_read_by_field_id(spark, root, ns, t, ("id", "b", "d", "x"), inserted, leaves=1)


def assert_leaves_read_by_field_id(spark, root, ns, t, columns, inserted, leaves):
    """Every partition table that readers read has the namespace's field ids for ``columns``, and
    reading each top-level one by field id, as a spec reader does, gives the ``inserted`` values
    (by row id), as Spark does."""
    expected = namespace_ids(schema_json(root, ns)["fields"])
    assert {r.id: {c: r.asDict(recursive=True)[c] for c in inserted[r.id]} for r in spark.table(t).collect()} == inserted
    rows = manifest(root, ns, "e").to_table(filter="object_type = 'table'").to_pylist()
    assert len(rows) == leaves
    read = {}
    for r in rows:
        leaf = lance.dataset(str(root / ns / "e" / r["location"]), version=version_read(root, ns, r, "e"))
        ids = leaf_ids(leaf.lance_schema.fields())
        assert {path: ids.get(path) for path in columns} == {path: expected[path] for path in columns}, leaf.uri
        by_id = {i: path for path, i in ids.items() if "." not in path}
        for row in leaf.to_table().to_pylist():
            read[row[by_id[expected["id"]]]] = {name: row[by_id[expected[name]]] for name in inserted[row["id"]]}
    assert read == inserted


def test_a_column_lance_cannot_describe_in_some_partition_tables_stops_only_the_reads_of_it(spark, root, ns):
    """Regression: reading partition tables through one scan asked each one's Lance schema, which
    lance-core refuses to describe when a column is dictionary-encoded (as pylance writes a pandas
    categorical), and failed queries that do not read that column."""
    t = f"lance.{ns}.cats"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING, d STRING) PARTITIONED BY (p)")
    # partitions enough that their tables are read through one scan (at least 16 left in a split)
    spark.sql(f"INSERT INTO {t} SELECT id, CAST(id % 40 AS STRING), CAST(id AS STRING) FROM range(80)")
    manifest_rows = lance.dataset(str(root / ns / "cats" / "__manifest")).to_table(
        filter="object_type = 'table'").to_pylist()
    for row in manifest_rows:
        p = row["partition_field_p"]
        if p in ("0", "1"):
            ids = [i for i in range(80) if i % 40 == int(p)]
            data = pa.table({"id": pa.array(ids, pa.int64()), "p": pa.array([p] * len(ids)),
                             "d": pa.array([str(i) for i in ids]).dictionary_encode()})
            lance.write_dataset(data, str(root / ns / "cats" / row["location"]), mode="overwrite")
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {t}").collect()) == list(range(80))
    assert spark.sql(f"SELECT count(*) FROM {t} WHERE id > 9").first()[0] == 70
