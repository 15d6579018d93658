"""Other Lance clients: pylance's DirectoryNamespace sees our layout, and a namespace written by
hand with pylance (random ids as in the spec's appendices) reads correctly in Spark."""

import datetime as dt
import json

import lance
import lance_namespace as ln
import pytest
import pyarrow as pa
from lance.namespace import DirectoryNamespace

import lancepart
from conftest import tables_scanned
from handwritten import location_of, random_name, write_by_hand


def test_directory_namespace_lists_our_layout(spark, root, ns):
    spark.sql(f"CREATE TABLE lance.{ns}.t (id INT, d DATE, c STRING) PARTITIONED BY (d, c)")
    spark.sql(f"INSERT INTO lance.{ns}.t VALUES (1, DATE'2025-12-10', 'US'), (2, DATE'2025-12-10', 'FR'), "
              "(3, DATE'2025-12-11', 'US')")
    dirns = DirectoryNamespace(root=str(root / ns / "t"))
    assert dirns.list_namespaces(ln.ListNamespacesRequest(id=[])).namespaces == ["v1"]
    days = dirns.list_namespaces(ln.ListNamespacesRequest(id=["v1"])).namespaces
    assert len(days) == 2
    leaves = []
    for day in days:
        for country in dirns.list_namespaces(ln.ListNamespacesRequest(id=["v1", day])).namespaces:
            tables = dirns.list_tables(ln.ListTablesRequest(id=["v1", day, country])).tables
            assert tables == ["dataset"]
            desc = dirns.describe_table(ln.DescribeTableRequest(id=["v1", day, country, "dataset"]))
            leaves.append(lance.dataset(desc.location))
    assert len(leaves) == 3
    assert sorted(i for leaf in leaves for i in leaf.to_table()["id"].to_pylist()) == [1, 2, 3]
    for leaf in leaves:  # leaves hold the full namespace schema, source columns included
        assert leaf.schema.names == ["id", "d", "c"]


@pytest.mark.parametrize("properties", [None, {"transaction.mode": "strong"}])
def test_namespace_written_by_hand_reads_each_leaf_at_its_read_version(spark, root, ns, properties):
    """The spec makes a table strong by its read_version values, not by a property: with or
    without lancepart's transaction.mode, a leaf is read at its read_version where one is set."""
    write_by_hand(root / ns / "events", properties)
    t = f"lance.{ns}.events"
    assert [r.tableName for r in spark.sql(f"SHOW TABLES IN lance.{ns}").collect()] == ["events"]
    rows = sorted(tuple(r) for r in spark.table(t).collect())
    # Leaves pinned at version 1 (one copy); the v2 leaf without read_version at its latest (two).
    assert rows == [(1, dt.date(2025, 12, 10), "US"), (2, dt.date(2025, 12, 10), "FR"),
                    (3, dt.date(2025, 12, 11), "US"), (4, dt.date(2025, 12, 20), "US"),
                    (4, dt.date(2025, 12, 20), "US"), (5, dt.date(2025, 12, 10), "JP")]
    assert lancepart.crosscheck(spark, t)["tables"] == 4
    # a name without its catalog is in catalog lance, as Admin takes names
    assert lancepart.crosscheck(spark, f"{ns}.events") == lancepart.crosscheck(spark, t)
    assert lancepart.table_uri(spark, f"{ns}.events") == lancepart.table_uri(spark, t)
    assert [r.id for r in spark.sql(f"SELECT id FROM {t} WHERE event_date = DATE'2025-12-11'").collect()] == [3]


def test_appendix_d_prunes_each_version_with_its_own_spec(spark, root, ns):
    write_by_hand(root / ns / "events")
    t = f"lance.{ns}.events"
    # v1: event_date = 2025-12-10 (one leaf); v2: year = 2025 AND country = 'US' (one leaf).
    query = f"SELECT id FROM {t} WHERE event_date = DATE'2025-12-10' AND country = 'US'"
    assert tables_scanned(spark, query) == (2, 4)
    assert [r.id for r in spark.sql(query).collect()] == [1]  # the v1 leaf at its read_version: one copy
    plan = spark.sql(f"EXPLAIN {query}").collect()[0][0]
    assert "tables=2/4" in plan


