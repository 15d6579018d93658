"""Calendar transforms in DDL keep their Spark meaning: years/months/days/hours(ts) are calendar
runs (one partition per calendar year, month, day, hour), pruned by ranges in any session time
zone; lone calendar fields (lance_day(ts)) keep theirs; SHOW CREATE TABLE's statement runs again."""

import datetime as dt
import json
import re
import zoneinfo

import pytest

from conftest import tables_scanned

UNITS = ["years", "months", "days", "hours"]
KINDS = ["year", "month", "day", "hour"]
EPOCH = dt.datetime(1970, 1, 1)
ZONES = ["UTC", "America/Los_Angeles"]

# transform -> (first instant in UTC, step in seconds, rows); every table spans several units.
DATA = {
    "years": (dt.datetime(2022, 6, 1, 5), 61 * 86400 + 5 * 3600, 24),
    "months": (dt.datetime(2024, 10, 3, 5), 17 * 86400 + 7 * 3600, 24),
    "days": (dt.datetime(2025, 1, 20, 3, 10), 47 * 3600 + 17 * 60, 24),
    "hours": (dt.datetime(2025, 2, 28, 20), 97 * 60, 24),
}
# transform -> filter literals a, b, c (wall clock of the session time zone for TIMESTAMP)
LITERALS = {
    "years": ("2023-07-01 00:00:00", "2025-01-01 00:00:00", "2024-12-31 23:59:59.999999"),
    "months": ("2025-02-15 00:00:00", "2025-06-01 00:00:00", "2024-12-31 23:59:59"),
    "days": ("2025-02-15 00:00:00", "2025-03-01 07:30:00", "2025-01-31 23:59:59.999999"),
    "hours": ("2025-02-28 23:00:00", "2025-03-01 07:30:00", "2025-03-01 00:00:00"),
}
# predicate -> (lower bound, upper bound, points): names of literals, "+1"/"-1" for strict bounds
PREDICATES = {
    "ts >= {a}": ("a", None, None),
    "ts > {a}": ("a+1", None, None),
    "ts < {b}": (None, "b-1", None),
    "ts BETWEEN {a} AND {b}": ("a", "b", None),
    "ts > {c} AND ts < {b}": ("c+1", "b-1", None),
    "ts = {a}": (None, None, ["a"]),
    "ts IN ({a}, {b}, {c})": (None, None, ["a", "b", "c"]),
    "ts < {c} OR ts >= {b}": None,  # checked for results only
}
SQL_TYPES = {"timestamp": "TIMESTAMP", "ntz": "TIMESTAMP_NTZ", "date": "DATE"}


def instants(transform):
    start, step, n = DATA[transform]
    return [None if i % 13 == 5 else start + dt.timedelta(seconds=i * step) for i in range(n)]


def unit_of(value, source):
    """A value in the source's internal unit: days for DATE, microseconds otherwise."""
    if source == "date":
        return (value - EPOCH.date()).days
    return (value - EPOCH) // dt.timedelta(microseconds=1)


def key_of(v, source, transform):
    """The calendar tuple (year, month, ...) of an internal value, computed with Python's calendar."""
    t = EPOCH.date() + dt.timedelta(days=v) if source == "date" else EPOCH + dt.timedelta(microseconds=v)
    return tuple(getattr(t, k) for k in KINDS[:UNITS.index(transform) + 1])


def literal(text, source):
    return f"DATE'{text[:10]}'" if source == "date" else f"{SQL_TYPES[source]}'{text}'"


def literal_value(text, source, zone):
    """The internal value of a literal in session time zone `zone` (TIMESTAMP is an instant)."""
    if source == "date":
        return unit_of(dt.date.fromisoformat(text[:10]), source)
    wall = dt.datetime.fromisoformat(text)
    if source == "ntz":
        return unit_of(wall, source)
    utc = wall.replace(tzinfo=zoneinfo.ZoneInfo(zone)).astimezone(dt.timezone.utc).replace(tzinfo=None)
    return unit_of(utc, source)


def expected_tables(keys, bounds, transform, source, zone):
    """Partitions whose calendar interval holds a value the predicate admits."""
    lo, hi, points = bounds
    vals = dict(zip("abc", (literal_value(t, source, zone) for t in LITERALS[transform])))

    def value(name):
        return vals[name[0]] + (int(name[1:]) if len(name) > 1 else 0)
    if points is not None:
        return len(keys & {key_of(value(p), source, transform) for p in points})
    return sum(1 for k in keys if (lo is None or k >= key_of(value(lo), source, transform))
               and (hi is None or k <= key_of(value(hi), source, transform)))


