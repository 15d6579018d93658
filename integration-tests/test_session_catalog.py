"""Spark's session catalog set to lancepart's (PartitionedSessionCatalog): lance tables beside
Spark's own Parquet tables in one catalog, made by USING, read, written, joined in one statement,
listed and dropped; a name one catalog has is refused to the other. One session for the module, a
new session of the run's SparkContext whose spark_catalog is lancepart's over a root of its own;
each test's Spark database has a LOCATION of its own, where its Parquet tables go."""

from __future__ import annotations

import itertools

import pytest
from pyspark.errors import AnalysisException

import lancepart
from conftest import iceberg_conf
from differential import Case, differences, run_step

_counter = itertools.count()


@pytest.fixture(scope="module")
def session(spark, tmp_path_factory):
    """(session, lance root, Spark warehouse)."""
    root = tmp_path_factory.mktemp("session-root")
    warehouse = tmp_path_factory.mktemp("session-warehouse")
    fresh = spark.newSession()
    lancepart.register_catalog(fresh, "spark_catalog", str(root))
    # CREATE TABLE without USING makes a table of spark.sql.sources.default, as Spark 4 does by
    # default (Spark 3.5 makes a Hive table, which this session cannot)
    fresh.conf.set("spark.sql.legacy.createHiveTableByDefault", "false")
    # DataFrame writers find the session catalog through the JVM's active session (SQLConf.get),
    # which a new session becomes only when made so, as createDataFrame does
    spark._jvm.SparkSession.setActiveSession(fresh._jsparkSession)
    yield fresh, root, warehouse
    spark._jvm.SparkSession.setActiveSession(spark._jsparkSession)


@pytest.fixture
def db(session):
    """A new Spark database whose tables of Spark's formats live in <warehouse>/<db>."""
    spark, _, warehouse = session
    name = f"sc{next(_counter)}"
    spark.sql(f"CREATE DATABASE {name} LOCATION '{warehouse / name}'")
    yield name
    drop_tables(spark, name)
    spark.sql(f"DROP DATABASE {name} CASCADE")


def drop_tables(spark, db):
    """Drops the tables of `db`, which DROP DATABASE refuses while it holds lance tables."""
    for table in spark.catalog.listTables(db):
        if table.tableType != "VIEW":
            spark.sql(f"DROP TABLE {db}.{table.name}")


def rows(spark, query):
    return sorted(tuple(r) for r in spark.sql(query).collect())


def tables(spark, db):
    return sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN {db}").collect())


def parquet_files(directory):
    return sorted(p.name for p in directory.glob("*.parquet"))


def create_events_and_users(spark, db):
    spark.sql(f"CREATE TABLE {db}.events (id BIGINT, country STRING, amount DOUBLE) USING lance PARTITIONED BY (country)")
    spark.sql(f"CREATE TABLE {db}.users (id BIGINT, name STRING) USING parquet")
    spark.sql(f"INSERT INTO {db}.events VALUES (1, 'US', 10.0), (2, 'FR', 20.0), (3, 'US', 30.0)")
    spark.sql(f"INSERT INTO {db}.users VALUES (1, 'ann'), (2, 'bob'), (4, 'dan')")


def test_tables_go_to_the_catalog_of_their_provider_and_join(session, db):
    spark, root, warehouse = session
    create_events_and_users(spark, db)
    spark.sql(f"CREATE TABLE {db}.notes (id BIGINT, note STRING)")  # Spark's default provider
    spark.sql(f"INSERT INTO {db}.notes VALUES (3, 'late')")
    assert rows(spark, f"SELECT * FROM {db}.events") == [(1, "US", 10.0), (2, "FR", 20.0), (3, "US", 30.0)]
    assert rows(spark, f"SELECT * FROM {db}.users") == [(1, "ann"), (2, "bob"), (4, "dan")]
    joined = f"""SELECT e.id, e.country, u.name, n.note FROM {db}.events e JOIN {db}.users u ON e.id = u.id
                 LEFT JOIN {db}.notes n ON e.id = n.id"""
    assert rows(spark, joined) == [(1, "US", "ann", None), (2, "FR", "bob", None)]
    assert rows(spark, f"SELECT e.id, n.note FROM {db}.events e JOIN {db}.notes n USING (id)") == [(3, "late")]
    spark.sql(f"CREATE VIEW {db}.joined AS {joined}")
    assert rows(spark, f"SELECT * FROM {db}.joined") == [(1, "US", "ann", None), (2, "FR", "bob", None)]
    # the lance table is a partitioned namespace under the root, Spark's tables are in the warehouse
    assert (root / db / "events" / "__manifest").is_dir()
    assert len([p for p in (root / db / "events").iterdir() if p.name != "__manifest"]) == 2  # US, FR
    assert parquet_files(warehouse / db / "users") and parquet_files(warehouse / db / "notes")
    assert sorted(p.name for p in (root / db).iterdir()) == ["events"]
    assert sorted(p.name for p in (warehouse / db).iterdir()) == ["notes", "users"]
    assert tables(spark, db) == ["events", "joined", "notes", "users"]
    assert sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN {db} LIKE 'e*|u*'").collect()) == ["events", "users"]
    assert sorted(t.name for t in spark.catalog.listTables(db)) == ["events", "joined", "notes", "users"]
    providers = {t: dict((r.col_name, r.data_type) for r in spark.sql(f"DESCRIBE TABLE EXTENDED {db}.{t}").collect())
                 ["Provider"] for t in ("events", "users")}
    assert providers == {"events": "lance", "users": "parquet"}
    # SHOW CREATE TABLE names the provider, so its statement makes a lance table again
    assert "USING lance" in spark.sql(f"SHOW CREATE TABLE {db}.events").first()[0]


