"""Plain Lance tables (CREATE TABLE without PARTITIONED BY, and tables other tools wrote under the
catalog root in the Directory Namespace layouts): what Lance holds after each write (merge-on-read
commands too), tables pylance wrote (V1 `<name>.lance` directories and V2 `__manifest` entries),
time travel, maintenance, races of row-level commands, and the errors. Results of SQL statements against
Iceberg's unpartitioned tables are in test_differential_iceberg.py ("plain table" cases)."""

from __future__ import annotations

import datetime
import io
import json
import threading

import lance
import pyarrow as pa
import pyarrow.ipc as ipc
import pytest
from lance.namespace import CreateNamespaceRequest, CreateTableRequest, DirectoryNamespace, ListTablesRequest

import lancepart
from conftest import tables_scanned
from test_row_level import run_while_paused
from test_transactions import rows


def create(spark, ns, name="t"):
    """Rows 1..6, written by two INSERTs (a fragment each)."""
    t = f"lance.{ns}.{name}"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, c STRING, st STRUCT<a: INT, b: STRING>)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', named_struct('a', 1, 'b', 'x')), (2, 'b', NULL), (3, 'c', NULL)")
    spark.sql(f"INSERT INTO {t} VALUES (4, 'a', named_struct('a', 4, 'b', 'y')), (5, 'b', NULL), (6, 'c', NULL)")
    return t


def dataset(root, ns, name="t"):
    return lance.dataset(str(root / ns / f"{name}.lance"))


def ipc_bytes(table: pa.Table) -> bytes:
    out = io.BytesIO()
    with ipc.new_stream(out, table.schema) as writer:
        writer.write_table(table)
    return out.getvalue()


def test_a_plain_table_is_one_lance_dataset_each_write_one_version(spark, root, ns):
    t = create(spark, ns)
    ds = dataset(root, ns)
    assert ds.to_table().sort_by("id").column("id").to_pylist() == [1, 2, 3, 4, 5, 6]
    assert ds.schema.field("st").type == pa.struct([("a", pa.int32()), ("b", pa.string())])
    before = ds.version
    fragment_of = {r["id"]: r["_fragment"] for r in spark.sql(f"SELECT _fragment, id FROM {t}").collect()}
    assert sorted(set(fragment_of.values()), key=int) == [str(f.fragment_id) for f in ds.get_fragments()]

    spark.sql(f"UPDATE {t} SET c = 'z' WHERE id = 4")  # rewrites the one fragment holding id 4
    assert dataset(root, ns).version == before + 1
    assert rows(spark, f"SELECT id FROM {t} WHERE c = 'z'") == [(4,)]
    now = {r["id"]: r["_fragment"] for r in spark.sql(f"SELECT _fragment, id FROM {t}").collect()}
    kept = {i: f for i, f in fragment_of.items() if f != fragment_of[4]}
    assert kept and {i: now[i] for i in kept} == kept, "the other fragments were not rewritten"

    spark.sql(f"DELETE FROM {t} WHERE id = 2")  # a Lance delete: a deletion file, no rewrite
    assert dataset(root, ns).to_table().num_rows == 5
    assert any(f.metadata.deletion_file is not None for f in dataset(root, ns).get_fragments())
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(5,)]

    assert lancepart.Admin(spark).describe(t.removeprefix("lance."))["partitioned"] is False


def test_a_table_pylance_wrote_in_the_namespace_directory_reads_and_takes_writes(spark, root, ns):
    vectors = pa.FixedSizeListArray.from_arrays(pa.array([0.5, 1.5, 2.5, 3.5], pa.float32()), 2)
    lance.write_dataset(pa.table({"k": pa.array([1, 2], pa.uint32()), "vec": vectors}), str(root / ns / "dim.lance"))
    assert [r.tableName for r in spark.sql(f"SHOW TABLES IN lance.{ns}").collect()] == ["dim"]
    assert [r.namespace for r in spark.sql(f"SHOW NAMESPACES IN lance.{ns}").collect()] == [], \
        "a dataset directory is no namespace"
    assert rows(spark, f"SELECT k, vec FROM lance.{ns}.dim") == [(1, [0.5, 1.5]), (2, [2.5, 3.5])]

    spark.sql(f"INSERT INTO lance.{ns}.dim VALUES (3, array(4.5, 5.5))")
    ds = lance.dataset(str(root / ns / "dim.lance"))
    assert ds.schema == pa.schema([("k", pa.uint32()), ("vec", pa.list_(pa.float32(), 2))]), "its Arrow types stay"
    assert ds.to_table().sort_by("k").to_pydict() == {"k": [1, 2, 3], "vec": [[0.5, 1.5], [2.5, 3.5], [4.5, 5.5]]}


