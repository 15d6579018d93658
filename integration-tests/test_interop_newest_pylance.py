"""Interop with the newest pylance, which writes Lance file format 2.2: it runs in its own virtual
environment (`make test` creates .venv-newest-pylance), apart from the package's pinned pylance,
in one process for the module.
Each way round, one side writes a partitioned namespace and the other reads exact rows, prunes,
appends and evolves it (RENAME COLUMN included); a namespace of every Arrow type Lance stores reads
and takes writes; the maintenance procedures keep a namespace the newest pylance reads."""

import json
import re
import os
import subprocess
import textwrap
import time
from pathlib import Path

import lance
import pytest
from pyspark.errors import StreamingQueryException

import lancepart
from conftest import tables_scanned
from handwritten import comparable

HERE = Path(__file__).resolve().parent
NEWEST_PYTHON = Path(os.environ.get("LANCEPART_NEWEST_PYLANCE_PYTHON",
                                    HERE.parent / ".venv-newest-pylance" / "bin" / "python"))


# The newest pylance's side: one process for the module, which runs each request's code as a
# script (its stdout captured; anything written to file descriptor 1 goes to stderr) and answers
# on its own stdout. Importing pylance and pyarrow takes about 3 CPU seconds, which a process per
# request spent again each time.
RUNNER = """
import contextlib, io, json, os, sys, traceback
replies = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
for request in sys.stdin:
    code, sys.argv[1:] = json.loads(request)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, "<request>", "exec"), {"__name__": "__main__"})
        reply = {"stdout": out.getvalue()}
    except Exception:
        reply = {"error": traceback.format_exc()}
    print(json.dumps(reply), file=replies, flush=True)
"""


