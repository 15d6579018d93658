"""RENAME COLUMN keeps partition tables consistent with the namespace schema (spec: Schema): every
leaf's column is renamed too, a metadata-only Lance commit (published as the row's read_version in
strong mode), so pylance and a reader following the spec see the new name with the old data; and
renames another writer has not yet carried into every leaf are followed by field id."""

import datetime as dt
import json

import lance
import pytest

import lancepart
from conftest import tables_scanned
from handwritten import read_by_hand, write_by_hand


def read_leaves(table_dir):
    """(manifest row, the leaf as readers read it: at read_version, else latest) of every table row."""
    rows = lance.dataset(f"{table_dir}/__manifest").to_table(filter="object_type = 'table'").to_pylist()
    return [(r, lance.dataset(f"{table_dir}/{r['location']}", version=r.get("read_version"))) for r in rows]


def ids(ds):
    return {f.name(): f.id() for f in ds.lance_schema.fields()}


def rows_by_hand(table_dir, *columns):
    return sorted(tuple(r[c] for c in columns) for r in read_by_hand(table_dir))


def rename_schema_by_hand(table_dir, old, new):
    """Renames namespace column ``old`` in the ``schema`` property, as another writer would."""
    manifest = lance.dataset(f"{table_dir}/__manifest")
    schema = json.loads(manifest.metadata["schema"])
    for f in schema["fields"]:
        if f["name"] == old:
            f["name"] = new
    manifest.update_metadata({"schema": json.dumps(schema)})


def created(spark, root, ns, mode, values):
    """Table lance.<ns>.r (id BIGINT, p STRING, v INT) partitioned by p in `mode`, holding `values`;
    returns its name and directory."""
    t = f"lance.{ns}.r"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING, v INT) PARTITIONED BY (p) "
              f"TBLPROPERTIES ('transaction.mode' = '{mode}')")
    spark.sql(f"INSERT INTO {t} VALUES {values}")
    return t, root / ns / "r"


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_rename_renames_the_column_in_every_partition_table(spark, root, ns, mode):
    t, table_dir = created(spark, root, ns, mode, "(1, 'a', 10), (2, 'b', 20), (3, 'c', NULL)")
    before = {r["object_id"]: r["location"] for r, _ in read_leaves(table_dir)}
    mains = {r["location"]: lance.dataset(f"{table_dir}/{r['location']}").version for r, _ in read_leaves(table_dir)}
    renamed_at = lance.dataset(f"{table_dir}/__manifest").version
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN v TO value")

    leaves = read_leaves(table_dir)
    assert len(leaves) == 3
    for row, ds in leaves:
        # the same leaf, the same Lance field ids (a metadata-only rename), the new name
        assert row["location"] == before[row["object_id"]] and ids(ds) == {"id": 0, "p": 1, "value": 2}
        assert ds.schema.field("value").metadata == {b"lancepart:field_id": b"2"}
    assert sorted((x["id"], x["value"]) for _, ds in leaves for x in ds.to_table().to_pylist()) == \
        [(1, 10), (2, 20), (3, None)]
    assert rows_by_hand(table_dir, "id", "p", "value") == [(1, "a", 10), (2, "b", 20), (3, "c", None)]
    assert sorted(tuple(r) for r in spark.table(t).collect()) == [(1, "a", 10), (2, "b", 20), (3, "c", None)]
    lancepart.crosscheck(spark, t)
    manifest = lance.dataset(f"{table_dir}/__manifest").to_table().to_pylist()
    if mode == "weak":  # renamed on the main branch, which readers read
        assert all(r.get("read_version") is None for r, _ in leaves)
        assert all(lance.dataset(f"{table_dir}/{loc}").version == v + 1 for loc, v in mains.items())
    else:  # a detached version each, published with a table_version row; main untouched
        assert all(lance.dataset(f"{table_dir}/{loc}").version == v for loc, v in mains.items())
        records = {(r["location"], r["read_version"]) for r in manifest if r["object_type"] == "table_version"}
        assert all((r["location"], r["read_version"]) in records for r, _ in leaves)
        old = spark.sql(f"SELECT * FROM {t} VERSION AS OF {renamed_at}")
        assert old.columns == ["id", "p", "v"]  # the schema and leaf versions of then
        assert sorted(tuple(r) for r in old.collect()) == [(1, "a", 10), (2, "b", 20), (3, "c", None)]


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_rename_then_insert_appends_to_the_renamed_partition_tables(spark, root, ns, mode):
    t, table_dir = created(spark, root, ns, mode, "(1, 'a', 10), (2, 'b', 20)")
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN v TO value")
    locations = {r.p: r.location for r in spark.table(f"{t}.partitions").collect()}
    spark.sql(f"INSERT INTO {t} VALUES (3, 'a', 30), (4, 'c', 40)")
    after = {r.p: r.location for r in spark.table(f"{t}.partitions").collect()}
    assert {p: after[p] for p in locations} == locations  # appended to, not rewritten (strong mode too)
    assert all(ds.schema.names == ["id", "p", "value"] for _, ds in read_leaves(table_dir))
    expected = [(1, "a", 10), (2, "b", 20), (3, "a", 30), (4, "c", 40)]
    assert sorted(tuple(r) for r in spark.table(t).collect()) == expected
    assert rows_by_hand(table_dir, "id", "p", "value") == expected
    lancepart.crosscheck(spark, t)


