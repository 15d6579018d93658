"""Bad input: each case fails with an error naming the table and the offending field or value,
and writes nothing."""

import os

import lance
import lance_namespace as ln
import pytest
from pyspark.errors import AnalysisException

import lancepart
from lance.namespace import DirectoryNamespace


def snapshot(path):
    """Every file under ``path`` with its size: equal snapshots mean nothing was written."""
    return sorted((str(p.relative_to(path)), p.stat().st_size) for p in path.rglob("*") if p.is_file())


def test_unknown_partition_column(spark, root, ns, admin):
    # Spark's analyzer checks SQL DDL before the catalog sees it; its message names the column.
    with pytest.raises(Exception, match=r"Couldn't find column nope"):
        spark.sql(f"CREATE TABLE lance.{ns}.t (id INT, p STRING) PARTITIONED BY (nope)")
    with pytest.raises(lancepart.LancepartError,
                       match=rf"table lance.{ns}.t: PARTITIONED BY column 'nope' is not a column of the table"):
        admin.create_table(f"{ns}.t", "id INT, p STRING", ["nope"])
    assert not (root / ns / "t").exists()


@pytest.mark.parametrize("ddl,column,type_", [("v ARRAY<INT>", "v", "ARRAY<INT>"),
                                               ("v STRUCT<a: INT>", "v", "STRUCT<a: INT>")])
def test_unsupported_partition_column_type(spark, root, ns, ddl, column, type_):
    with pytest.raises(Exception, match=rf"lance.{ns}.t: column '{column}' has type {type_}"):
        spark.sql(f"CREATE TABLE lance.{ns}.t (id INT, {ddl}) PARTITIONED BY ({column})")
    assert not (root / ns / "t").exists()


@pytest.mark.parametrize("ddl,message", [
    ("ts STRING) PARTITIONED BY (years(ts)", r"transform 'year' does not apply to STRING"),
    ("ts DATE) PARTITIONED BY (hours(ts)", r"transform 'hour' does not apply to DATE"),
    ("ts DOUBLE) PARTITIONED BY (truncate(3, ts)", r"transform 'truncate' does not apply to DOUBLE"),
    ("ts ARRAY<INT>) PARTITIONED BY (bucket(4, ts)", r"transform 'bucket' does not apply to ARRAY<INT>"),
    ("ts INT) PARTITIONED BY (bucket(0, ts)", r"^table lance\.\w+\.t: 'bucket\(0, ts\)' needs a positive number of buckets"),
    ("ts STRING) PARTITIONED BY (truncate(-2, ts)", r"^table lance\.\w+\.t: 'truncate\(-2, ts\)' needs a positive width"),
    ("ts INT) PARTITIONED BY (zorder(ts)", r"unsupported partition transform 'zorder\(ts\)'"),
])
def test_bad_partition_transforms(spark, root, ns, ddl, message):
    with pytest.raises(Exception, match=message):
        spark.sql(f"CREATE TABLE lance.{ns}.t (id INT, {ddl})")
    assert not (root / ns / "t").exists()


@pytest.fixture
def table(spark, root, ns):
    spark.sql(f"CREATE TABLE lance.{ns}.t (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO lance.{ns}.t VALUES (1, 'a')")
    return root / ns / "t"


@pytest.mark.parametrize("key,value,message", [
    ("partition_spec_v1", "{not json", r"property 'partition_spec_v1' is not valid JSON"),
    ("partition_spec_v1", '{"id": 1, "fields": [{"field_id": "p", "source_ids": [1], "result_type": {"type": "utf8"}}]}',
     r"exactly one of 'transform' and 'expression'"),
    ("partition_spec_v1", '{"id": 1, "fields": [{"field_id": "p", "source_ids": [1], "transform": {"type": "zorder"}, '
     '"result_type": {"type": "utf8"}}]}', r"unknown transform type 'zorder'"),
    ("schema", "[1, 2", r"property 'schema' is not valid JSON"),
    ("schema", '{"fields": [{"name": "id", "type": {"type": "int32"}}]}', r"field 'id': missing lance:field_id"),
])
def test_malformed_metadata(spark, ns, table, key, value, message):
    manifest = lance.dataset(str(table / "__manifest"))
    manifest.update_metadata({key: value})
    before = snapshot(table)
    with pytest.raises(Exception, match=rf"lance.{ns}.t.*{message}"):
        spark.table(f"lance.{ns}.t").collect()
    with pytest.raises(Exception, match=message):
        spark.sql(f"INSERT INTO lance.{ns}.t VALUES (2, 'b')")
    assert snapshot(table) == before


def test_manifest_missing_a_partition_column(spark, ns, table):
    lance.dataset(str(table / "__manifest")).drop_columns(["partition_field_p"])
    before = snapshot(table)
    with pytest.raises(Exception, match=rf"table lance.{ns}.t: __manifest has no column 'partition_field_p'"):
        spark.table(f"lance.{ns}.t").collect()
    assert snapshot(table) == before


