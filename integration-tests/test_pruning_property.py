"""Property: for random schemas, specs (every transform, 1-3 fields), data and predicates, the
pruned answer equals the unpruned one and a pyarrow computation; a predicate binding a partition
field by equality scans exactly the partitions whose value can match."""

import datetime as dt
import decimal
import itertools
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import tables_scanned

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python" / "tests"))
from transform_oracle import apply  # noqa: E402

UTC = dt.timezone.utc
DOMAINS = {  # small domains so that values repeat and predicates hit
    "int": [-12, -5, 0, 3, 7, 15],
    "bigint": [-1, 0, 10, 34, 1 << 40],
    "string": ["", "a", "ab", "abc", "b", "naïve"],
    "date": [dt.date(1969, 12, 31), dt.date(2024, 2, 29), dt.date(2025, 1, 1), dt.date(2025, 12, 31)],
    "timestamp": [dt.datetime(1969, 12, 31, 23, tzinfo=UTC), dt.datetime(2025, 1, 1, 0, tzinfo=UTC),
                  dt.datetime(2025, 1, 1, 13, tzinfo=UTC), dt.datetime(2025, 6, 30, 23, tzinfo=UTC)],
    "decimal(8,2)": [decimal.Decimal(v) for v in ("-12.50", "-0.01", "0.00", "9.99", "10.00", "123.45")],
}
ARROW = {"int": pa.int32(), "bigint": pa.int64(), "string": pa.string(), "date": pa.date32(),
         "timestamp": pa.timestamp("us", tz="UTC"), "decimal(8,2)": pa.decimal128(8, 2)}
TRANSFORMS = {
    "int": ["identity", "bucket", "truncate"], "bigint": ["identity", "bucket", "truncate"],
    "string": ["identity", "bucket", "truncate"], "date": ["identity", "year", "month", "day", "bucket"],
    "timestamp": ["year", "month", "day", "hour", "bucket"], "decimal(8,2)": ["identity", "bucket", "truncate"],
}
_tables = itertools.count()


def sql_literal(v, t):
    if v is None:
        return "NULL"
    if t == "string":
        return "'" + v.replace("'", "''") + "'"
    if t == "date":
        return f"DATE'{v.isoformat()}'"
    if t == "timestamp":
        return f"TIMESTAMP'{v.astimezone(UTC).strftime('%Y-%m-%d %H:%M:%S')}'"
    if t.startswith("decimal"):
        return f"CAST('{v}' AS DECIMAL(8,2))"
    return str(v)


@st.composite
def cases(draw):
    types = draw(st.lists(st.sampled_from(sorted(DOMAINS)), min_size=1, max_size=3))
    cols = [(f"c{i}", t) for i, t in enumerate(types)]
    fields = []
    for _ in range(draw(st.integers(1, 3))):
        name, t = draw(st.sampled_from(cols))
        kind = draw(st.sampled_from(TRANSFORMS[t] + (["multi_bucket"] if len(cols) > 1 else [])))
        if kind == "identity":
            fields.append((name, kind, [name], None))
        elif kind in ("year", "month", "day", "hour"):
            fields.append((f"lance_{kind}({name})", kind, [name], None))
        elif kind == "bucket":
            n = draw(st.sampled_from([2, 3, 8]))
            fields.append((f"bucket({n}, {name})", kind, [name], n))
        elif kind == "multi_bucket":
            a, b = draw(st.sampled_from([(x, y) for x, y in itertools.permutations([c for c, _ in cols], 2)]))
            n = draw(st.sampled_from([2, 4]))
            fields.append((f"bucket({n}, {a}, {b})", kind, [a, b], n))
        else:
            w = draw(st.sampled_from([1, 2, 10]))
            fields.append((f"truncate({w}, {name})", kind, [name], w))
    fields = list({f[0]: f for f in fields}.values())
    rows = draw(st.lists(st.tuples(*[st.one_of(st.none(), st.sampled_from(DOMAINS[t])) for _, t in cols]),
                         max_size=25))
    predicate = draw(predicates(cols))
    return cols, fields, rows, predicate