def test_row_level_commands_on_the_lance_table_read_a_parquet_table(session, db):
    spark, _, _ = session
    create_events_and_users(spark, db)
    spark.sql(f"UPDATE {db}.events SET amount = amount * 2 WHERE id IN (SELECT id FROM {db}.users WHERE name = 'ann')")
    spark.sql(f"DELETE FROM {db}.events WHERE id = 3")
    spark.sql(f"""MERGE INTO {db}.events t USING {db}.users s ON t.id = s.id
                  WHEN MATCHED AND s.name = 'bob' THEN UPDATE SET country = 'DE'
                  WHEN NOT MATCHED THEN INSERT (id, country, amount) VALUES (s.id, 'NEW', 0.0)""")
    assert rows(spark, f"SELECT * FROM {db}.events") == [(1, "US", 20.0), (2, "DE", 20.0), (4, "NEW", 0.0)]
    spark.sql(f"INSERT OVERWRITE {db}.events SELECT id, 'US', 1.0 FROM {db}.users WHERE id = 4")
    assert rows(spark, f"SELECT * FROM {db}.events") == [(4, "US", 1.0)]
    assert rows(spark, f"SELECT * FROM {db}.users") == [(1, "ann"), (2, "bob"), (4, "dan")]


def test_ctas_replace_and_dataframe_writers_make_lance_tables(session, db):
    spark, root, warehouse = session
    create_events_and_users(spark, db)
    spark.sql(f"CREATE TABLE {db}.named USING lance PARTITIONED BY (country) AS "
              f"SELECT e.id, e.country, u.name FROM {db}.events e JOIN {db}.users u USING (id)")
    assert rows(spark, f"SELECT * FROM {db}.named") == [(1, "US", "ann"), (2, "FR", "bob")]
    spark.sql(f"CREATE OR REPLACE TABLE {db}.named USING lance PARTITIONED BY (country) AS "
              f"SELECT id, 'XX' AS country, name FROM {db}.users")
    assert rows(spark, f"SELECT * FROM {db}.named") == [(1, "XX", "ann"), (2, "XX", "bob"), (4, "XX", "dan")]
    users = spark.table(f"{db}.users")
    users.writeTo(f"{db}.written").using("lance").partitionedBy("name").create()
    users.where("id = 4").write.format("lance").mode("append").saveAsTable(f"{db}.written")
    users.write.saveAsTable(f"{db}.copied")  # Spark's default provider
    assert rows(spark, f"SELECT * FROM {db}.written") == [(1, "ann"), (2, "bob"), (4, "dan"), (4, "dan")]
    assert (root / db / "named" / "__manifest").is_dir() and (root / db / "written" / "__manifest").is_dir()
    assert parquet_files(warehouse / db / "copied") and not (root / db / "copied").exists()


