"""Partition expressions evaluated by the JVM equal the real DataFusion engine's results on a
corpus of expressions and values (murmur3/murmur3_multi are registered in DataFusion as UDFs built
on mmh3, following docs/format.md's encodings)."""

import datetime as dt
import decimal
import json
import sys
from pathlib import Path

import datafusion
import pyarrow as pa
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python" / "tests"))
from bucket_oracle import murmur3  # noqa: E402

ARROW = {"int": pa.int32(), "bigint": pa.int64(), "smallint": pa.int16(), "string": pa.string(),
         "date": pa.date32(), "timestamp": pa.timestamp("us", tz="UTC"), "timestamp_ntz": pa.timestamp("us"),
         "double": pa.float64(), "boolean": pa.bool_(), "decimal(8,2)": pa.decimal128(8, 2)}
DF_TYPE = {"int": "INT", "bigint": "BIGINT", "string": "VARCHAR", "boolean": "BOOLEAN",
           "decimal(8,2)": "DECIMAL(8, 2)", "date": "DATE"}
UTC = dt.timezone.utc
VALUES = {
    "int": [0, 7, -7, 11, 2147483647, -2147483648, None],
    "bigint": [0, 34, -1, 123456789012, -9223372036854775807, None, 5],
    "smallint": [0, -3, 300, None, 1, 2, 3],
    "string": ["a", "b", "", "naïve ☃", "Hello World", None, "a$'/"],
    "date": [dt.date(2025, 12, 10), dt.date(1969, 12, 31), dt.date(2024, 2, 29), dt.date(1, 1, 1), None,
             dt.date(2000, 1, 1), dt.date(1970, 1, 1)],
    "timestamp": [dt.datetime(2025, 12, 10, 23, 30, tzinfo=UTC), dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
                  None, dt.datetime(2000, 2, 29, 0, 0, tzinfo=UTC), dt.datetime(1970, 1, 1, tzinfo=UTC),
                  dt.datetime(2038, 1, 19, 3, 14, 7, tzinfo=UTC), dt.datetime(1900, 6, 1, 12, tzinfo=UTC)],
    "timestamp_ntz": [dt.datetime(2025, 12, 10, 23, 30), dt.datetime(1969, 12, 31, 23, 59), None,
                      dt.datetime(2000, 2, 29), dt.datetime(1970, 1, 1), dt.datetime(2100, 12, 31, 1), dt.datetime(1950, 5, 5)],
    "double": [1.5, -2.5, 0.0, 1e10, None, 7.99, -0.4],
    "decimal(8,2)": [decimal.Decimal("12.34"), decimal.Decimal("-12.34"), decimal.Decimal("0.00"),
                     decimal.Decimal("999999.99"), None, decimal.Decimal("-0.01"), decimal.Decimal("10.00")],
}
CORPUS = [
    ("date_part('year', col0)", ["timestamp"], "int"),
    ("date_part('month', col0)", ["date"], "int"),
    ("date_part('day', col0)", ["timestamp_ntz"], "int"),
    ("date_part('hour', col0)", ["timestamp"], "int"),
    ("date_part('year', col0) * 100 + date_part('month', col0)", ["date"], "int"),
    ("extract(year from col0)", ["date"], "int"),
    ("col0 - (col0 % 10)", ["bigint"], "bigint"),
    ("col0 - (col0 % 3)", ["int"], "int"),
    ("col0 - (col0 % 10)", ["decimal(8,2)"], "decimal(8,2)"),
    ("col0 / 4", ["bigint"], "bigint"),
    ("abs(col0) % 7", ["smallint"], "int"),
    ("left(col0, 3)", ["string"], "string"),
    ("substr(col0, 2, 3)", ["string"], "string"),
    ("substr(col0, 0, 2)", ["string"], "string"),
    ("lower(col0) || '_' || upper(col1)", ["string", "string"], "string"),
    ("concat(col0, '-', col1)", ["string", "string"], "string"),
    ("coalesce(col0, 'x')", ["string"], "string"),
    ("char_length(col0)", ["string"], "int"),
    ("CASE WHEN col0 > 10 THEN 'big' WHEN col0 IS NULL THEN 'none' ELSE 'small' END", ["int"], "string"),
    ("CASE col0 WHEN 'a' THEN 1 WHEN 'b' THEN 2 ELSE 0 END", ["string"], "int"),
    ("CAST(col0 AS BIGINT) * 2 + 1", ["double"], "bigint"),
    ("CAST(col0 AS VARCHAR)", ["date"], "string"),
    ("col0 IN (0, 7, 11)", ["int"], "boolean"),
    ("NOT (col0 BETWEEN 0 AND 10)", ["int"], "boolean"),
    ("col0 >= DATE '2000-01-01' AND col0 IS NOT NULL", ["date"], "boolean"),
    ("abs(murmur3(col0)) % 16", ["bigint"], "int"),
    ("abs(murmur3(col0)) % 16", ["string"], "int"),
    ("abs(murmur3_multi(col0, col1)) % 8", ["string", "bigint"], "int"),
    # a column hashes at its own Arrow type (issue 16): int32 as 4 bytes, date32 as 4, decimal as text
    ("abs(murmur3(col0)) % 16", ["int"], "int"),
    ("abs(murmur3(col0)) % 16", ["smallint"], "int"),
    ("abs(murmur3(col0)) % 16", ["date"], "int"),
    ("abs(murmur3(col0)) % 16", ["timestamp"], "int"),
    ("abs(murmur3(col0)) % 16", ["double"], "int"),
    ("abs(murmur3(col0)) % 16", ["decimal(8,2)"], "int"),
    ("abs(murmur3_multi(col0, col1)) % 8", ["int", "date"], "int"),
]


