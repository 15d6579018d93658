"""Every Arrow type Lance stores (docs/format.md, "Types"): a namespace written by hand with pyarrow
and pylance reads with exact values, takes INSERTs in each column's stored Arrow type, and refuses
a value its stored type cannot hold; vector columns from SQL; float and binary partition values."""

import datetime as dt
import decimal
import json

import lance
import numpy as np
import pyarrow as pa
import pytest
from pyspark.sql import functions as F

import lancepart
from conftest import tables_scanned
from handwritten import (TYPED, TYPED_ROWS, location_of, namespace_schema, random_name, typed_table,
                         write_typed_by_hand)

EPOCH = dt.datetime(1970, 1, 1)
MICROS = {"s": 1_000_000, "ms": 1_000, "us": 1}

#: The Spark type of each column of TYPED.
SPARK_TYPES = {
    "id": "bigint", "k": "string", "u8": "smallint", "u16": "int", "u32": "bigint", "u64": "decimal(20,0)",
    "f16": "float", "d64": "date", "t32s": "bigint", "t32ms": "bigint", "t64us": "bigint", "t64ns": "bigint",
    "dur_s": "interval day to second", "dur_ns": "interval day to second", "ts_ms": "timestamp_ntz",
    "ts_ns": "timestamp_ntz", "ts_tz": "timestamp", "ts_tz_ns": "timestamp", "ts_tz_plain": "timestamp_ntz",
    "dec": "decimal(20,2)", "vec": "array<float>", "fsb": "binary", "lu": "string", "lb": "binary",
    "ll": "array<int>", "lst": "array<int>", "st": "struct<a:smallint,t:bigint>",
}


def micros(value, unit):
    """A count of `unit`s as microseconds, rounded down."""
    return value // 1000 if unit == "ns" else value * MICROS[unit]


