"""Writes through every entry point, round trips of awkward values, and the on-disk layout."""

import datetime as dt
import decimal
import json
import math
import re

import lance
import pyarrow as pa
from pyspark.sql import Row

import lancepart
from conftest import local_relation

AWKWARD = ["$", "/", "=", "'", '"', "a b", "naïve ☃", "../..", "", None]
LEAF_DIR = re.compile(r"^[0-9a-f]{8}_v1(\$[0-9a-z]{16})+\$dataset$")


def leaf_dirs(root, ns, table):
    return sorted(p.name for p in (root / ns / table).iterdir() if p.name != "__manifest")


def test_awkward_partition_values_round_trip(spark, root, ns):
    spark.sql(f"CREATE TABLE lance.{ns}.t (id INT, s STRING, n INT) PARTITIONED BY (s, n)")
    rows = [Row(id=i, s=s, n=(None if i % 3 == 0 else i % 2)) for i, s in enumerate(AWKWARD)]
    spark.createDataFrame(rows, "id INT, s STRING, n INT").writeTo(f"lance.{ns}.t").append()
    back = sorted(spark.table(f"lance.{ns}.t").collect(), key=lambda r: r.id)
    assert back == rows
    for name in leaf_dirs(root, ns, "t"):
        assert LEAF_DIR.match(name), name  # no value reaches a path
    assert lancepart.crosscheck(spark, f"lance.{ns}.t") == {"rows": len(rows), "tables": len(rows)}


def test_every_partition_type_round_trips(spark, ns, admin):
    spark.sql(f"""CREATE TABLE lance.{ns}.t (
        id INT, b BOOLEAN, i8 TINYINT, i16 SMALLINT, i64 BIGINT, d DATE,
        ts TIMESTAMP, tsn TIMESTAMP_NTZ, dec DECIMAL(12, 3), payload STRING)
        PARTITIONED BY (b, i8, i16, i64, d, ts, tsn, dec)""")
    spark.sql(f"""INSERT INTO lance.{ns}.t VALUES
        (1, true, 1, -2, 9223372036854775807, DATE'1969-12-31', TIMESTAMP'1969-12-31 23:59:59.999999',
         TIMESTAMP_NTZ'2025-06-01 12:00:00', 123456789.125, 'x'),
        (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'y')""")
    back = spark.sql(f"SELECT * FROM lance.{ns}.t ORDER BY id").collect()
    assert back[0].i64 == 9223372036854775807
    assert back[0].d == dt.date(1969, 12, 31)
    assert back[0].ts == dt.datetime(1969, 12, 31, 23, 59, 59, 999999)
    assert back[0].dec == decimal.Decimal("123456789.125")
    assert back[1].asDict() == {"id": 2, "b": None, "i8": None, "i16": None, "i64": None, "d": None,
                                "ts": None, "tsn": None, "dec": None, "payload": "y"}
    values = sorted((p["values"] for p in admin.partitions(f"{ns}.t")), key=lambda v: v["b"] is None)
    assert values[0] == {"b": True, "i8": 1, "i16": -2, "i64": 9223372036854775807,
                         "d": dt.date(1969, 12, 31),
                         "ts": dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=dt.timezone.utc),
                         "tsn": dt.datetime(2025, 6, 1, 12, 0), "dec": decimal.Decimal("123456789.125")}
    assert set(values[1].values()) == {None}
    lancepart.crosscheck(spark, f"lance.{ns}.t")
    for where in ["d = DATE '1969-12-31'", "i64 > 0", "b IS NULL", "dec = 123456789.125"]:
        assert spark.sql(f"SELECT id FROM lance.{ns}.t WHERE {where}").count() == 1, where


def test_insert_into_appends_and_leaves_read_version_null(spark, root, ns, admin):
    spark.sql(f"CREATE TABLE lance.{ns}.t (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO lance.{ns}.t VALUES (1, 'a'), (2, 'b')")
    before = {p["values"]["p"]: p for p in admin.partitions(f"{ns}.t")}
    spark.sql(f"INSERT INTO lance.{ns}.t VALUES (3, 'a'), (4, 'c')")
    after = {p["values"]["p"]: p for p in admin.partitions(f"{ns}.t")}
    assert sorted(after) == ["a", "b", "c"]
    assert after["a"]["object_id"] == before["a"]["object_id"]
    # weak mode: read_version stays NULL, so any conforming reader reads each leaf's latest version
    assert {p["read_version"] for p in after.values()} == {None}
    assert after["a"]["row_count"] == 2
    assert after["b"] == before["b"]
    assert sorted(r.id for r in spark.table(f"lance.{ns}.t").collect()) == [1, 2, 3, 4]
    # ... including rows another writer appended to the leaf directly
    leaf = str(root / ns / "t" / after["a"]["location"])
    lance.write_dataset(lance.dataset(leaf).to_table().slice(0, 1), leaf, mode="append")
    assert sorted(r.id for r in spark.table(f"lance.{ns}.t").collect()) == [1, 1, 2, 3, 4]
    lancepart.crosscheck(spark, f"lance.{ns}.t")


def test_ctas_and_dataframe_append(spark, ns):
    spark.sql(f"""CREATE TABLE lance.{ns}.c PARTITIONED BY (p) AS
                  SELECT id, CAST(id % 3 AS STRING) AS p FROM range(30)""")
    spark.range(30, 40).selectExpr("id", "'x' AS p").writeTo(f"lance.{ns}.c").append()
    counts = {r.p: r["count"] for r in spark.table(f"lance.{ns}.c").groupBy("p").count().collect()}
    assert counts == {"0": 10, "1": 10, "2": 10, "x": 10}
    assert lancepart.crosscheck(spark, f"lance.{ns}.c")["tables"] == 4


