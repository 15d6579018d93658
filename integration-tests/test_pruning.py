"""Partition pruning through the manifest: tables=k/n in EXPLAIN, and answers equal to pylance's."""

import pytest

import lancepart
from conftest import local_relation, tables_scanned

# (predicate, partitions that can hold matches); the data has every combination of
# d in {2025-12-10, 11, 12, NULL} and c in {US, FR, NULL}: 12 partitions.
CASES = [
    ("d = DATE'2025-12-10'", 3),
    ("d = DATE'2025-12-10' AND c = 'US'", 1),
    ("c <=> NULL", 4),
    ("c <=> 'US'", 4),
    ("d IN (DATE'2025-12-10', DATE'2025-12-12')", 6),
    ("d < DATE'2025-12-11'", 3),
    ("d <= DATE'2025-12-11'", 6),
    ("d > DATE'2025-12-11'", 3),
    ("d >= DATE'2025-12-11'", 6),
    ("d IS NULL", 3),
    ("d IS NOT NULL AND c IS NULL", 3),
    ("c = 'US' OR d = DATE'2025-12-12'", 6),
    ("NOT (c = 'US')", 4),
    ("c LIKE 'U%'", 4),
    ("d = DATE'2025-12-10' AND v > 100", 3),
    ("d = DATE'2025-12-10' OR v > 100", 12),
]
TOTAL = 12


@pytest.fixture(scope="module")
def events(spark):
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lance.prune")
    spark.sql("CREATE TABLE lance.prune.events (id INT, d DATE, c STRING, v DOUBLE) PARTITIONED BY (d, c)")
    spark.sql("""INSERT INTO lance.prune.events
        SELECT id, CASE WHEN id % 10 = 9 THEN NULL ELSE date_add(DATE'2025-12-10', CAST(id % 3 AS INT)) END,
               CASE CAST(id / 3 AS INT) % 3 WHEN 0 THEN 'US' WHEN 1 THEN 'FR' ELSE NULL END, id * 1.5
        FROM range(300) AS r(id)""")
    return "lance.prune.events"


def test_fixture_has_the_expected_partitions(spark, events):
    assert tables_scanned(spark, f"SELECT * FROM {events}") == (TOTAL, TOTAL)


@pytest.fixture(scope="module")
def copy(spark, events):
    """The same rows as a local relation: Spark answers over it without any pruning."""
    local_relation(spark, spark.table(events).collect(), spark.table(events).schema) \
        .createOrReplaceTempView("prune_events_copy")
    return "prune_events_copy"


@pytest.mark.parametrize("predicate,expected", CASES)
def test_pruned_scan_reads_fewer_tables_and_answers_right(spark, events, copy, predicate, expected):
    query = f"SELECT * FROM {events} WHERE {predicate}"
    k, n = tables_scanned(spark, query)
    assert n == TOTAL
    assert k == expected, (predicate, k)
    assert sorted(spark.sql(query).collect()) == sorted(spark.sql(f"SELECT * FROM {copy} WHERE {predicate}").collect())


@pytest.mark.parametrize("where", ["c = 'US'", "d = DATE '2025-12-11' AND c = 'FR'", "c IS NULL", "d IS NULL"])
def test_crosscheck_with_filters(spark, events, where):
    assert lancepart.crosscheck(spark, events, where=where)["rows"] > 0


def test_crosscheck_where_selects_both_zeros_as_documented(spark, ns):
    """docs/python.md: `v = 0.0` differs between Lance SQL and Spark SQL on -0.0; the range it
    recommends selects both zeros on both sides."""
    t = f"lance.{ns}.zeros"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING, v DOUBLE) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', CAST('-0.0' AS DOUBLE)), (2, 'a', 0.0D), (3, 'b', 1.0D)")
    assert lancepart.crosscheck(spark, t, where="v BETWEEN -0.0 AND 0.0")["rows"] == 2


def test_point_query_on_a_partition_source_and_a_data_column(spark, events):
    query = f"SELECT * FROM {events} WHERE d = DATE'2025-12-10' AND c = 'US' AND v > 100"
    assert tables_scanned(spark, query)[0] == 1
    expected = [i for i in range(300) if i % 3 == 0 and i % 10 != 9 and (i // 3) % 3 == 0 and i * 1.5 > 100]
    assert sorted(r.id for r in spark.sql(query).collect()) == expected
