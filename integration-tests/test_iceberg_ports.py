"""Apache Iceberg's own Spark 4.1 SQL tests of reads, writes and DDL, ported to run every statement on
lancepart and on Iceberg (catalog `ice`, the 1.12.0 runtime) in one session and compare
(differential.py). Ported from apache/iceberg main at 7f879b1 (2026-08-21; these files differ from
1.11.0's by TestSelect's testTimeTravelFilterOnRenamedColumn* and TestMetadataTables additions only),
spark/v4.1/spark/src/test/java/org/apache/iceberg/spark/:
sql/TestSelect, sql/PartitionedWritesTestBase (TestPartitionedWrites), sql/TestPartitionedWritesAsSelect,
sql/TestCreateTableAsSelect, sql/TestAlterTable, sql/TestTimestampWithoutZone, source/TestPartitionPruning,
and of spark-extensions' TestMetadataTables the shape of `.partitions`. Each case keeps the
names of the Iceberg methods it ports; Iceberg's assertions on its own API (schemas, specs, properties,
scan events) become queries both catalogs answer (the schema Spark reads, SHOW TBLPROPERTIES, EXPLAIN).
As in Iceberg's TestBase, dynamic partition overwrite is on; `USING iceberg` is left out (each catalog's
own format)."""

from __future__ import annotations

import dataclasses
import time
from datetime import datetime, timezone

import pytest
from pyspark.sql import functions as F

from conftest import tables_scanned
from differential import Case, DataFrameStep, mismatch

pytestmark = pytest.mark.usefixtures("iceberg")

DYNAMIC = {"spark.sql.sources.partitionOverwriteMode": "dynamic"}


def case(name: str, setup: tuple, queries: tuple = (), known: str | None = None) -> Case:
    return Case(name, setup, queries, conf=DYNAMIC, known=known)


def schema(table: str = "{t}") -> DataFrameStep:
    """A query: the schema Spark reads for ``table`` (names, types, nullability, comments) as JSON."""
    return DataFrameStep(f"schema of {table}", lambda spark, names: spark.sql(
        "SELECT :schema AS schema", args={"schema": spark.table(table.format(**names)).schema.json()}))


def properties(*keys: str) -> DataFrameStep:
    """A query: the table properties of {t} among ``keys`` (SHOW TBLPROPERTIES names the table in
    its answer for a missing key)."""
    return DataFrameStep(f"properties {', '.join(keys)} of {{t}}", lambda spark, names: spark.sql(
        f"SHOW TBLPROPERTIES {names['t']}").where(F.col("key").isin(*keys)))


def remember_snapshot(key: str) -> DataFrameStep:
    """Adds placeholder ``{key}``: the id of {t}'s current snapshot (the one no other has for parent)."""
    def run(spark, names):
        snapshots = f"{names['t']}.snapshots"
        names[key] = spark.sql(f"SELECT snapshot_id FROM {snapshots} WHERE snapshot_id NOT IN "
                               f"(SELECT parent_id FROM {snapshots} WHERE parent_id IS NOT NULL)").first()[0]
    return DataFrameStep(f"remember the current snapshot as {{{key}}}", run)


def remember_time(key: str) -> DataFrameStep:
    """Adds placeholders ``{key}`` (a timestamp in the session's zone, UTC) and ``{key}_millis``
    (since the epoch): one moment after the last commit and before the next, as Iceberg's
    waitUntilAfter makes it."""
    def run(spark, names):
        time.sleep(0.01)
        now = datetime.now(timezone.utc)
        names[key], names[f"{key}_millis"] = now.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3], int(now.timestamp() * 1000)
        time.sleep(0.01)
    return DataFrameStep(f"remember the time as {{{key}}}", run)


def read(label: str, options: dict, where: str = "true") -> DataFrameStep:
    """A query of {t} through DataFrameReader with ``options`` (placeholders allowed in their values)."""
    def run(spark, names):
        reader = spark.read
        for key, value in options.items():
            reader = reader.option(key, value.format(**names))
        return reader.table(names["t"]).where(where)
    return DataFrameStep(label, run)


def sql_df(label: str, statement: str, write) -> DataFrameStep:
    """A step writing the DataFrame of ``statement`` with ``write(df, names)``."""
    return DataFrameStep(label, lambda spark, names: write(spark.sql(statement.format(**names)), names))


