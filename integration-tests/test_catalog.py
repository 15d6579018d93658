"""Catalog operations: namespaces, SHOW/DESCRIBE, CREATE and DROP TABLE."""

import datetime as dt
import os

import pytest
from pyspark.errors import AnalysisException

import lancepart
from lancepart.admin import _sql_literal


def test_namespaces_are_directories(spark, root, ns):
    spark.sql(f"CREATE NAMESPACE lance.{ns}.inner")
    assert (root / ns / "inner").is_dir()
    assert [r.namespace for r in spark.sql(f"SHOW NAMESPACES IN lance.{ns}").collect()] == [f"{ns}.inner"]
    assert ns in [r.namespace for r in spark.sql("SHOW NAMESPACES IN lance").collect()]
    with pytest.raises(AnalysisException):
        spark.sql(f"CREATE NAMESPACE lance.{ns}.inner")
    spark.sql(f"DROP NAMESPACE lance.{ns}.inner")
    assert not (root / ns / "inner").exists()


def test_drop_namespace_refuses_non_empty_without_cascade(spark, root, ns):
    spark.sql(f"CREATE TABLE lance.{ns}.t (id INT, p STRING) PARTITIONED BY (p)")
    with pytest.raises(AnalysisException):
        spark.sql(f"DROP NAMESPACE lance.{ns}")
    assert (root / ns / "t" / "__manifest").is_dir()
    spark.sql(f"DROP NAMESPACE lance.{ns} CASCADE")
    assert not (root / ns).exists()