def test_many_tasks_writing_one_new_partition_make_one_leaf(spark, root, ns, admin):
    spark.sql(f"CREATE TABLE lance.{ns}.t (id BIGINT, p STRING) PARTITIONED BY (p)")
    df = spark.range(0, 20000, numPartitions=8).selectExpr("id", "CAST(id % 5 AS STRING) AS p")
    df.writeTo(f"lance.{ns}.t").append()
    parts = admin.partitions(f"{ns}.t")
    assert sorted(p["values"]["p"] for p in parts) == ["0", "1", "2", "3", "4"]
    assert sum(p["row_count"] for p in parts) == 20000
    assert len(leaf_dirs(root, ns, "t")) == 5
    lancepart.crosscheck(spark, f"lance.{ns}.t")


def test_manifest_follows_the_spec(spark, root, ns):
    spark.sql(f"CREATE TABLE lance.{ns}.t (id INT, d DATE, c STRING) PARTITIONED BY (d, c)")
    spark.sql(f"INSERT INTO lance.{ns}.t VALUES (1, DATE'2025-12-10', 'US'), (2, DATE'2025-12-10', 'FR')")
    manifest = lance.dataset(str(root / ns / "t" / "__manifest"))
    schema = manifest.schema
    assert schema.field("object_id").type == pa.string() and not schema.field("object_id").nullable
    assert schema.field("read_version").type == pa.uint64()
    assert schema.field("partition_field_d").type == pa.date32()
    assert schema.field("partition_field_c").type == pa.string()
    # besides the format's keys, Spark's CREATE TABLE records the owner as a table property
    assert manifest.metadata.keys() == {"schema", "partition_spec_v1", "transaction.mode", "property.owner"}
    assert manifest.metadata["transaction.mode"] == "weak"
    rows = {r["object_id"]: r for r in manifest.to_table().to_pylist()}
    assert rows["v1"]["object_type"] == "namespace"
    level1 = [r for oid, r in rows.items() if oid.count("$") == 1]
    level2 = [r for oid, r in rows.items() if oid.count("$") == 2]
    leaves = [r for r in rows.values() if r["object_type"] == "table"]
    assert len(level1) == 1 and level1[0]["partition_field_d"] == dt.date(2025, 12, 10)
    assert level1[0]["partition_field_c"] is None
    assert sorted(r["partition_field_c"] for r in level2) == ["FR", "US"]
    for leaf in leaves:
        assert leaf["object_id"].endswith("$dataset")
        assert leaf["location"].endswith("_" + leaf["object_id"])
        parent = rows[leaf["object_id"].rsplit("$", 1)[0]]
        assert (parent["partition_field_d"], parent["partition_field_c"]) == (
            leaf["partition_field_d"], leaf["partition_field_c"])
        assert leaf["read_version"] is None, "weak mode: readers read each leaf's latest version"
        # the metadata JSON keeps the partition values (for Admin.repair), the leaf version this
        # write left (lancepart's own key, to detect a concurrent overwrite) and what that version
        # holds (its row count and data bytes, flat strings as other clients read metadata)
        dataset = lance.dataset(str(root / ns / "t" / leaf["location"]))
        kept = json.loads(leaf["metadata"])
        assert int(kept.pop("lancepart.stats.bytes")) > 0
        assert kept == {
            "partition.d": "2025-12-10", "partition.c": leaf["partition_field_c"],
            "lancepart.written_version": str(dataset.version), "lancepart.stats.location": leaf["location"],
            "lancepart.stats.version": str(dataset.version), "lancepart.stats.rows": str(dataset.count_rows())}
    assert json.loads(level1[0]["metadata"]) == {"partition.d": "2025-12-10"}
    assert rows["v1"]["metadata"] is None


def test_nan_and_negative_zero_round_trip_and_crosscheck(spark, ns):
    # crosscheck compares stored values: every NaN equals every NaN (top level, in structs and in
    # arrays), and -0.0 stays distinct from 0.0 (both sides read the bits the files hold).
    schema = "id INT, p STRING, x DOUBLE, f FLOAT, st STRUCT<a: DOUBLE>, arr ARRAY<DOUBLE>"
    rows = [(1, "a", math.nan, math.nan, {"a": math.nan}, [math.nan, -0.0]),
            (2, "a", -0.0, -0.0, {"a": -0.0}, [0.0]),
            (3, "b", 0.0, None, {"a": 0.0}, [-0.0, None])]
    expected = local_relation(spark, rows, schema)
    spark.sql(f"CREATE TABLE lance.{ns}.t ({schema}) PARTITIONED BY (p)")
    expected.writeTo(f"lance.{ns}.t").append()
    back = spark.table(f"lance.{ns}.t")
    assert back.exceptAll(expected).count() == 0 and expected.exceptAll(back).count() == 0
    signs = {r.id: (math.copysign(1, r.x), math.copysign(1, r.st.a), [math.copysign(1, v) for v in r.arr if v is not None])
             for r in back.collect()}
    assert signs[2] == (-1, -1, [1]) and signs[3] == (1, 1, [-1])
    assert lancepart.crosscheck(spark, f"lance.{ns}.t") == {"rows": 3, "tables": 2}
