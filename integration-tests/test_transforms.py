"""Every transform and expression field end to end: DDL, the values written to __manifest
(checked against independent Python computations), reads, and pruning through the transforms."""

import datetime as dt
import decimal
import json
import sys
from pathlib import Path

import lance
import pytest

import lancepart
from conftest import local_relation, tables_scanned

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python" / "tests"))
from bucket_oracle import murmur3  # noqa: E402
from transform_oracle import apply  # noqa: E402

ROWS = [
    (1, dt.datetime(2025, 12, 10, 23, 30), dt.date(2025, 12, 10), "naïve☃x", 17, decimal.Decimal("12.34")),
    (2, dt.datetime(1969, 12, 31, 23, 59, 59), dt.date(1969, 12, 31), "ab", -7, decimal.Decimal("-12.34")),
    (3, dt.datetime(2024, 2, 29, 0, 0), dt.date(2024, 2, 29), None, None, None),
    (4, None, None, "abcdef", 5, decimal.Decimal("0.00")),
]
ROW_SCHEMA = "id INT, ts TIMESTAMP, d DATE, s STRING, n INT, dec DECIMAL(6, 2)"


@pytest.fixture(scope="module")
def table(spark):
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lance.tr")
    expressions = json.dumps([
        {"field_id": "len_mod", "expression": "CASE WHEN col0 IS NULL THEN -1 ELSE char_length(col0) % 3 END",
         "sources": ["s"], "result_type": "int"},
        {"field_id": "hash16", "expression": "abs(murmur3(col0)) % 16", "sources": ["n"], "result_type": "int"},
    ])
    spark.sql(f"""CREATE TABLE lance.tr.t (id INT, ts TIMESTAMP, d DATE, s STRING, n INT, dec DECIMAL(6, 2))
        PARTITIONED BY (years(ts), lance_month(d), lance_day(d), lance_hour(ts), bucket(4, n), bucket(8, s, n),
                        truncate(3, s), truncate(n, 5), truncate(10, dec))
        TBLPROPERTIES ('lancepart.partition-expressions' = '{expressions}')""")
    spark.createDataFrame(ROWS, ROW_SCHEMA).writeTo("lance.tr.t").append()
    return "lance.tr.t"


def expected_values(row):
    _, ts, d, s, n, dec = row
    return {
        "ts_year": apply("year", [ts], ["timestamp"]), "d_month": apply("month", [d], ["date"]),
        "d_day": apply("day", [d], ["date"]), "ts_hour": apply("hour", [ts], ["timestamp"]),
        "n_bucket_4": apply("bucket", [n], ["int"], 4),
        "s_n_bucket_8": apply("multi_bucket", [s, n], ["string", "int"], 8),
        "s_trunc_3": apply("truncate", [s], ["string"], 3), "n_trunc_5": apply("truncate", [n], ["int"], 5),
        "dec_trunc_10": apply("truncate", [dec], ["decimal(6,2)"], 10),
        "len_mod": -1 if s is None else len(s) % 3,
        "hash16": None if n is None else abs(murmur3([n], ["int"])) % 16,
    }


def test_ddl_maps_to_spec_fields(spark, root, table):
    spec = json.loads(lance.dataset(str(root / "tr" / "t" / "__manifest")).metadata["partition_spec_v1"])
    fields = {f["field_id"]: f.get("transform") or f.get("expression") for f in spec["fields"]}
    assert fields == {
        "ts_year": {"type": "year"}, "d_month": {"type": "month"}, "d_day": {"type": "day"},
        "ts_hour": {"type": "hour"}, "n_bucket_4": {"type": "bucket", "num_buckets": 4},
        "s_n_bucket_8": {"type": "multi_bucket", "num_buckets": 8}, "s_trunc_3": {"type": "truncate", "width": 3},
        "n_trunc_5": {"type": "truncate", "width": 5}, "dec_trunc_10": {"type": "truncate", "width": 10},
        "len_mod": "CASE WHEN col0 IS NULL THEN -1 ELSE char_length(col0) % 3 END",
        "hash16": "abs(murmur3(col0)) % 16"}
    described = dict((r.col_name, r.data_type) for r in spark.sql(f"DESCRIBE TABLE {table}").collect())
    assert [described[f"Part {i}"] for i in range(5)] == [
        "years(ts)", "lance_month(d)", "lance_day(d)", "lance_hour(ts)", "lance_bucket(4, n)"]


