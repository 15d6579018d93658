"""lance_text_search (and lancepart.text_search): its rows and scores equal pylance's full-text
search of each selected partition table, merged (the k best of each table's k best); partition
filters prune, other filters choose the rows each table ranks (or, with prefilter false, filter
the rows found); a partition table without an INVERTED index and bad arguments fail naming the
table, column or option."""

import lance
import numpy as np
import pytest

import lancepart

TENANTS = ["acme", "beta", "gamma"]
WORDS = ["apple", "banana", "cherry", "plum", "melon", "grape", "kiwi", "lemon", "mango", "peach"]
ROWS = 1200
TABLE = "lance.tsearch.docs"


@pytest.fixture(scope="module")
def data(spark, admin):
    """The table, indexed: texts of 3 to 12 words drawn unevenly from WORDS (varied BM25 scores)."""
    rng = np.random.default_rng(11)
    weights = np.arange(len(WORDS), 0, -1) / np.arange(len(WORDS), 0, -1).sum()
    rows = [(i, TENANTS[i % 3], int(rng.integers(0, 100)),
             " ".join(rng.choice(WORDS, size=int(rng.integers(3, 13)), p=weights))) for i in range(ROWS)]
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lance.tsearch")
    spark.sql(f"CREATE TABLE {TABLE} (id BIGINT, tenant STRING, n INT, body STRING) PARTITIONED BY (tenant)")
    for half in (rows[::2], rows[1::2]):  # two commits: two fragments per partition table
        spark.createDataFrame(half, "id BIGINT, tenant STRING, n INT, body STRING").writeTo(TABLE).append()
    spark.sql(f"CALL lance.system.create_index(table => '{TABLE}', column => 'body', type => 'INVERTED')")
    location = admin.describe("tsearch.docs")["location"]
    return {next(iter(p["values"].values())): lance.dataset(f"{location}/{p['location']}",
                                                            version=p["read_version"])
            for p in admin.partitions("tsearch.docs")}


def pylance(datasets, tenants, query, k, where=None, after=None):
    """(id, score) of the k best rows of the tenants' tables, each searched by pylance (rows
    matching ``where`` compete; ``after`` then filters the rows found), best first."""
    found = []
    for tenant in tenants:
        t = datasets[tenant].to_table(full_text_query=query, columns=["id", "body"], limit=k, prefilter=True,
                                      filter=where)
        found += [(i, s) for i, s, body in zip(t["id"].to_pylist(), t["_score"].to_pylist(), t["body"].to_pylist())
                  if after is None or after(body)]
    return sorted(found, key=lambda f: -f[1])[:k]


def check(rows, expected):
    """Same scores in order, and the same ids except among rows tied with the last score."""
    assert [r._score for r in rows] == pytest.approx([s for _, s in expected], rel=1e-6)
    last = expected[-1][1] if expected else None
    assert {r.id for r in rows if r._score != last} == {i for i, s in expected if s != last}


def search_sql(query, k, where="", options=""):
    return f"SELECT id, tenant, n, _score FROM lance_text_search('{TABLE}', 'body', '{query}', {k}{options}) {where}"


@pytest.mark.parametrize("query", ["cherry", "kiwi mango", "peach lemon grape"])
def test_all_partitions_equal_pylance_merged(spark, data, query):
    rows = spark.sql(search_sql(query, 10)).collect()
    assert len(rows) == 10
    check(rows, pylance(data, TENANTS, query, 10))


def test_partition_filter_prunes_and_a_row_filter_chooses_the_rows_ranked(spark, data):
    sql = search_sql("kiwi", 7, "WHERE tenant = 'beta' AND n >= 50")
    rows = spark.sql(sql).collect()
    assert {r.tenant for r in rows} == {"beta"} and all(r.n >= 50 for r in rows) and len(rows) == 7
    check(rows, pylance(data, ["beta"], "kiwi", 7, where="n >= 50"))
    assert "tables=1/3" in spark.sql("EXPLAIN " + sql).collect()[0][0]


def test_prefilter_false_applies_conditions_to_the_rows_each_table_found(spark, data):
    rows = spark.sql(search_sql("kiwi", 10, "WHERE length(body) > 60", ", map('prefilter', 'false')")).collect()
    expected = pylance(data, TENANTS, "kiwi", 10, after=lambda body: len(body) > 60)
    assert len(rows) == len(expected) < 10  # fewer than k: the condition came after the search
    check(rows, expected)


def test_python_text_search(spark, data):
    found = lancepart.text_search(spark, TABLE, "body", "plum", 5, where="tenant IN ('acme', 'gamma')")
    check(found.collect(), pylance(data, ["acme", "gamma"], "plum", 5))


def test_a_partition_table_without_the_index_is_named(spark, data):
    spark.sql(f"INSERT INTO {TABLE} VALUES (5000, 'delta', 1, 'kiwi kiwi')")
    try:
        with pytest.raises(Exception, match=r"lance_text_search: partition table \S+ \(tenant=delta\) has no INVERTED "
                                            r"index on column 'body'.*create_index.*where =>"):
            spark.sql(search_sql("kiwi", 3)).collect()
        # the other partition tables still answer a search the partition filter keeps to them
        check(spark.sql(search_sql("kiwi", 3, "WHERE tenant <> 'delta'")).collect(),
              pylance(data, TENANTS, "kiwi", 3))
    finally:
        spark.sql(f"DELETE FROM {TABLE} WHERE tenant = 'delta'")


@pytest.mark.parametrize("args,message", [
    ("'n', 'kiwi', 3", r"column 'n' of table \S+docs is not a STRING column; it has type INT"),
    ("'nope', 'kiwi', 3", r"table \S+docs has no column 'nope'"),
    ("'body', 'kiwi', 0", r"k must be positive, got 0"),
    ("'body', ' ', 3", r"query is empty"),
    ("'body', 'kiwi', 3, map('nprobes', '2')", r"no option 'nprobes' \(options: prefilter\)"),
    ("'body', 'kiwi', 3, map('prefilter', 'maybe')", r"option 'prefilter' must be true or false, got 'maybe'"),
])
def test_bad_arguments(spark, data, args, message):
    with pytest.raises(Exception, match=r"lance_text_search: " + message):
        spark.sql(f"SELECT * FROM lance_text_search('{TABLE}', {args})").collect()


def test_a_condition_lance_cannot_apply_first_is_refused(spark, data):
    with pytest.raises(Exception, match=r"lance_text_search over table \S+docs: \(length\(body\) > 20\) cannot "
                                        r"choose the rows each partition table's search ranks"):
        spark.sql(search_sql("kiwi", 3, "WHERE length(body) > 20")).collect()