def test_a_leaf_type_that_cannot_be_read_fails_naming_leaf_and_column(spark, root, ns):
    table_dir = root / ns / "typed"
    schema = {"fields": [
        {"name": "id", "nullable": True, "type": {"type": "int64"}, "metadata": {"lance:field_id": "0"}},
        {"name": "p", "nullable": True, "type": {"type": "utf8"}, "metadata": {"lance:field_id": "1"}}]}
    spec = {"id": 1, "fields": [{"field_id": "p", "source_ids": [1], "transform": {"type": "identity"},
                                 "result_type": {"type": "utf8"}}]}
    oid = f"v1${random_name()}$dataset"
    lance.write_dataset(pa.table({"id": ["not a number"], "p": ["a"]}), f"{table_dir}/{location_of(oid)}")
    rows = [{"object_id": "v1", "object_type": "namespace"}, {"object_id": oid.rsplit("$", 1)[0], "object_type": "namespace",
             "partition_field_p": "a"},
            {"object_id": oid, "object_type": "table", "location": location_of(oid), "read_version": 1, "partition_field_p": "a"}]
    manifest_schema = pa.schema([
        pa.field("object_id", pa.string(), nullable=False), pa.field("object_type", pa.string(), nullable=False),
        pa.field("location", pa.string()), pa.field("metadata", pa.string()),
        pa.field("base_objects", pa.list_(pa.field("object_id", pa.string()))),
        pa.field("read_version", pa.uint64()), pa.field("partition_field_p", pa.string())])
    lance.write_dataset(pa.Table.from_pylist(rows, schema=manifest_schema), f"{table_dir}/__manifest") \
        .update_metadata({"schema": json.dumps(schema), "partition_spec_v1": json.dumps(spec)})
    with pytest.raises(Exception, match=rf"partition table .*{location_of(oid).replace('$', '.')}: column 'id' has type STRING, "
                                        r"which cannot be read as BIGINT"):
        spark.table(f"lance.{ns}.typed").collect()
    assert [r.p for r in spark.sql(f"SELECT p FROM lance.{ns}.typed").collect()] == ["a"]  # other columns still read


def _manifest_rows(table_dir):
    return {r["object_id"]: r for r in lance.dataset(f"{table_dir}/__manifest").to_table().to_pylist()}


def test_a_table_without_mode_whose_rows_pin_versions_is_written_strong(spark, root, ns):
    """No transaction.mode, but rows with read_version: a write keeps the pinned versions and
    publishes its own, so a reader following read_version sees exactly the new rows."""
    table_dir = root / ns / "events"
    write_by_hand(table_dir)
    t = f"lance.{ns}.events"
    spark.sql(f"INSERT INTO {t} VALUES (6, DATE'2025-12-11', 'JP')")
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {t} WHERE country = 'JP'").collect()) == [5, 6]
    jp = next(r for r in _manifest_rows(table_dir).values()
              if r["object_type"] == "table" and r["partition_field_country"] == "JP")
    leaf = lance.dataset(f"{table_dir}/{jp['location']}", version=jp["read_version"])
    assert sorted(leaf.to_table()["id"].to_pylist()) == [5, 6]
    assert lance.dataset(f"{table_dir}/{jp['location']}").version == 2, "the main branch is not written"
    assert lancepart.crosscheck(spark, t)["tables"] == 4


def test_a_manifest_without_read_version_is_a_weak_table(spark, root, ns):
    table_dir = root / ns / "events"
    write_by_hand(table_dir, read_version_column=False)
    t = f"lance.{ns}.events"
    assert spark.table(t).count() == 10, "every leaf at its latest version: two copies each"
    spark.sql(f"INSERT INTO {t} VALUES (6, DATE'2025-12-11', 'JP')")
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {t} WHERE country = 'JP'").collect()) == [5, 5, 6]
    assert "read_version" not in lance.dataset(f"{table_dir}/__manifest").schema.names
    lancepart.crosscheck(spark, t)