def test_partition_values_match_an_independent_computation(admin, table):
    parts = admin.partitions("tr.t")
    assert len(parts) == len(ROWS) and all(p["row_count"] == 1 for p in parts)
    assert sorted(repr(p["values"]) for p in parts) == sorted(repr(expected_values(r)) for r in ROWS)


def test_rows_read_back(spark, table):
    back = sorted(tuple(r) for r in spark.table(table).collect())
    assert back == sorted(ROWS)
    lancepart.crosscheck(spark, table)


@pytest.mark.parametrize("predicate,expected", [
    ("ts = TIMESTAMP'2025-12-10 23:30:00'", 1),
    ("n = 17", 1),
    ("n IN (17, 5)", 2),
    ("s = 'ab' AND n = -7", 1),
    ("s LIKE 'nai%'", 0),   # no value starts with 'nai' ('naïve' has an ï)
    ("s LIKE 'na%'", 1),
    ("s LIKE 'abcd%'", 1),
    ("n >= 5", 2),
    ("dec < 0", 2),  # truncate(10) sends -10 < dec < 10 to 0.00: that partition may match too
    ("d = DATE'2024-02-29'", 1),
    ("d IS NULL", 1),
    ("ts > TIMESTAMP'2025-01-01 00:00:00'", 1),
])
def test_pruning_through_transforms(spark, table, rows, predicate, expected):
    query = f"SELECT id FROM {table} WHERE {predicate}"
    k, n = tables_scanned(spark, query)
    assert (k, n) == (expected, len(ROWS))
    want = sorted(r.id for r in rows.where(predicate).select("id").collect())
    assert sorted(r.id for r in spark.sql(query).collect()) == want


@pytest.fixture(scope="module")
def rows(spark):
    """ROWS held by Spark: the rows Spark itself selects with a predicate."""
    return local_relation(spark, ROWS, ROW_SCHEMA)


def test_bucket_of_an_int_column_hashes_its_four_little_endian_bytes(spark, admin, ns):
    # The Lance murmur3 extension hashes an int32 as its 4 native bytes (issue 16): the bucket
    # each row lands in is computed here with mmh3 alone, not with the shared oracle.
    import struct

    import mmh3

    values = list(range(-500, 500, 7)) + [2**31 - 1, -2**31]
    spark.sql(f"CREATE TABLE lance.{ns}.b (n INT) PARTITIONED BY (bucket(16, n))")
    spark.createDataFrame([(v,) for v in values], "n INT").writeTo(f"lance.{ns}.b").append()
    landed = {p["values"]["n_bucket_16"]: p["row_count"] for p in admin.partitions(f"{ns}.b")}
    expected = {}
    for v in values:
        b = abs(mmh3.hash(struct.pack("<i", v), seed=0, signed=True)) % 16
        expected[b] = expected.get(b, 0) + 1
    assert landed == expected
    for v in values[::9]:
        assert spark.sql(f"SELECT n FROM lance.{ns}.b WHERE n = {v}").collect() == [(v,)]


def test_bucket_of_a_double_hashes_its_raw_bits_and_prunes_both_zeros(spark, admin, ns):
    # -0.0 hashes apart from 0.0 (Lance hashes the 8 stored bytes); `d = 0.0` matches both in
    # Spark, so it reads both buckets; NaN has many bit patterns, so `d = NaN` does not prune.
    import struct
    from collections import Counter

    import mmh3

    values = [0.0, -0.0, float("nan"), 1.5, -2.25, float("inf")]
    spark.sql(f"CREATE TABLE lance.{ns}.f (d DOUBLE) PARTITIONED BY (bucket(1000, d))")
    spark.createDataFrame([(v,) for v in values], "d DOUBLE").writeTo(f"lance.{ns}.f").append()
    landed = {p["values"]["d_bucket_1000"]: p["row_count"] for p in admin.partitions(f"{ns}.f")}
    assert landed == Counter(abs(mmh3.hash(struct.pack("<d", v), seed=0, signed=True)) % 1000 for v in values)
    held = local_relation(spark, [(v,) for v in values], "d DOUBLE")
    for predicate in ("d = 0.0", "d = -0.0", "d IN (0.0, 1.5)", "isnan(d)", "d = double('NaN')", "d = 1.5"):
        expected = held.where(predicate).count()
        assert spark.sql(f"SELECT d FROM lance.{ns}.f WHERE {predicate}").count() == expected, predicate
