"""CALL create_index and drop_index: each index type is built on every partition table a condition selects, in one
commit (strong mode: the manifest pins the indexed versions), and Lance then uses it (pylance
sees the index on each partition table; full-text search finds what a brute-force word match
finds; vector search keeps its recall against exact search); answers stay the same; partition
tables too small to train a vector index on are left flat; bad input fails naming the table,
type, column or option, and commits nothing."""

import lance
import numpy as np
import pytest

import lancepart

DIM = 16
TENANTS = ["acme", "beta", "gamma"]
ROWS_PER_TENANT = 600
WORDS = ["apple", "banana", "cherry", "plum", "melon"]


def create(spark, ns, mode="weak", tiny_tenant=False):
    """lance.<ns>.docs partitioned by tenant: vectors, a tag and a text per row; also in numpy."""
    t = f"lance.{ns}.docs"
    rng = np.random.default_rng(7)
    tenants = [tn for tn in TENANTS for _ in range(ROWS_PER_TENANT)] + (["tiny"] * 10 if tiny_tenant else [])
    vectors = rng.standard_normal((len(tenants), DIM)).astype(np.float32)
    rows = [(i, tn, f"tag{i % 7}", f"{WORDS[i % 5]} {WORDS[(i * 3) % 5]} doc{i}", vectors[i].tolist())
            for i, tn in enumerate(tenants)]
    spark.sql(f"CREATE TABLE {t} (id BIGINT, tenant STRING, tag STRING, body STRING, embedding ARRAY<FLOAT>) "
              f"PARTITIONED BY (tenant) TBLPROPERTIES ('lancepart.fixed-size-list.embedding' = '{DIM}', "
              f"'transaction.mode' = '{mode}')")
    schema = "id BIGINT, tenant STRING, tag STRING, body STRING, embedding ARRAY<FLOAT>"
    for half in (rows[::2], rows[1::2]):  # two commits: two fragments per partition table
        spark.createDataFrame(half, schema).writeTo(t).append()
    return t, np.array(tenants), vectors


def leaves(admin, name):
    """{tenant: (partition table URI, version readers read)}."""
    location = admin.describe(name)["location"]
    return {next(iter(p["values"].values())): (f"{location}/{p['location']}", p["read_version"])
            for p in admin.partitions(name)}


def indices(uri, version=None):
    return {i["name"]: i["type"] for i in lance.dataset(uri, version=version).list_indices()}


def call(spark, t, column, kind, **named):
    args = "".join(f", {k} => {v}" for k, v in named.items())
    return tuple(spark.sql(f"CALL lance.system.create_index(table => '{t}', column => '{column}', "
                           f"type => '{kind}'{args})").first())


def nearest(spark, t, query, k, where="", options=None):
    vector = ", ".join(repr(float(x)) for x in query)
    tuning = f", 'l2', {options}" if options else ""
    return [r.id for r in spark.sql(f"SELECT id FROM lance_vector_search('{t}', 'embedding', array({vector}), {k}"
                                    f"{tuning}) {where}").collect()]


@pytest.mark.parametrize("kind,column,lance_type", [
    ("BTREE", "tag", "BTree"), ("BITMAP", "tag", "Bitmap"), ("INVERTED", "body", "Inverted"),
    ("IVF_PQ", "embedding", "IVF_PQ"), ("IVF_HNSW_SQ", "embedding", "IVF_HNSW_SQ")])
def test_every_partition_table_gets_the_index(spark, admin, ns, kind, column, lance_type):
    t, tenants, vectors = create(spark, ns)
    before = sorted(spark.sql(f"SELECT id FROM {t} WHERE tag = 'tag3'").collect())
    assert call(spark, t, column, kind) == (3, 0, 3 * ROWS_PER_TENANT)
    for uri, _ in leaves(admin, f"{ns}.docs").values():
        assert indices(uri) == {f"{column}_idx": lance_type}
        assert lance.dataset(uri).stats.index_stats(f"{column}_idx")["num_unindexed_rows"] == 0
    assert sorted(spark.sql(f"SELECT id FROM {t} WHERE tag = 'tag3'").collect()) == before
    assert spark.table(t).count() == len(tenants)


def test_full_text_search_on_an_indexed_partition_table(spark, admin, ns):
    t, tenants, _ = create(spark, ns)
    call(spark, t, "body", "INVERTED")
    uri, _ = leaves(admin, f"{ns}.docs")["beta"]
    found = lance.dataset(uri).to_table(full_text_query="cherry", columns=["id"], limit=10_000)["id"].to_pylist()
    ids = np.flatnonzero(tenants == "beta")
    expected = [int(i) for i in ids if "cherry" in (WORDS[i % 5], WORDS[(i * 3) % 5])]
    assert sorted(found) == expected