def source_data(spark, tmp_path, transform, source):
    """The rows (id, ts) as a parquet view, written with the session in UTC."""
    column = {"timestamp": "timestamp_micros(u)", "ntz": "CAST(timestamp_micros(u) AS TIMESTAMP_NTZ)",
              "date": "CAST(timestamp_micros(u) AS DATE)"}[source]
    rows = ", ".join(f"({i}, {'NULL' if t is None else unit_of(t, 'timestamp')})" for i, t in enumerate(instants(transform)))
    path = str(tmp_path / f"{transform}_{source}")
    spark.sql(f"SELECT id, {column} AS ts FROM VALUES {rows} AS r(id, u)").write.parquet(path)
    spark.read.parquet(path).createOrReplaceTempView("calendar_source")
    return "calendar_source"


def in_zone(spark, zone):
    spark.conf.set("spark.sql.session.timeZone", zone)


CASES = [("days", "timestamp"), ("days", "ntz"), ("days", "date"), ("hours", "timestamp"), ("hours", "ntz"),
         ("months", "timestamp"), ("months", "date"), ("years", "timestamp")]


@pytest.mark.parametrize("transform,source", CASES)
def test_calendar_transforms_partition_by_calendar_unit_and_prune_ranges(spark, ns, tmp_path, transform, source):
    in_zone(spark, "UTC")
    t = f"lance.{ns}.c"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, ts {SQL_TYPES[source]}) PARTITIONED BY ({transform}(ts))")
    view = source_data(spark, tmp_path, transform, source)
    spark.sql(f"INSERT INTO {t} SELECT * FROM {view}")
    values = [unit_of(v.date() if source == "date" else v, source) for v in instants(transform) if v is not None]
    keys = {key_of(v, source, transform) for v in values}
    # one partition per calendar unit (and one for NULL)
    assert spark.sql(f"SELECT count(*) FROM {t}.partitions").collect()[0][0] == len(keys) + 1
    assert spark.sql(f"SELECT count(DISTINCT ts) FROM {view}").collect()[0][0] >= len(keys) > 2
    try:
        # TIMESTAMP literals are instants of the session time zone; the others are not
        for zone in ZONES if source == "timestamp" else ZONES[1:]:
            in_zone(spark, zone)
            names = dict(zip("abc", (literal(x, source) for x in LITERALS[transform])))
            for template, bounds in PREDICATES.items():
                pred = template.format(**names)
                got = sorted(r.id for r in spark.sql(f"SELECT id FROM {t} WHERE {pred}").collect())
                want = sorted(r.id for r in spark.sql(f"SELECT id FROM {view} WHERE {pred}").collect())
                assert got == want, (zone, pred)
                if bounds is not None:
                    assert tables_scanned(spark, f"SELECT * FROM {t} WHERE {pred}") == \
                        (expected_tables(keys, bounds, transform, source, zone), len(keys) + 1), (zone, pred)
    finally:
        in_zone(spark, "UTC")


def test_dynamic_overwrite_of_a_day_keeps_the_same_day_of_other_months(spark, ns):
    t = f"lance.{ns}.d"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, ts TIMESTAMP) PARTITIONED BY (days(ts))")
    days = ["2025-01-15 10:00:00", "2025-02-15 11:00:00", "2025-02-16 12:00:00", "2025-03-15 13:00:00"]
    spark.sql(f"INSERT INTO {t} VALUES " + ", ".join(f"({i}, TIMESTAMP'{d}')" for i, d in enumerate(days)))
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        spark.sql(f"INSERT OVERWRITE {t} VALUES (10, TIMESTAMP'2025-02-15 20:00:00')")
    finally:
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    assert sorted(r.id for r in spark.table(t).collect()) == [0, 2, 3, 10]


def test_days_tables_join_without_a_shuffle(spark, ns):
    for name in ("l", "r"):
        spark.sql(f"CREATE TABLE lance.{ns}.{name} (ts TIMESTAMP, v INT) PARTITIONED BY (days(ts))")
        spark.sql(f"INSERT INTO lance.{ns}.{name} SELECT timestamp_seconds(1735689600 + id * 40000), CAST(id AS INT) "
                  "FROM range(60)")
    joined = spark.sql(f"SELECT count(*) FROM lance.{ns}.l a JOIN lance.{ns}.r b ON a.ts = b.ts")
    assert "Exchange hashpartitioning" not in joined._jdf.queryExecution().executedPlan().toString()
    assert joined.collect()[0][0] == 60


def test_evolving_months_to_days_reuses_year_and_month(spark, admin, ns):
    t = f"lance.{ns}.m"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, d DATE) PARTITIONED BY (months(d))")
    spark.sql(f"INSERT INTO {t} SELECT id, date_add(DATE'2024-11-20', CAST(id * 3 AS INT)) FROM range(30)")
    spark.sql(f"CALL lance.system.evolve_partition_spec(table => '{ns}.m', fields => array('days(d)'))")
    spark.sql(f"INSERT INTO {t} SELECT id, date_add(DATE'2025-02-10', CAST(id - 30 AS INT)) FROM range(30, 40)")
    specs = admin.describe(f"{ns}.m")["specs"]
    assert [f["field_id"] for f in specs["1"]["fields"]] == ["d_year", "d_month"]
    assert [f["field_id"] for f in specs["2"]["fields"]] == ["d_year", "d_month", "d_day"]
    v1 = {(2024, 11), (2024, 12), (2025, 1), (2025, 2)}  # Nov 20 + 3 * 29 days = Feb 15
    assert spark.sql(f"SELECT count(*) FROM {t}.partitions").collect()[0][0] == len(v1) + 10
    pred = "d >= DATE'2025-02-15'"
    assert tables_scanned(spark, f"SELECT * FROM {t} WHERE {pred}") == (1 + 5, len(v1) + 10)
    got = sorted(r.id for r in spark.sql(f"SELECT id FROM {t} WHERE {pred}").collect())
    assert got == [29] + list(range(35, 40))


