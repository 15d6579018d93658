"""lance_vector_search: its rows and distances equal a numpy brute-force top-k over the partitions
the query selects (all, one, and a partition filter with a filter on another column; from SQL and
from ``lancepart.search``), and bad arguments fail naming the table, column or value."""

import numpy as np
import pytest

import lancepart

DIM = 16
TENANTS = ["acme", "beta", "gamma", "delta"]
ROWS = 3000
TABLE = "lance.vsearch.docs"


@pytest.fixture(scope="module")
def data(spark):
    """The table: `ROWS` random vectors over four tenants, and the same rows in numpy."""
    rng = np.random.default_rng(20)
    vectors = rng.standard_normal((ROWS, DIM)).astype(np.float32)
    tenants = np.array([TENANTS[i % len(TENANTS)] for i in range(ROWS)])
    scores = rng.integers(0, 100, ROWS)
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lance.vsearch")
    spark.sql(f"CREATE TABLE {TABLE} (id BIGINT, tenant STRING, score INT, embedding ARRAY<FLOAT>) "
              f"PARTITIONED BY (tenant) TBLPROPERTIES ('lancepart.fixed-size-list.embedding' = '{DIM}')")
    rows = [(i, str(tenants[i]), int(scores[i]), vectors[i].tolist()) for i in range(ROWS)]
    for half in (rows[: ROWS // 2], rows[ROWS // 2:]):  # two commits: two fragments per partition table
        spark.createDataFrame(half, "id BIGINT, tenant STRING, score INT, embedding ARRAY<FLOAT>") \
            .writeTo(TABLE).append()
    return vectors, tenants, scores, rng.standard_normal(DIM).astype(np.float32)


def brute_force(vectors, query, mask, k, distance):
    """Ids and distances of the k nearest selected rows, as Lance defines the distances."""
    v = vectors.astype(np.float64)
    q = query.astype(np.float64)
    if distance == "l2":
        d = ((v - q) ** 2).sum(axis=1)
    else:
        d = 1 - v @ q / (np.linalg.norm(v, axis=1) * np.linalg.norm(q))
    ids = np.flatnonzero(mask)
    order = ids[np.argsort(d[ids], kind="stable")[:k]]
    return order.tolist(), d[order]


def search_sql(query, k, distance, where=""):
    vector = ", ".join(repr(float(x)) for x in query)
    return (f"SELECT id, tenant, score, _distance FROM lance_vector_search('{TABLE}', 'embedding', "
            f"array({vector}), {k}, '{distance}') {where}")


def check(rows, expected):
    ids, distances = expected
    assert [r.id for r in rows] == ids
    np.testing.assert_allclose([r._distance for r in rows], distances, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("distance", ["l2", "cosine"])
def test_all_partitions(spark, data, distance):
    vectors, tenants, scores, query = data
    rows = spark.sql(search_sql(query, 10, distance)).collect()
    check(rows, brute_force(vectors, query, np.ones(ROWS, bool), 10, distance))


@pytest.mark.parametrize("distance", ["l2", "cosine"])
def test_one_partition(spark, data, distance):
    vectors, tenants, scores, query = data
    sql = search_sql(query, 7, distance, "WHERE tenant = 'acme'")
    check(spark.sql(sql).collect(), brute_force(vectors, query, tenants == "acme", 7, distance))
    plan = spark.sql("EXPLAIN " + sql).collect()[0][0]
    assert "tables=1/4" in plan, plan


@pytest.mark.parametrize("distance", ["l2", "cosine"])
def test_partition_and_row_filter(spark, data, distance):
    vectors, tenants, scores, query = data
    sql = search_sql(query, 12, distance, "WHERE tenant IN ('acme', 'gamma') AND score < 20")
    mask = np.isin(tenants, ["acme", "gamma"]) & (scores < 20)
    check(spark.sql(sql).collect(), brute_force(vectors, query, mask, 12, distance))
    assert "tables=2/4" in spark.sql("EXPLAIN " + sql).collect()[0][0]


def test_dataframe_filter_restricts_search(spark, data):
    vectors, tenants, scores, query = data
    rows = spark.sql(search_sql(query, 5, "l2")).where("tenant = 'beta' AND score >= 50").collect()
    check(rows, brute_force(vectors, query, (tenants == "beta") & (scores >= 50), 5, "l2"))


def test_distance_filter(spark, data):
    """A filter on _distance keeps the nearest rows under the bound: exact, though Lance does not take it."""
    vectors, tenants, scores, query = data
    ids, distances = brute_force(vectors, query, np.ones(ROWS, bool), 10, "l2")
    bound = float(distances[4] + distances[5]) / 2
    rows = spark.sql(search_sql(query, 10, "l2", f"WHERE _distance < {bound}")).collect()
    check(rows, (ids[:5], distances[:5]))


@pytest.mark.parametrize("args,message", [
    ("'embedding', array(1.0), 3", r"column 'embedding' of table .*docs holds vectors of 16 elements; "
                                   r"the query vector has 1"),
    ("'nope', array(1.0), 3", r"table .*docs has no column 'nope'"),
    ("'score', array(1.0), 3", r"column 'score' of table .*docs is not a vector column"),
    ("'embedding', array(1.0), 0", r"k must be positive, got 0"),
    ("'embedding', array(1.0), 3, 'manhattan'", r"distance_type must be one of cosine, dot, l2, got 'manhattan'"),
    ("'embedding', array_repeat(CAST('NaN' AS FLOAT), 16), 3", r"query_vector has an element NaN"),
    ("'embedding', array_repeat(0.0, 16), 3, 'cosine'", r"query_vector is all zeros, which has no cosine distance"),
])
def test_bad_arguments(spark, data, args, message):
    with pytest.raises(Exception, match=r"lance_vector_search: " + message):
        spark.sql(f"SELECT * FROM lance_vector_search('{TABLE}', {args})").collect()


def test_not_a_lancepart_table(spark, data, tmp_path):
    spark.sql(f"CREATE TABLE vsearch_parquet (id INT) USING parquet LOCATION '{tmp_path}/p'")
    try:
        with pytest.raises(Exception, match=r"lance_vector_search: table vsearch_parquet is default.vsearch_parquet "
                                            r"in catalog spark_catalog \(the session's current catalog for a name "
                                            r"without one\), which is not a lancepart catalog: name the table with "
                                            r"its catalog, such as lance.default.vsearch_parquet, or USE a lancepart "
                                            r"catalog first"):
            spark.sql("SELECT * FROM lance_vector_search('vsearch_parquet', 'id', array(1.0), 3)").collect()
        # named with its catalog: no advice about the current catalog
        with pytest.raises(Exception, match=r"lance_vector_search: table spark_catalog.default.vsearch_parquet is "
                                            r"in catalog spark_catalog, which is not a lancepart catalog"):
            spark.sql("SELECT * FROM lance_vector_search('spark_catalog.default.vsearch_parquet', 'id', "
                      "array(1.0), 3)").collect()
    finally:
        spark.sql("DROP TABLE vsearch_parquet")


def test_a_name_without_its_catalog_is_in_the_current_catalog(spark, data):
    query = "SELECT id FROM lance_vector_search('vsearch.docs', 'embedding', array({}), 3)".format(
        ", ".join(["0.5"] * DIM))
    with pytest.raises(Exception, match=r"table vsearch.docs is vsearch.docs in catalog spark_catalog"):
        spark.sql(query).collect()
    spark.sql("USE lance")
    try:
        by_two_parts = [r.id for r in spark.sql(query).collect()]
    finally:
        spark.sql("USE spark_catalog")
    assert by_two_parts == [r.id for r in spark.sql(query.replace("'vsearch.docs'", f"'{TABLE}'")).collect()]
    assert len(by_two_parts) == 3


@pytest.mark.parametrize("distance", ["l2", "cosine"])
def test_python_search_restricts_the_search_with_where(spark, data, distance):
    vectors, tenants, scores, query = data
    found = lancepart.search(spark, TABLE, "embedding", query.tolist(), 9, where="tenant = 'beta' AND score >= 50",
                             distance=distance)
    rows = found.select("id", "tenant", "score", "_distance").collect()
    check(rows, brute_force(vectors, query, (tenants == "beta") & (scores >= 50), 9, distance))
    plan = found._jdf.queryExecution().executedPlan().toString()
    assert "tables=1/4" in plan, plan  # the partition filter pruned the search


@pytest.mark.parametrize("where", ["WHERE cast(score AS STRING) LIKE '1%'", "WHERE score % 2 = 0",
                                   "WHERE _distance > 20"])
def test_a_condition_lance_cannot_apply_first_is_refused(spark, data, where):
    """Regression: Spark applied such a condition to the k rows each partition table found, which
    returned fewer rows than k, and other ones than the k nearest matching rows."""
    vectors, tenants, scores, query = data
    with pytest.raises(Exception, match=r"lance_vector_search over table \S+docs: .* cannot choose the rows each "
                                        r"partition table's search ranks .*prefilter"):
        spark.sql(search_sql(query, 5, "l2", where)).collect()


def test_prefilter_false_filters_the_rows_each_partition_table_found(spark, data):
    vectors, tenants, scores, query = data
    rows = spark.sql(search_sql(query, 10, "l2", "WHERE score % 5 = 0").replace(
        "'l2')", "'l2', map('prefilter', 'false'))")).collect()
    found = []  # each tenant's 10 nearest, then the condition, then the 10 nearest of those
    for tenant in TENANTS:
        found += brute_force(vectors, query, tenants == tenant, 10, "l2")[0]
    kept = np.array([i for i in found if scores[i] % 5 == 0])
    check(rows, brute_force(vectors, query, np.isin(np.arange(ROWS), kept), 10, "l2"))
    assert len(rows) == len(kept) < 10  # fewer than k: the condition came after the search


@pytest.mark.parametrize("options,message", [
    ("map('nprobes', '0')", r"option 'nprobes' must be a positive integer, got '0'"),
    ("map('bogus', '1')", r"no option 'bogus' \(options: nprobes, refine_factor, ef, use_index, prefilter\)"),
])
def test_bad_options(spark, data, options, message):
    with pytest.raises(Exception, match=r"lance_vector_search: " + message):
        spark.sql(f"SELECT * FROM lance_vector_search('{TABLE}', 'embedding', array({', '.join(['1.0'] * DIM)}), "
                  f"3, 'l2', {options})").collect()


@pytest.mark.parametrize("where,distance", [(None, "l2"), ("tenant = 'beta' AND score >= 50", "cosine")])
def test_crosscheck_search_agrees_with_pylance(spark, data, where, distance):
    vectors, tenants, scores, query = data
    assert lancepart.crosscheck_search(spark, TABLE, "embedding", query.tolist(), 8, where=where,
                                       distance=distance) == {"rows": 8, "tables": len(TENANTS)}


def test_crosscheck_search_shows_both_sides_when_they_differ(spark, admin, ns):
    """Another writer appended a row of partition id = 2 to partition id = 1's table: Spark's search
    with `id = 1` prunes to that table and keeps the row (the manifest answers the filter), pylance
    applies the filter to the rows and does not."""
    import lance
    import pyarrow as pa

    t = f"lance.{ns}.signed"
    spark.sql(f"CREATE TABLE {t} (id INT, e ARRAY<FLOAT>) PARTITIONED BY (id) "
              f"TBLPROPERTIES ('lancepart.fixed-size-list.e' = '2')")
    spark.sql(f"INSERT INTO {t} VALUES (1, array(0.0, 0.0)), (2, array(1.0, 1.0))")
    assert lancepart.crosscheck_search(spark, t, "e", [0.0, 0.0], 2, where="id = 1") == {"rows": 1, "tables": 2}
    location = admin.describe(f"{ns}.signed")["location"]
    leaf = next(f"{location}/{p['location']}" for p in admin.partitions(f"{ns}.signed") if p["values"] == {"id": 1})
    schema = lance.dataset(leaf).schema
    lance.write_dataset(pa.table({"id": [2], "e": [[0.5, 0.5]]}, schema=schema), leaf, mode="append")
    with pytest.raises(lancepart.CrosscheckError, match=r"(?s)Spark found 2 rows, pylance 1 in 2 partition tables"
                                                        r".*'id': 2.*pylance:\n  \{'id': 1"):
        lancepart.crosscheck_search(spark, t, "e", [0.0, 0.0], 2, where="id = 1")


def test_a_partition_table_storing_a_filtered_column_in_a_narrower_type_is_named(spark, ns):
    """After a column is widened (INT to BIGINT), a partition table written before stores it as INT
    (both tables here; the error names whichever a task opens first):
    Lance compares a literal in the stored type, so lancepart does not give it the condition, and
    it cannot choose the rows that table's search ranks."""
    t = f"lance.{ns}.widened"
    spark.sql(f"CREATE TABLE {t} (id INT, score INT, e ARRAY<FLOAT>) PARTITIONED BY (id) "
              f"TBLPROPERTIES ('lancepart.fixed-size-list.e' = '2')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 10, array(0.0, 0.0)), (2, 20, array(1.0, 1.0))")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN score TYPE BIGINT")
    search = f"SELECT id, score FROM lance_vector_search('{t}', 'e', array(0.0, 0.0), 1{{}}) WHERE score > 15"
    with pytest.raises(Exception, match=r"lance_vector_search: partition table \S+ \(id=[12]\) does not store the columns of "
                                        r".*`score` > 15 under their names and types.*prefilter"):
        spark.sql(search.format("")).collect()
    # applied to the rows each partition table found instead
    assert [tuple(r) for r in spark.sql(search.format(", 'l2', map('prefilter', 'false')")).collect()] == [(2, 20)]