def test_rename_of_partition_source_columns_keeps_pruning(spark, root, ns):
    t, table_dir = f"lance.{ns}.s", root / ns / "s"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, d DATE, c STRING) PARTITIONED BY (d, bucket(2, id))")
    spark.sql(f"INSERT INTO {t} VALUES (1, DATE'2025-12-10', 'US'), (2, DATE'2025-12-10', 'FR'), "
              "(3, DATE'2025-12-11', 'JP'), (4, DATE'2025-12-11', 'DE')")
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN d TO day")
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN id TO key")
    leaves = read_leaves(table_dir)
    assert all(ds.schema.names == ["key", "day", "c"] for _, ds in leaves)
    query = f"SELECT c FROM {t} WHERE day = DATE'2025-12-10' AND key = 2"
    assert tables_scanned(spark, query)[0] == 1
    assert [r.c for r in spark.sql(query).collect()] == ["FR"]
    spark.sql(f"INSERT INTO {t} VALUES (6, DATE'2025-12-10', 'IT')")
    assert sorted(r.key for r in spark.sql(f"SELECT key FROM {t} WHERE day = DATE'2025-12-10'").collect()) == [1, 2, 6]
    assert rows_by_hand(table_dir, "key", "day", "c")[:2] == [(1, dt.date(2025, 12, 10), "US"),
                                                              (2, dt.date(2025, 12, 10), "FR")]
    lancepart.crosscheck(spark, t)


def test_rename_in_a_namespace_written_by_hand(spark, root, ns):
    """Leaves of another writer carry no lancepart tag: each is tagged, then renamed, pinned ones
    in a detached version published as their read_version, the unpinned one on its main branch;
    the Daft-style leaf without event_date is renamed too."""
    table_dir = root / ns / "events"
    write_by_hand(table_dir)
    t = f"lance.{ns}.events"
    expected = rows_by_hand(table_dir, "id", "event_date", "country")
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN country TO nation")
    assert spark.table(t).columns == ["id", "event_date", "nation"]
    assert sorted(tuple(r) for r in spark.table(t).collect()) == expected
    assert rows_by_hand(table_dir, "id", "event_date", "nation") == expected
    for _, ds in read_leaves(table_dir):
        assert "nation" in ds.schema.names and "country" not in ds.schema.names
        assert ds.schema.field("nation").metadata == {b"lancepart:field_id": b"2"}
    assert [r.id for r in spark.sql(f"SELECT id FROM {t} WHERE nation = 'JP'").collect()] == [5]
    assert tables_scanned(spark, f"SELECT id FROM {t} WHERE nation = 'JP'") == (3, 4)
    lancepart.crosscheck(spark, t)