def test_a_lone_calendar_field_keeps_its_meaning(spark, admin, ns):
    # tables holding the spec's `day` alone (as days(ts) made them before) read and prune as before
    t = f"lance.{ns}.lone"
    admin.create_table(f"{ns}.lone", "id BIGINT, ts TIMESTAMP", ["lance_day(ts)"])
    spec = admin.describe(f"{ns}.lone")["specs"]["1"]["fields"]
    assert [(f["field_id"], f["transform"]["type"]) for f in spec] == [("ts_day", "day")]
    spark.sql(f"INSERT INTO {t} SELECT id, timestamp_seconds(1735689600 + id * 86400 * 7) FROM range(20)")
    days = {(dt.datetime(2025, 1, 1) + dt.timedelta(days=7 * i)).day for i in range(20)}
    assert spark.sql(f"SELECT count(*) FROM {t}.partitions").collect()[0][0] == len(days)
    pred = "ts BETWEEN TIMESTAMP'2025-01-05 00:00:00' AND TIMESTAMP'2025-01-09 00:00:00'"
    assert [r.id for r in spark.sql(f"SELECT id FROM {t} WHERE {pred}").collect()] == [1]
    assert tables_scanned(spark, f"SELECT * FROM {t} WHERE {pred}")[0] == len(days & {5, 6, 7, 8, 9})
    spark.sql(f"CREATE TABLE lance.{ns}.lone2 (id BIGINT, ts TIMESTAMP) PARTITIONED BY (lance_day(ts))")
    assert admin.describe(f"{ns}.lone2")["specs"]["1"]["fields"] == spec


EXPRESSION = {"field_id": "band", "expression": "CAST(col0 / 10 AS INT)", "sources": ["id"], "result_type": "int"}
SCHEMA = "id BIGINT, ts TIMESTAMP, d DATE, s STRING"
SPECS = {  # name -> PARTITIONED BY (SQL) or a list (Admin.create_table, with an optional evolution)
    "days": "days(ts), bucket(4, id), truncate(2, s)",
    "hours_months": "hours(ts), months(d)",
    "years_identity": "years(d), s",
    "multi_bucket": "bucket(4, id, s)",
    "lone_day": ["lance_day(ts)"],
    "lone_fields": ["lance_month(d)", "lance_hour(ts)", "s"],
    "year_then_lone_day": ["years(ts)", "lance_day(ts)", "s"],
    "expression": ["s", EXPRESSION],
    "expression_first": (["s"], [EXPRESSION, "days(ts)"]),
}


def describe_partitioning(spark, t):
    rows = [(r.col_name, r.data_type) for r in spark.sql(f"DESCRIBE {t}").collect()]
    return rows[[r[0] for r in rows].index("# Partitioning"):]


@pytest.mark.parametrize("name", SPECS)
def test_show_create_table_runs_again_and_makes_the_same_table(spark, admin, ns, root, name):
    spec = SPECS[name]
    t = f"lance.{ns}.{name}"
    if isinstance(spec, str):
        spark.sql(f"CREATE TABLE {t} ({SCHEMA}) PARTITIONED BY ({spec})")
    else:
        created, evolved = spec if isinstance(spec, tuple) else (spec, None)
        admin.create_table(f"{ns}.{name}", SCHEMA, created)
        if evolved:
            admin.evolve_partition_spec(f"{ns}.{name}", evolved)
    statement = spark.sql(f"SHOW CREATE TABLE {t}").collect()[0][0]
    again = statement.replace(f"CREATE TABLE {t} (", f"CREATE TABLE {t}_again (") \
        .replace(f"/{ns}/{name}'", f"/{ns}/{name}_again'")
    assert again.count("_again") == 2, statement
    spark.sql(again)
    assert spark.table(f"{t}_again").schema == spark.table(t).schema
    assert describe_partitioning(spark, f"{t}_again") == describe_partitioning(spark, t)

    def current_fields(table):
        d = admin.describe(f"{ns}.{table}")
        return d["specs"][str(d["current_spec_id"])]["fields"]
    assert current_fields(f"{name}_again") == current_fields(name)
    assert not re.search(r"lance_(year|month|day|hour)\(", statement) or "lance_" in json.dumps(spec), statement
    if "days" in json.dumps(spec):
        assert "days(ts)" in statement
