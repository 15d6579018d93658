"""REPLACE TABLE, CREATE OR REPLACE and CREATE TABLE AS SELECT are atomic (Spark's
StagingTableCatalog): a failed statement leaves the table as it was, a successful one switches
schema, spec and rows in one step, and readers of older manifest versions keep their rows."""

import lance
import pytest

import lancepart

MODES = ["weak", "strong"]


def rows(spark, query):
    return sorted(tuple(r) for r in spark.sql(query).collect())


def create(spark, ns, mode, name="t"):
    t = f"lance.{ns}.{name}"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, c STRING, v INT) PARTITIONED BY (c) "
              f"TBLPROPERTIES ('transaction.mode' = '{mode}')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'US', 10), (2, 'US', 20), (3, 'FR', 30), (4, 'JP', 40)")
    return t


def manifest_version(root, ns, name="t"):
    return lance.dataset(str(root / ns / name / "__manifest")).version


FAILING_STATEMENTS = [
    "REPLACE TABLE {t} PARTITIONED BY (c) AS SELECT id, c, CAST(raise_error('boom') AS BIGINT) AS w FROM {t}",
    "CREATE OR REPLACE TABLE {t} PARTITIONED BY (c) AS SELECT id, c, CAST(raise_error('boom') AS BIGINT) AS w FROM {t}",
    "REPLACE TABLE {t} PARTITIONED BY (c) AS SELECT id, c, 1 / (id - id) AS w FROM {t}",
    "CREATE OR REPLACE TABLE {t} (id BIGINT, c STRING) PARTITIONED BY (bucket(0, id))",
    "REPLACE TABLE {t} (id BIGINT, c STRING) PARTITIONED BY (bucket(0, id))",
    "CREATE OR REPLACE TABLE {t} PARTITIONED BY (bucket(0, id)) AS SELECT * FROM {t}",
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("statement", FAILING_STATEMENTS)
def test_failed_replace_leaves_the_table(spark, root, ns, mode, statement):
    t = create(spark, ns, mode)
    before = rows(spark, f"SELECT * FROM {t}")
    schema = spark.table(t).schema
    version = manifest_version(root, ns)
    spark.conf.set("spark.sql.ansi.enabled", "true")
    try:
        with pytest.raises(Exception):
            spark.sql(statement.format(t=t)).collect()
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")
    assert rows(spark, f"SELECT * FROM {t}") == before
    assert spark.table(t).schema == schema
    # the table still takes writes, with the spec it had
    spark.sql(f"INSERT INTO {t} VALUES (5, 'DE', 50)")
    assert rows(spark, f"SELECT * FROM {t}") == sorted(before + [(5, "DE", 50)])
    assert manifest_version(root, ns) > version
    lancepart.crosscheck(spark, t)


def test_failed_dataframe_overwrite_save_as_table_leaves_the_table(spark, ns):
    t = create(spark, ns, "weak")
    before = rows(spark, f"SELECT * FROM {t}")
    bad = spark.range(3).selectExpr("id", "CAST(raise_error('boom') AS STRING) AS c", "1 AS v")
    with pytest.raises(Exception, match="boom"):
        bad.write.mode("overwrite").partitionBy("c").saveAsTable(t)
    assert rows(spark, f"SELECT * FROM {t}") == before
    with pytest.raises(Exception, match="boom"):
        bad.writeTo(t).partitionedBy(bad.c).createOrReplace()
    with pytest.raises(Exception, match="boom"):
        bad.writeTo(t).partitionedBy(bad.c).replace()
    assert rows(spark, f"SELECT * FROM {t}") == before


def test_failed_create_table_as_select_leaves_no_table(spark, root, ns):
    with pytest.raises(Exception, match="boom"):
        spark.sql(f"CREATE TABLE lance.{ns}.n PARTITIONED BY (c) AS "
                  "SELECT id, CAST(id AS STRING) AS c, CAST(raise_error('boom') AS INT) AS v FROM range(5)").collect()
    assert not spark.catalog.tableExists(f"lance.{ns}.n")
    assert [r for r in spark.sql(f"SHOW TABLES IN lance.{ns}").collect()] == []
    assert not (root / ns / "n").exists()
    # the name is free: a CTAS that works creates the table
    spark.sql(f"CREATE TABLE lance.{ns}.n PARTITIONED BY (c) AS SELECT id, CAST(id % 2 AS STRING) AS c FROM range(5)")
    assert rows(spark, f"SELECT * FROM lance.{ns}.n") == [(i, str(i % 2)) for i in range(5)]


@pytest.mark.parametrize("mode", MODES)
def test_replace_as_select_switches_schema_spec_and_rows(spark, root, ns, mode):
    t = create(spark, ns, mode)
    old = rows(spark, f"SELECT * FROM {t}")
    version = manifest_version(root, ns)
    reader = spark.table(t)  # loaded before the replace
    spark.sql(f"REPLACE TABLE {t} PARTITIONED BY (bucket(2, k)) AS "
              f"SELECT CAST(id * 100 AS INT) AS k, upper(c) AS name FROM {t}")
    expected = sorted((int(r[0]) * 100, r[1].upper()) for r in old)
    assert rows(spark, f"SELECT * FROM {t}") == expected
    assert [f.name for f in spark.table(t).schema] == ["k", "name"]
    partitioning = [r for r in spark.sql(f"DESCRIBE TABLE {t}").collect() if r[0].startswith("Part ")]
    assert [r[1].removeprefix("lance_") for r in partitioning] == ["bucket(2, k)"]
    assert manifest_version(root, ns) > version
    # the table takes writes with its new spec
    spark.sql(f"INSERT INTO {t} VALUES (7, 'X')")
    assert rows(spark, f"SELECT * FROM {t}") == sorted(expected + [(7, "X")])
    lancepart.crosscheck(spark, t)
    # a DataFrame resolved before the replace has the old columns: refused, never a mix of tables
    with pytest.raises(Exception, match=rf"table {t}: its schema, partition specs or transaction mode changed "
                                        "after this DataFrame or view loaded it; read the table again"):
        reader.collect()
    if mode == "strong":
        assert rows(spark, f"SELECT * FROM {t} VERSION AS OF {version}") == old


def test_replace_without_query_gives_an_empty_table(spark, root, ns):
    t = create(spark, ns, "strong")
    old = rows(spark, f"SELECT * FROM {t}")
    version = manifest_version(root, ns)
    spark.sql(f"REPLACE TABLE {t} (a STRING, c INT) PARTITIONED BY (c)")
    assert rows(spark, f"SELECT * FROM {t}") == []
    assert [(f.name, f.dataType.simpleString()) for f in spark.table(t).schema] == [("a", "string"), ("c", "int")]
    # field c was a STRING partition column before; it is an INT one now
    spark.sql(f"INSERT INTO {t} VALUES ('x', 1), ('y', 2)")
    assert rows(spark, f"SELECT * FROM {t} WHERE c = 2") == [("y", 2)]
    assert rows(spark, f"SELECT * FROM {t} VERSION AS OF {version}") == old
    lancepart.crosscheck(spark, t)


def test_dataframe_replace_paths(spark, ns):
    t = create(spark, ns, "weak")
    df = spark.range(6).selectExpr("id", "CAST(id % 3 AS STRING) AS c")
    df.write.mode("overwrite").partitionBy("c").saveAsTable(t)
    assert rows(spark, f"SELECT * FROM {t}") == sorted(tuple(r) for r in df.collect())
    df2 = spark.range(4).selectExpr("id * 10 AS x", "id % 2 AS p")
    df2.writeTo(t).partitionedBy(df2.p).createOrReplace()
    assert rows(spark, f"SELECT * FROM {t}") == sorted(tuple(r) for r in df2.collect())
    df2.writeTo(t).partitionedBy(df2.p).replace()
    assert rows(spark, f"SELECT * FROM {t}") == sorted(tuple(r) for r in df2.collect())
    df2.writeTo(f"lance.{ns}.fresh").partitionedBy(df2.p).createOrReplace()
    assert rows(spark, f"SELECT * FROM lance.{ns}.fresh") == sorted(tuple(r) for r in df2.collect())
    lancepart.crosscheck(spark, t)


def test_replace_of_a_missing_table_fails(spark, root, ns):
    with pytest.raises(Exception, match="TABLE_OR_VIEW_NOT_FOUND|cannot be found|CANNOT_REPLACE_MISSING_TABLE"):
        spark.sql(f"REPLACE TABLE lance.{ns}.missing (a INT) PARTITIONED BY (a)")
    assert not (root / ns / "missing").exists()