def test_repair_of_an_appendix_c_table_changes_no_value(spark, admin, root, ns):
    """Rows with metadata '{}' keep no partition values: repair must not blank the columns that
    hold them, and must not guess them when those columns are the ones missing."""
    table_dir = root / ns / "events"
    write_by_hand(table_dir, metadata="{}", read_version_column=False)
    t = f"lance.{ns}.events"
    before = _manifest_rows(table_dir)
    admin.repair(t)
    assert _manifest_rows(table_dir) == before
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {t} WHERE country = 'US'").collect()) == [1, 1, 3, 3, 4, 4]

    lance.dataset(f"{table_dir}/__manifest").drop_columns(["partition_field_country"])
    with pytest.warns(UserWarning, match=r"read by every scan \(another client created them\): v2\$\w+\$\w+\$dataset"):
        admin.repair(t)
    # the rows of spec v2, whose field 'country' the dropped column held
    leaves = [r["object_id"] for r in _manifest_rows(table_dir).values()
              if r["object_type"] == "table" and r["object_id"].startswith("v2$")]
    assert sorted(json.loads(lance.dataset(f"{table_dir}/__manifest").metadata["lancepart.unpartitioned-tables"])) == \
        sorted(leaves)
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {t} WHERE country = 'US'").collect()) == [1, 1, 3, 3, 4, 4]
    scanned, total = tables_scanned(spark, f"SELECT id FROM {t} WHERE country = 'US'")
    assert scanned >= len(leaves) and total > len(leaves)


def test_a_write_keeps_other_writers_metadata_and_base_objects(spark, root, ns):
    table_dir = root / ns / "events"
    write_by_hand(table_dir, metadata='{"owner": "team-a"}', base_objects=["v0"])
    t = f"lance.{ns}.events"
    spark.sql(f"INSERT INTO {t} VALUES (6, DATE'2025-12-11', 'JP'), (7, DATE'2026-01-01', 'FR')")
    rows = _manifest_rows(table_dir)
    jp = next(r for r in rows.values() if r["object_type"] == "table" and r["partition_field_country"] == "JP")
    assert json.loads(jp["metadata"])["owner"] == "team-a" and jp["base_objects"] == ["v0"]
    assert rows["v2"]["metadata"] == '{"owner": "team-a"}' and rows["v2"]["base_objects"] == ["v0"]
    assert sorted(r.id for r in spark.table(t).collect()) == [1, 2, 3, 4, 4, 5, 6, 7]