def leaf(cols):
    @st.composite
    def build(draw):
        name, t = draw(st.sampled_from(cols))
        f = pc.field(name)
        op = draw(st.sampled_from(["=", "<", "<=", ">", ">=", "<=>", "IN", "IS NULL", "IS NOT NULL"] +
                                  (["LIKE"] if t == "string" else [])))
        v = draw(st.sampled_from(DOMAINS[t]))
        lit = sql_literal(v, t)
        scalar = pa.scalar(v, ARROW[t])
        if op == "IS NULL":
            return f"{name} IS NULL", f.is_null()
        if op == "IS NOT NULL":
            return f"{name} IS NOT NULL", f.is_valid()
        if op == "<=>":
            return f"{name} <=> {lit}", f.is_valid() & (f == scalar)
        if op == "IN":
            vs = draw(st.lists(st.sampled_from(DOMAINS[t]), min_size=1, max_size=3))
            expr = None
            for x in vs:
                e = f == pa.scalar(x, ARROW[t])
                expr = e if expr is None else expr | e
            return f"{name} IN ({', '.join(sql_literal(x, t) for x in vs)})", expr
        if op == "LIKE":
            return f"{name} LIKE '{v.replace(chr(39), chr(39) * 2)}%'", pc.starts_with(f, v)
        ops = {"=": f == scalar, "<": f < scalar, "<=": f <= scalar, ">": f > scalar, ">=": f >= scalar}
        return f"{name} {op} {lit}", ops[op]
    return build()


def predicates(cols):
    return st.recursive(leaf(cols), lambda inner: st.one_of(
        st.tuples(inner, inner).map(lambda p: (f"({p[0][0]}) AND ({p[1][0]})", p[0][1] & p[1][1])),
        st.tuples(inner, inner).map(lambda p: (f"({p[0][0]}) OR ({p[1][0]})", p[0][1] | p[1][1])),
        inner.map(lambda p: (f"NOT ({p[0]})", ~p[1]))), max_leaves=4)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=cases())
def test_pruning_never_changes_the_answer(spark, admin, case):
    cols, fields, rows, (predicate, arrow_predicate) = case
    table, schema = create(spark, admin, cols, fields)
    data = [(i, *r) for i, r in enumerate(rows)]
    if data:
        spark.createDataFrame(data, f"id INT, {schema}").writeTo(table).append()
    arrow = pa.table({"id": pa.array([d[0] for d in data], pa.int32()),
                      **{n: pa.array([d[i + 1] for d in data], ARROW[t]) for i, (n, t) in enumerate(cols)}})
    expected = sorted(arrow.filter(arrow_predicate)["id"].to_pylist())
    pruned = sorted(r.id for r in spark.sql(f"SELECT id FROM {table} WHERE {predicate}").collect())
    unpruned = sorted(r.id for r in spark.read.option("pruning", "false").table(table).where(predicate).select("id").collect())
    assert pruned == unpruned == expected, predicate
    spark.sql(f"DROP TABLE {table}")


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=cases(), data=st.data())
def test_equality_on_a_source_scans_only_matching_partitions(spark, admin, case, data):
    cols, fields, rows, _ = case
    types = dict(cols)
    single = [f for f in fields if f[1] != "multi_bucket"]
    if not single or not rows:
        return
    name, kind, (source,), param = data.draw(st.sampled_from(single))
    value = data.draw(st.sampled_from(DOMAINS[types[source]]))
    table, schema = create(spark, admin, cols, fields)
    spark.createDataFrame([(i, *r) for i, r in enumerate(rows)], f"id INT, {schema}").writeTo(table).append()
    parts = admin.partitions(table.split(".", 1)[1])
    # every field over `source` alone must hold the value's image for a partition to be scanned
    over_source = [f for f in single if f[2] == [source]]
    field_ids = {f[0]: fid for f, fid in zip(fields, _field_ids(admin, table))}
    target = {field_ids[f[0]]: apply(f[1], [value], [types[source]], f[3]) for f in over_source}
    matching = [p for p in parts if all(p["values"][fid] == v for fid, v in target.items())]
    k, n = tables_scanned(spark, f"SELECT id FROM {table} WHERE {source} = {sql_literal(value, types[source])}")
    assert (k, n) == (len(matching), len(parts))
    spark.sql(f"DROP TABLE {table}")


def create(spark, admin, cols, fields):
    """A new table through Admin (SQL DDL refuses two transforms of one column)."""
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lance.prop")
    table = f"lance.prop.t{next(_tables)}"
    schema = ", ".join(f"{n} {t.upper()}" for n, t in cols)
    admin.create_table(table, f"id INT, {schema}", [f[0] for f in fields])
    return table, schema


def _field_ids(admin, table):
    return [f["field_id"] for f in admin.describe(table.split(".", 1)[1])["partition_fields"]]