def test_directory_namespace_writes_keep_answers_right(spark, ns, table):
    # pylance 7's DirectoryNamespace adds its row and keeps the partition columns; pylance 14
    # drops them (the missing-column case above), which Admin.repair restores.
    DirectoryNamespace(root=str(table)).create_namespace(ln.CreateNamespaceRequest(id=["other"]))
    kept = "partition_field_p" in lance.dataset(str(table / "__manifest")).schema.names
    assert kept == lance.__version__.startswith("7."), lance.__version__
    if not kept:
        with pytest.raises(Exception, match=rf"table lance.{ns}.t: __manifest has no column 'partition_field_p'"):
            spark.table(f"lance.{ns}.t").collect()
        assert lancepart.Admin(spark).repair(f"{ns}.t") > 0
    assert [tuple(r) for r in spark.table(f"lance.{ns}.t").collect()] == [(1, "a")]
    lancepart.crosscheck(spark, f"lance.{ns}.t")


@pytest.mark.parametrize("name", ["`..`", "`.`", "`a/b`", "`__manifest`", "``"])
def test_names_cannot_leave_the_root(spark, root, ns, name):
    before = snapshot(root.parent)
    with pytest.raises(Exception, match=r"invalid name"):
        spark.sql(f"CREATE TABLE lance.{ns}.{name} (id INT, p STRING) PARTITIONED BY (p)")
    with pytest.raises(Exception, match=r"invalid name"):
        spark.sql(f"CREATE NAMESPACE lance.{ns}.{name}")
    assert snapshot(root.parent) == before
    assert sorted(os.listdir(root / ns)) == []


def test_table_uri_of_a_bad_name(spark):
    with pytest.raises(ValueError) as err:
        lancepart.table_uri(spark, "events")
    assert str(err.value) == "events: name the table as [catalog.]namespace.table"
    # a first part that is no catalog of the session is a namespace of catalog lance, as in Admin
    with pytest.raises(AnalysisException, match=r"`lance`\.`nowhere`\.`ns`\.`t`"):
        lancepart.table_uri(spark, "nowhere.ns.t")


def test_admin_of_an_unconfigured_catalog(spark):
    with pytest.raises(lancepart.LancepartError, match="catalog 'nowhere' is not configured: set spark.sql.catalog.nowhere"):
        lancepart.Admin(spark, "nowhere").describe("ns.t")
    from conftest import ICEBERG_CATALOG
    with pytest.raises(lancepart.LancepartError,
                       match=f"catalog '{ICEBERG_CATALOG}' is org.apache.iceberg.spark.SparkCatalog, not "
                             "lancepart.spark.PartitionedCatalog"):
        lancepart.Admin(spark, ICEBERG_CATALOG).describe("ns.t")


@pytest.mark.parametrize("ddl", ["m MAP<STRING, INT>", "m MAP<STRING, STRUCT<a: INT, b: STRING>>",
                                 "m ARRAY<MAP<STRING, INT>>", "m STRUCT<x: MAP<INT, INT>>"])
def test_map_columns_are_refused_in_tables_below_file_format_2_2(spark, root, ns, admin, ddl):
    # Lance stores maps only in file format 2.2+ and a table's datasets keep one format: a MAP column
    # of a 2.0/2.1 table is refused up front rather than accepted into a table every write to would fail.
    message = (rf"table lance.{ns}.t: column 'm' has type .*MAP<.*Lance stores maps only in file format 2.2\+, "
               r"and this table's datasets are written in file format 2.1")
    with pytest.raises(Exception, match=message):
        spark.sql(f"CREATE TABLE lance.{ns}.t (id INT, p STRING, {ddl}) PARTITIONED BY (p) "
                  "TBLPROPERTIES ('data_storage_version' = '2.1')")
    with pytest.raises(lancepart.LancepartError, match=message):
        admin.create_table(f"{ns}.t", f"id INT, p STRING, {ddl}", ["p"], properties={"data_storage_version": "2.1"})
    assert not (root / ns / "t").exists()
    spark.sql(f"CREATE TABLE lance.{ns}.t (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO lance.{ns}.t VALUES (1, 'a')")
    with pytest.raises(Exception, match=message):
        spark.sql(f"ALTER TABLE lance.{ns}.t ADD COLUMN {ddl}")
    with pytest.raises(Exception, match=message):
        spark.sql(f"REPLACE TABLE lance.{ns}.t (id INT, p STRING, {ddl}) PARTITIONED BY (p)")
    assert spark.table(f"lance.{ns}.t").columns == ["id", "p"]
    spark.sql(f"INSERT INTO lance.{ns}.t VALUES (2, 'a')")
    assert sorted(r.id for r in spark.table(f"lance.{ns}.t").collect()) == [1, 2]