@pytest.mark.parametrize("column", ["read_tag", "read_branch"])
def test_a_table_reading_leaves_at_a_tag_or_branch_reads_them_there_and_refuses_writes(spark, admin, root, ns, column):
    """The spec's earlier edition lets a row read its partition table at a tag (`read_tag` only)
    or at a version of a branch (`read_branch` + `read_version`): lancepart reads it there (read at
    main instead, the table would give other rows), and refuses writes, whose commits go to main.
    Empty columns are harmless."""
    table_dir = root / ns / "events"
    write_by_hand(table_dir)
    t = f"lance.{ns}.events"
    manifest = lance.dataset(f"{table_dir}/__manifest")
    manifest.add_columns({column: "CAST(NULL AS STRING)"})
    assert spark.table(t).count() == 6
    spark.sql(f"INSERT INTO {t} VALUES (6, DATE'2025-12-11', 'JP')")
    jp = next(r for r in _manifest_rows(table_dir).values()
              if r["object_type"] == "table" and r["partition_field_country"] == "JP")
    leaf = lance.dataset(f"{table_dir}/{jp['location']}")
    main_ids = sorted(leaf.to_table()["id"].to_pylist())
    if column == "read_tag":  # the tag names version 1; main has moved on
        leaf.tags.create("release", 1)
        ref, expected = "'release'", sorted(lance.dataset(f"{table_dir}/{jp['location']}", version=1).to_table()["id"].to_pylist())
    else:  # a branch from version 1 with a row main does not have
        branch = leaf.create_branch("audit", 1)
        branch.insert(pa.Table.from_pylist([{"id": 99, "event_date": dt.date(2025, 12, 11), "country": "JP"}],
                                           schema=branch.schema))
        ref, expected = "'audit'", sorted(leaf.checkout_version(("audit", None)).to_table()["id"].to_pylist())
        lance.dataset(f"{table_dir}/__manifest").update(
            {"read_version": str(leaf.checkout_version(("audit", None)).version)}, where=f"object_id = '{jp['object_id']}'")
    assert expected != main_ids
    lance.dataset(f"{table_dir}/__manifest").update({column: ref}, where=f"object_id = '{jp['object_id']}'")
    others = sorted(r.id for r in spark.table(t).where("country <> 'JP'").collect())
    assert sorted(r.id for r in spark.table(t).where("country = 'JP'").collect()) == expected
    assert sorted(r.id for r in spark.table(t).collect()) == sorted(others + expected)
    assert lancepart.crosscheck(spark, t)["rows"] == len(others) + len(expected)
    # counted where it is read, not from lancepart's stats of a main-branch version (a review's finding)
    assert spark.sql(f"SELECT count(*) FROM {t}").first()[0] == len(others) + len(expected)
    refused = rf"table lance.{ns}.events: __manifest rows read partition tables at a {column[5:]} \(column {column}\)"
    # a tag of the table would not keep what such a row reads: another client can move its tag or branch
    with pytest.raises(Exception, match=refused + ".*cannot tag"):
        spark.sql(f"ALTER TABLE {t} CREATE TAG snapshot")
    for statement in (f"INSERT INTO {t} VALUES (7, DATE'2025-12-11', 'JP')", f"DELETE FROM {t} WHERE id = 1",
                      f"UPDATE {t} SET id = 8 WHERE id = 1", f"ALTER TABLE {t} ADD COLUMN extra INT"):
        with pytest.raises(Exception, match=refused + ".*cannot (write|change the columns of)"):
            spark.sql(statement)
    with pytest.raises(Exception, match=refused + ".*cannot run rewrite_data_files\\(\\) on"):
        admin.rewrite_data_files(f"{ns}.events")
    assert sorted(r.id for r in spark.table(t).collect()) == sorted(others + expected)
    if column == "read_tag":  # another client moves the tag, __manifest unchanged: reads follow it
        leaf.tags.update("release", leaf.version)
        assert sorted(r.id for r in spark.table(t).where("country = 'JP'").collect()) == main_ids


def test_a_spec_field_whose_source_left_the_schema_reads_as_null_not_a_refused_table(spark, root, ns):
    table_dir = root / ns / "events"
    write_by_hand(table_dir)
    manifest = lance.dataset(f"{table_dir}/__manifest")
    schema = json.loads(manifest.metadata["schema"])
    schema["fields"] = [f for f in schema["fields"] if f["name"] != "country"]  # source of v2's field country
    manifest.update_metadata({"schema": json.dumps(schema)})
    t = f"lance.{ns}.events"
    assert spark.table(t).columns == ["id", "event_date"]
    assert sorted(r.id for r in spark.table(t).collect()) == [1, 2, 3, 4, 4, 5]
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {t} WHERE event_date = DATE'2025-12-10'").collect()) == [1, 2, 5]
    # the table's partitioning names the fields whose source is still there (Spark 4.2 asks for it
    # when it pushes a filter down; DESCRIBE on every line)
    described = {r.col_name: r.data_type for r in spark.sql(f"DESCRIBE TABLE {t}").collect()}
    assert [v for k, v in described.items() if k.startswith("Part ")] == ["years(event_date)"]
    # and an ALTER that names no field of the spec lists the spec's fields, that one too
    with pytest.raises(Exception, match=r"\(its source column was dropped\)"):
        spark.sql(f"ALTER TABLE {t} DROP PARTITION FIELD nope")