@pytest.mark.parametrize("statement, expected", [
    ("INSERT INTO {t} VALUES (3, 'c', 30)", [(1, "a", 10), (2, "b", 20), (3, "c", 30)]),
    ("UPDATE {t} SET v = v + 1 WHERE id = 1", [(1, "a", 11), (2, "b", 20)]),
    ("INSERT OVERWRITE {t} SELECT id + 2, s, v FROM {t}", [(3, "a", 10), (4, "b", 20)]),
])
def test_writes_into_a_dataset_with_a_gap_in_its_field_ids_name_its_ids(spark, root, ns, statement, expected):
    """A dataset pylance wrote and then dropped a column from has Lance field ids 0, 2, 3: rows
    lancepart writes must name those ids, not 0, 1, 2 (pylance could not read the dataset then)."""
    uri = str(root / ns / "gap.lance")
    data = pa.table({"id": pa.array([1, 2], pa.int64()), "note": ["x", "y"], "s": ["a", "b"], "v": [10, 20]})
    lance.write_dataset(data, uri).drop_columns(["note"])
    assert [f.id() for f in lance.dataset(uri).lance_schema.fields()] == [0, 2, 3]
    t = f"lance.{ns}.gap"
    spark.sql(statement.format(t=t))
    assert sorted(tuple(r.values()) for r in lance.dataset(uri).to_table().to_pylist()) == expected
    assert rows(spark, f"SELECT id, s, v FROM {t} ORDER BY id") == expected


def fragment_files(fragment) -> list[str]:
    """The paths of ``fragment``'s data files (``DataFile.path`` is a method in pylance 7, later a property)."""
    return sorted(p() if callable(p) else p for p in (f.path for f in fragment.data_files()))


def data_files(ds) -> list[str]:
    return sorted(p for fragment in ds.get_fragments() for p in fragment_files(fragment))


def test_a_partition_field_makes_a_plain_table_partitioned_its_dataset_moved_whole_into_spec_v1(spark, root, ns):
    """ALTER TABLE ... ADD PARTITION FIELD on a plain table (docs/format.md, "A plain table made
    partitioned"): its dataset, with its versions, data files and deletion files, becomes the one
    partition table of spec v1, which has no fields; new rows go to the partitions of spec v2."""
    t = create(spark, ns)
    spark.sql(f"DELETE FROM {t} WHERE id = 2")
    plain = dataset(root, ns)
    files, versions, before = data_files(plain), plain.versions(), plain.to_table().sort_by("id")

    spark.sql(f"ALTER TABLE {t} ADD PARTITION FIELD c")
    assert not (root / ns / "t.lance").exists()
    assert [r.tableName for r in spark.sql(f"SHOW TABLES IN lance.{ns}").collect()] == ["t"]
    manifest = lance.dataset(str(root / ns / "t" / "__manifest"))
    specs = {k: json.loads(v)["fields"] for k, v in manifest.metadata.items() if k.startswith("partition_spec_v")}
    assert specs["partition_spec_v1"] == [] and [f["field_id"] for f in specs["partition_spec_v2"]] == ["c"]
    [leaf] = manifest.to_table(filter="object_type = 'table'").to_pylist()
    assert leaf["object_id"] == "v1$dataset"
    moved = lance.dataset(str(root / ns / "t" / leaf["location"]))
    assert (data_files(moved), moved.versions(), moved.to_table().sort_by("id")) == (files, versions, before), \
        "the same dataset: no data file rewritten, its history kept"

    spark.sql(f"INSERT INTO {t} VALUES (7, 'a', NULL), (8, 'q', NULL)")
    assert rows(spark, f"SELECT id FROM {t} WHERE c = 'a' ORDER BY id") == [(1,), (4,), (7,)]
    assert tables_scanned(spark, f"SELECT id FROM {t} WHERE c = 'a'") == (2, 3), "spec v1's table and one of v2"
    assert lancepart.crosscheck(spark, t) == {"rows": 7, "tables": 3}
    assert lancepart.Admin(spark).describe(t.removeprefix("lance."))["partitioned"] is True