@pytest.mark.parametrize("kind,options,recall", [
    ("IVF_HNSW_SQ", "map()", 0.7), ("IVF_PQ", "map('num_sub_vectors', '8', 'num_partitions', '4')", 0.5)])
def test_vector_search_uses_the_index_with_its_recall(spark, ns, kind, options, recall):
    t, tenants, vectors = create(spark, ns)
    queries = np.random.default_rng(3).standard_normal((5, DIM)).astype(np.float32)
    exact = [nearest(spark, t, q, 10) for q in queries]
    for q, ids in zip(queries, exact):  # flat search before: the brute-force top 10
        d = ((vectors.astype(np.float64) - q) ** 2).sum(axis=1)
        assert ids == np.argsort(d, kind="stable")[:10].tolist()
    call(spark, t, "embedding", kind, options=options)
    found = [nearest(spark, t, q, 10) for q in queries]
    # regression: the distances were the index's approximation (IVF_HNSW_SQ's 8-bit quantization),
    # by which the k nearest of each partition table were merged
    vector = ", ".join(repr(float(x)) for x in queries[0])
    rows = spark.sql(f"SELECT id, _distance FROM lance_vector_search('{t}', 'embedding', array({vector}), 10)").collect()
    true_distances = ((vectors[[r.id for r in rows]].astype(np.float64) - queries[0]) ** 2).sum(axis=1)
    np.testing.assert_allclose([r._distance for r in rows], true_distances, rtol=1e-5)
    # the index answers now: probing one IVF partition misses some of the nearest
    assert [nearest(spark, t, q, 10, options="map('nprobes', '1')") for q in queries] != exact
    recall_at_10 = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(found, exact)])
    print(f"{kind} recall@10 on random vectors: {recall_at_10}")
    assert recall_at_10 >= recall


def test_search_options_tune_the_index(spark, ns):
    """nprobes over every IVF partition and a refine step (exact distances of 60 * k candidates)
    bring IVF_PQ's answers to the exact ones, as does use_index false (which crosscheck_search
    compares with pylance's exact search); EXPLAIN shows the settings."""
    t, tenants, vectors = create(spark, ns)
    queries = np.random.default_rng(5).standard_normal((5, DIM)).astype(np.float32)
    exact = [nearest(spark, t, q, 10) for q in queries]
    call(spark, t, "embedding", "IVF_PQ", options="map('num_sub_vectors', '4', 'num_partitions', '4')")
    tuned = "map('nprobes', '4', 'refine_factor', '60')"
    assert [nearest(spark, t, q, 10, options=tuned) for q in queries] == exact
    assert [nearest(spark, t, q, 10) for q in queries] != exact
    assert [nearest(spark, t, q, 10, options="map('use_index', 'false')") for q in queries] == exact
    assert lancepart.crosscheck_search(spark, t, "embedding", queries[0].tolist(), 10)["rows"] == 10
    vector = ", ".join(["0.5"] * DIM)
    plan = spark.sql(f"EXPLAIN SELECT id FROM lance_vector_search('{t}', 'embedding', array({vector}), 10, 'l2', "
                     f"{tuned})").collect()[0][0]
    assert "nearest 10 by l2 on embedding nprobes=4 refine_factor=60" in plan, plan


def unindexed(admin, name):
    """{tenant: {index name: unindexed rows}} from the .partitions table."""
    return {next(iter(p["values"].values())): {i["name"]: i["unindexed_rows"] for i in p["indexes"]}
            for p in admin.partitions(name)}