@pytest.fixture(scope="module")
def newest():
    """A function that runs `code` under the newest pylance with `args` as sys.argv[1:] and
    returns what it printed as JSON (None when it printed nothing); `handwritten` is importable
    there."""
    assert NEWEST_PYTHON.is_file(), f"{NEWEST_PYTHON} is missing: `make test` creates it"
    process = subprocess.Popen([str(NEWEST_PYTHON), "-c", RUNNER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               env={**os.environ, "PYTHONPATH": str(HERE)}, text=True)

    def run(code: str, *args):
        process.stdin.write(json.dumps([textwrap.dedent(code), [str(a) for a in args]]) + "\n")
        process.stdin.flush()
        line = process.stdout.readline()
        assert line, f"the newest pylance's process ended (exit code {process.wait(timeout=60)})"
        reply = json.loads(line)
        assert "error" not in reply, reply.get("error")
        return json.loads(reply["stdout"]) if reply["stdout"].strip() else None

    yield run
    process.stdin.close()
    process.wait(timeout=60)


def spark_rows(spark, table):
    return comparable(r.asDict(recursive=True) for r in spark.table(table).collect())


def test_the_newest_pylance_is_the_one_tested(newest):
    version = newest("import json, lance; print(json.dumps(lance.__version__))")
    assert int(version.split(".")[0]) >= 14, version
    assert lance.__version__ != version, "the newest pylance runs apart from the package's pinned one"


def test_a_namespace_written_by_the_newest_pylance_reads_prunes_and_takes_writes(spark, root, ns, newest):
    table_dir = root / ns / "events"
    newest("""
        import sys, handwritten
        handwritten.write_by_hand(sys.argv[1])
    """, table_dir)
    t = f"lance.{ns}.events"
    written = newest("""
        import json, sys, handwritten
        print(json.dumps(handwritten.comparable(handwritten.read_by_hand(sys.argv[1]))))
    """, table_dir)
    assert spark_rows(spark, t) == written
    assert tables_scanned(spark, f"SELECT id FROM {t} WHERE country = 'JP'") == (3, 4)  # v1 leaves cannot be pruned by country

    # into existing leaves of either spec and into a new one, each in the table's file format
    spark.sql(f"INSERT INTO {t} VALUES (6, DATE'2025-12-20', 'US'), (7, DATE'2025-12-10', 'JP'), "
              "(8, DATE'2026-02-01', 'DE')")
    seen = newest("""
        import json, sys, lance, handwritten
        manifest = lance.dataset(sys.argv[1] + "/__manifest")
        versions = sorted({lance.dataset(sys.argv[1] + "/" + r["location"]).data_storage_version
                           for r in manifest.to_table().to_pylist() if r["object_type"] == "table"})
        print(json.dumps({"rows": handwritten.comparable(handwritten.read_by_hand(sys.argv[1])),
                          "ids": sorted(r["id"] for r in handwritten.read_by_hand(sys.argv[1])),
                          "file_versions": versions, "manifest": manifest.data_storage_version}))
    """, table_dir)
    assert seen["file_versions"] == ["2.2"] and seen["manifest"] == "2.2"
    assert spark.sql(f"SHOW TBLPROPERTIES {t} ('data_storage_version')").collect()[0].value == "2.2"
    assert seen["rows"] == spark_rows(spark, t)
    assert seen["ids"] == [1, 2, 3, 4, 4, 5, 6, 7, 8]

    spark.sql(f"ALTER TABLE {t} ADD COLUMN note STRING")
    spark.sql(f"INSERT INTO {t} VALUES (9, DATE'2025-12-20', 'US', 'added')")
    after = newest("""
        import json, sys, handwritten
        print(json.dumps(handwritten.comparable(handwritten.read_by_hand(sys.argv[1]))))
    """, table_dir)
    assert after == spark_rows(spark, t)
    assert spark.sql(f"SELECT note FROM {t} WHERE id = 9").collect()[0].note == "added"

    # RENAME renames the column in every leaf (published as read_version): read by name, as the
    # spec's appendices read, the newest pylance sees the new name with the values
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN country TO nation")
    renamed = newest("""
        import json, sys, handwritten
        print(json.dumps(handwritten.comparable(handwritten.read_by_hand(sys.argv[1]))))
    """, table_dir)
    expected = sorted(json.dumps({"nation" if k == "country" else k: v for k, v in json.loads(r).items()},
                                 sort_keys=True) for r in after)
    assert renamed == spark_rows(spark, t) == expected
    lancepart.crosscheck(spark, t)


def test_maintenance_leaves_a_namespace_of_the_newest_pylance_that_it_reads(spark, root, ns, newest):
    """Compaction, manifest compaction and expiry (lance-core 7.0.0) of a namespace the newest
    pylance wrote in file format 2.2: the newest pylance reads the same rows as Spark after them."""
    table_dir = root / ns / "events"
    newest("""
        import sys, handwritten
        handwritten.write_by_hand(sys.argv[1])
    """, table_dir)
    t = f"lance.{ns}.events"
    for i in range(3):
        spark.sql(f"INSERT INTO {t} VALUES ({10 + i}, DATE'2025-12-20', 'US'), ({20 + i}, DATE'2025-12-10', 'JP')")
    before = spark_rows(spark, t)
    [compacted] = spark.sql(f"CALL lance.system.rewrite_data_files(table => '{ns}.events')").collect()
    assert compacted.rewritten_partition_tables_count >= 2
    spark.sql(f"CALL lance.system.rewrite_manifests(table => '{ns}.events')").collect()
    spark.sql(f"CALL lance.system.expire_snapshots(table => '{ns}.events', older_than => current_timestamp())").collect()
    seen = newest("""
        import json, sys, handwritten
        print(json.dumps(handwritten.comparable(handwritten.read_by_hand(sys.argv[1]))))
    """, table_dir)
    assert seen == spark_rows(spark, t) == before


def test_a_lancepart_table_reads_lists_and_takes_writes_in_the_newest_pylance(spark, root, ns, newest):
    t = f"lance.{ns}.events"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, ts TIMESTAMP, country STRING, amount DECIMAL(10, 2), "
              "score DOUBLE, tags ARRAY<STRING>, place STRUCT<city: STRING, zip: INT>) "
              "PARTITIONED BY (days(ts), country, bucket(4, id))")
    spark.sql(f"INSERT INTO {t} VALUES "
              "(1, TIMESTAMP'2025-12-10 08:00:00', 'US', 12.50, 0.5, array('a', 'b'), named_struct('city', 'NYC', 'zip', 10001)), "
              "(2, TIMESTAMP'2025-12-10 09:30:00', NULL, NULL, NULL, NULL, NULL), "
              "(3, TIMESTAMP'2025-12-11 23:59:59', 'FR', -3.25, -1.0, array(), named_struct('city', NULL, 'zip', 75001))")
    spark.sql(f"ALTER TABLE {t} ADD COLUMN note STRING")
    spark.sql(f"INSERT INTO {t} VALUES (4, TIMESTAMP'2025-12-11 00:00:00', 'FR', 1.00, 2.0, array('c'), NULL, 'late')")
    table_dir = root / ns / "events"

    read = newest("""
        import json, sys, handwritten
        from lance.namespace import DirectoryNamespace
        import lance_namespace as ln
        import lance
        ns = DirectoryNamespace(root=sys.argv[1])
        tables = [r["object_id"] for r in lance.dataset(sys.argv[1] + "/__manifest").to_table().to_pylist()
                  if r["object_type"] == "table"]
        print(json.dumps({"rows": handwritten.comparable(handwritten.read_by_hand(sys.argv[1])),
                          "specs": ns.list_namespaces(ln.ListNamespacesRequest(id=[])).namespaces,
                          "described": sorted(ns.describe_table(ln.DescribeTableRequest(id=t.split("$"))).location
                                              for t in tables)}))
    """, table_dir)
    assert read["rows"] == spark_rows(spark, t)
    assert read["specs"] == ["v1"]
    # every partition table, the one of NULL country included (regression: its metadata held a JSON null)
    assert len(read["described"]) == tables_scanned(spark, f"SELECT id FROM {t}")[1]

    # the newest pylance appends to the leaf holding id 3 and adds a column to the namespace
    newest("""
        import json, sys, lance, pyarrow as pa
        table_dir = sys.argv[1]
        manifest = lance.dataset(table_dir + "/__manifest")
        for row in manifest.to_table().to_pylist():
            if row["object_type"] != "table":
                continue
            leaf = lance.dataset(table_dir + "/" + row["location"])
            if 3 in leaf.to_table(columns=["id"])["id"].to_pylist():
                rows = leaf.to_table(filter="id = 3")
                rows = rows.set_column(rows.schema.get_field_index("id"), rows.schema.field("id"),
                                       pa.array([30], pa.int64()))
                lance.write_dataset(rows, leaf.uri, mode="append")
                leaf = lance.dataset(leaf.uri)
                leaf.add_columns({"origin": "'newest pylance'"})
        schema = json.loads(manifest.metadata["schema"])
        next_id = max(int(f["metadata"]["lance:field_id"]) for f in schema["fields"]) + 1
        schema["fields"].append({"name": "origin", "nullable": True, "type": {"type": "utf8"},
                                 "metadata": {"lance:field_id": str(next_id)}})
        manifest.update_metadata({"schema": json.dumps(schema)})
    """, table_dir)
    rows = {r.id: r for r in spark.table(t).collect()}
    assert sorted(rows) == [1, 2, 3, 4, 30]
    assert (rows[30].ts, rows[30].country, rows[30].amount, rows[30].place) == \
        (rows[3].ts, rows[3].country, rows[3].amount, rows[3].place)
    assert {i: r.origin for i, r in rows.items()} == {1: None, 2: None, 3: "newest pylance", 4: None,
                                                      30: "newest pylance"}
    assert tables_scanned(spark, f"SELECT id FROM {t} WHERE country = 'FR'") == (2, 4)
    lancepart.crosscheck(spark, t)


