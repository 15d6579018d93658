"""Column names that need quoting in SQL text (punctuation, spaces, non-ASCII, upper case) work as
partition columns and as plain columns: CREATE, INSERT, pruned filters, reads and DELETE."""

import re

import pytest

from conftest import tables_scanned

NAMES = ["c-1", "my c", "Ünï", "CamelCase"]


@pytest.mark.parametrize("name", NAMES)
def test_partition_column_needing_quotes(spark, ns, name):
    q = f"`{name}`"
    table = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {table} (id INT, {q} STRING, `v v` INT) PARTITIONED BY ({q})")
    spark.sql(f"INSERT INTO {table} VALUES (1, 'a', 10), (2, 'b', 20), (3, 'a', 30)")
    assert sorted(tuple(r) for r in spark.table(table).collect()) == [(1, "a", 10), (2, "b", 20), (3, "a", 30)]
    query = f"SELECT id FROM {table} WHERE {q} = 'a'"
    assert sorted(r.id for r in spark.sql(query).collect()) == [1, 3]
    assert tables_scanned(spark, query) == (1, 2)
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {table} WHERE `v v` > 15").collect()) == [2, 3]
    spark.sql(f"INSERT OVERWRITE {table} PARTITION ({q} = 'b') SELECT 4, 40")
    spark.sql(f"DELETE FROM {table} WHERE `v v` = 30")
    spark.sql(f"DELETE FROM {table} WHERE {q} = 'zzz'")
    assert sorted(tuple(r) for r in spark.table(table).collect()) == [(1, "a", 10), (4, "b", 40)]


def test_case_insensitive_reference_to_an_upper_case_partition_column(spark, ns):
    table = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {table} (id INT, Region STRING) PARTITIONED BY (Region)")
    spark.sql(f"INSERT INTO {table} VALUES (1, 'eu'), (2, 'us')")
    query = f"SELECT id FROM {table} WHERE region = 'us'"
    assert [r.id for r in spark.sql(query).collect()] == [2]
    assert tables_scanned(spark, query) == (1, 2)
    spark.sql(f"DELETE FROM {table} WHERE REGION = 'eu'")
    assert [r.id for r in spark.table(table).collect()] == [2]


@pytest.mark.parametrize("name", ["a.b", "x\U0001F600"])
def test_column_names_partition_tables_cannot_hold_are_refused(spark, root, ns, name):
    """Lance refuses '.' in a top-level name, and lance-core cannot scan a column named with a
    character outside the BMP: CREATE, ADD COLUMN and RENAME refuse them, changing nothing."""
    t = f"lance.{ns}.t"
    with pytest.raises(Exception, match=rf"column name '{re.escape(name)}' is not supported"):
        spark.sql(f"CREATE TABLE {t} (id BIGINT, `{name}` INT) PARTITIONED BY (id)")
    assert not (root / ns / "t").exists()
    spark.sql(f"CREATE TABLE {t} (id BIGINT, v INT) PARTITIONED BY (id)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 10)")
    for change in (f"ADD COLUMN `{name}` INT", f"RENAME COLUMN v TO `{name}`"):
        with pytest.raises(Exception, match=rf"column name '{re.escape(name)}' is not supported"):
            spark.sql(f"ALTER TABLE {t} {change}")
    assert spark.table(t).columns == ["id", "v"]
    assert [tuple(r) for r in spark.table(t).collect()] == [(1, 10)]