# ---- TestSelect: an unpartitioned table (a plain Lance table on lancepart) ----

SELECT_TABLE = ("CREATE TABLE {t} (id bigint, data string, float float)",
                "INSERT INTO {t} VALUES (1, 'a', 1.0), (2, 'b', 2.0), (3, 'c', float('NaN'))")
SECOND_SNAPSHOT = "INSERT INTO {t} VALUES (4, 'd', 4.0), (5, 'e', 5.0)"

SELECT = [
    case("TestSelect.testSelect+testSelectRewrite+selectWithLimit+testProjection+testExpressionPushdown", SELECT_TABLE, (
        "SELECT * FROM {t} ORDER BY id", "SELECT * FROM {t} where float = float('NaN')",
        "SELECT * FROM {t} ORDER BY id LIMIT 1", "SELECT * FROM {t} ORDER BY id LIMIT 2",
        "SELECT * FROM {t} ORDER BY id LIMIT 3", "SELECT id FROM {t} ORDER BY id", "SELECT data FROM {t} WHERE id = 2")),
    case("TestSelect.testVersionAsOf+testTimestampAsOf+testSpecifySnapshotAndTimestamp+testUnknownReferenceAsOf", (
        *SELECT_TABLE, remember_snapshot("v1"), remember_time("ts1"), SECOND_SNAPSHOT), (
        "SELECT * FROM {t} VERSION AS OF {v1} ORDER BY id", "SELECT * FROM {t} FOR SYSTEM_VERSION AS OF {v1} ORDER BY id",
        read("read.option(versionAsOf)", {"versionAsOf": "{v1}"}),
        "SELECT * FROM {t} TIMESTAMP AS OF '{ts1}' ORDER BY id", "SELECT * FROM {t} FOR SYSTEM_TIME AS OF '{ts1}' ORDER BY id",
        read("read.option(timestampAsOf)", {"timestampAsOf": "{ts1}"}),
        read("read.option(versionAsOf, timestampAsOf)", {"versionAsOf": "{v1}", "timestampAsOf": "{ts1}"}),
        "SELECT * FROM {t} VERSION AS OF 'test_unknown'")),
    case("TestSelect.testBinaryInFilter+testComplexTypeFilter", (
        "CREATE TABLE {t} (id bigint, binary binary)", "INSERT INTO {t} VALUES (1, X''), (2, X'1111'), (3, X'11')",
        "CREATE TABLE {u} (id INT, complex STRUCT<c1:INT,c2:STRING>)",
        "INSERT INTO TABLE {u} VALUES (1, named_struct(\"c1\", 3, \"c2\", \"v1\"))",
        "INSERT INTO TABLE {u} VALUES (2, named_struct(\"c1\", 2, \"c2\", \"v2\"))"), (
        "SELECT id, binary FROM {t} where binary > X'11'",
        "SELECT id FROM {u} WHERE complex = named_struct(\"c1\", 3, \"c2\", \"v1\")")),
    *(case(f"TestSelect.testRequiredNestedFieldInOptionalStructFilter{label}", (
        f"CREATE TABLE {{t}} (id INT NOT NULL, address STRUCT<street: STRING NOT NULL>){spec}",
        "INSERT INTO {t} VALUES (0, NULL)", "INSERT INTO {t} VALUES (1, STRUCT('123 Main St'))"),
        ("SELECT id FROM {t} WHERE address.street IS NULL",), known=known)
      for label, spec, known in (("", "", "plain-required-field-of-null-struct"),
                                 (" [partitioned]", " PARTITIONED BY (bucket(2, id))", None))),
    case("TestSelect.simpleTypesInFilter", (
        "CREATE TABLE IF NOT EXISTS {t} (id bigint, boolean boolean, integer integer, long long, "
        "float float, double double, string string, date date, timestamp timestamp)",
        "INSERT INTO {t} VALUES (1, true, 1, 1L, 1.1, 1.3, '1.5', to_date('2021-01-01'), to_timestamp('2021-01-01T00:00:00')), "
        "(2, false, 2, 2L, 2.2, 2.4, '2.6', to_date('2022-02-02'), to_timestamp('2022-02-02T00:00:00')), "
        "(3, true, 3, 3L, 3.3, 3.6, '3.9', to_date('2023-03-03'), to_timestamp('2023-03-03T00:00:00'))"), (
        "SELECT id FROM {t} where id > 1", "SELECT id, boolean FROM {t} where boolean = true",
        "SELECT long FROM {t} where long > 1", "SELECT float FROM {t} where float > 1.1f",
        "SELECT double FROM {t} where double > 1.3", "SELECT string FROM {t} where string > '1.5'",
        "SELECT date FROM {t} where date > to_date('2021-01-01')",
        "SELECT timestamp FROM {t} where timestamp > to_timestamp('2021-01-01')")),
    case("TestSelect.testTimeTravelFilterOnRenamedColumn", (
        "CREATE TABLE {t} (id BIGINT, col DOUBLE) TBLPROPERTIES ("
        "'read.data-planning-mode'='distributed', 'read.delete-planning-mode'='distributed')",
        "INSERT INTO {t} VALUES (1, 100.0), (2, 200.0), (3, 0.0)", remember_snapshot("v1"),
        "ALTER TABLE {t} RENAME COLUMN col TO value", "INSERT INTO {t} VALUES (4, 400.0)"), (
        read("read.option(versionAsOf).filter(col > 0)", {"versionAsOf": "{v1}"}, where="col > 0"),
        "SELECT * FROM {t} VERSION AS OF {v1} WHERE col > 0 ORDER BY id")),
    case("TestSelect.testTimeTravelFilterOnRenamedColumnWithDeleteFiles [strong mode]", (
        "CREATE TABLE {t} (id BIGINT, col DOUBLE) PARTITIONED BY (col) TBLPROPERTIES ('format-version'='2', "
        "'write.delete.mode'='merge-on-read', 'read.data-planning-mode'='distributed', "
        "'read.delete-planning-mode'='distributed', 'transaction.mode'='strong')",
        "INSERT INTO {t} VALUES (1, 100.0), (2, 200.0), (3, 0.0)", "DELETE FROM {t} WHERE id = 3",
        remember_snapshot("v1"), "ALTER TABLE {t} RENAME COLUMN col TO value", "INSERT INTO {t} VALUES (4, 400.0)"),
        ("SELECT * FROM {t} VERSION AS OF {v1} WHERE col > 0 ORDER BY id",)),
    case("TestSelect.testMetadataTables [snapshots after CREATE]", SELECT_TABLE, (
        "SELECT operation, summary['added-records'], summary['total-records'] FROM {t}.snapshots "
        "WHERE operation <> 'create'",)),
    case("TestSelect.testMetadataTables", SELECT_TABLE, ("SELECT parent_id IS NULL, operation FROM {t}.snapshots",),
         known="create-snapshots"),
    case("TestSelect.testTimeTravelFilterOnRenamedColumnWithDeleteFiles", (
        "CREATE TABLE {t} (id BIGINT, col DOUBLE) PARTITIONED BY (col) TBLPROPERTIES ('format-version'='2', "
        "'write.delete.mode'='merge-on-read')",
        "INSERT INTO {t} VALUES (1, 100.0), (2, 200.0), (3, 0.0)", "DELETE FROM {t} WHERE id = 3",
        remember_snapshot("v1"), "ALTER TABLE {t} RENAME COLUMN col TO value", "INSERT INTO {t} VALUES (4, 400.0)"),
        ("SELECT * FROM {t} VERSION AS OF {v1} WHERE col > 0 ORDER BY id",), known="weak-mode-time-travel"),
    case("TestSelect.testSnapshotInTableName+testTimestampInTableName+testInvalidTimeTravelBasedOnBothAsOfAndTableIdentifier",
         (*SELECT_TABLE, remember_snapshot("v1"), remember_time("ts1"), SECOND_SNAPSHOT), (
             "SELECT * FROM {t}.snapshot_id_{v1} ORDER by id", "SELECT * FROM {t}.at_timestamp_{ts1_millis} ORDER by id",
             "SELECT * FROM {t}.snapshot_id_{v1} VERSION AS OF {v1}",
             "SELECT * FROM {t}.at_timestamp_{ts1_millis} TIMESTAMP AS OF '{ts1}'")),
    case("TestSelect.variantTypeInFilter", (
        "CREATE TABLE {t} (id BIGINT, v1 VARIANT, v2 VARIANT) TBLPROPERTIES ('format-version'='3')",
        "INSERT INTO {t} SELECT 1, parse_json('{{\"a\":5}}'), parse_json('{{\"x\":15}}')",
        "INSERT INTO {t} SELECT 2, parse_json('{{\"a\":10}}'), parse_json('{{\"x\":20}}')"), (
        "SELECT id, try_variant_get(v1, '$.a', 'int') FROM {t} WHERE try_variant_get(v1, '$.a', 'int') > 5",
        "SELECT id, try_variant_get(v2, '$.x', 'int') FROM {t} WHERE try_variant_get(v2, '$.x', 'int') < 100"),
         known="variant"),
]