def test_a_plain_table_made_partitioned_keeps_its_dataset_s_field_ids(spark, root, ns):
    """Regression: the namespace schema numbered the columns 0, 1, ... while the dataset, which
    had dropped a column, kept ids 0 and 2, so a column added later took id 2 too: a reader that
    finds columns by field id (the spec's rule) read the old column as the new one."""
    uri = str(root / ns / "gap.lance")
    lance.write_dataset(pa.table({"a": ["x", "y"], "b": [1, 2], "c": [10, 20]}), uri).drop_columns(["b"])
    t = f"lance.{ns}.gap"
    spark.sql(f"ALTER TABLE {t} ADD PARTITION FIELD a")
    spark.sql(f"ALTER TABLE {t} ADD COLUMN d BIGINT")
    spark.sql(f"INSERT INTO {t} VALUES ('x', 30, 3), ('z', 40, 4)")
    manifest = lance.dataset(str(root / ns / "gap" / "__manifest"))
    ids = {f["name"]: int(f["metadata"]["lance:field_id"]) for f in json.loads(manifest.metadata["schema"])["fields"]}
    assert ids == {"a": 0, "c": 2, "d": 3}
    assert rows(spark, f"SELECT a, c, d FROM {t}") == [("x", 10, None), ("x", 30, 3), ("y", 20, None), ("z", 40, 4)]
    assert lancepart.crosscheck(spark, t) == {"rows": 4, "tables": 3}


def test_drop_table_removes_a_plain_dataset_its_partitioned_table_hides(spark, root, ns):
    """A commit that reached the plain dataset after it moved (or a REPLACE that could not delete
    it) leaves `<name>.lance` hidden by the partitioned table: DROP TABLE removes it too
    (regression: the old plain table came back)."""
    t = create(spark, ns)
    spark.sql(f"ALTER TABLE {t} ADD PARTITION FIELD c")
    lance.write_dataset(pa.table({"id": [99]}), str(root / ns / "t.lance"))  # a late writer
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(6,)]
    spark.sql(f"DROP TABLE {t}")
    assert not (root / ns / "t.lance").exists() and not (root / ns / "t").exists()
    assert spark.sql(f"SHOW TABLES IN lance.{ns}").collect() == []


def test_a_plain_table_stays_plain_where_its_partitioned_table_s_directory_is_taken(spark, root, ns):
    t = create(spark, ns)
    spark.sql(f"CREATE NAMESPACE lance.{ns}.t")
    with pytest.raises(Exception, match=f"cannot make the plain Lance table partitioned: {root / ns / 't'}, where "
                                        "the partitioned table would be, already exists"):
        spark.sql(f"ALTER TABLE {t} ADD PARTITION FIELD c")
    assert dataset(root, ns).to_table().num_rows == 6 and rows(spark, f"SELECT count(*) FROM {t}") == [(6,)]
    assert lancepart.Admin(spark).describe(t.removeprefix("lance."))["partitioned"] is False


def test_tables_a_lance_directory_namespace_registered_are_tables_of_the_catalog(spark, tmp_path):
    root = tmp_path / "dirns"
    directory = DirectoryNamespace(root=str(root))
    directory.create_namespace(CreateNamespaceRequest(id=["sales"]))
    directory.create_table(CreateTableRequest(id=["sales", "orders"]), ipc_bytes(pa.table({"id": [1, 2]})))
    directory.create_table(CreateTableRequest(id=["top"]), ipc_bytes(pa.table({"x": ["a"]})))
    lancepart.register_catalog(spark, "dirns", str(root))

    assert [r.namespace for r in spark.sql("SHOW NAMESPACES IN dirns").collect()] == ["sales"], \
        "a namespace only __manifest declares is listed; V2 table directories are not namespaces"
    assert [r.tableName for r in spark.sql("SHOW TABLES IN dirns.sales").collect()] == ["orders"]
    assert [r.tableName for r in spark.sql("SHOW TABLES IN dirns").collect()] == ["top"]
    spark.sql("INSERT INTO dirns.sales.orders VALUES (3)")
    assert rows(spark, "SELECT id FROM dirns.sales.orders") == [(1,), (2,), (3,)]
    location = directory.describe_table(lance.namespace.DescribeTableRequest(id=["sales", "orders"])).location
    assert lance.dataset(location).to_table().column("id").to_pylist() == [1, 2, 3]

    with pytest.raises(Exception, match="table dirns.sales.orders is a plain Lance table that the directory namespace "
                                        "__manifest in .* lists; only a <name>.lance table can be made partitioned"):
        spark.sql("ALTER TABLE dirns.sales.orders ADD PARTITION FIELD id")
    assert lance.dataset(location).to_table().column("id").to_pylist() == [1, 2, 3]

    spark.sql("DROP TABLE dirns.sales.orders")
    assert directory.list_tables(ListTablesRequest(id=["sales"])).tables == [], "its __manifest entry went too"
    assert spark.sql("SHOW TABLES IN dirns.sales").collect() == []
    with pytest.raises(Exception, match="namespace sales is declared in the __manifest of a Lance directory namespace"):
        spark.sql("DROP NAMESPACE dirns.sales")