def test_field_ids_with_other_characters_name_quoted_manifest_columns(spark, root, ns):
    table_dir = root / ns / "events"
    write_by_hand(table_dir)
    manifest = lance.dataset(f"{table_dir}/__manifest")
    manifest.alter_columns({"path": "partition_field_country", "name": "partition_field_coun-try x"})
    spec = json.loads(manifest.metadata["partition_spec_v2"])
    spec["fields"][1]["field_id"] = "coun-try x"
    lance.dataset(f"{table_dir}/__manifest").update_metadata({"partition_spec_v2": json.dumps(spec)})
    t = f"lance.{ns}.events"
    query = f"SELECT id FROM {t} WHERE country = 'JP'"
    assert tables_scanned(spark, query) == (3, 4)  # the v2 leaf of US is pruned on the quoted column
    assert [r.id for r in spark.sql(query).collect()] == [5]
    spark.sql(f"INSERT INTO {t} VALUES (6, DATE'2026-01-01', 'DE')")
    de = [r for r in _manifest_rows(table_dir).values() if r["object_type"] == "table" and r["partition_field_coun-try x"] == "DE"]
    assert len(de) == 1
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {t} WHERE country = 'DE'").collect()) == [6]


def add_foreign_partition_column(table_dir, nullable):
    """Another writer's own `partition_field_spec_id` column (no spec declares it), 1 in every row."""
    manifest = lance.dataset(f"{table_dir}/__manifest")
    field = pa.field("partition_field_spec_id", pa.int32(), nullable=nullable)

    @lance.batch_udf(output_schema=pa.schema([field]))
    def spec_id(batch):
        return pa.RecordBatch.from_arrays([pa.array([1] * batch.num_rows, pa.int32())], schema=pa.schema([field]))

    manifest.add_columns(spec_id)
    assert lance.dataset(f"{table_dir}/__manifest").schema.field(field.name).nullable == nullable


def foreign_values(table_dir):
    rows = lance.dataset(f"{table_dir}/__manifest").to_table(
        columns=["object_id", "partition_field_spec_id"]).to_pylist()
    return {r["object_id"]: r["partition_field_spec_id"] for r in rows}


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_another_writers_nullable_partition_column_keeps_its_values(spark, root, ns, mode):
    """lancepart writes the partition_field_* columns of declared spec fields only: another
    writer's column keeps its values in every row a write rewrites, and is NULL in new rows."""
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, c STRING) PARTITIONED BY (c) TBLPROPERTIES ('transaction.mode' = '{mode}')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    table_dir = root / ns / "t"
    add_foreign_partition_column(table_dir, nullable=True)
    before = foreign_values(table_dir)
    spark.sql(f"INSERT INTO {t} VALUES (4, 'a')")
    spark.sql(f"UPDATE {t} SET id = id + 10 WHERE c = 'b'")
    spark.sql(f"DELETE FROM {t} WHERE c = 'c'")
    spark.sql(f"INSERT INTO {t} VALUES (5, 'd')")
    after = foreign_values(table_dir)
    assert set(before.values()) == {1}
    assert {i: v for i, v in after.items() if i in before} == {i: 1 for i in before if i in after}
    assert all(v is None for i, v in after.items() if i not in before)
    d = next(r for r in lance.dataset(f"{table_dir}/__manifest").to_table(filter="object_type = 'table'").to_pylist()
             if r["partition_field_c"] == "d")
    assert d["partition_field_spec_id"] is None
    assert sorted(r.id for r in spark.table(t).collect()) == [1, 4, 5, 12]