# ---- PartitionedWritesTestBase (TestPartitionedWrites) and TestPartitionedWritesAsSelect ----

WRITES_TABLE = ("CREATE TABLE {t} (id bigint, data string) PARTITIONED BY (truncate(id, 3))",
                "INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c')")
RECORDS = "SELECT * FROM VALUES ('d', 4), ('e', 5) AS s(data, id)"  # SimpleRecord(4, 'd'), its bean's columns


def view_of_id_1(spark, names):
    spark.sql(f"SELECT * FROM {names['t']} WHERE id = 1").createOrReplaceTempView("iceberg_ports_tmp")


WRITES = [
    case("PartitionedWritesTestBase.testInsertAppend", (*WRITES_TABLE, "INSERT INTO {t} VALUES (4, 'd'), (5, 'e')"),
         ("SELECT count(*) FROM {t}",)),
    case("PartitionedWritesTestBase.testInsertOverwrite", (*WRITES_TABLE, "INSERT OVERWRITE {t} VALUES (4, 'd'), (5, 'e')"),
         ("SELECT count(*) FROM {t}",)),
    case("PartitionedWritesTestBase.testDataFrameV2Append", (
        *WRITES_TABLE, sql_df("writeTo.append", RECORDS, lambda df, names: df.writeTo(names["t"]).append()))),
    case("PartitionedWritesTestBase.testDataFrameV2DynamicOverwrite", (
        *WRITES_TABLE, sql_df("writeTo.overwritePartitions", RECORDS,
                              lambda df, names: df.writeTo(names["t"]).overwritePartitions()))),
    case("PartitionedWritesTestBase.testDataFrameV2Overwrite", (
        *WRITES_TABLE, sql_df("writeTo.overwrite(id < 3)", RECORDS,
                              lambda df, names: df.writeTo(names["t"]).overwrite(F.col("id") < 3)))),
    case("PartitionedWritesTestBase.testViewsReturnRecentResults", (
        *WRITES_TABLE, DataFrameStep("createOrReplaceTempView of id = 1", view_of_id_1),
        "INSERT INTO TABLE {t} VALUES (1, 'a')"), ("SELECT * FROM iceberg_ports_tmp",)),
    # the SQL of it: Iceberg's write option output-spec-id and metadata column _spec_id are its own
    case("PartitionedWritesTestBase.testWriteWithOutputSpec", (
        *WRITES_TABLE, "DELETE FROM {t}", "ALTER TABLE {t} ADD PARTITION FIELD data",
        sql_df("writeTo.append", "SELECT 'a' AS data, 10 AS id", lambda df, names: df.writeTo(names["t"]).append()),
        sql_df("writeTo.append", "SELECT * FROM VALUES ('b', 11), ('c', 12) AS s(data, id)",
               lambda df, names: df.writeTo(names["t"]).append()),
        sql_df("writeTo.append", "SELECT 'd' AS data, 13 AS id", lambda df, names: df.writeTo(names["t"]).append())),
        ("SELECT id, data FROM {t} WHERE id >= 10 ORDER BY id", "SELECT count(*), count(DISTINCT spec_id) FROM {t}.partitions")),
    case("TestPartitionedWritesAsSelect.testInsertAsSelectAppend+testInsertAsSelectWithBucket+testInsertAsSelectWithTruncate", (
        "CREATE TABLE {u} (id bigint, data string, category string, ts timestamp)",
        *["INSERT INTO {u} VALUES (13, '1', 'bgd16', timestamp('2021-11-10 11:20:10')), "
          "(21, '2', 'bgd13', timestamp('2021-11-10 11:20:10')), (12, '3', 'bgd14', timestamp('2021-11-10 11:20:10')), "
          "(222, '3', 'bgd15', timestamp('2021-11-10 11:20:10')), (45, '4', 'bgd16', timestamp('2021-11-10 11:20:10'))"] * 3,
        "CREATE TABLE {t} (id bigint, data string, category string, ts timestamp) PARTITIONED BY (days(ts), category)",
        "INSERT INTO {t} SELECT id, data, category, ts FROM {u} ORDER BY ts,category",
        # Iceberg orders by its bucket and truncate UDFs (iceberg_bucket8(data) ...): the rows are the same
        "CREATE TABLE {ns}.bucketed (id bigint, data string, category string, ts timestamp) PARTITIONED BY (bucket(8, data))",
        "INSERT INTO {ns}.bucketed SELECT id, data, category, ts FROM {u} ORDER BY data",
        "CREATE TABLE {ns}.truncated (id bigint, data string, category string, ts timestamp) "
        "PARTITIONED BY (truncate(data, 4), truncate(id, 4))",
        "INSERT INTO {ns}.truncated SELECT id, data, category, ts FROM {u} ORDER BY data, id"), (
        "SELECT count(*) FROM {t}", "SELECT * FROM {ns}.bucketed", "SELECT count(*) FROM {ns}.bucketed",
        "SELECT * FROM {ns}.truncated", "SELECT count(*) FROM {ns}.truncated")),
    # TestMetadataTables.testPartitionedTable: of its metadata tables, the shape of .partitions
    case("TestMetadataTables.testPartitionedTable", (
        "CREATE TABLE {t} (id bigint, data string) PARTITIONED BY (data) "
        "TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')",
        sql_df("writeTo.append", "SELECT * FROM VALUES ('a', 1), ('a', 2) AS s(data, id)",
               lambda df, names: df.coalesce(1).writeTo(names["t"]).append()),
        sql_df("writeTo.append", "SELECT * FROM VALUES ('b', 1), ('b', 2) AS s(data, id)",
               lambda df, names: df.coalesce(1).writeTo(names["t"]).append()),
        "DELETE FROM {t} WHERE id=1 AND data='a'", "DELETE FROM {t} WHERE id=1 AND data='b'"),
        ("SELECT count(*) FROM {t}.partitions",)),
]