def test_optimize_indexes_builds_again_what_appends_left_unindexed(spark, admin, ns):
    t, _, _ = create(spark, ns)
    call(spark, t, "body", "INVERTED", options="map('stem', 'false')")
    call(spark, t, "embedding", "IVF_PQ",
         options="map('num_partitions', '4', 'num_sub_vectors', '4', 'distance_type', 'cosine')")
    call(spark, t, "tag", "BTREE")
    assert unindexed(admin, f"{ns}.docs") == {tn: {"body_idx": 0, "embedding_idx": 0, "tag_idx": 0} for tn in TENANTS}
    assert [i["columns"] for i in admin.partitions(f"{ns}.docs")[0]["indexes"]] == [["body"], ["embedding"], ["tag"]]
    vector = ", ".join(["0.25"] * DIM)
    spark.sql(f"INSERT INTO {t} VALUES (9000, 'beta', 'tag1', 'kiwi', array({vector})), "
              f"(9001, 'gamma', 'tag2', 'kiwi', array({vector})), (9002, 'gamma', 'tag2', 'kiwi', array({vector}))")
    stale = unindexed(admin, f"{ns}.docs")
    assert stale == {"acme": {"body_idx": 0, "embedding_idx": 0, "tag_idx": 0},
                     "beta": {"body_idx": 1, "embedding_idx": 1, "tag_idx": 1},
                     "gamma": {"body_idx": 2, "embedding_idx": 2, "tag_idx": 2}}
    # one index, one partition
    assert admin.optimize_indexes(f"{ns}.docs", index_name="tag_idx", where="tenant = 'beta'") == {
        "optimized_partition_tables_count": 1, "indexed_rows_count": ROWS_PER_TENANT + 1}
    assert unindexed(admin, f"{ns}.docs")["beta"] == {"body_idx": 1, "embedding_idx": 1, "tag_idx": 0}
    # the rest: each index again with the options it was built with
    assert tuple(spark.sql(f"CALL lance.system.optimize_indexes(table => '{t}')").first()) == (
        2, 2 * (ROWS_PER_TENANT + 1) + 3 * (ROWS_PER_TENANT + 2))
    assert all(n == 0 for indexes in unindexed(admin, f"{ns}.docs").values() for n in indexes.values())
    uri, _ = leaves(admin, f"{ns}.docs")["gamma"]
    stats = lance.dataset(uri).stats
    pq = stats.index_stats("embedding_idx")["indices"][0]
    assert (pq["metric_type"], pq["num_partitions"], pq["sub_index"]["num_sub_vectors"]) == ("cosine", 4, 4)
    assert stats.index_stats("body_idx")["indices"][0]["params"]["stem"] is False
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM lance_text_search('{t}', 'body', 'kiwi', 5)").collect()) \
        == [9000, 9001, 9002]
    assert spark.table(t).count() == 3 * ROWS_PER_TENANT + 3
    assert tuple(spark.sql(f"CALL lance.system.optimize_indexes(table => '{t}')").first()) == (0, 0)
    with pytest.raises(Exception, match=r"table \S+docs: no partition table selected by 'tenant = .beta.' has an "
                                        r"index named 'nope'; nothing was optimized"):
        admin.optimize_indexes(f"{ns}.docs", index_name="nope", where="tenant = 'beta'")


def test_optimize_indexes_names_an_index_it_cannot_build_again(spark, admin, ns):
    t, _, _ = create(spark, ns)
    call(spark, t, "body", "INVERTED")
    uri, _ = leaves(admin, f"{ns}.docs")["acme"]
    lance.dataset(uri).create_scalar_index("tag", "NGRAM")  # another writer's index, of a type lancepart does not build
    spark.sql(f"INSERT INTO {t} VALUES (9000, 'acme', 'tag1', 'kiwi', NULL)")
    with pytest.raises(Exception, match=r"partition table \S+: index 'tag_idx' is of type NGram, which create_index "
                                        r"does not build; optimize the others by name"):
        spark.sql(f"CALL lance.system.optimize_indexes(table => '{t}')")
    assert unindexed(admin, f"{ns}.docs")["acme"] == {"body_idx": 1, "tag_idx": 1}  # nothing committed
    assert admin.optimize_indexes(f"{ns}.docs", index_name="body_idx")["optimized_partition_tables_count"] == 1


def test_where_indexes_only_the_partitions_it_selects(spark, admin, ns):
    t, _, _ = create(spark, ns)
    assert call(spark, t, "tag", "BTREE", where="\"tenant = 'acme'\"") == (1, 0, ROWS_PER_TENANT)
    assert {tn: indices(uri) for tn, (uri, _) in leaves(admin, f"{ns}.docs").items()} == {
        "acme": {"tag_idx": "BTree"}, "beta": {}, "gamma": {}}
    assert call(spark, t, "tag", "BTREE", where="\"tenant = 'none'\"") == (0, 0, 0)


def test_an_index_replaces_the_one_of_its_name(spark, admin, ns):
    t, _, _ = create(spark, ns)
    call(spark, t, "tag", "BTREE", index_name="'by_tag'")
    admin.create_index(f"{ns}.docs", "tag", "BITMAP", index_name="by_tag")
    call(spark, t, "body", "INVERTED")
    for uri, _ in leaves(admin, f"{ns}.docs").values():
        assert indices(uri) == {"by_tag": "Bitmap", "body_idx": "Inverted"}