def test_time_travel_reads_lance_versions(spark, root, ns):
    t = create(spark, ns)
    first_insert = dataset(root, ns).version - 1
    moment = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    spark.sql(f"DELETE FROM {t} WHERE id > 1")
    assert rows(spark, f"SELECT id FROM {t} VERSION AS OF {first_insert}") == [(1,), (2,), (3,)]
    assert rows(spark, f"SELECT count(*) FROM {t} TIMESTAMP AS OF '{moment}'") == [(6,)]
    assert rows(spark, f"SELECT id FROM {t}") == [(1,)]
    with pytest.raises(Exception, match="has no tag or branch 'x' \\(tags: none; branches: none;"):
        spark.sql(f"SELECT * FROM {t} VERSION AS OF 'x'").collect()
    with pytest.raises(Exception, match=f"no version was committed at or before"):
        spark.sql(f"SELECT * FROM {t} TIMESTAMP AS OF '2000-01-01'").collect()


def test_replace_keeps_older_versions_and_changes_the_kind_as_iceberg_s(spark, root, ns):
    """A plain table replaced without PARTITIONED BY stays one Lance dataset (its versions kept);
    with PARTITIONED BY it becomes a partitioned table and its dataset goes; a partitioned table
    replaced without PARTITIONED BY gets a spec without fields (Iceberg's unpartitioned spec)."""
    t = f"lance.{ns}.r"
    spark.sql(f"CREATE TABLE {t} AS SELECT id FROM range(5)")
    version = dataset(root, ns, "r").version
    spark.sql(f"CREATE OR REPLACE TABLE {t} AS SELECT 'x' AS name")
    assert rows(spark, f"SELECT * FROM {t}") == [("x",)]
    assert rows(spark, f"SELECT count(*) FROM {t} VERSION AS OF {version}") == [(5,)]

    spark.sql(f"REPLACE TABLE {t} PARTITIONED BY (c) AS SELECT id, CAST(id % 2 AS STRING) AS c FROM range(4)")
    assert rows(spark, f"SELECT id FROM {t} WHERE c = '1' ORDER BY id") == [(1,), (3,)]
    assert not (root / ns / "r.lance").exists() and lancepart.crosscheck(spark, t) == {"rows": 4, "tables": 2}
    assert [r.tableName for r in spark.sql(f"SHOW TABLES IN lance.{ns}").collect()] == ["r"]

    spark.sql(f"CREATE OR REPLACE TABLE {t} AS SELECT id FROM range(3)")
    manifest = lance.dataset(str(root / ns / "r" / "__manifest"))
    assert [json.loads(v)["fields"] for k, v in manifest.metadata.items() if k.startswith("partition_spec_v")] == [[]]
    assert rows(spark, f"SELECT * FROM {t} ORDER BY id") == [(0,), (1,), (2,)]
    assert lancepart.crosscheck(spark, t) == {"rows": 3, "tables": 1}


def test_a_failed_replace_of_a_plain_table_by_a_partitioned_one_keeps_the_plain_table(spark, root, ns):
    t = create(spark, ns)
    with pytest.raises(Exception, match="DIVIDE_BY_ZERO"):
        spark.sql(f"REPLACE TABLE {t} PARTITIONED BY (c) AS SELECT id, c, 1 / (id - 3) AS x FROM {t}").collect()
    assert not (root / ns / "t").exists()
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(6,)]
    assert lancepart.Admin(spark).describe(t.removeprefix("lance."))["partitioned"] is False