# ---- TestCreateTableAsSelect: source {u} ----

CTAS_SOURCE = ("CREATE TABLE IF NOT EXISTS {u} (id bigint NOT NULL, data string) PARTITIONED BY (truncate(id, 3))",
               "INSERT INTO {u} VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e')")
PARTS = "SELECT id, data, CASE WHEN (id % 2) = 0 THEN 'even' ELSE 'odd' END AS part FROM {u} ORDER BY 3, 1"
DOUBLED = ("SELECT 2 * id as id, data, CASE WHEN ((2 * id) % 2) = 0 THEN 'even' ELSE 'odd' END AS part "
           "FROM {u} ORDER BY 3, 1")


def parts(spark, names, doubled=False):
    """The source's rows with column `part` (Iceberg's DataFrame of them), ordered by part and id."""
    df = spark.table(names["u"])
    if doubled:
        df = df.select((F.col("id") * 2).alias("id"), "data")
    part = F.when(F.col("id") % 2 == 0, F.lit("even")).otherwise("odd").alias("part")
    return df.select("id", "data", part).orderBy("part", "id")


def create_or_replace(doubled):
    return DataFrameStep(f"writeTo.partitionedBy(part).createOrReplace{' [2 * id]' if doubled else ''}",
                         lambda spark, names: parts(spark, names, doubled).writeTo(names["t"])
                         .partitionedBy(F.col("part")).createOrReplace())