def spark_value(value, t):
    """What Spark reads for `value` stored as pyarrow type `t`, by the rules of docs/format.md."""
    if value is None:
        return None
    if pa.types.is_uint64(t):
        return decimal.Decimal(value)
    if pa.types.is_float16(t) or pa.types.is_float32(t):
        return float(np.float32(value))
    if pa.types.is_date64(t):
        return dt.date(1970, 1, 1) + dt.timedelta(days=value // 86_400_000)
    if pa.types.is_time(t):
        return micros(value, t.unit)
    if pa.types.is_duration(t):
        return dt.timedelta(microseconds=micros(value, t.unit))
    if pa.types.is_timestamp(t):
        return EPOCH + dt.timedelta(microseconds=micros(value, t.unit))
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return bytearray(value)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return [spark_value(v, t.value_type) for v in value]
    if pa.types.is_struct(t):
        return {t.field(i).name: spark_value(value[t.field(i).name], t.field(i).type) for i in range(t.num_fields)}
    return value


def spark_rows(spark, table):
    return [r.asDict(recursive=True) for r in spark.table(table).orderBy("id").collect()]


def expected(rows):
    return [{f.name: spark_value(r[f.name], f.type) for f in TYPED} for r in sorted(rows, key=lambda r: r["id"])]


def leaves(table_dir):
    """{partition value of k: the leaf dataset}."""
    manifest = lance.dataset(f"{table_dir}/__manifest")
    return {r["partition_field_k"]: lance.dataset(f"{table_dir}/{r['location']}")
            for r in manifest.to_table().to_pylist() if r["object_type"] == "table"}


@pytest.fixture
def typed(spark, root, ns):
    table_dir = root / ns / "typed"
    write_typed_by_hand(table_dir)
    return f"lance.{ns}.typed", table_dir


def test_every_stored_type_reads_as_its_spark_type_with_exact_values(spark, typed):
    t, _ = typed
    schema = spark.table(t).schema
    assert {f.name: f.dataType.simpleString() for f in schema} == SPARK_TYPES
    assert schema["vec"].metadata == {"arrow.fixed-size-list.size": 3}
    assert spark_rows(spark, t) == expected(TYPED_ROWS)
    assert lancepart.crosscheck(spark, t) == {"rows": 4, "tables": 2}
    assert "'lancepart.fixed-size-list.vec' = '3'" in spark.sql(f"SHOW CREATE TABLE {t}").collect()[0][0]


#: A row's values but id and k as SQL, and the row (id 5 in partition `a`) as each column stores it there.
INSERTED_SQL = (
    "200, 65000, 4000000000, CAST('18446744073709551614' AS DECIMAL(20, 0)), CAST(0.25 AS FLOAT), "
    "DATE'2000-01-01', 3600000000, 1000, 5, 7, INTERVAL '0 00:00:02' DAY TO SECOND, "
    "INTERVAL '0 00:00:00.000003' DAY TO SECOND, "
    "TIMESTAMP_NTZ'2024-01-01 00:00:00.001', TIMESTAMP_NTZ'2024-01-01 00:00:00.000001', "
    "TIMESTAMP'2024-01-01 00:00:00.5', TIMESTAMP'1960-01-01 00:00:00', TIMESTAMP_NTZ'1970-01-01 00:00:01', "
    "9.99, CAST(array(1, 2, 3) AS ARRAY<FLOAT>), X'01020304', 'x', X'00', array(9), array(65535), "
    "named_struct('a', CAST(3 AS SMALLINT), 't', CAST(86399999999 AS BIGINT))")
INSERTED = {
    "id": 5, "k": "a", "u8": 200, "u16": 65000, "u32": 4000000000, "u64": 2**64 - 2, "f16": 0.25,
    "d64": 10957 * 86_400_000, "t32s": 3600, "t32ms": 1, "t64us": 5, "t64ns": 7000, "dur_s": 2, "dur_ns": 3000,
    "ts_ms": 1704067200001, "ts_ns": 1704067200000001000, "ts_tz": 1704067200500000,
    "ts_tz_ns": -315619200000000000, "ts_tz_plain": 1000000, "dec": decimal.Decimal("9.99"),
    "vec": [1.0, 2.0, 3.0], "fsb": b"\x01\x02\x03\x04", "lu": "x", "lb": b"\x00", "ll": [9], "lst": [65535],
    "st": {"a": 3, "t": 86399999999000},
}

#: The Arrow types a new partition table stores TYPED's columns as: the namespace schema's, where
#: `timestamp`, `duration` and `time64` are microseconds and `time32` milliseconds.
NEW_LEAF_TYPES = pa.schema([
    ("id", pa.int64()), ("k", pa.string()), ("u8", pa.uint8()), ("u16", pa.uint16()), ("u32", pa.uint32()),
    ("u64", pa.uint64()), ("f16", pa.float16()), ("d64", pa.date64()), ("t32s", pa.time32("ms")),
    ("t32ms", pa.time32("ms")), ("t64us", pa.time64("us")), ("t64ns", pa.time64("us")),
    ("dur_s", pa.duration("us")), ("dur_ns", pa.duration("us")), ("ts_ms", pa.timestamp("us")),
    ("ts_ns", pa.timestamp("us")), ("ts_tz", pa.timestamp("us", tz="UTC")), ("ts_tz_ns", pa.timestamp("us", tz="UTC")),
    ("ts_tz_plain", pa.timestamp("us")), ("dec", pa.decimal256(20, 2)), ("vec", pa.list_(pa.float32(), 3)),
    ("fsb", pa.binary(4)), ("lu", pa.large_string()), ("lb", pa.large_binary()), ("ll", pa.large_list(pa.int32())),
    ("lst", pa.list_(pa.uint16())), ("st", pa.struct([("a", pa.uint8()), ("t", pa.time64("us"))])),
])


def test_inserts_keep_each_leafs_stored_types(spark, typed):
    t, table_dir = typed
    before = {k: leaf.schema for k, leaf in leaves(table_dir).items()}
    spark.sql(f"INSERT INTO {t} VALUES (5, 'a', {INSERTED_SQL})")  # an existing leaf
    spark.sql(f"INSERT INTO {t} VALUES (6, 'c', {INSERTED_SQL})")  # a new one

    after = leaves(table_dir)
    assert after["a"].schema == before["a"] and after["b"].schema == before["b"]
    stored = after["a"].to_table(filter="id = 5")
    wanted = typed_table([INSERTED])
    for f in TYPED:  # every value as the stored type holds it, in that type
        assert stored.column(f.name).combine_chunks().equals(wanted.column(f.name).combine_chunks()), f.name
    new_leaf = after["c"]
    assert pa.schema([pa.field(f.name, f.type) for f in new_leaf.schema]) == NEW_LEAF_TYPES
    assert new_leaf.to_table().column("t32s").cast(pa.int32()).to_pylist() == [3600 * 1000]
    assert new_leaf.to_table().column("ts_tz_ns").cast(pa.int64()).to_pylist() == [-315619200000000]

    rows = {r["id"]: r for r in spark_rows(spark, t)}
    assert rows[5] == expected([INSERTED])[0]
    assert rows[6] == {**expected([INSERTED])[0], "id": 6, "k": "c"}
    assert lancepart.crosscheck(spark, t) == {"rows": 6, "tables": 3}


@pytest.mark.parametrize("column, value, message", [
    ("u8", "-1", "column 'u8' cannot store -1: uint8 holds 0 to 255"),
    ("u8", "256", "column 'u8' cannot store 256: uint8 holds 0 to 255"),
    ("u16", "70000", "column 'u16' cannot store 70000: uint16 holds 0 to 65535"),
    ("u32", "-5", "column 'u32' cannot store -5: uint32 holds 0 to 4294967295"),
    ("u64", "-1", r"column 'u64' cannot store -1: uint64 holds the integers 0 to 18446744073709551615"),
    ("f16", "CAST(1e6 AS FLOAT)", "column 'f16' cannot store 1000000.0: float16 holds finite values up to 65504"),
    ("t32s", "1500000", r"column 't32s' cannot store 1500000: time32\[s\] holds whole seconds"),
    ("t64us", "86400000000", "column 't64us' cannot store 86400000000: a time of day is 0 to 86399999999"),
    ("dur_s", "INTERVAL '0 00:00:00.5' DAY TO SECOND", r"column 'dur_s' cannot store .*: duration\[s\] holds whole seconds"),
    ("ts_ns", "TIMESTAMP_NTZ'2300-01-01 00:00:00'",
     r"column 'ts_ns' cannot store .*2300-01-01.*: timestamp\[ns\] holds nanoseconds as a 64-bit number"),
    ("vec", "CAST(array(1, 2) AS ARRAY<FLOAT>)",
     r"column 'vec' is a fixed_size_list of 3 elements \(float32\): an array of 2 elements cannot be stored in it"),
    ("fsb", "X'01'", r"column 'fsb' cannot store .*: fixed_size_binary\[4\] holds exactly 4 bytes, this value has 1"),
    ("st", "named_struct('a', CAST(-2 AS SMALLINT), 't', CAST(0 AS BIGINT))",
     "column 'st.a' cannot store -2: uint8 holds 0 to 255"),
])
def test_a_value_the_stored_type_cannot_hold_is_refused(spark, typed, column, value, message):
    t, table_dir = typed
    columns = ", ".join(value if f.name == column else ("7" if f.name == "id" else "'a'" if f.name == "k" else "NULL")
                        for f in TYPED)
    with pytest.raises(Exception, match=rf"table {t}: {message}"):
        spark.sql(f"INSERT INTO {t} VALUES ({columns})")
    assert spark.table(t).count() == 4
    assert sum(leaf.count_rows() for leaf in leaves(table_dir).values()) == 4


def test_a_decimal256_wider_than_spark_refuses_the_table_naming_the_column(spark, root, ns):
    schema = pa.schema([("id", pa.int64()), ("big", pa.decimal256(40, 2))])
    manifest = lance.write_dataset(pa.table({"object_id": ["v1"], "object_type": ["namespace"], "location": [None]},
                                            schema=pa.schema([("object_id", pa.string()), ("object_type", pa.string()),
                                                              ("location", pa.string())])), f"{root / ns / 'wide'}/__manifest")
    manifest.update_metadata({"schema": json.dumps(namespace_schema(schema)), "partition_spec_v1": json.dumps(
        {"id": 1, "fields": [{"field_id": "id", "source_ids": [0], "transform": {"type": "identity"},
                              "result_type": {"type": "int64"}}]})})
    with pytest.raises(Exception, match=rf"table lance.{ns}.wide: property 'schema', column 'big' has Arrow type "
                                        r"decimal256\(40, 2\), which lancepart cannot read: its precision 40 is above "
                                        "Spark's largest, 38"):
        spark.table(f"lance.{ns}.wide").collect()


def test_partition_fields_over_stored_types_follow_the_spec_or_are_refused(spark, typed):
    t, table_dir = typed
    # identity keeps the stored type (uint8) in result_type and in the __manifest column, and prunes
    name = t.split(".", 1)[1]
    spark.sql(f"CALL lance.system.evolve_partition_spec(table => '{name}', fields => array('u8', 'truncate(10, u16)'))")
    spark.sql(f"INSERT INTO {t} VALUES (5, 'a', {INSERTED_SQL})")
    manifest = lance.dataset(f"{table_dir}/__manifest")
    spec = json.loads(manifest.metadata["partition_spec_v2"])
    assert [f["result_type"] for f in spec["fields"]] == [{"type": "uint8"}, {"type": "uint16"}]
    assert manifest.schema.field("partition_field_u8").type == pa.uint8()
    v2 = [r for r in manifest.to_table().to_pylist() if r["object_id"].startswith("v2$") and r["object_type"] == "table"]
    assert [(r["partition_field_u8"], r["partition_field_u16_trunc_10"]) for r in v2] == [(200, 65000)]
    assert tables_scanned(spark, f"SELECT id FROM {t} WHERE u8 = 200") == (3, 3)  # v1 leaves hold any u8
    assert tables_scanned(spark, f"SELECT id FROM {t} WHERE u8 = 300") == (2, 3)  # out of uint8's range: no v2 leaf
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {t} WHERE u8 > 199").collect()) == [1, 5]
    assert lancepart.crosscheck(spark, t)["rows"] == 5

    # bucket hashes the stored bytes (one for a uint8), which lancepart does not compute
    with pytest.raises(Exception, match=r"v3 field 'u8_bucket_4'\)?: transform 'bucket' over column 'u8' "
                                        r"\(stored as uint8, read as SMALLINT\) is not supported"):
        spark.sql(f"CALL lance.system.evolve_partition_spec(table => '{name}', fields => array('bucket(4, u8)'))")
    with pytest.raises(Exception, match=r"transform 'truncate' over column 't64us' \(stored as time64\[us\], read as "
                                        "BIGINT\\) is not supported"):
        spark.sql(f"CALL lance.system.evolve_partition_spec(table => '{name}', fields => array('truncate(10, t64us)'))")


def test_a_foreign_bucket_field_over_an_unsigned_column_refuses_the_table(spark, root, ns):
    table_dir = root / ns / "hashed"
    write_typed_by_hand(table_dir)
    manifest = lance.dataset(f"{table_dir}/__manifest")
    manifest.update_metadata({"partition_spec_v1": json.dumps({"id": 1, "fields": [
        {"field_id": "u32_bucket", "source_ids": [4], "transform": {"type": "bucket", "num_buckets": 4},
         "result_type": {"type": "int32"}}]})})
    with pytest.raises(Exception, match=r"partition_spec_v1 field 'u32_bucket': transform 'bucket' over column 'u32' "
                                        r"\(stored as uint32, read as BIGINT\) is not supported"):
        spark.table(f"lance.{ns}.hashed").collect()


def test_a_vector_column_is_declared_at_create_and_stored_as_a_fixed_size_list(spark, root, ns):
    t = f"lance.{ns}.docs"
    spark.sql(f"CREATE TABLE {t} (id INT, c STRING, emb ARRAY<FLOAT>, meta STRUCT<v: ARRAY<DOUBLE>, n: INT>) "
              "PARTITIONED BY (c) TBLPROPERTIES ('lancepart.fixed-size-list.emb' = '3', "
              "'lancepart.fixed-size-list.meta.v' = '2')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'x', array(1, 2, 3), named_struct('v', array(0.5, 1.5), 'n', 1)), "
              "(2, 'x', NULL, NULL), (3, 'y', array(-1, 0, 1), named_struct('v', NULL, 'n', 2))")
    table_dir = root / ns / "docs"
    rows = lance.dataset(f"{table_dir}/__manifest").to_table().to_pylist()
    for r in rows:
        if r["object_type"] == "table":
            leaf = lance.dataset(f"{table_dir}/{r['location']}").schema
            assert leaf.field("emb").type.equals(pa.list_(pa.field("element", pa.float32()), 3))
            assert leaf.field("meta").type.field("v").type.equals(pa.list_(pa.field("element", pa.float64()), 2))
    schema = json.loads(lance.dataset(f"{table_dir}/__manifest").metadata["schema"])
    assert schema["fields"][2]["type"]["type"] == "fixed_size_list" and schema["fields"][2]["type"]["length"] == 3
    assert sorted((r.id, r.emb) for r in spark.table(t).collect()) == [(1, [1.0, 2.0, 3.0]), (2, None),
                                                                        (3, [-1.0, 0.0, 1.0])]
    assert spark.table(t).schema["emb"].metadata == {"arrow.fixed-size-list.size": 3}
    assert lancepart.crosscheck(spark, t) == {"rows": 3, "tables": 2}
    shown = spark.sql(f"SHOW CREATE TABLE {t}").collect()[0][0]
    assert "'lancepart.fixed-size-list.emb' = '3'" in shown and "'lancepart.fixed-size-list.meta.v' = '2'" in shown

    with pytest.raises(Exception, match=rf"table {t}: column 'emb' is a fixed_size_list of 3 elements \(float32\): "
                                        "an array of 4 elements cannot be stored in it"):
        spark.sql(f"INSERT INTO {t} VALUES (4, 'x', array(1, 2, 3, 4), NULL)")
    with pytest.raises(Exception, match=rf"table {t}: property 'lancepart.fixed-size-list.emb' cannot be set: "
                                        "a column's type is chosen at CREATE TABLE"):
        spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('lancepart.fixed-size-list.emb' = '4')")

    # the size travels with the column: CTAS and the DataFrame API keep it
    spark.sql(f"CREATE TABLE lance.{ns}.copy PARTITIONED BY (c) AS SELECT * FROM {t}")
    spark.table(t).writeTo(f"lance.{ns}.df").partitionedBy(F.col("c")).create()
    for name in ("copy", "df"):
        leaf = next(r for r in lance.dataset(f"{root / ns / name}/__manifest").to_table().to_pylist()
                    if r["object_type"] == "table")
        assert lance.dataset(f"{root / ns / name}/{leaf['location']}").schema.field("emb").type.list_size == 3
        assert sorted(r.id for r in spark.table(f"lance.{ns}.{name}").collect()) == [1, 2, 3]


@pytest.mark.parametrize("properties, message", [
    ("'lancepart.fixed-size-list.c' = '3'", "column 'c' has type STRING; only an ARRAY can be a fixed-size list"),
    ("'lancepart.fixed-size-list.nope' = '3'", "property 'lancepart.fixed-size-list.nope' names no column"),
    ("'lancepart.fixed-size-list.emb' = '0'", "property 'lancepart.fixed-size-list.emb' must be a positive number"),
])
def test_a_bad_fixed_size_list_declaration_is_refused(spark, ns, properties, message):
    with pytest.raises(Exception, match=rf"table lance.{ns}.bad: .*{message}"):
        spark.sql(f"CREATE TABLE lance.{ns}.bad (id INT, c STRING, emb ARRAY<FLOAT>) PARTITIONED BY (c) "
                  f"TBLPROPERTIES ({properties})")
    with pytest.raises(Exception, match=rf"table lance.{ns}.bad: column 'emb' has type ARRAY<FLOAT>, which cannot be "
                                        "a partition value"):
        spark.sql(f"CREATE TABLE lance.{ns}.bad (id INT, emb ARRAY<FLOAT>) PARTITIONED BY (emb) "
                  "TBLPROPERTIES ('lancepart.fixed-size-list.emb' = '2')")


def write_float_binary_by_hand(table_dir):
    """Identity partitions over float32, float64 and binary columns, as another writer would make them."""
    schema = pa.schema([("id", pa.int64()), ("f", pa.float32()), ("d", pa.float64()), ("b", pa.binary())])
    parts = [(1.5, 0.1, b"\x01"), (-0.0, float("nan"), b""), (float(np.float32(0.1)), 2.0, b"\xff\x00")]
    spec = {"id": 1, "fields": [
        {"field_id": name, "source_ids": [i + 1], "transform": {"type": "identity"}, "result_type": {"type": kind}}
        for i, (name, kind) in enumerate([("f", "float32"), ("d", "float64"), ("b", "binary")])]}
    rows = [{"object_id": "v1", "object_type": "namespace"}]
    for n, (f, d, b) in enumerate(parts):
        ids = ["v1"]
        values = {}
        for name, value in zip(("f", "d", "b"), (f, d, b)):
            ids.append(random_name())
            values[f"partition_field_{name}"] = value
            rows.append({"object_id": "$".join(ids), "object_type": "namespace", **values})
        object_id = "$".join(ids + ["dataset"])
        rows.append({"object_id": object_id, "object_type": "table", "location": location_of(object_id), **values})
        data = pa.table({"id": [10 * n, 10 * n + 1], "f": [f, f], "d": [d, d], "b": [b, b]}, schema=schema)
        lance.write_dataset(data, f"{table_dir}/{location_of(object_id)}")
    manifest_schema = pa.schema([
        pa.field("object_id", pa.string(), nullable=False), pa.field("object_type", pa.string(), nullable=False),
        pa.field("location", pa.string()), pa.field("partition_field_f", pa.float32()),
        pa.field("partition_field_d", pa.float64()), pa.field("partition_field_b", pa.binary())])
    manifest = lance.write_dataset(pa.Table.from_pylist(rows, schema=manifest_schema), f"{table_dir}/__manifest")
    manifest.update_metadata({"schema": json.dumps(namespace_schema(schema)), "partition_spec_v1": json.dumps(spec)})


def test_float_and_binary_partition_values_read_prune_and_take_writes(spark, root, ns):
    table_dir = root / ns / "fb"
    write_float_binary_by_hand(table_dir)
    t = f"lance.{ns}.fb"
    assert spark.table(t).count() == 6
    for where, ids, scanned in [
        ("f = CAST(1.5 AS FLOAT)", [0, 1], 1), ("f = CAST(0.0 AS FLOAT)", [10, 11], 1),  # -0.0 = 0.0
        ("f = CAST(0.1 AS FLOAT)", [20, 21], 1), ("d = 0.1", [0, 1], 1), ("d > 1.0", [10, 11, 20, 21], 2),  # NaN > all
        ("isnan(d)", [10, 11], 3), ("b = X'FF00'", [20, 21], 1), ("b = X''", [10, 11], 1), ("b < X'02'", [0, 1, 10, 11], 2),
        ("f IN (CAST(1.5 AS FLOAT), CAST(0.1 AS FLOAT))", [0, 1, 20, 21], 2),
    ]:
        assert sorted(r.id for r in spark.sql(f"SELECT id FROM {t} WHERE {where}").collect()) == ids, where
        assert tables_scanned(spark, f"SELECT id FROM {t} WHERE {where}") == (scanned, 3), where
    assert lancepart.crosscheck(spark, t) == {"rows": 6, "tables": 3}

    spark.sql(f"INSERT INTO {t} VALUES (2, CAST(1.5 AS FLOAT), 0.1, X'01'), (12, CAST('-0.0' AS FLOAT), "
              "CAST('NaN' AS DOUBLE), X''), (30, CAST(7 AS FLOAT), 7.0, X'07')")
    manifest = lance.dataset(f"{table_dir}/__manifest").to_table().to_pylist()
    assert len([r for r in manifest if r["object_type"] == "table"]) == 4  # two appended to, one new
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {t} WHERE b = X'01'").collect()) == [0, 1, 2]
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {t} WHERE isnan(d)").collect()) == [10, 11, 12]
    assert lancepart.crosscheck(spark, t) == {"rows": 9, "tables": 4}


def test_lancepart_creates_tables_partitioned_by_float_and_binary_values(spark, ns):
    t = f"lance.{ns}.fb"
    spark.sql(f"CREATE TABLE {t} (id INT, f FLOAT, b BINARY, g FLOAT, p BINARY) PARTITIONED BY (f, b)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 1.5, X'01', 2.5, X'AB'), (2, 1.5, X'01', 0.1, X'CD'), "
              "(3, CAST('-0.0' AS FLOAT), X'', 2.5, NULL), (4, 0.0, X'', NULL, X'AB'), (5, CAST('NaN' AS FLOAT), NULL, 1, X'')")
    spark.sql(f"INSERT INTO {t} VALUES (6, 1.5, X'01', 3, X''), (7, CAST('NaN' AS FLOAT), NULL, 4, X'')")
    assert spark.sql(f"SELECT count(*) FROM {t}.partitions").collect()[0][0] == 4  # 1.5, -0.0, 0.0, NaN
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {t} WHERE f = 0.0").collect()) == [3, 4]
    assert tables_scanned(spark, f"SELECT id FROM {t} WHERE b = X'01'") == (1, 4)
    assert tables_scanned(spark, f"SELECT id FROM {t} WHERE isnan(f)") == (4, 4)
    assert lancepart.crosscheck(spark, t) == {"rows": 7, "tables": 4}

    # row-level deletes on float and binary columns: Lance evaluates them exactly as Spark does
    spark.sql(f"DELETE FROM {t} WHERE g = CAST(0.1 AS FLOAT)")
    spark.sql(f"DELETE FROM {t} WHERE p = X'AB'")
    assert sorted(r.id for r in spark.table(t).collect()) == [3, 5, 6, 7]
    assert lancepart.crosscheck(spark, t) == {"rows": 4, "tables": 4}


def test_a_delete_condition_on_a_column_of_another_stored_type_is_rewritten(spark, typed):
    """Lance cannot compare a column stored as uint8 with Spark's literal, so Spark rewrites the
    partition tables holding matching rows instead; the rows left are those a read shows not matching,
    with their values as stored."""
    t, _ = typed
    kept = sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {t} WHERE NOT (u8 <=> 255)").collect())
    assert len(kept) < spark.table(t).count(), "a row matches"
    spark.sql(f"DELETE FROM {t} WHERE u8 = 255")
    assert sorted(tuple(r) for r in spark.table(t).collect()) == kept
    spark.sql(f"DELETE FROM {t} WHERE id = 2")
    assert sorted(r.id for r in spark.table(t).collect()) == sorted(row[0] for row in kept if row[0] != 2)