@pytest.mark.parametrize("pinned", [False, True])
def test_a_rename_by_another_writer_is_followed_in_leaves_it_has_not_reached(spark, root, ns, pinned):
    """Another writer renamed country to nation in the schema and in two leaves (the Daft-style
    one, whose Lance field ids do not follow the namespace's, and JP), then stopped; in a strong
    table it published their new versions. The other leaves still call the column country, with
    the Lance field id the schema gives nation: they are read by it, and a write renames them."""
    table_dir = root / ns / "events"
    write_by_hand(table_dir, read_version_column=pinned)
    t = f"lance.{ns}.events"
    rename_schema_by_hand(table_dir, "country", "nation")
    for row, _ in read_leaves(table_dir):
        leaf = lance.dataset(f"{table_dir}/{row['location']}")
        if "event_date" not in leaf.schema.names or row["partition_field_country"] == "JP":
            leaf.alter_columns({"path": "country", "name": "nation"})
            if pinned:
                lance.dataset(f"{table_dir}/__manifest").update(
                    {"read_version": str(leaf.latest_version)}, where=f"object_id = '{row['object_id']}'")
    # pinned: the unrenamed v1 leaf at version 1, the unpinned US leaf and the renamed ones at
    # their latest (two copies); otherwise every leaf at its latest
    expected = [(1, "US"), (2, "FR"), (3, "US"), (3, "US"), (4, "US"), (4, "US"), (5, "JP"), (5, "JP")]
    if not pinned:
        expected += [(1, "US"), (2, "FR")]
    assert sorted((r.id, r.nation) for r in spark.table(t).collect()) == sorted(expected)
    lancepart.crosscheck(spark, t)
    spark.sql(f"INSERT INTO {t} VALUES (6, DATE'2025-12-20', 'US')")  # into the unrenamed US leaf
    us = next(ds for r, ds in read_leaves(table_dir) if r["partition_field_country"] == "US")
    assert "nation" in us.schema.names and "country" not in us.schema.names
    assert sorted((r.id, r.nation) for r in spark.table(t).collect()) == sorted(expected + [(6, "US")])
    lancepart.crosscheck(spark, t)


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_a_delete_by_a_column_another_writer_renamed_only_in_the_schema(spark, root, ns, mode):
    """The partition tables still call the column v (tagged with its field id); a DELETE by its new
    name removes the rows reads show matching (regression: the tables were taken to lack the
    column, so `w IS NULL` removed every row and `w > 15` none)."""
    t, table_dir = created(spark, root, ns, mode, "(1, 'a', 10), (2, 'a', 20), (3, 'b', 30), (4, 'b', NULL)")
    rename_schema_by_hand(table_dir, "v", "w")
    spark.sql(f"DELETE FROM {t} WHERE w IS NULL")
    assert sorted(tuple(r) for r in spark.table(t).collect()) == [(1, "a", 10), (2, "a", 20), (3, "b", 30)]
    spark.sql(f"DELETE FROM {t} WHERE w > 15")
    assert sorted(tuple(r) for r in spark.table(t).collect()) == [(1, "a", 10)]
    lancepart.crosscheck(spark, t)


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_a_rename_that_stopped_half_way_reads_right_and_the_next_rename_finishes_it(spark, root, ns, mode):
    """The state a RENAME leaves when its process dies after the schema commit, having renamed one
    leaf: reads find every column by its tag, a write into a leaf left behind renames it (strong
    mode: rewrites it), and the next RENAME renames every leaf to the schema."""
    t, table_dir = f"lance.{ns}.h", root / ns / "h"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING, v INT, w STRING) PARTITIONED BY (p) "
              f"TBLPROPERTIES ('transaction.mode' = '{mode}')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 10, 'x'), (2, 'b', 20, 'y'), (3, 'c', 30, 'z')")
    rename_schema_by_hand(table_dir, "v", "value")
    row = next(r for r, _ in read_leaves(table_dir) if r["partition_field_p"] == "a")
    lance.dataset(f"{table_dir}/{row['location']}").alter_columns({"path": "v", "name": "value"})
    expected = [(1, "a", 10, "x"), (2, "b", 20, "y"), (3, "c", 30, "z")]
    assert sorted(tuple(r) for r in spark.table(t).collect()) == expected
    spark.sql(f"INSERT INTO {t} VALUES (4, 'b', 40, 'w')")  # into a leaf the rename did not reach
    expected.insert(3, (4, "b", 40, "w"))
    assert sorted(tuple(r) for r in spark.table(t).collect()) == expected
    assert next(ds for r, ds in read_leaves(table_dir) if r["partition_field_p"] == "b").schema.names == \
        ["id", "p", "value", "w"]
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN w TO note")
    assert all(ds.schema.names == ["id", "p", "value", "note"] for _, ds in read_leaves(table_dir))
    assert rows_by_hand(table_dir, "id", "p", "value", "note") == expected
    assert sorted(tuple(r) for r in spark.table(t).collect()) == expected
    lancepart.crosscheck(spark, t)