def test_maintenance_procedures_on_a_plain_table(spark, root, ns):
    admin = lancepart.Admin(spark)
    t = create(spark, ns)
    name = t.removeprefix("lance.")
    spark.sql(f"DELETE FROM {t} WHERE id = 5")
    fragments = len(dataset(root, ns).get_fragments())
    assert fragments > 1
    done = admin.rewrite_data_files(name)
    assert done["rewritten_data_files_count"] >= fragments and done["added_data_files_count"] == 1
    ds = dataset(root, ns)
    assert len(ds.get_fragments()) == 1 and ds.get_fragments()[0].metadata.deletion_file is None
    assert rows(spark, f"SELECT id FROM {t}") == [(1,), (2,), (3,), (4,), (6,)]
    with pytest.raises(Exception, match="plain Lance table, which rewrite_data_files compacts whole"):
        admin.rewrite_data_files(name, where="id > 1")

    compacted = ds.version
    spark.sql(f"TRUNCATE TABLE {t}")
    done = admin.rollback_to_version(name, compacted)
    assert done["restored_version"] == compacted and done["current_version"] == compacted + 2
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(5,)]

    versions = len(dataset(root, ns).versions())
    done = admin.expire_snapshots(name, older_than=datetime.datetime.now() + datetime.timedelta(minutes=1),
                                  retain_last=2)
    assert done["expired_versions_count"] == versions - 2
    assert [v["version"] for v in dataset(root, ns).versions()] == [compacted + 1, compacted + 2]
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(5,)]


MODES = ("copy-on-write", "merge-on-read")


def with_mode(spark, t, mode):
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.delete.mode' = '{mode}', "
              f"'write.update.mode' = '{mode}', 'write.merge.mode' = '{mode}')")


@pytest.mark.parametrize("mode", MODES)
def test_an_update_fails_when_a_delete_changed_its_fragment_meanwhile(spark, root, ns, tmp_path, mode):
    """The fragments an UPDATE rewrites, or whose rows' addresses it read (merge-on-read), must be
    as the version it read had them: a write that changed them since fails it, changing nothing."""
    t = create(spark, ns)
    with_mode(spark, t, mode)
    [(fragment,)] = rows(spark, f"SELECT _fragment FROM {t} WHERE id = 1")
    version = dataset(root, ns).version
    error = run_while_paused(
        spark, tmp_path, f"UPDATE {t} SET c = 'z' WHERE id = pause_until_go(1)",
        lambda: spark.sql(f"DELETE FROM {t} WHERE id = 1"))
    assert error is not None and "TransactionConflict" in str(error), error
    assert f"UPDATE conflicts with a write that changed fragments {fragment} after version {version}" in str(error)
    assert rows(spark, f"SELECT id, c FROM {t} WHERE id <= 3") == [(2, "b"), (3, "c")], "the UPDATE changed nothing"
    assert dataset(root, ns).version == version + 1, "only the DELETE committed"


@pytest.mark.parametrize("mode", MODES)
def test_a_merge_commits_beside_an_append(spark, root, ns, tmp_path, mode):
    t = create(spark, ns)
    with_mode(spark, t, mode)
    version = dataset(root, ns).version
    error = run_while_paused(
        spark, tmp_path,
        f"MERGE INTO {t} x USING (SELECT pause_until_go(1L) AS id) s ON x.id = s.id WHEN MATCHED THEN UPDATE SET c = 'm'",
        lambda: spark.sql(f"INSERT INTO {t} VALUES (7, 'g', NULL)"))
    assert error is None
    assert rows(spark, f"SELECT id, c FROM {t} WHERE id IN (1, 7)") == [(1, "m"), (7, "g")]
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(7,)]
    assert dataset(root, ns).version == version + 2


def fragments(root, ns) -> dict[int, tuple[list[str], int]]:
    """Per fragment id of the latest version: its data files and how many rows it has left."""
    return {f.fragment_id: (fragment_files(f), f.count_rows()) for f in dataset(root, ns).get_fragments()}