def test_a_name_belongs_to_one_catalog(session, db):
    spark, root, warehouse = session
    create_events_and_users(spark, db)
    for statement in [f"CREATE TABLE {db}.users (id BIGINT) USING lance",
                      f"CREATE TABLE {db}.users USING lance AS SELECT 1L AS id",
                      f"CREATE TABLE {db}.events (id BIGINT) USING parquet",
                      f"CREATE TABLE IF NOT EXISTS {db}.events (id BIGINT) USING parquet",
                      f"CREATE TABLE {db}.events USING parquet AS SELECT 1L AS id",
                      f"CREATE TABLE {db}.events LIKE {db}.users",
                      f"CREATE VIEW {db}.events AS SELECT 1 AS id",
                      f"CREATE OR REPLACE VIEW {db}.events AS SELECT 1 AS id",
                      f"ALTER TABLE {db}.users RENAME TO {db}.events"]:
        with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_ALREADY_EXISTS"):
            spark.sql(statement)
    for statement in [f"REPLACE TABLE {db}.users (id BIGINT) USING lance",
                      f"CREATE OR REPLACE TABLE {db}.users USING lance AS SELECT 1L AS id"]:
        with pytest.raises(Exception, match=rf"table spark_catalog.{db}.users is a table of Spark's own catalog; "
                                            "REPLACE ... USING lance cannot make it a lance table: DROP it first"):
            spark.sql(statement)
    # nothing was made or changed
    assert rows(spark, f"SELECT * FROM {db}.users") == [(1, "ann"), (2, "bob"), (4, "dan")]
    assert rows(spark, f"SELECT * FROM {db}.events") == [(1, "US", 10.0), (2, "FR", 20.0), (3, "US", 30.0)]
    assert sorted(p.name for p in (root / db).iterdir()) == ["events"]
    assert sorted(p.name for p in (warehouse / db).iterdir()) == ["users"]
    assert tables(spark, db) == ["events", "users"]


def test_bad_input_fails_naming_the_problem(session, db):
    spark, root, _ = session
    with pytest.raises(AnalysisException, match="SCHEMA_NOT_FOUND"):
        spark.sql("CREATE TABLE no_such_db.t (id INT) USING lance")
    assert not (root / "no_such_db").exists()
    with pytest.raises(AnalysisException, match="REQUIRES_SINGLE_PART_NAMESPACE"):
        spark.sql(f"CREATE TABLE {db}.inner.t (id INT) USING lance")
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.sql(f"SELECT * FROM {db}.nowhere")
    with pytest.raises(AnalysisException, match="does not support column default value"):
        spark.sql(f"CREATE TABLE {db}.d (id INT DEFAULT 1) USING lance")
    spark.sql(f"CREATE TABLE {db}.t (id INT) USING lance")
    with pytest.raises(Exception, match=rf"RENAME TABLE is not supported for spark_catalog.{db}.t"):
        spark.sql(f"ALTER TABLE {db}.t RENAME TO {db}.u")
    with pytest.raises(Exception, match="format lance \\(lancepart\\): tables are read and written by name"):
        spark.read.format("lance").load(str(root / db / "t.lance")).collect()
    assert sorted(p.name for p in (root / db).iterdir()) == ["t.lance"]


def test_drop_table_removes_only_that_tables_files(session, db):
    spark, root, warehouse = session
    create_events_and_users(spark, db)
    spark.sql(f"DROP TABLE {db}.events")
    assert not (root / db / "events").exists() and parquet_files(warehouse / db / "users")
    assert tables(spark, db) == ["users"]
    spark.sql(f"CREATE TABLE {db}.events (id BIGINT) USING lance")
    spark.sql(f"DROP TABLE {db}.users")
    assert not (warehouse / db / "users").exists() and (root / db / "events.lance").is_dir()
    assert tables(spark, db) == ["events"]


def test_drop_database_refuses_a_database_holding_lance_tables(session):
    # Spark's DROP DATABASE knows only Spark's tables: it would delete the database's directory and
    # leave the lance tables under the root without a database
    spark, root, warehouse = session
    spark.sql(f"CREATE DATABASE kept LOCATION '{warehouse / 'kept'}'")
    try:
        create_events_and_users(spark, "kept")
        spark.sql("CREATE TABLE kept.plain (id BIGINT) USING lance")
        spark.sql("DROP TABLE kept.users")
        for statement in ["DROP DATABASE kept", "DROP DATABASE KEPT CASCADE", "DROP DATABASE IF EXISTS kept CASCADE"]:
            with pytest.raises(Exception, match=r"database (kept|KEPT) holds lance tables kept.events, kept.plain: DROP "
                                                r"DATABASE would leave them under the root without a database; "
                                                r"DROP TABLE each of them first"):
                spark.sql(statement)
        assert (warehouse / "kept").is_dir()
        assert rows(spark, "SELECT id FROM kept.events") == [(1,), (2,), (3,)]
        spark.sql("DROP TABLE kept.events")
        spark.sql("DROP TABLE kept.plain")
        spark.sql("DROP DATABASE kept")
        assert not (warehouse / "kept").exists()
        assert sorted(p.name for p in (root / "kept").iterdir()) == []
    finally:
        if spark.catalog.databaseExists("kept"):
            drop_tables(spark, "kept")
            spark.sql("DROP DATABASE kept CASCADE")