@pytest.mark.parametrize("mode", ["weak", "strong"])
@pytest.mark.parametrize("statement", [
    "INSERT INTO {t} VALUES (3, 'new')",
    "UPDATE {t} SET c = 'new' WHERE id = 1",  # merge-on-read: deletes row 1 from 'a', inserts it into a new partition
])
def test_another_writers_not_null_partition_column_is_kept_and_new_rows_are_refused_by_name(
        spark, root, ns, mode, statement):
    """A commit that would add a __manifest row is refused before any partition table changes
    (a merge-on-read UPDATE deleted the row from its partition table first, and lost it)."""
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, c STRING) PARTITIONED BY (c) TBLPROPERTIES "
              f"('transaction.mode' = '{mode}', 'write.update.mode' = 'merge-on-read')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    table_dir = root / ns / "t"
    add_foreign_partition_column(table_dir, nullable=False)
    before = foreign_values(table_dir)
    manifest_version = lance.dataset(f"{table_dir}/__manifest").version
    leaf_versions = {r["location"]: lance.dataset(f"{table_dir}/{r['location']}").version
                     for r in lance.dataset(f"{table_dir}/__manifest").to_table(filter="object_type = 'table'")
                     .to_pylist()}
    with pytest.raises(Exception, match=rf"table lance\.{ns}\.t: cannot add row '.*' to __manifest: its column "
                                        r"'partition_field_spec_id' \(another writer's, NOT NULL\) needs a value"):
        spark.sql(statement.format(t=t))
    assert lance.dataset(f"{table_dir}/__manifest").version == manifest_version
    assert {loc: lance.dataset(f"{table_dir}/{loc}").version for loc in leaf_versions} == leaf_versions
    assert foreign_values(table_dir) == before
    assert sorted(r.id for r in spark.table(t).collect()) == [1, 2]
    if mode == "weak":  # writes that add no __manifest row keep the column's values
        spark.sql(f"INSERT INTO {t} VALUES (4, 'a')")
        spark.sql(f"UPDATE {t} SET id = 5 WHERE id = 2")
        assert foreign_values(table_dir) == before
        assert sorted(r.id for r in spark.table(t).collect()) == [1, 4, 5]
    else:  # every strong-mode write records the partition table version it makes in a new row
        with pytest.raises(Exception, match=rf"table lance\.{ns}\.t: cannot add a table_version row"):
            spark.sql(f"INSERT INTO {t} VALUES (4, 'a')")
        assert sorted(r.id for r in spark.table(t).collect()) == [1, 2]


def test_rows_appended_to_another_writers_partition_table_with_a_gap_in_its_field_ids_read_right(spark, root, ns):
    """A partition table another client wrote and then dropped a column from has Lance field ids
    0, 2, 3: rows lancepart appends must name those ids, not 0, 1, 2 (which read `country` as the
    dropped column's id and `event_date` as `country`'s)."""
    table_dir = root / ns / "events"
    write_by_hand(table_dir, read_version_column=False)
    jp = next(r for r in _manifest_rows(table_dir).values()
              if r["object_type"] == "table" and r["partition_field_country"] == "JP")
    uri = f"{table_dir}/{jp['location']}"
    data = pa.table({"id": pa.array([5], pa.int64()), "note": ["dropped"],
                     "event_date": pa.array([dt.date(2025, 12, 10)]), "country": ["JP"]})
    lance.write_dataset(data, uri, mode="overwrite").drop_columns(["note"])
    assert [f.id() for f in lance.dataset(uri).lance_schema.fields()] == [0, 2, 3]
    t = f"lance.{ns}.events"
    spark.sql(f"INSERT INTO {t} VALUES (8, DATE'2025-12-12', 'JP')")
    expected = [(5, dt.date(2025, 12, 10), "JP"), (8, dt.date(2025, 12, 12), "JP")]
    assert sorted((r["id"], r["event_date"], r["country"]) for r in lance.dataset(uri).to_table().to_pylist()) == expected
    assert sorted(tuple(r) for r in spark.sql(f"SELECT id, event_date, country FROM {t} WHERE country = 'JP'")
                  .collect()) == expected