def test_the_file_format_is_chosen_at_create_and_kept(spark, root, ns):
    t = f"lance.{ns}.events"
    spark.sql(f"CREATE TABLE {t} (id INT, c STRING) PARTITIONED BY (c) TBLPROPERTIES ('data_storage_version' = '2.2')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    table_dir = root / ns / "events"
    leaves = [r for r in lance.dataset(f"{table_dir}/__manifest").to_table().to_pylist() if r["object_type"] == "table"]
    assert {lance.dataset(f"{table_dir}/{r['location']}").data_storage_version for r in leaves} == {"2.2"}
    assert lance.dataset(f"{table_dir}/__manifest").data_storage_version == "2.2"
    assert "'data_storage_version' = '2.2'" in spark.sql(f"SHOW CREATE TABLE {t}").collect()[0][0]

    with pytest.raises(Exception, match=rf"table lance.{ns}.events: property 'data_storage_version' cannot be set: "
                                        "the Lance file format of a table's datasets is chosen at CREATE TABLE"):
        spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('data_storage_version' = '2.1')")
    with pytest.raises(Exception, match=rf"table lance.{ns}.events: REPLACE cannot change data_storage_version "
                                        "from 2.2 to 2.1"):
        spark.sql(f"REPLACE TABLE {t} (id INT) PARTITIONED BY (id) TBLPROPERTIES ('data_storage_version' = '2.1')")
    with pytest.raises(Exception, match=rf"table lance.{ns}.other: data_storage_version '3.0' is not a Lance file "
                                        "format version; expected one of 2.0, 2.1, 2.2"):
        spark.sql(f"CREATE TABLE lance.{ns}.other (id INT) PARTITIONED BY (id) TBLPROPERTIES ('data_storage_version' = '3.0')")
    assert [r.tableName for r in spark.sql(f"SHOW TABLES IN lance.{ns}").collect()] == ["events"]
    assert sorted(r.id for r in spark.table(t).collect()) == [1, 2]


def test_a_table_the_newest_directory_namespace_declared_into_is_repaired(spark, admin, root, ns, newest):
    """Lance's DirectoryNamespace rewrites __manifest down to its five base columns when it
    declares a table, and leaves the declared table's location holding only a reservation."""
    t = f"lance.{ns}.events"
    spark.sql(f"CREATE TABLE {t} (id INT, c STRING) PARTITIONED BY (c)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'a')")
    expected = sorted(tuple(r) for r in spark.table(t).collect())
    spark.sql(f"CREATE TABLE {t}_copy (id INT, c STRING) PARTITIONED BY (c)")

    def stream(checkpoint: str, **options: str) -> None:
        (spark.readStream.options(**options).table(t).writeStream.option("checkpointLocation", str(root / checkpoint))
         .trigger(availableNow=True).toTable(f"{t}_copy").awaitTermination())

    stream(f"{ns}-events-copy")
    table_dir = root / ns / "events"
    declared = newest("""
        import json, sys, lance_namespace as ln
        from lance.namespace import DirectoryNamespace
        d = DirectoryNamespace(root=sys.argv[1])
        d.create_namespace(ln.CreateNamespaceRequest(id=["v1", "zzzzzzzzzzzzzzzz"]))
        d.declare_table(ln.DeclareTableRequest(id=["v1", "zzzzzzzzzzzzzzzz", "dataset"]))
        d.create_namespace(ln.CreateNamespaceRequest(id=["other"]))
        d.declare_table(ln.DeclareTableRequest(id=["other", "tbl"]))
        import lance
        print(json.dumps(sorted(lance.dataset(sys.argv[1] + "/__manifest").schema.names)))
    """, table_dir)
    assert declared == sorted(["object_id", "object_type", "location", "metadata", "base_objects"])
    with pytest.raises(Exception, match=r"Admin.repair\('lance\.\w+\.events'\) restores them"):
        spark.table(t).collect()

    with pytest.warns(UserWarning, match=r"tables declared and never created NULL \(they read as empty\): "
                                         r"v1\$zzzzzzzzzzzzzzzz\$dataset"):
        assert admin.repair(t) == len(lance.dataset(f"{table_dir}/__manifest").to_table())
    assert sorted(tuple(r) for r in spark.table(t).collect()) == expected
    assert spark.sql(f"SELECT count(*) FROM {t}").collect()[0][0] == 3
    assert [r.c for r in spark.sql(f"SELECT c FROM {t}.partitions ORDER BY c").collect()] == ["a", "b"]
    assert tables_scanned(spark, f"SELECT id FROM {t} WHERE c = 'a'") == (1, 3)
    assert lancepart.crosscheck(spark, t)["tables"] == 2
    spark.sql(f"INSERT INTO {t} VALUES (4, 'b'), (5, 'c')")
    assert sorted(r.id for r in spark.table(t).collect()) == [1, 2, 3, 4, 5]
    # a read stream cannot follow the version without partition columns: it says so (a new user's
    # trial found it reporting the version missing), and a new checkpoint starts after it
    with pytest.raises(StreamingQueryException, match=r"version \d+ cannot be read as a partitioned table .* "
                                                      r"start the query again with a new checkpoint"):
        stream(f"{ns}-events-copy")
    assert spark.sql(f"SELECT count(*) FROM {t}.snapshots").collect()[0][0] > 0
    after = {"stream-from-timestamp": str(int(time.time() * 1000) + 1)}
    time.sleep(0.01)
    spark.sql(f"INSERT INTO {t} VALUES (6, 'a')")
    stream(f"{ns}-events-copy-2", **after)
    assert sorted(r.id for r in spark.table(f"{t}_copy").collect()) == [1, 2, 3, 6]


def test_a_table_the_newest_directory_namespace_created_in_a_partition_is_repaired_and_read_by_every_scan(
        spark, admin, root, ns, newest):
    """A table with rows that DirectoryNamespace created inside a partition namespace has no partition
    values: repair keeps them unguessed (NULL) and records the table, which every scan then reads with
    Spark evaluating the partition filters on its rows; writes that replace partitions treat it
    accordingly. Once that client removes it, a repair makes pruning exact again."""
    t = f"lance.{ns}.events"
    spark.sql(f"CREATE TABLE {t} (id INT, c STRING) PARTITIONED BY (c)")
    ours = [(1, "a"), (2, "b"), (3, "a")]
    spark.sql(f"INSERT INTO {t} VALUES " + ", ".join(f"({i}, '{c}')" for i, c in ours))
    table_dir = root / ns / "events"
    namespace = next(r["object_id"] for r in lance.dataset(f"{table_dir}/__manifest").to_table().to_pylist()
                     if r["object_type"] == "namespace" and r["object_id"].startswith("v1$"))
    theirs = [(4, "a"), (5, "z")]
    newest("""
        import json, sys, pyarrow as pa, lance_namespace as ln
        from lance.namespace import DirectoryNamespace
        rows = json.loads(sys.argv[3])
        data = pa.table({"id": pa.array([r[0] for r in rows], pa.int32()), "c": [r[1] for r in rows]})
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, data.schema) as writer:
            writer.write_table(data)
        DirectoryNamespace(root=sys.argv[1]).create_table(
            ln.CreateTableRequest(id=[*sys.argv[2].split("$"), "extra"]), sink.getvalue().to_pybytes())
    """, table_dir, namespace, json.dumps(theirs))
    row = f"{namespace}$extra"
    with pytest.warns(UserWarning, match=re.escape(f"tables without partition values, read by every scan (another "
                                                   f"client created them): {row}")):
        admin.repair(t)

    def ids(where=None):
        return sorted(r.id for r in spark.sql(f"SELECT id FROM {t}" + (f" WHERE {where}" if where else "")).collect())

    rows = ours + theirs
    assert ids() == sorted(i for i, _ in rows)
    for value in ["a", "b", "z"]:
        assert ids(f"c = '{value}'") == sorted(i for i, c in rows if c == value)
        assert spark.sql(f"SELECT count(*) FROM {t} WHERE c = '{value}'").collect()[0][0] == \
            sum(c == value for _, c in rows)
    assert tables_scanned(spark, f"SELECT id FROM {t} WHERE c = 'b'") == (2, 3)
    assert spark.sql(f"SELECT count(*) FROM {t}").collect()[0][0] == len(rows)
    grouped = spark.sql(f"SELECT c, count(*) AS n FROM {t} GROUP BY c")
    assert "Exchange" in grouped._jdf.queryExecution().executedPlan().toString()
    assert sorted(map(tuple, grouped.collect())) == sorted((c, sum(x == c for _, x in rows)) for c in {c for _, c in rows})
    assert lancepart.crosscheck(spark, t) == {"rows": 5, "tables": 3}

    spark.sql(f"INSERT INTO {t} VALUES (6, 'a')")
    rows.append((6, "a"))
    location = next(r["location"] for r in lance.dataset(f"{table_dir}/__manifest").to_table().to_pylist()
                    if r["object_id"] == row)
    assert lance.dataset(f"{table_dir}/{location}").count_rows() == len(theirs)
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        with pytest.raises(Exception, match=re.escape(
                f"table {t}: cannot overwrite partitions dynamically while partition tables have no partition values "
                f"({row}; another client created them)")):
            spark.sql(f"INSERT OVERWRITE {t} VALUES (7, 'a')")
    finally:
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    spark.sql(f"INSERT OVERWRITE {t} PARTITION (c = 'z') VALUES (8)")
    rows = [r for r in rows if r[1] != "z"] + [(8, "z")]
    spark.sql(f"DELETE FROM {t} WHERE c = 'a'")
    rows = [r for r in rows if r[1] != "a"]
    assert sorted(map(tuple, spark.table(t).collect())) == sorted(rows)

    newest("""
        import sys, lance_namespace as ln
        from lance.namespace import DirectoryNamespace
        DirectoryNamespace(root=sys.argv[1]).drop_table(ln.DropTableRequest(id=sys.argv[2].split("$")))
    """, table_dir, row)
    rows = [r for r in rows if r not in theirs]
    admin.repair(t)  # drop_table rewrote __manifest without the partition columns again
    assert "lancepart.unpartitioned-tables" not in lance.dataset(f"{table_dir}/__manifest").metadata
    assert sorted(map(tuple, spark.table(t).collect())) == sorted(rows)
    assert tables_scanned(spark, f"SELECT id FROM {t} WHERE c = 'b'")[0] == 1
    assert lancepart.crosscheck(spark, t)["rows"] == len(rows)


def test_every_stored_type_written_by_the_newest_pylance_reads_and_takes_writes(spark, root, ns, newest):
    """The Arrow types of docs/format.md "Types", in datasets of file format 2.2."""
    from handwritten import TYPED, TYPED_ROWS
    from test_arrow_types import INSERTED, INSERTED_SQL, expected

    table_dir = root / ns / "typed"
    newest("""
        import sys, handwritten
        handwritten.write_typed_by_hand(sys.argv[1])
    """, table_dir)
    t = f"lance.{ns}.typed"
    assert [r.asDict(recursive=True) for r in spark.table(t).orderBy("id").collect()] == expected(TYPED_ROWS)

    spark.sql(f"INSERT INTO {t} VALUES (5, 'a', {INSERTED_SQL})")
    seen = newest("""
        import json, sys, lance
        manifest = lance.dataset(sys.argv[1] + "/__manifest")
        leaves = [lance.dataset(sys.argv[1] + "/" + r["location"]) for r in manifest.to_table().to_pylist()
                  if r["object_type"] == "table"]
        print(json.dumps({"types": sorted({str(leaf.schema.types) for leaf in leaves}),
                          "versions": sorted({leaf.data_storage_version for leaf in leaves}),
                          "u64": [v for leaf in leaves for v in leaf.to_table(filter="id = 5")["u64"].to_pylist()]}))
    """, table_dir)
    assert seen["types"] == [str(TYPED.types)]  # both leaves keep the types the newest pylance wrote
    assert seen["versions"] == ["2.2"]
    assert seen["u64"] == [INSERTED["u64"]]
    rows = [r.asDict(recursive=True) for r in spark.table(t).orderBy("id").collect()]
    assert rows == expected([*TYPED_ROWS, INSERTED])
    assert lancepart.crosscheck(spark, t) == {"rows": 5, "tables": 2}


def test_plain_tables_of_a_directory_namespace_the_newest_pylance_manages(spark, tmp_path, newest):
    root = tmp_path / "dirns"
    newest("""
        import io, sys
        import pyarrow as pa, pyarrow.ipc as ipc
        from lance.namespace import CreateNamespaceRequest, CreateTableRequest, DirectoryNamespace
        table = pa.table({"id": pa.array([1, 2], pa.int64()), "tag": pa.array([3, 4], pa.uint16()),
                          "emb": pa.FixedSizeListArray.from_arrays(pa.array([0.5, 1.5, 2.5, 3.5], pa.float32()), 2)})
        data = io.BytesIO()
        with ipc.new_stream(data, table.schema) as writer:
            writer.write_table(table)
        directory = DirectoryNamespace(root=sys.argv[1])
        directory.create_namespace(CreateNamespaceRequest(id=["app"]))
        directory.create_table(CreateTableRequest(id=["app", "items"]), data.getvalue())
    """, root)
    lancepart.register_catalog(spark, "newestns", str(root))
    assert [r.tableName for r in spark.sql("SHOW TABLES IN newestns.app").collect()] == ["items"]
    spark.sql("INSERT INTO newestns.app.items VALUES (3, 5, array(4.5, 5.5))")
    spark.sql("UPDATE newestns.app.items SET tag = tag + 10 WHERE id = 1")
    spark.sql("DELETE FROM newestns.app.items WHERE id = 2")
    read = newest("""
        import json, sys
        import lance
        from lance.namespace import DescribeTableRequest, DirectoryNamespace
        location = DirectoryNamespace(root=sys.argv[1]).describe_table(DescribeTableRequest(id=["app", "items"])).location
        ds = lance.dataset(location)
        print(json.dumps({"rows": ds.to_table().sort_by("id").to_pylist(), "schema": str(ds.schema),
                          "format": ds.data_storage_version}))
    """, root)
    assert read["rows"] == [{"id": 1, "tag": 13, "emb": [0.5, 1.5]}, {"id": 3, "tag": 5, "emb": [4.5, 5.5]}]
    assert "tag: uint16" in read["schema"] and "emb: fixed_size_list<item: float>[2]" in read["schema"]
    assert read["format"] == "2.2"