CTAS = [
    case("TestCreateTableAsSelect.testUnpartitionedCTAS", (*CTAS_SOURCE, "CREATE TABLE {t} AS SELECT * FROM {u}"),
         (schema(),)),
    case("TestCreateTableAsSelect.testPartitionedCTAS", (
        *CTAS_SOURCE, "CREATE TABLE {t} PARTITIONED BY (id) AS SELECT * FROM {u} ORDER BY id"), (schema(),)),
    case("TestCreateTableAsSelect.testCTASWriteDistributionModeRespected", (
        *CTAS_SOURCE, "CREATE TABLE {t} PARTITIONED BY (bucket(2, id)) AS SELECT * FROM {u}"), (schema(),)),
    case("TestCreateTableAsSelect.testCreateRTAS", (
        *CTAS_SOURCE, f"CREATE OR REPLACE TABLE {{t}} PARTITIONED BY (part) AS {PARTS}",
        f"CREATE OR REPLACE TABLE {{t}} PARTITIONED BY (part) AS {DOUBLED}"), (schema(),)),
    case("TestCreateTableAsSelect.testDataFrameV2Create", (
        *CTAS_SOURCE, DataFrameStep("writeTo.create", lambda spark, names: spark.table(names["u"]).writeTo(names["t"]).create())),
        (schema(),)),
    case("TestCreateTableAsSelect.testDataFrameV2CreateOrReplace", (
        *CTAS_SOURCE, create_or_replace(False), create_or_replace(True)), (schema(),)),
    case("TestCreateTableAsSelect.testCreateRTASWithPartitionSpecChanging", (
        *CTAS_SOURCE, f"CREATE OR REPLACE TABLE {{t}} PARTITIONED BY (part) AS {PARTS}",
        "ALTER TABLE {t} DROP PARTITION FIELD part",
        f"CREATE OR REPLACE TABLE {{t}} PARTITIONED BY (part, id) AS {DOUBLED}"), (schema(),)),
    case("TestCreateTableAsSelect.testRTAS [partitioned]", (
        *CTAS_SOURCE, "CREATE TABLE {t} PARTITIONED BY (part) TBLPROPERTIES ('prop1'='val1', 'prop2'='val2') "
        f"AS {PARTS}",
        f"REPLACE TABLE {{t}} PARTITIONED BY (part) TBLPROPERTIES ('prop1'='newval1', 'prop3'='val3') AS {PARTS}"),
        (schema(), properties("prop1", "prop2", "prop3"))),
    # a CTAS without PARTITIONED BY makes a plain table on lancepart, which REPLACE makes partitioned
    case("TestCreateTableAsSelect.testRTAS", (
        *CTAS_SOURCE, "CREATE TABLE {t} TBLPROPERTIES ('prop1'='val1', 'prop2'='val2') AS SELECT * FROM {u}",
        f"REPLACE TABLE {{t}} PARTITIONED BY (part) TBLPROPERTIES ('prop1'='newval1', 'prop3'='val3') AS {PARTS}"),
        (schema(), properties("prop1", "prop2", "prop3"))),
    case("TestCreateTableAsSelect.testDataFrameV2Replace", (
        *CTAS_SOURCE, DataFrameStep("writeTo.create", lambda spark, names: spark.table(names["u"]).writeTo(names["t"]).create()),
        DataFrameStep("writeTo.partitionedBy(part).replace",
                      lambda spark, names: parts(spark, names).writeTo(names["t"]).partitionedBy(F.col("part")).replace())),
        (schema(),)),
]