def test_names_are_case_insensitive_as_in_sparks_catalog(session, db):
    spark, root, warehouse = session
    spark.sql(f"CREATE TABLE {db.upper()}.Events (id BIGINT, Country STRING) USING lance PARTITIONED BY (Country)")
    assert sorted(p.name for p in (root / db).iterdir()) == ["events"]
    spark.sql(f"INSERT INTO {db}.EVENTS VALUES (1, 'US')")
    spark.table(f"{db}.eVents").writeTo(f"{db.upper()}.Events").append()
    assert rows(spark, f"SELECT * FROM {db}.events") == [(1, "US"), (1, "US")]
    for statement in [f"CREATE TABLE {db}.EVENTS (id BIGINT) USING parquet",
                      f"CREATE TABLE {db}.events (id BIGINT) USING lance",
                      f"CREATE VIEW {db}.EVENTS AS SELECT 1 AS id"]:
        with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_ALREADY_EXISTS"):
            spark.sql(statement)
    assert not (warehouse / db / "events").exists()
    assert tables(spark, db) == ["events"]
    spark.sql(f"DROP TABLE {db}.Events")
    assert not (root / db / "events").exists()
    assert tables(spark, db) == []


def test_using_the_format_class_makes_a_lance_table(session, db):
    spark, root, warehouse = session
    spark.sql(f"CREATE TABLE {db}.t (id BIGINT, p STRING) USING lance.DefaultSource PARTITIONED BY (p)")
    spark.sql(f"CREATE TABLE {db}.c USING lance.DefaultSource AS SELECT 2L AS id")
    spark.sql(f"INSERT INTO {db}.t VALUES (1, 'a')")
    assert rows(spark, f"SELECT * FROM {db}.t") == [(1, "a")]
    assert rows(spark, f"SELECT * FROM {db}.c") == [(2,)]
    assert (root / db / "t" / "__manifest").is_dir() and (root / db / "c.lance").is_dir()
    assert not (warehouse / db).exists() or sorted((warehouse / db).iterdir()) == []
    assert "USING lance" in spark.sql(f"SHOW CREATE TABLE {db}.t").first()[0]


def test_listing_takes_the_catalog_of_the_session_it_runs_in(session, db, tmp_path):
    spark, _, _ = session
    spark.sql(f"CREATE TABLE {db}.mine (id BIGINT) USING lance")
    other = spark.newSession()  # Spark's databases are shared, its spark_catalog is over a root of its own
    lancepart.register_catalog(other, "spark_catalog", str(tmp_path / "other-root"))
    other.sql(f"CREATE TABLE {db}.theirs (id BIGINT) USING lance")
    try:
        assert sorted(t.name for t in other.catalog.listTables(db)) == ["theirs"]
        assert tables(other, db) == ["theirs"]
        assert sorted(t.name for t in spark.catalog.listTables(db)) == ["mine"]
    finally:
        other.sql(f"DROP TABLE {db}.theirs")


def test_the_default_database_is_the_roots_directory_default(session):
    spark, root, _ = session
    spark.sql("CREATE TABLE session_catalog_t (id INT, p STRING) USING lance PARTITIONED BY (p)")
    try:
        spark.sql("INSERT INTO session_catalog_t VALUES (1, 'a')")
        assert (root / "default" / "session_catalog_t" / "__manifest").is_dir()
        assert "session_catalog_t" in tables(spark, "default")
        assert rows(spark, "SELECT * FROM default.session_catalog_t") == [(1, "a")]
    finally:
        spark.sql("DROP TABLE session_catalog_t")
    assert not (root / "default" / "session_catalog_t").exists()