def test_a_column_added_to_another_writers_partition_table_whose_id_it_uses_takes_a_free_one(spark, root, ns):
    """The namespace gives new column w id 3, which a partition table of another writer already
    uses for a column of its own (of another type: one of w's type would be read as w, spec
    readers match columns by field id): w takes the next free id there, and both read right."""
    table_dir = root / ns / "events"
    write_by_hand(table_dir, read_version_column=False)
    jp = next(r for r in _manifest_rows(table_dir).values()
              if r["object_type"] == "table" and r["partition_field_country"] == "JP")
    uri = f"{table_dir}/{jp['location']}"
    lance.write_dataset(pa.table({"id": pa.array([5], pa.int64()), "event_date": pa.array([dt.date(2025, 12, 10)]),
                                  "country": ["JP"], "theirs": [7]}), uri, mode="overwrite")
    t = f"lance.{ns}.events"
    spark.sql(f"ALTER TABLE {t} ADD COLUMN w STRING")
    spark.sql(f"INSERT INTO {t} VALUES (8, DATE'2025-12-12', 'JP', 'w8')")
    ids = {f.name(): f.id() for f in lance.dataset(uri).lance_schema.fields()}
    assert ids == {"id": 0, "event_date": 1, "country": 2, "theirs": 3, "w": 4}
    assert sorted((r["id"], r["theirs"], r["w"]) for r in lance.dataset(uri).to_table().to_pylist()) == \
        [(5, 7, None), (8, None, "w8")]
    assert sorted(tuple(r) for r in spark.sql(f"SELECT id, w FROM {t} WHERE country = 'JP'").collect()) == \
        [(5, None), (8, "w8")]


def test_pylance_reads_a_tag_of_a_partitioned_table_at_the_same_rows(spark, root, ns):
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, category STRING) PARTITIONED BY (category) TBLPROPERTIES ('transaction.mode' = 'strong')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'x'), (2, 'y')")
    spark.sql(f"ALTER TABLE {t} CREATE TAG release")
    spark.sql(f"INSERT INTO {t} VALUES (3, 'x'), (4, 'z')")
    spark.sql(f"DELETE FROM {t} WHERE id = 2")
    manifest = lance.dataset(str(root / ns / "t" / "__manifest"))
    tagged = manifest.tags.list()["release"]["version"]
    assert tagged < manifest.version
    # the tag is Lance's own, of __manifest: pylance reads the version it names, and the leaves at read_version
    assert lancepart.crosscheck(spark, t, version="release") == {"rows": 2, "tables": 2}
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {t} VERSION AS OF 'release'").collect()) == [1, 2]
    assert lancepart.crosscheck(spark, t) == {"rows": 3, "tables": 3}


def test_pylance_reads_a_tag_of_a_plain_table(spark, root, ns):
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT)")
    spark.sql(f"INSERT INTO {t} VALUES (1), (2)")
    spark.sql(f"ALTER TABLE {t} CREATE TAG release RETAIN 3 HOURS")
    spark.sql(f"INSERT INTO {t} VALUES (3)")
    ds = lance.dataset(str(root / ns / "t.lance"))
    assert ds.tags.list()["release"]["version"] == ds.version - 1
    assert sorted(lance.dataset(str(root / ns / "t.lance"), version="release").to_table()["id"].to_pylist()) == [1, 2]
    assert lancepart.crosscheck(spark, t, version="release")["rows"] == 2
    assert spark.sql(f"SELECT max_reference_age_in_ms FROM {t}.refs WHERE name = 'release'").first()[0] == 3 * 3600_000


def test_a_version_with_unpinned_partition_tables_is_not_tagged(spark, root, ns):
    """A strong-mode table of another writer whose rows leave a read_version NULL reads those
    partition tables at their latest version: a tag of it would not keep what it reads."""
    table_dir = root / ns / "events"
    write_by_hand(table_dir)  # one v2 row without a read_version
    with pytest.raises(Exception, match=r"has 1 partition tables whose rows pin no version"):
        spark.sql(f"ALTER TABLE lance.{ns}.events CREATE TAG release")


