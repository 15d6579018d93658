"""COMMENT, TBLPROPERTIES and LOCATION of tables, and what CREATE NAMESPACE can keep: what is
kept is stored in the __manifest table metadata and shown by DESCRIBE and SHOW TBLPROPERTIES;
what cannot be honoured is refused with the reason, never dropped silently."""

import lance
import pytest

import lancepart


def manifest_metadata(root, ns, name="t"):
    return lance.dataset(str(root / ns / name / "__manifest")).metadata


def tblproperties(spark, t):
    return {r.key: r.value for r in spark.sql(f"SHOW TBLPROPERTIES {t}").collect()}


def described(spark, t):
    return {r[0]: r[1] for r in spark.sql(f"DESCRIBE TABLE EXTENDED {t}").collect()}


def test_comment_and_properties_at_create_are_kept(spark, root, ns):
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, c STRING) PARTITIONED BY (c) COMMENT 'daily events' "
              "TBLPROPERTIES ('team' = 'data', 'retention.days' = '30')")
    assert described(spark, t)["Comment"] == "daily events"
    props = tblproperties(spark, t)
    assert props["team"] == "data" and props["retention.days"] == "30"
    stored = manifest_metadata(root, ns)
    assert stored["property.comment"] == "daily events" and stored["property.team"] == "data"
    # a new session's catalog reads them back from __manifest
    lancepart.crosscheck(spark, t)


def test_alter_table_set_unset_and_comment_on(spark, root, ns):
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, c STRING) PARTITIONED BY (c)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a')")
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('team' = 'data', 'tier' = 'gold')")
    spark.sql(f"COMMENT ON TABLE {t} IS 'events'")
    assert tblproperties(spark, t)["team"] == "data"
    assert described(spark, t)["Comment"] == "events"
    spark.sql(f"ALTER TABLE {t} UNSET TBLPROPERTIES ('team')")
    props = tblproperties(spark, t)
    assert "team" not in props and props["tier"] == "gold"
    assert "property.team" not in manifest_metadata(root, ns)
    # properties are no schema change: the table reads and takes writes as before
    spark.sql(f"INSERT INTO {t} VALUES (2, 'b')")
    assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {t}").collect()) == [(1, "a"), (2, "b")]


@pytest.mark.parametrize("key", ["schema", "partition_spec_v1", "partition_spec_v7"])
def test_reserved_properties_are_refused(spark, root, ns, key):
    t = f"lance.{ns}.t"
    with pytest.raises(Exception, match=rf"property '{key}' cannot be set: it is reserved"):
        spark.sql(f"CREATE TABLE {t} (id BIGINT) PARTITIONED BY (id) TBLPROPERTIES ('{key}' = 'x')")
    assert not (root / ns / "t").exists()
    spark.sql(f"CREATE TABLE {t} (id BIGINT) PARTITIONED BY (id)")
    before = manifest_metadata(root, ns)
    with pytest.raises(Exception, match=rf"property '{key}' cannot be set: it is reserved"):
        spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('{key}' = 'x')")
    with pytest.raises(Exception, match=rf"property '{key}' cannot be set: it is reserved"):
        spark.sql(f"ALTER TABLE {t} UNSET TBLPROPERTIES ('{key}')")
    assert manifest_metadata(root, ns) == before


def test_transaction_mode_cannot_be_unset(spark, ns):
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT) PARTITIONED BY (id) TBLPROPERTIES ('transaction.mode' = 'strong')")
    with pytest.raises(Exception, match="transaction.mode cannot be unset"):
        spark.sql(f"ALTER TABLE {t} UNSET TBLPROPERTIES ('transaction.mode')")
    assert tblproperties(spark, t)["transaction.mode"] == "strong"