def test_a_lancepart_catalog_over_the_same_root_has_the_same_tables(session, db):
    # procedures, Admin and crosscheck name tables of a lancepart catalog: one over the same root
    spark, root, _ = session
    lancepart.register_catalog(spark, "same_root", str(root))
    create_events_and_users(spark, db)
    spark.sql(f"INSERT INTO {db}.events VALUES (5, 'US', 50.0)")
    before = rows(spark, f"SELECT * FROM {db}.events")
    assert rows(spark, f"SELECT * FROM same_root.{db}.events") == before
    result = spark.sql(f"CALL same_root.system.rewrite_data_files(table => '{db}.events')").first()
    assert result.rewritten_partition_tables_count == 1  # US had two fragments
    assert rows(spark, f"SELECT * FROM {db}.events") == before
    lancepart.crosscheck(spark, f"same_root.{db}.events")
    # the session catalog itself is not one: the error says which to use
    with pytest.raises(lancepart.LancepartError, match="register a lancepart catalog over the same root"):
        lancepart.Admin(spark, "spark_catalog").describe(f"{db}.events")
    # tags too (the parser had called the session catalog no lancepart catalog); both read them
    spark.sql(f"CREATE TABLE {db}.plain USING lance AS SELECT 1L AS id")
    with pytest.raises(Exception, match=r"ALTER TABLE ... CREATE TAG runs in a lancepart catalog .* over the session "
                                        r"catalog's root, not in the session catalog"):
        spark.sql(f"ALTER TABLE {db}.plain CREATE TAG release")
    spark.sql(f"ALTER TABLE same_root.{db}.plain CREATE TAG release")
    spark.sql(f"INSERT INTO {db}.plain VALUES (2)")
    assert rows(spark, f"SELECT * FROM {db}.plain VERSION AS OF 'release'") == [(1,)]


# The same statements on Iceberg's SparkSessionCatalog (a Hadoop catalog over a directory) give the
# same rows. Where they differ on purpose: Iceberg's SHOW TABLES lists only Spark's tables, its CREATE
# of a format table needs no Spark database, and Spark's CREATE of a name an Iceberg table has makes a
# table that the Iceberg table hides; lancepart lists both kinds and refuses the other two.
SCRIPT = (
    ("CREATE TABLE {db}.f (id BIGINT, country STRING, amount DOUBLE) USING {fmt} PARTITIONED BY (country)", False),
    ("CREATE TABLE {db}.p (id BIGINT, name STRING) USING parquet", False),
    ("INSERT INTO {db}.f VALUES (1, 'US', 10.0), (2, 'FR', 20.0), (3, 'US', 30.0)", False),
    ("INSERT INTO {db}.p VALUES (1, 'ann'), (2, 'bob'), (4, 'dan')", False),
    ("SELECT f.id, f.country, p.name FROM {db}.f f JOIN {db}.p p ON f.id = p.id", True),
    ("SELECT f.country, count(p.id) FROM {db}.f f LEFT JOIN {db}.p p USING (id) GROUP BY f.country", True),
    ("UPDATE {db}.f SET amount = amount * 2 WHERE country = 'US'", False),
    ("""MERGE INTO {db}.f t USING {db}.p s ON t.id = s.id WHEN MATCHED THEN UPDATE SET amount = 0
        WHEN NOT MATCHED THEN INSERT (id, country, amount) VALUES (s.id, 'NEW', -1.0)""", False),
    ("DELETE FROM {db}.f WHERE id = 1", False),
    ("SELECT * FROM {db}.f", True),
    ("CREATE TABLE {db}.c USING {fmt} AS SELECT f.id, p.name FROM {db}.f f JOIN {db}.p p USING (id)", False),
    ("SELECT * FROM {db}.c", True),
    ("CREATE TABLE {db}.p (id BIGINT) USING {fmt}", False),
    ("SELECT * FROM {db}.nowhere", True),
    ("DROP TABLE {db}.f", False),
    ("SELECT * FROM {db}.f", True),
    ("SELECT * FROM {db}.p", True),
)


@pytest.mark.skipif(not iceberg_conf(), reason="Iceberg's runtime jar is not fetched (make test fetches it)")
def test_same_rows_as_icebergs_session_catalog(spark, session, db, tmp_path):
    iceberg = spark.newSession()
    iceberg.conf.set("spark.sql.catalog.spark_catalog", "org.apache.iceberg.spark.SparkSessionCatalog")
    iceberg.conf.set("spark.sql.catalog.spark_catalog.type", "hadoop")
    iceberg.conf.set("spark.sql.catalog.spark_catalog.warehouse", str(tmp_path / "iceberg"))
    iceberg_db = f"{db}_iceberg"
    iceberg.sql(f"CREATE DATABASE {iceberg_db} LOCATION '{tmp_path / iceberg_db}'")
    try:
        lance = [run_step(session[0], s.format(db=db, fmt="lance"), {}, q) for s, q in SCRIPT]
        ice = [run_step(iceberg, s.format(db=iceberg_db, fmt="iceberg"), {}, q) for s, q in SCRIPT]
    finally:
        iceberg.sql(f"DROP DATABASE {iceberg_db} CASCADE")
    assert all(o.rows for o, (_, q) in zip(lance, SCRIPT) if q and o.error is None)
    assert differences(Case("session catalog", tuple(s for s, _ in SCRIPT)), lance, ice) == []