def test_pylance_reads_a_plain_tables_branch_at_the_rows_spark_reads(spark, root, ns):
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, category STRING)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'x'), (2, 'y')")
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH audit")
    spark.sql(f"DELETE FROM {t}.branch_audit WHERE id = 2")
    spark.sql(f"INSERT INTO {t}.branch_audit VALUES (3, 'x')")
    ds = lance.dataset(str(root / ns / "t.lance"))
    assert set(ds.branches.list()) == {"audit"}
    assert sorted(ds.checkout_version(("audit", None)).to_table()["id"].to_pylist()) == [1, 3]
    assert lancepart.crosscheck(spark, t, version="audit")["rows"] == 2
    # pylance's write to the branch is read by Spark
    branch = ds.checkout_version(("audit", None))
    branch.insert(pa.table({"id": pa.array([4], pa.int64()), "category": ["z"]}))
    assert sorted(r.id for r in spark.table(f"{t}.branch_audit").collect()) == [1, 3, 4]
    spark.sql(f"CALL lance.system.fast_forward('{t}', 'main', 'audit')")
    assert sorted(lance.dataset(str(root / ns / "t.lance")).to_table()["id"].to_pylist()) == [1, 3, 4]


def test_pylance_reads_a_branch_at_the_rows_spark_reads(spark, root, ns):
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, data STRING, category STRING) PARTITIONED BY (category) "
              "TBLPROPERTIES ('transaction.mode' = 'strong')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'y')")
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH audit")
    spark.sql(f"DELETE FROM {t}.branch_audit WHERE id = 2")
    spark.sql(f"INSERT INTO {t}.branch_audit VALUES (3, 'c', 'x')")
    manifest = lance.dataset(str(root / ns / "t" / "__manifest"))
    assert set(manifest.branches.list()) == {"audit"}
    rows_on_branch = manifest.checkout_version(("audit", None)).to_table(
        filter="object_type = 'table'", columns=["location", "read_version"]).to_pylist()
    ids = sorted(i for r in rows_on_branch for i in
                 lance.dataset(str(root / ns / "t" / r["location"]), version=r["read_version"]).to_table()["id"]
                 .to_pylist())
    assert ids == [1, 3]
    assert lancepart.crosscheck(spark, t, version="audit")["rows"] == 2
    assert lancepart.crosscheck(spark, t)["rows"] == 2  # main: 1, 2


def test_reads_through_unions_see_pylances_commits_to_partition_tables(spark, root, ns):
    """A read of many partition tables goes through unions, whose members each executor keeps per
    partition-table version: after pylance appends a row to every partition table (the tables a
    split reads last are read alone, and which those are depends on their names), then deletes a
    row of one and overwrites another, without touching __manifest (weak mode), the next read has
    each change. 240 partitions: more keys than a scan reports for joins (the catalog's
    spj.max-partition-keys, 200), whose splits read one partition table each."""
    t = f"lance.{ns}.many"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p INT) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {t} SELECT id, CAST(id % 240 AS INT) FROM range(480)")
    ids = sorted(r.id for r in spark.table(t).collect())
    assert ids == list(range(480))
    leaves = {}
    for r in _manifest_rows(root / ns / "many").values():
        if r["object_type"] == "table":
            leaves[next(v for k, v in r.items() if k.startswith("partition_field_"))] = str(root / ns / "many" / r["location"])
    for p, uri in leaves.items():
        leaf = lance.dataset(uri)
        leaf.insert(pa.Table.from_pylist([{"id": 1000 + p, "p": p}], schema=leaf.schema))
    lance.dataset(leaves[2]).delete("id = 2")
    overwritten = lance.dataset(leaves[3])
    lance.write_dataset(pa.Table.from_pylist([{"id": 3003, "p": 3}], schema=overwritten.schema), leaves[3],
                        mode="overwrite")
    partition_of = {**{i: i % 240 for i in ids}, **{1000 + p: p for p in range(240)}}
    expected = sorted([i for i, p in partition_of.items() if i != 2 and p != 3] + [3003])
    assert sorted(r.id for r in spark.table(t).collect()) == expected
    assert lancepart.crosscheck(spark, t)["rows"] == len(expected)