def test_merge_on_read_commands_delete_rows_in_place_and_append_their_new_versions(spark, root, ns):
    """write.<command>.mode = merge-on-read (docs/format.md, "Plain Lance tables"): each command is
    one Lance version that gives the fragments holding the rows it deletes deletion files, rewrites
    no fragment, and adds fragments holding only its new rows."""
    t = create(spark, ns)
    with_mode(spark, t, "merge-on-read")
    addresses = dataset(root, ns).to_table(columns=["id"], with_row_address=True).to_pylist()
    assert rows(spark, f"SELECT id, _rowaddr FROM {t}") == sorted((r["id"], r["_rowaddr"]) for r in addresses)

    def run(statement, deleted: dict[int, int], new_rows: list[tuple]):
        """Runs ``statement``; ``deleted``: rows it deletes per original fragment (by the id of a
        row in it); ``new_rows``: (id, c) of the rows in the fragments it adds."""
        before, version = fragments(root, ns), dataset(root, ns).version
        fragment_of = {r["id"]: int(r["_fragment"]) for r in spark.sql(f"SELECT _fragment, id FROM {t}").collect()}
        spark.sql(statement)
        after = dataset(root, ns)
        assert after.version == version + 1, "one Lance version"
        now = fragments(root, ns)
        left = {f: (files, n - sum(k for i, k in deleted.items() if fragment_of[i] == f))
                for f, (files, n) in before.items()}
        assert {f: now[f] for f in before if f in now} == {f: kept for f, kept in left.items() if kept[1]}, \
            "the same data files, fewer rows (deletion files); a fragment whose rows all went is dropped"
        added = [f for f in now if f not in before]
        assert sorted((r["id"], r["c"]) for f in added for r in after.get_fragment(f).to_table().to_pylist()) == \
            sorted(new_rows)

    run(f"UPDATE {t} SET c = 'z' WHERE id IN (1, 4)", {1: 1, 4: 1}, [(1, "z"), (4, "z")])
    run(f"DELETE FROM {t} WHERE upper(c) = 'B'", {2: 1, 5: 1}, [])  # a condition Lance cannot evaluate
    run(f"MERGE INTO {t} x USING (SELECT * FROM VALUES (3L, 'm'), (7L, 'n') AS s(id, c)) s ON x.id = s.id "
        "WHEN MATCHED THEN UPDATE SET c = s.c WHEN NOT MATCHED THEN INSERT (id, c, st) VALUES (s.id, s.c, NULL)",
        {3: 1}, [(3, "m"), (7, "n")])
    assert rows(spark, f"SELECT id, c, st.b FROM {t}") == \
        [(1, "z", "x"), (3, "m", None), (4, "z", "y"), (6, "c", None), (7, "n", None)]
    assert sorted(dataset(root, ns).to_table().column("id").to_pylist()) == [1, 3, 4, 6, 7]


def test_merge_on_read_refuses_a_table_whose_column_hides_the_row_address(spark, root, ns):
    """Lance reserves the name `_rowaddr`, but a dataset pylance renamed a column to it has one (which
    Lance's scans of it then refuse)."""
    uri = str(root / ns / "hiding.lance")
    lance.write_dataset(pa.table({"id": [1, 2], "x": [5, 6]}), uri).alter_columns({"path": "x", "name": "_rowaddr"})
    t = f"lance.{ns}.hiding"
    with_mode(spark, t, "merge-on-read")
    version = lance.dataset(uri).version
    with pytest.raises(Exception, match=f"table {t}: cannot UPDATE rows in merge-on-read mode: its column '_rowaddr' "
                                        "hides the metadata column of that name"):
        spark.sql(f"UPDATE {t} SET id = 3 WHERE id = 1")
    assert lance.dataset(uri).version == version


def test_a_dataframe_kept_across_writes_reads_what_they_wrote(spark, ns):
    t = create(spark, ns)
    frame = spark.table(t)
    spark.sql(f"INSERT INTO {t} VALUES (7, 'g', NULL)")
    assert frame.count() == 7
    spark.sql(f"ALTER TABLE {t} ADD COLUMN extra INT")
    with pytest.raises(Exception, match="its columns changed after this DataFrame or view loaded it"):
        frame.collect()


@pytest.mark.parametrize("statement, message", [
    ("CREATE TABLE {t}_m (id BIGINT) TBLPROPERTIES ('transaction.mode' = 'strong')",
     "transaction.mode is a property of partitioned tables"),
    ("CREATE TABLE {t}_s (id BIGINT) TBLPROPERTIES ('write.merge.isolation-level' = 'serializable')",
     "cannot be serializable on a plain Lance table"),
    ("CREATE TABLE {t}_l (id BIGINT) LOCATION '/elsewhere'", "LOCATION 'file:/elsewhere' is not supported"),
    ("SELECT * FROM {t} VERSION AS OF 99", "has no version 99 (versions kept: 1, 2, 3, 4)"),
    ("REPLACE TABLE {t} (id BIGINT) TBLPROPERTIES ('data_storage_version' = '2.2')",
     "REPLACE cannot change data_storage_version from 2.1 to 2.2"),
    ("CREATE TABLE {t}_r (id BIGINT, _rowaddr BIGINT)", "column name '_rowaddr' is not supported: Lance reserves it"),
    ("ALTER TABLE {t} RENAME COLUMN c TO _rowid", "column name '_rowid' is not supported: Lance reserves it"),
    ("ALTER TABLE {t} SET TBLPROPERTIES ('write.update.isolation-level' = 'serializable')",
     "cannot be serializable on a plain Lance table"),
    ("ALTER TABLE {t} ALTER COLUMN id TYPE DECIMAL(30, 0)", "cannot change type on a plain Lance table"),
    ("ALTER TABLE {t} ADD COLUMN st.z INT", "only top-level columns can be added, not 'st.z'"),
    ("CREATE TABLE {t} (id BIGINT) PARTITIONED BY (id)", "already exists"),
    ("ALTER TABLE {t} DROP PARTITION FIELD c", "the current spec has no partition field c (spec v1: no fields)"),
    ("ALTER TABLE {t} ADD PARTITION FIELD nope", "PARTITIONED BY column 'nope' is not a column of the table"),
])
def test_bad_statements_are_refused_naming_the_problem(spark, ns, statement, message):
    t = create(spark, ns)
    with pytest.raises(Exception, match=message.replace("(", r"\(").replace(")", r"\)")):
        spark.sql(statement.format(t=t, name=t.removeprefix("lance."))).collect()
    assert rows(spark, f"SELECT count(*) FROM {t}") == [(6,)]
    assert [r.tableName for r in spark.sql(f"SHOW TABLES IN lance.{ns}").collect()] == ["t"], \
        "a refused CREATE leaves no table (regression: it left an empty one)"