def test_location_other_than_the_tables_own_is_refused(spark, root, ns, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    with pytest.raises(Exception, match=r"LOCATION .* is not supported: tables of this catalog live at <root>/<namespace>/<table>"):
        spark.sql(f"CREATE TABLE lance.{ns}.t (id BIGINT) PARTITIONED BY (id) LOCATION '{elsewhere}'")
    assert not (root / ns / "t").exists() and not elsewhere.exists()
    own = root / ns / "t"
    spark.sql(f"CREATE TABLE lance.{ns}.t (id BIGINT) PARTITIONED BY (id) LOCATION '{own}'")
    assert described(spark, f"lance.{ns}.t")["Location"] == str(own)
    with pytest.raises(Exception, match="is not supported: tables of this catalog live at"):
        spark.sql(f"ALTER TABLE lance.{ns}.t SET LOCATION '{elsewhere}'")


@pytest.mark.parametrize("statement,message", [
    ("CREATE TABLE {t} (id BIGINT) USING delta PARTITIONED BY (id)",
     r"table {t}: USING delta is not supported: tables of this catalog are Lance partitioned namespaces"),
    ("CREATE TABLE {t} USING orc PARTITIONED BY (id) AS SELECT 1L AS id",
     r"table {t}: USING orc is not supported"),
    ("CREATE EXTERNAL TABLE {t} (id BIGINT) PARTITIONED BY (id) LOCATION '{location}'",
     r"table {t}: CREATE EXTERNAL TABLE is not supported: every table of this catalog is managed \(DROP TABLE deletes its data\)"),
])
def test_other_formats_and_external_tables_are_refused(spark, root, ns, statement, message):
    """USING another format and EXTERNAL were ignored: the table was a managed Lance table that
    DROP TABLE deletes."""
    t = f"lance.{ns}.t"
    with pytest.raises(Exception, match=message.format(t=t)):
        spark.sql(statement.format(t=t, location=root / ns / "t"))
    assert not (root / ns / "t").exists()


def test_using_lance_and_the_default_source_are_accepted(spark, ns):
    """Spark names the session's default source (parquet) when a statement names none."""
    spark.sql(f"CREATE TABLE lance.{ns}.a (id BIGINT) USING lance PARTITIONED BY (id)")
    spark.range(3).write.partitionBy("id").saveAsTable(f"lance.{ns}.b")
    spark.range(3).write.format(spark.conf.get("spark.sql.sources.default")).partitionBy("id").saveAsTable(f"lance.{ns}.c")
    assert [spark.table(f"lance.{ns}.{t}").count() for t in "abc"] == [0, 3, 3]


def test_create_namespace_under_an_unusable_root_fails(spark, tmp_path):
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("x")
    lancepart.register_catalog(spark, "filecat", str(not_a_directory))
    with pytest.raises(Exception, match=rf"could not create directory {not_a_directory}/n"):
        spark.sql("CREATE NAMESPACE filecat.n")
    assert not_a_directory.read_text() == "x"


def test_namespace_comment_and_properties_are_refused(spark, root):
    with pytest.raises(Exception, match="comment cannot be kept: namespaces of catalog lance are plain directories"):
        spark.sql("CREATE NAMESPACE lance.commented COMMENT 'c'")
    with pytest.raises(Exception, match="a cannot be kept"):
        spark.sql("CREATE NAMESPACE lance.propertied WITH DBPROPERTIES ('a' = 'b')")
    with pytest.raises(Exception, match="LOCATION .* is not supported"):
        spark.sql(f"CREATE NAMESPACE lance.located LOCATION '{root}/elsewhere'")
    assert not any((root / n).exists() for n in ["commented", "propertied", "located"])


def column_comments(spark, t):
    return {f.name: f.metadata.get("comment") for f in spark.table(t).schema.fields}


def test_column_comments_are_kept(spark, root, ns):
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT COMMENT 'the id', c STRING, st STRUCT<a: INT>) PARTITIONED BY (c)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', named_struct('a', 5))")
    assert column_comments(spark, t) == {"id": "the id", "c": None, "st": None}
    spark.sql(f"ALTER TABLE {t} ADD COLUMN v DOUBLE COMMENT 'a value'")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN c COMMENT 'country'")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN id COMMENT ''")
    assert column_comments(spark, t) == {"id": None, "c": "country", "st": None, "v": "a value"}
    assert 'COMMENT \'country\'' in spark.sql(f"SHOW CREATE TABLE {t}").collect()[0][0]
    # comments are schema metadata only: rows and writes are unaffected
    spark.sql(f"INSERT INTO {t} VALUES (2, 'b', NULL, 0.5)")
    assert sorted(tuple(r) for r in spark.table(t).select("id", "c", "v").collect()) == [(1, "a", None), (2, "b", 0.5)]
    lancepart.crosscheck(spark, t)


def test_comments_inside_a_column_are_refused(spark, root, ns):
    t = f"lance.{ns}.t"
    with pytest.raises(Exception, match=r"field 'st.a' has a COMMENT, which lancepart does not keep"):
        spark.sql(f"CREATE TABLE {t} (id BIGINT, st STRUCT<a: INT COMMENT 'x'>) PARTITIONED BY (id)")
    assert not (root / ns / "t").exists()
    spark.sql(f"CREATE TABLE {t} (id BIGINT) PARTITIONED BY (id)")
    with pytest.raises(Exception, match=r"field 'arr.element.b' has a COMMENT"):
        spark.sql(f"ALTER TABLE {t} ADD COLUMN arr ARRAY<STRUCT<b: INT COMMENT 'y'>>")
    assert spark.table(t).columns == ["id"]