# ---- TestAlterTable: on an unpartitioned table (plain on lancepart), as Iceberg's, and partitioned ----

def alter(method: str, statements: tuple, plain: str | None = None, partitioned: str | None = None,
          queries: tuple = ()) -> list[Case]:
    """TestAlterTable.<method> on Iceberg's table and on the same columns partitioned by bucket(2, id),
    with the known difference each layout shows, if any (a difference both show, on the first alone)."""
    create = "CREATE TABLE {t} (id bigint NOT NULL, data string)"
    return [case(f"TestAlterTable.{method}", (create, *statements), (schema(), *queries), known=plain),
            *([] if partitioned and partitioned == plain else [
                case(f"TestAlterTable.{method} [partitioned]", (f"{create} PARTITIONED BY (bucket(2, id))", *statements),
                     (schema(), *queries), known=partitioned)])]


ALTER = [
    *alter("testAddColumnNotNull", ("ALTER TABLE {t} ADD COLUMN c3 INT NOT NULL",)),
    *alter("testAddColumnWithDefaultValuesUnsupported", ("ALTER TABLE {t} ADD COLUMN col_with_default int DEFAULT 123",)),
    *alter("testDropColumn", ("ALTER TABLE {t} DROP COLUMN data",)),
    *alter("testRenameColumn", ("ALTER TABLE {t} RENAME COLUMN id TO row_id",)),
    *alter("testSetTableProperties", ("ALTER TABLE {t} SET TBLPROPERTIES ('prop'='value')",), queries=(properties("prop"),)),
    *alter("testSetTableProperties [UNSET]", (
        "ALTER TABLE {t} SET TBLPROPERTIES ('prop'='value')", "ALTER TABLE {t} UNSET TBLPROPERTIES ('prop')"),
           queries=(properties("prop"),)),
    *alter("testAlterColumnComment", ("ALTER TABLE {t} ALTER COLUMN id COMMENT 'Record id'",), plain="plain-table-alter"),
    *alter("testAlterColumnType", ("ALTER TABLE {t} ADD COLUMN count int", "ALTER TABLE {t} ALTER COLUMN count TYPE bigint"),
           plain="plain-table-alter"),
    *alter("testAlterColumnDropNotNull", ("ALTER TABLE {t} ALTER COLUMN id DROP NOT NULL",), partitioned="schema-changes"),
    *alter("testAddColumn", (
        "ALTER TABLE {t} ADD COLUMN point struct<x: double NOT NULL, y: double NOT NULL> AFTER id",
        "ALTER TABLE {t} ADD COLUMN point.z double COMMENT 'May be null' FIRST"),
           plain="schema-changes", partitioned="schema-changes"),
    *alter("testAddColumnWithArray", (
        "ALTER TABLE {t} ADD COLUMN data2 array<struct<a:INT,b:INT,c:int>>", "ALTER TABLE {t} ADD COLUMN data2.element.d int"),
           plain="schema-changes", partitioned="schema-changes"),
    *alter("testAddColumnWithMap", (
        "ALTER TABLE {t} ADD COLUMN data2 map<struct<x:INT>, struct<a:INT,b:INT>>",
        "ALTER TABLE {t} ADD COLUMN data2.value.c int", "ALTER TABLE {t} ADD COLUMN data2.key.y int"),
           plain="schema-changes", partitioned="schema-changes"),
    *alter("testTableRename", ("ALTER TABLE {t} RENAME TO {t}2",), queries=("SHOW TABLES IN {ns}", "SELECT * FROM {t}2")),
    *alter("testAlterColumnSetNotNull", (
        "ALTER TABLE {t} ALTER COLUMN id SET NOT NULL", "ALTER TABLE {t} ALTER COLUMN data SET NOT NULL")),
    *alter("testAlterColumnPositionAfter", ("ALTER TABLE {t} ADD COLUMN count int", "ALTER TABLE {t} ALTER COLUMN count AFTER id"),
           plain="plain-table-alter"),
    *alter("testAlterColumnPositionFirst", ("ALTER TABLE {t} ADD COLUMN count int", "ALTER TABLE {t} ALTER COLUMN count FIRST"),
           plain="plain-table-alter"),
]