def test_a_map_column_is_added_by_replacing_the_table(spark, ns):
    """Regression: ADD COLUMN of a MAP failed in Lance ('All-null columns must be nullable')."""
    t = f"lance.{ns}.maps"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, m MAP<STRING, INT>)")
    spark.sql(f"INSERT INTO {t} VALUES (1, map('a', 1))")
    with pytest.raises(Exception, match=f"table {t}: column 'n' of type MAP<INT, INT> cannot be added to a plain Lance "
                                        "table: Lance adds a column to existing rows only when every field in it can "
                                        f"be NULL, and a map's keys cannot; write the table anew with CREATE OR "
                                        f"REPLACE TABLE {t} AS SELECT \\*, CAST\\(NULL AS MAP<INT, INT>\\) AS n"):
        spark.sql(f"ALTER TABLE {t} ADD COLUMN n MAP<INT, INT>")
    spark.sql(f"CREATE OR REPLACE TABLE {t} AS SELECT *, CAST(NULL AS MAP<INT, INT>) AS n FROM {t}")
    spark.sql(f"INSERT INTO {t} VALUES (2, NULL, map(7, 70))")
    assert rows(spark, f"SELECT id, m, n FROM {t}") == [(1, {"a": 1}, None), (2, None, {7: 70})]


def test_a_dictionary_column_pylance_wrote_refuses_the_table_naming_it(spark, root, ns):
    """Regression: the dictionary's indices were read as the column's values."""
    categories = pa.array(["x", "y", "x"]).dictionary_encode()
    lance.write_dataset(pa.table({"id": [1, 2, 3], "cat": categories}), str(root / ns / "cats.lance"))
    with pytest.raises(Exception, match=f"table lance.{ns}.cats: column 'cat' is dictionary-encoded"):
        spark.sql(f"SELECT * FROM lance.{ns}.cats").collect()


def test_snapshots_and_history_list_the_lance_versions(spark, root, ns):
    t = create(spark, ns)
    spark.sql(f"UPDATE {t} SET c = 'z' WHERE id = 1")
    spark.sql(f"DELETE FROM {t} WHERE id = 2")
    spark.sql(f"CALL lance.system.rewrite_data_files(table => '{t.removeprefix('lance.')}')")
    spark.sql(f"CALL lance.system.rollback_to_version(table => '{t.removeprefix('lance.')}', version => 3)")
    snapshots = spark.sql(f"SELECT snapshot_id, parent_id, operation, summary FROM {t}.snapshots "
                          "ORDER BY snapshot_id").collect()
    assert [r.snapshot_id for r in snapshots] == [v["version"] for v in dataset(root, ns).versions()]
    assert [r.operation for r in snapshots] == \
        ["create", "create", "append", "append", "overwrite", "delete", "replace", "rollback"]
    assert snapshots[2].summary == {"added-records": "3", "total-records": "3",
                                    "total-data-files": snapshots[2].summary["total-data-files"]}
    assert snapshots[5].summary["deleted-records"] == "1" and snapshots[5].summary["total-records"] == "5"
    assert (snapshots[4].summary["added-records"], snapshots[4].summary["deleted-records"]) == ("1", "1"), \
        "the UPDATE of one row: the rows of the fragments its commit added, and as many deleted"
    history = {r.snapshot_id: r.is_current_ancestor for r in spark.sql(f"SELECT * FROM {t}.history").collect()}
    assert [v for v, ancestor in sorted(history.items()) if not ancestor] == [4, 5, 6, 7], \
        "the versions the rollback to version 3 undid"
    with pytest.raises(Exception, match="is a plain Lance table .*: it has no partitions"):
        spark.sql(f"SELECT * FROM {t}.partitions").collect()

    spark.sql(f"CALL lance.system.expire_snapshots(table => '{t.removeprefix('lance.')}', "
              "older_than => current_timestamp(), retain_last => 2)")
    kept = spark.sql(f"SELECT snapshot_id, parent_id, operation FROM {t}.snapshots ORDER BY snapshot_id").collect()
    assert [tuple(r) for r in kept] == [(7, 6, "unknown"), (8, 7, "rollback")], \
        "the oldest version kept has nothing to compare with (regression: it showed as create)"