def test_drop_index_removes_it_from_the_partitions_selected(spark, admin, ns):
    t, _, _ = create(spark, ns, mode="strong")
    call(spark, t, "tag", "BTREE")
    call(spark, t, "body", "INVERTED")
    before = leaves(admin, f"{ns}.docs")
    dropped = spark.sql(f"CALL lance.system.drop_index(table => '{t}', index_name => 'tag_idx', "
                        f"where => \"tenant = 'acme'\")").first()
    assert tuple(dropped) == (1,)
    after = leaves(admin, f"{ns}.docs")
    assert {tn: indices(uri, version) for tn, (uri, version) in after.items()} == {
        "acme": {"body_idx": "Inverted"}, "beta": {"tag_idx": "BTree", "body_idx": "Inverted"},
        "gamma": {"tag_idx": "BTree", "body_idx": "Inverted"}}
    assert after["acme"] != before["acme"] and after["beta"] == before["beta"]
    assert admin.drop_index(f"{ns}.docs", "tag_idx") == {"dropped_partition_tables_count": 2}
    with pytest.raises(Exception, match=f"table lance.{ns}.docs: no partition table has an index named 'tag_idx'; "
                                        "nothing was dropped"):
        admin.drop_index(f"{ns}.docs", "tag_idx")
    assert spark.sql(f"SELECT count(*) FROM {t} WHERE tag = 'tag3'").first()[0] == \
        sum(1 for i in range(len(TENANTS) * ROWS_PER_TENANT) if i % 7 == 3)


def test_strong_mode_pins_the_indexed_versions(spark, admin, ns):
    t, tenants, _ = create(spark, ns, mode="strong")
    before = leaves(admin, f"{ns}.docs")
    call(spark, t, "tag", "BTREE")
    after = leaves(admin, f"{ns}.docs")
    for tenant, (uri, version) in after.items():  # detached versions: the manifest names the new ones
        assert version != before[tenant][1]
        assert indices(uri, before[tenant][1]) == {}
        assert indices(uri, version) == {"tag_idx": "BTree"}
    spark.sql(f"INSERT INTO {t} VALUES (100000, 'acme', 'tag3', 'plum', array({', '.join(['0.5'] * DIM)}))")
    assert spark.sql(f"SELECT count(*) FROM {t} WHERE tag = 'tag3'").first()[0] == \
        int(sum(1 for i in range(len(tenants)) if i % 7 == 3)) + 1


def test_partition_tables_too_small_for_a_vector_index_stay_flat(spark, admin, ns):
    t, tenants, vectors = create(spark, ns, tiny_tenant=True)
    assert call(spark, t, "embedding", "IVF_PQ") == (3, 1, 3 * ROWS_PER_TENANT)
    assert indices(leaves(admin, f"{ns}.docs")["tiny"][0]) == {}
    q = vectors[-1]
    ids = np.flatnonzero(tenants == "tiny")
    d = ((vectors[ids].astype(np.float64) - q) ** 2).sum(axis=1)
    assert nearest(spark, t, q, 3, "WHERE tenant = 'tiny'") == ids[np.argsort(d, kind="stable")[:3]].tolist()


@pytest.mark.parametrize("column,kind,named,message", [
    ("tag", "HASH", {}, "create_index has no index type 'HASH' (types: BTREE, BITMAP, INVERTED, IVF_PQ, IVF_HNSW_SQ)"),
    ("nope", "BTREE", {}, "has no column 'nope'"),
    ("tag", "IVF_PQ", {}, "column 'tag' of table lance.{ns}.docs is not a vector column"),
    ("tag", "BTREE", {"options": "map('num_partitions', '4')"}, "create_index BTREE: no option 'num_partitions' (options: none)"),
    ("embedding", "IVF_PQ", {"options": "map('num_bits', 'eight')"}, "option 'num_bits' takes a positive whole number, not 'eight'"),
    ("embedding", "IVF_HNSW_SQ", {"options": "map('distance_type', 'manhattan')"}, "option 'distance_type' takes l2, cosine or dot"),
])
def test_bad_input_names_the_problem_and_commits_nothing(spark, admin, ns, column, kind, named, message):
    t, _, _ = create(spark, ns)
    version = admin.describe(f"{ns}.docs")["manifest_version"]
    with pytest.raises(Exception, match=None) as error:
        call(spark, t, column, kind, **named)
    assert message.format(ns=ns) in str(error.value)
    assert admin.describe(f"{ns}.docs")["manifest_version"] == version
    assert all(indices(uri) == {} for uri, _ in leaves(admin, f"{ns}.docs").values())