def test_show_tables_lists_only_partitioned_namespaces(spark, ns):
    spark.sql(f"CREATE TABLE lance.{ns}.a (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql(f"CREATE TABLE lance.{ns}.b (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql(f"CREATE NAMESPACE lance.{ns}.sub")
    tables = sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN lance.{ns}").collect())
    assert tables == ["a", "b"]
    namespaces = [r.namespace for r in spark.sql(f"SHOW NAMESPACES IN lance.{ns}").collect()]
    assert namespaces == [f"{ns}.sub"]


def test_describe_shows_schema_and_partitioning(spark, root, ns):
    spark.sql(f"CREATE TABLE lance.{ns}.e (id BIGINT, d DATE, c STRING) PARTITIONED BY (d, c)")
    rows = spark.sql(f"DESCRIBE TABLE EXTENDED lance.{ns}.e").collect()
    pairs = [(r.col_name, r.data_type) for r in rows]
    assert pairs[:3] == [("id", "bigint"), ("d", "date"), ("c", "string")]
    part = pairs.index(("# Partition Information", ""))
    assert pairs[part + 2:part + 4] == [("d", "date"), ("c", "string")]
    details = dict(pairs)
    assert details["Location"] == str(root / ns / "e")
    # properties are what CREATE TABLE takes back; the spec is the partition information above
    assert details["Table Properties"] == "[data_storage_version=2.1,transaction.mode=weak]"


def test_create_in_missing_namespace_fails(spark, root):
    with pytest.raises(AnalysisException, match="nope"):
        spark.sql("CREATE TABLE lance.nope.t (id INT, p STRING) PARTITIONED BY (p)")
    assert not (root / "nope").exists()


def test_create_existing_table_fails(spark, ns):
    spark.sql(f"CREATE TABLE lance.{ns}.t (id INT, p STRING) PARTITIONED BY (p)")
    with pytest.raises(AnalysisException, match="already exists"):
        spark.sql(f"CREATE TABLE lance.{ns}.t (id INT, p STRING) PARTITIONED BY (p)")


@pytest.mark.parametrize("purge", ["", " PURGE"])
def test_drop_table_removes_manifest_and_every_partition_table(spark, root, ns, purge):
    spark.sql(f"CREATE TABLE lance.{ns}.t (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO lance.{ns}.t VALUES (1, 'a'), (2, 'b')")
    assert len(os.listdir(root / ns / "t")) == 3  # __manifest and two leaves
    spark.sql(f"DROP TABLE lance.{ns}.t{purge}")
    assert not (root / ns / "t").exists()
    assert spark.sql(f"SHOW TABLES IN lance.{ns}").count() == 0


def test_admin_uses_the_sessions_catalog_instance(spark, tmp_path):
    # Spark creates a catalog once per session; admin calls must act on that instance (not build
    # their own from the current settings, which a later change may have moved elsewhere).
    import lancepart

    first, second = tmp_path / "first", tmp_path / "second"
    lancepart.register_catalog(spark, "pinned", str(first))
    spark.sql("CREATE NAMESPACE pinned.ns")
    spark.sql("CREATE TABLE pinned.ns.t (id BIGINT, k STRING) PARTITIONED BY (k)")
    spark.conf.set("spark.sql.catalog.pinned.root", str(second))
    described = lancepart.Admin(spark, "pinned").describe("ns.t")
    assert described["location"].rstrip("/").endswith(f"{first.name}/ns/t")
    assert spark.sql("SHOW TABLES IN pinned.ns").count() == 1
    assert not second.exists()


def test_admin_takes_names_in_another_lancepart_catalog(spark, tmp_path, ns):
    """`Admin(spark).describe("archive.y.t")` read "archive.y" as a namespace of catalog lance."""
    import lancepart

    lancepart.register_catalog(spark, "archive", str(tmp_path / "archive"))
    spark.sql("CREATE NAMESPACE archive.y2024")
    spark.sql("CREATE TABLE archive.y2024.t (id BIGINT, k STRING) PARTITIONED BY (k)")
    spark.sql("INSERT INTO archive.y2024.t VALUES (1, 'a')")
    admin = lancepart.Admin(spark)
    assert admin.describe("archive.y2024.t")["location"].rstrip("/").endswith("archive/y2024/t")
    assert [p["values"] for p in admin.partitions("archive.y2024.t")] == [{"k": "a"}]
    with pytest.raises(TypeError, match=r"path is a list of names, e\.g\. \['v1'\]"):
        admin.describe_namespace("archive.y2024.t", "v1")
    # the Admin's own catalog, named or not, is still the default
    spark.sql(f"CREATE TABLE lance.{ns}.t (id BIGINT, k STRING) PARTITIONED BY (k)")
    assert admin.describe(f"lance.{ns}.t") == admin.describe(f"{ns}.t")


@pytest.mark.parametrize("call", [
    lambda a, t: a.repair(t),
    lambda a, t: a.vacuum(t),
    lambda a, t: a.describe(t),
    lambda a, t: a.describe_namespace(t, ["v1"]),
    lambda a, t: a.partitions(t),
    lambda a, t: a.evolve_partition_spec(t, ["p"]),
    lambda a, t: a.create_table(t + "_new", "id BIGINT, p STRING", ["p"]),
    lambda a, t: a.drop_table(t),
], ids=["repair", "vacuum", "describe", "describe_namespace", "partitions", "evolve_partition_spec",
        "create_table", "drop_table"])
def test_admin_as_the_first_call_of_a_new_session(spark, ns, call):
    # A new session loads its catalogs on first use, reading their settings through the thread's
    # active session; repair and vacuum run on a worker thread, which has none.
    import lancepart

    spark.sql(f"CREATE TABLE lance.{ns}.t (id BIGINT, p STRING) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO lance.{ns}.t VALUES (1, 'a')")
    fresh = spark.newSession()
    call(lancepart.Admin(fresh), f"{ns}.t")


@pytest.mark.parametrize("value", [
    "plain", "it's", "back\\slash", "a \\' both", "two\nlines", "ünïcode", 7, True,
    {"k'": "v\\"}, {}, ["a", "b'"], [],
    dt.datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=dt.timezone.utc),
])
@pytest.mark.parametrize("escaped_string_literals", ["false", "true"])
def test_admin_passes_procedure_arguments_as_literals_spark_reads_unchanged(spark, value, escaped_string_literals):
    # Admin writes its CALL arguments as literals (Spark 4.0's CALL refuses parameter markers),
    # which read the same under either string-literal parsing
    spark.conf.set("spark.sql.parser.escapedStringLiterals", escaped_string_literals)
    try:
        [row] = spark.sql(f"SELECT {_sql_literal(value)} AS v").collect()
    finally:
        spark.conf.unset("spark.sql.parser.escapedStringLiterals")
    assert (row.v.astimezone(dt.timezone.utc) if isinstance(value, dt.datetime) else row.v) == value


def test_admin_calls_take_quotes_backslashes_and_empty_lists(spark, admin, ns):
    # a CALL each through Admin, with arguments whose quoting a literal could get wrong, under the
    # parsing that takes backslashes as they are
    spark.conf.set("spark.sql.parser.escapedStringLiterals", "true")
    try:
        admin.create_table(f"{ns}.q", "id BIGINT, `it's\\p` STRING", ["`it's\\p`"],
                           properties={"note's": "a 'quoted' \\ note"})
        with pytest.raises(lancepart.LancepartError, match=rf"table lance\.{ns}\.q has no namespace \[\]"):
            admin.describe_namespace(f"{ns}.q", [])  # an empty ARRAY<STRING> reaches the procedure
        spark.sql(f"INSERT INTO lance.{ns}.q VALUES (1, 'a\\b'), (2, 'c')")
        result = admin.rewrite_data_files(f"{ns}.q", where="`it's\\p` = 'a\\b'")
    finally:
        spark.conf.unset("spark.sql.parser.escapedStringLiterals")
    assert result["rewritten_partition_tables_count"] <= 1
    assert spark.table(f"lance.{ns}.q").columns == ["id", "it's\\p"]
    properties = {r.key: r.value for r in spark.sql(f"SHOW TBLPROPERTIES lance.{ns}.q").collect()}
    assert properties["note's"] == "a 'quoted' \\ note"