def test_rewrites_of_a_table_with_nanosecond_values_are_refused(spark, root, ns):
    """Regression: UPDATE and MERGE wrote back nanosecond timestamps of columns they did not set
    truncated to microseconds."""
    lance.write_dataset(pa.table({"id": [1, 2], "ts": pa.array([1, 2], pa.timestamp("ns"))}), str(root / ns / "ticks.lance"))
    with pytest.raises(Exception, match="cannot UPDATE rows: column 'ts' stores timestamp\\[ns\\] values"):
        spark.sql(f"UPDATE lance.{ns}.ticks SET id = 3 WHERE id = 1")
    spark.sql(f"DELETE FROM lance.{ns}.ticks WHERE id = 2")  # a Lance delete writes no row back
    assert lance.dataset(str(root / ns / "ticks.lance")).to_table() == \
        pa.table({"id": [1], "ts": pa.array([1], pa.timestamp("ns"))})


def test_show_create_table_declares_fixed_size_lists(spark, ns):
    """Regression: the property declaring a fixed-size list was missing, so the statement SHOW
    CREATE TABLE printed made a variable-size list column."""
    spark.sql(f"CREATE TABLE lance.{ns}.vec (id BIGINT, emb ARRAY<FLOAT>) "
              "TBLPROPERTIES ('lancepart.fixed-size-list.emb' = '3')")
    statement = spark.sql(f"SHOW CREATE TABLE lance.{ns}.vec").first()[0]
    assert "'lancepart.fixed-size-list.emb' = '3'" in statement


def test_admin_operations_for_partitioned_tables_refuse_a_plain_one_by_name(spark, ns):
    create(spark, ns)
    admin = lancepart.Admin(spark)
    for call in (lambda: admin.repair(f"{ns}.t"), lambda: admin.vacuum(f"{ns}.t"), lambda: admin.partitions(f"{ns}.t")):
        with pytest.raises(lancepart.LancepartError, match=f"table lance.{ns}.t is a plain Lance table"):
            call()


@pytest.mark.parametrize("mode", MODES)
def test_concurrent_increments_that_retry_on_conflict_all_count(spark, ns, mode):
    """Two threads each add 1 to every row four times, running an UPDATE again when it fails with
    TransactionConflict (as the docs advise): every increment that reported success is there
    (regression: an UPDATE planned while another committed rewrote nothing and reported success)."""
    t = f"lance.{ns}.counter"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, v INT) TBLPROPERTIES ('write.update.mode' = '{mode}')")
    spark.sql(f"INSERT INTO {t} SELECT id, 0 FROM range(20)")
    errors = []

    def increment():
        for _ in range(4):
            for _attempt in range(20):
                try:
                    spark.sql(f"UPDATE {t} SET v = v + 1").collect()
                    break
                except Exception as e:  # noqa: BLE001 - only conflicts are retried
                    if "TransactionConflict" not in str(e):
                        errors.append(e)
                        return

    threads = [threading.Thread(target=increment) for _ in range(2)]
    [thread.start() for thread in threads]
    [thread.join(300) for thread in threads]
    assert not errors, errors
    assert rows(spark, f"SELECT min(v), max(v), count(*) FROM {t}") == [(8, 8, 20)]


def test_crosscheck_reads_a_plain_table_with_pylance(spark, root, ns):
    t = create(spark, ns)
    assert lancepart.table_uri(spark, t)[0] == str(root / ns / "t.lance")
    assert lancepart.crosscheck(spark, t) == {"rows": 6, "tables": 1}
    spark.sql(f"CREATE TABLE lance.{ns}.flat AS SELECT id, CAST(id AS STRING) AS s FROM range(10)")
    # (not on t: pylance 7.0's filtered scans read a NULL struct as a struct of NULLs)
    assert lancepart.crosscheck(spark, f"lance.{ns}.flat", where="id > 4") == {"rows": 5, "tables": 1}