def _udfs(ctx, types):
    def hash_one(arr):
        return pa.array([murmur3([v], [types[0]]) for v in arr.to_pylist()], pa.int32())

    def hash_multi(*arrs):
        rows = zip(*(a.to_pylist() for a in arrs))
        return pa.array([murmur3(list(r), types) for r in rows], pa.int32())

    ctx.register_udf(datafusion.udf(hash_one, [ARROW[types[0]]], pa.int32(), "immutable", name="murmur3"))
    ctx.register_udf(datafusion.udf(hash_multi, [ARROW[t] for t in types], pa.int32(), "immutable", name="murmur3_multi"))


def _to_json(v):
    if isinstance(v, dt.datetime):
        return v.astimezone(UTC).isoformat().replace("+00:00", "Z") if v.tzinfo else v.isoformat()
    if isinstance(v, (dt.date, decimal.Decimal)):
        return str(v)
    return v


def _normalize(v):
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, dt.date):
        return v.isoformat()
    return v


@pytest.mark.parametrize("expression,types,result", CORPUS, ids=[f"{e} {t}" for e, t, _ in CORPUS])
def test_jvm_matches_datafusion(spark, expression, types, result):
    columns = {f"col{i}": pa.array(VALUES[t], ARROW[t]) for i, t in enumerate(types)}
    ctx = datafusion.SessionContext()
    _udfs(ctx, types)
    ctx.register_record_batches("t", [pa.table(columns).to_batches()])
    df_type = DF_TYPE[result]
    expected = ctx.sql(f"SELECT CAST(({expression}) AS {df_type}) AS v FROM t").to_arrow_table().column("v").to_pylist()
    rows = [[_to_json(v) for v in row] for row in zip(*(VALUES[t] for t in types))]
    api = spark._jvm.lancepart.admin.AdminApi
    got = json.loads(api.evaluateExpression(expression, json.dumps(types), result, json.dumps(rows)))
    assert [_normalize(v) for v in got] == [_normalize(v) for v in expected]


@pytest.mark.parametrize("expression,message", [
    ("sha256(col0)", "unsupported function 'sha256'"),
    ("col7 + 1", "col7 has no source"),
    ("price * 2", "unknown column 'price'"),
    ("col0 +", "unexpected end"),
])
def test_unsupported_expressions_are_rejected_at_create(spark, ns, expression, message):
    fields = json.dumps([{"field_id": "e", "expression": expression, "sources": ["n"], "result_type": "int"}])
    with pytest.raises(Exception, match=message):
        spark.sql(f"CREATE TABLE lance.{ns}.t (n INT) TBLPROPERTIES ('lancepart.partition-expressions' = '{fields}')")