# ---- TestTimestampWithoutZone: Iceberg's table of required columns ----

TS_TABLE = "CREATE TABLE {t} (id BIGINT NOT NULL, ts TIMESTAMP_NTZ NOT NULL, tsz TIMESTAMP NOT NULL)"
TS_VALUES = ", ".join(f"({i}, timestamp_ntz '2021-01-01T00:00', timestamp '2021-02-01 00:00:00.0')" for i in (1, 2, 3))

TIMESTAMPS = [
    dataclasses.replace(c, name=f"{c.name} [{zone}]", time_zone=zone) for zone in ("UTC", "America/Los_Angeles") for c in (
        case("TestTimestampWithoutZone.testAppendTimestampWithoutZone+testAppendTimestampWithZone", (
            TS_TABLE, "INSERT INTO {t} VALUES (1, timestamp_ntz '2021-01-01T00:00', timestamp_ntz '2021-02-01T00:00')",
            "INSERT INTO {t} VALUES (1, timestamp '2021-01-01 00:00:00.0', timestamp '2021-02-01 00:00:00.0')")),
        case("TestTimestampWithoutZone.testCreateAsSelectWithTimestampWithoutZone"
             "+testCreateNewTableShouldHaveTimestampWithZoneIcebergType"
             "+testCreateNewTableShouldHaveTimestampWithoutZoneIcebergType", (
                 TS_TABLE, f"INSERT INTO {{t}} VALUES {TS_VALUES}", "CREATE TABLE {u} AS SELECT * FROM {t}"),
             ("SELECT count(*) FROM {u}", "SELECT * FROM {u}", schema("{u}"))))
]