@pytest.mark.parametrize("select,message", [
    ("NULL AS x", r"column 'x' has type VOID; VOID \(an untyped NULL\) cannot be stored, give it a type \(e\.g\. CAST\(NULL AS STRING\)\)"),
    ("INTERVAL '1' DAY AS x", r"column 'x' has type INTERVAL DAY; INTERVAL DAY cannot be stored in Lance"),
    ("array(named_struct('y', NULL)) AS x", r"column 'x' has type ARRAY<STRUCT<y: VOID>>; VOID \(an untyped NULL\) cannot be stored"),
])
def test_unstorable_column_types_name_table_and_column(spark, root, ns, select, message):
    """A CTAS of an untyped NULL failed with "type VOID cannot be stored in Lance", naming neither
    table nor column."""
    with pytest.raises(Exception, match=rf"^table lance\.{ns}\.t: {message}"):
        spark.sql(f"CREATE TABLE lance.{ns}.t PARTITIONED BY (p) AS SELECT 'a' AS p, {select}")
    assert not (root / ns / "t").exists()


@pytest.mark.parametrize("call,message", [
    ("lance_bucket(0, 1)", r"lance_bucket: the number of buckets must be positive, got 0"),
    ("lance_bucket(-1, 5)", r"lance_bucket: the number of buckets must be positive, got -1"),
    ("lance_multi_bucket(0, 1, 'a')", r"lance_multi_bucket: the number of buckets must be positive, got 0"),
    ("lance_truncate(-2, 7)", r"lance_truncate: the width must be positive, got -2"),
])
def test_catalog_functions_refuse_a_non_positive_parameter(spark, call, message):
    """They failed with a bare "/ by zero" or returned a value (lance_truncate(-2, 7) gave 6)
    where CREATE TABLE refuses the same parameter."""
    with pytest.raises(Exception, match=message):
        spark.sql(f"SELECT lance.system.{call}").collect()


def test_a_failing_partition_expression_names_table_field_and_row(spark, root, ns):
    """An expression that fails on a row (division by zero under ANSI) failed the INSERT with a
    bare ArithmeticException."""
    t = f"lance.{ns}.t"
    spark.sql(f"""CREATE TABLE {t} (id BIGINT, v INT) TBLPROPERTIES ('lancepart.partition-expressions' =
        '[{{"field_id": "q", "expression": "100 / col0", "sources": ["v"], "result_type": "int"}}]')""")
    spark.sql(f"INSERT INTO {t} VALUES (1, 5)")
    with pytest.raises(Exception, match=rf"table {t}: partition field 'q' of partition_spec_v1 fails on a row with v=0: "):
        spark.sql(f"INSERT INTO {t} VALUES (2, 0)")
    assert [r.id for r in spark.table(t).collect()] == [1]


@pytest.mark.parametrize("option,value,message", [
    ("spj.max-partition-keys", "lots", "option spj.max-partition-keys must be an integer of at least 0, not 'lots'"),
    ("spj.max-partition-keys", "-1", "option spj.max-partition-keys must be an integer of at least 0, not '-1'"),
    ("spj.enabled", "maybe", "option spj.enabled must be true or false, not 'maybe'"),
    ("commit.attempts", "0", "option commit.attempts must be an integer of at least 1, not '0'"),
])
def test_bad_catalog_options_name_catalog_option_and_value(spark, root, option, value, message):
    catalog = f"bad_{option.replace('.', '_').replace('-', '_')}_{abs(hash(value))}"
    lancepart.register_catalog(spark, catalog, str(root))
    spark.conf.set(f"spark.sql.catalog.{catalog}.{option}", value)
    with pytest.raises(Exception, match=f"catalog {catalog}: {message}"):
        spark.sql(f"SHOW NAMESPACES IN {catalog}").collect()


def test_bad_read_options_and_split_properties_name_table_key_and_value(spark, root, ns):
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a')")
    with pytest.raises(Exception, match=f"table {t}: read option pruning must be true or false, not 'maybe'"):
        spark.read.option("pruning", "maybe").table(t).collect()
    with pytest.raises(Exception, match=f"table {t}: split-size '0' is not a positive number of bytes"):
        spark.read.option("split-size", "0").table(t).collect()
    with pytest.raises(Exception, match=f"table {t}: read.split.open-file-cost '1MB' is not a positive number of bytes"):
        spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('read.split.open-file-cost' = '1MB')")
    with pytest.raises(Exception, match=rf"table lance.{ns}.u: read.split.target-size '-1' is not a positive number of bytes"):
        spark.sql(f"CREATE TABLE lance.{ns}.u (id BIGINT) PARTITIONED BY (id) TBLPROPERTIES ('read.split.target-size' = '-1')")
    assert [r.tableName for r in spark.sql(f"SHOW TABLES IN lance.{ns}").collect()] == ["t"]
    assert [r.id for r in spark.table(t).collect()] == [1]
