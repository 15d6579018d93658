"""ALTER TABLE ... ADD / DROP / REPLACE PARTITION FIELD through lancepart's session extension (which
lancepart.configure sets, after the Iceberg extension the test session has): each statement is one
spec evolution, and the rows written after each read back as the same statements and writes give
them on Iceberg (catalog `ice`, differential.py)."""

import pytest

from differential import Case, compare


def rows(first: int, end: int) -> str:
    """Rows ``first`` until ``end``, with a NULL in each column now and then."""
    return f"""SELECT id,
      CASE WHEN id % 11 = 0 THEN NULL
           ELSE TIMESTAMP'2024-11-28 10:00:00' + make_dt_interval(CAST(id * 3 AS INT), CAST(id % 24 AS INT)) END AS ts,
      CASE WHEN id % 7 = 0 THEN NULL ELSE element_at(array('eu', 'us', 'apac'), CAST(id % 3 + 1 AS INT)) END AS region,
      concat('n', id) AS name
    FROM range({first}, {end})"""


EVOLUTIONS = [
    "ALTER TABLE {t} ADD PARTITION FIELD bucket(4, id) AS shard",
    "ALTER TABLE {t} ADD PARTITION FIELD years(ts)",
    "ALTER TABLE {t} REPLACE PARTITION FIELD years(ts) WITH days(ts)",
    "ALTER TABLE {t} DROP PARTITION FIELD shard",
    "ALTER TABLE {t} DROP PARTITION FIELD region",
    "ALTER TABLE {t} ADD PARTITION FIELD truncate(2, name)",
    "ALTER TABLE {t} ADD PARTITION FIELD bucket(4, id) AS shard",
    # refused on both: a field the spec has, fields it does not have
    "ALTER TABLE {t} ADD PARTITION FIELD days(ts)",
    "ALTER TABLE {t} DROP PARTITION FIELD bucket(16, id)",
    "ALTER TABLE {t} DROP PARTITION FIELD nope",
]

QUERIES = [
    "SELECT * FROM {t}",
    "SELECT * FROM {t} WHERE region = 'eu' AND ts >= TIMESTAMP'2025-01-01 00:00:00'",
    "SELECT region, count(*), max(ts) FROM {t} WHERE id % 4 = 1 GROUP BY region",
]


def statements() -> tuple[str, ...]:
    """Each evolution, then a write and the queries."""
    out = []
    for i, evolution in enumerate(EVOLUTIONS):
        out += [evolution, f"INSERT INTO {{t}} {rows(30 * (i + 1), 30 * (i + 2))}", *QUERIES]
    return tuple(out)


CASE = Case("partition field DDL",
            setup=("CREATE TABLE {t} (id BIGINT, ts TIMESTAMP, region STRING, name STRING) PARTITIONED BY (region)",
                   f"INSERT INTO {{t}} {rows(0, 30)}"),
            queries=statements())


def test_each_statement_evolves_the_spec_and_rows_read_back_as_on_iceberg(spark, ns, iceberg):
    extensions = spark.conf.get("spark.sql.extensions").split(",")
    assert extensions == ["org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
                          "lancepart.spark.LancepartSparkSessionExtensions"]
    found = compare(spark, CASE, ns)
    assert not found, f"{len(found)} differences from Iceberg:\n" + "\n".join(found)
    t = f"lance.{ns}.t"
    assert spark.table(t).count() == 30 * (len(EVOLUTIONS) + 1)
    # seven evolutions succeeded: specs 1 to 8, each written to
    assert [r.spec_id for r in spark.sql(f"SELECT DISTINCT spec_id FROM {t}.partitions ORDER BY 1").collect()] \
        == list(range(1, 9))
    described = {r.col_name: r.data_type for r in spark.sql(f"DESCRIBE TABLE {t}").collect()}
    assert [described[f"Part {i}"] for i in range(3)] == ["days(ts)", "lance_truncate(2, name)", "lance_bucket(4, id)"]


def test_field_ids_follow_the_statements(spark, ns):
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, ts TIMESTAMP, region STRING, name STRING) PARTITIONED BY (region)")

    def evolve(statement: str, fields: list) -> None:
        spark.sql(statement.format(t=t))
        spark.sql(f"INSERT INTO {t} {rows(0, 20)}")
        newest = spark.sql(f"SELECT * FROM {t}.partitions WHERE spec_id = (SELECT max(spec_id) FROM {t}.partitions)")
        set_fields = {c for c in newest.columns if c not in ("spec_id", "object_id", "location", "read_version",
                                                              "row_count", "data_size_bytes", "indexes")
                      and newest.where(f"`{c}` IS NOT NULL").count() > 0}
        assert set_fields == set(fields), statement

    evolve("ALTER TABLE {t} ADD PARTITION FIELD bucket(4, id) AS shard", ["region", "shard"])
    evolve("ALTER TABLE {t} ADD PARTITION FIELD months(ts)", ["region", "shard", "ts_year", "ts_month"])
    evolve("ALTER TABLE {t} REPLACE PARTITION FIELD months(ts) WITH days(ts)",
           ["region", "shard", "ts_year", "ts_month", "ts_day"])
    evolve("ALTER TABLE {t} DROP PARTITION FIELD bucket(4, id)", ["region", "ts_year", "ts_month", "ts_day"])
    evolve("ALTER TABLE {t} REPLACE PARTITION FIELD region WITH bucket(4, id)", ["shard", "ts_year", "ts_month", "ts_day"])
    with pytest.raises(Exception, match=rf"table lance\.{ns}\.t: the current spec has no partition field region"):
        spark.sql(f"ALTER TABLE {t} DROP PARTITION FIELD region")
    with pytest.raises(Exception, match=rf"table lance\.{ns}\.t: field 'bucket_id' has the definition of existing "
                                        r"field 'shard', whose id must be reused"):
        spark.sql(f"ALTER TABLE {t} REPLACE PARTITION FIELD shard WITH bucket(4, id) AS bucket_id")