# ---- TestPartitionPruning: the log table, partitioned by every kind of transform ----

LOGS = [("2020-02-02", "DEBUG", "debug event 1", "2020-02-02 00:00:00"),
        ("2020-02-02", "INFO", "info event 1", "2020-02-02 01:00:00"),
        ("2020-02-02", "DEBUG", "debug event 2", "2020-02-02 02:00:00"),
        ("2020-02-03", "INFO", "info event 2", "2020-02-03 00:00:00"),
        ("2020-02-03", "DEBUG", "debug event 3", "2020-02-03 01:00:00"),
        ("2020-02-03", "INFO", "info event 3", "2020-02-03 02:00:00"),
        ("2020-02-03", "ERROR", "error event 1", "2020-02-03 03:00:00"),
        ("2020-02-04", "DEBUG", "debug event 4", "2020-02-04 01:00:00"),
        ("2020-02-04", "WARN", "warn event 1", "2020-02-04 02:00:00"),
        ("2020-02-04", "DEBUG", "debug event 5", "2020-02-04 03:00:00")]

#: Each test's filter, and its partCondition: the condition on partition values that a partition
#: table read must meet, here over the rows (Iceberg's asserts no file outside it is opened).
PRUNING = {
    "testPartitionPruningIdentityString": ("date >= '2020-02-03' AND level = 'DEBUG'",
                                           "date >= '2020-02-03' AND level = 'DEBUG'"),
    "testPartitionPruningBucketingInteger": (
        "id in (3,7)", "lance.system.lance_bucket(3, id) IN (lance.system.lance_bucket(3, 3), lance.system.lance_bucket(3, 7))"),
    "testPartitionPruningTruncatedString": ("message like 'info event%'", "substring(message, 1, 5) = 'info '"),
    "testPartitionPruningTruncatedStringComparingValueShorterThanPartitionValue": (
        "message like 'inf%'", "substring(message, 1, 5) LIKE 'inf%'"),
    "testPartitionPruningHourlyPartition": ("timestamp >= '2020-02-03T01:00:00'",
                                            "date_trunc('HOUR', timestamp) >= TIMESTAMP'2020-02-03 01:00:00'"),
}

PRUNING_CASE = case("TestPartitionPruning." + "+".join(PRUNING), (
    "CREATE TABLE {t} (id INT, date STRING, level STRING, message STRING, timestamp TIMESTAMP) "
    "PARTITIONED BY (date, level, bucket(3, id), truncate(5, message), hours(timestamp))",
    "INSERT INTO {t} VALUES " + ", ".join(f"({i}, '{d}', '{level}', '{m}', TIMESTAMP'{ts}')"
                                          for i, (d, level, m, ts) in enumerate(LOGS))),
    tuple(f"SELECT id, date, level, message, timestamp FROM {{t}} WHERE {f} ORDER BY id" for f, _ in PRUNING.values()))


# ---- the tests ----

def assert_cases(spark, ns: str, cases: list[Case]) -> None:
    """Each case in a namespace of its own; every mismatch reported at once."""
    failures = []
    for i, c in enumerate(cases):
        spark.sql(f"CREATE NAMESPACE lance.{ns}_{i}")
        failures.append(mismatch(spark, c, f"{ns}_{i}"))
    failures = [f for f in failures if f]
    assert not failures, "\n\n".join(failures)


GROUPS = {"select": SELECT, "writes": WRITES, "ctas": CTAS, "alter": ALTER, "timestamps": TIMESTAMPS}


@pytest.mark.parametrize("group", GROUPS)
def test_same_as_iceberg(spark, ns, group):
    assert_cases(spark, ns, GROUPS[group])


def test_partition_pruning(spark, ns):
    """TestPartitionPruning: the same rows as Iceberg, and the scan reads only partition tables whose
    partition values meet the filter's partCondition: at least one, and fewer than all."""
    assert_cases(spark, ns, [PRUNING_CASE])
    t = f"lance.{ns}_0.t"
    for name, (condition, partitions) in PRUNING.items():
        scanned, total = tables_scanned(spark, f"SELECT * FROM {t} WHERE {condition}")
        meeting = spark.sql(f"SELECT count(DISTINCT _partition_table) FROM {t} WHERE {partitions}").first()[0]
        assert 1 <= scanned <= meeting < total, (name, scanned, meeting, total)
