"""Vector search (issue 20): latency and recall@k of lance_vector_search on a lancepart table of
1,000,000 vectors of dimension 128 in 100 partitions, in one partition and across all, exact
(no index) and with a vector index (IVF_PQ, IVF_HNSW_SQ) on every partition table, against:
pylance on that partition's own dataset (the same files, the same index; the goal's reference),
pylance on one unpartitioned dataset of the same vectors (flat, and with an index for its
1,000,000 rows; `WHERE part` for one partition), pylance searching every partition's dataset in
turn and merging, and a brute-force Spark SQL top-k over the lancepart table (the L2 distance in
SQL, ORDER BY ... LIMIT k: what a user writes without the feature). With an index, also Spark's
floor (a pruned top-10 scan of the partition, no search) and the search with the query vector
searched through the Python API, lancepart.search (elsewhere the SQL text holds the vector).

    make bench   (or: .venv/bin/python bench/search.py [--root DIR] [--index-types IVF_PQ,IVF_HNSW_SQ] ...)

Data: a mixture of 1,000 gaussians (fixed seeds), row i in partition i // (rows / partitions);
the --queries query vectors are drawn from the same mixture and held out. The systems of a group
(one partition or all; no index or an index type) run in turn, each call searching the next
query vector: --warm-ups calls each, then --repeats rounds (the brute-force search across all:
--slow-repeats after one); the latency is the median of a system's timed calls, its recall the
mean over the query vectors it searched of |found ∩ exact| / k, exact being numpy's top-k over
the same rows. Index build times are of one build. The vectors, the table and the unpartitioned
dataset are kept under --root (reruns skip writing them; indexes are dropped and built again).
Writes bench/results/search.json, search.png and the generated part of docs/benchmarks.md's
"Vector search" section.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import lancepart
from metrics import interleaved_median_seconds

RESULTS = Path(__file__).parent / "results"
DOCS = Path(__file__).parent.parent / "docs" / "benchmarks.md"
START, END = "<!-- search:start (bench/search.py writes this part) -->", "<!-- search:end -->"
TABLE = "lance.search.vecs"
INDEX = "embedding_idx"
CLUSTERS = 1000


def mixture(rows: int, dim: int, seed: int) -> np.ndarray:
    """``rows`` float32 vectors: gaussian clusters around CLUSTERS centers (seed 0), the points' own
    randomness from ``seed``."""
    centers = np.random.default_rng(0).standard_normal((CLUSTERS, dim), dtype=np.float32)
    rng = np.random.default_rng(seed)
    out = np.empty((rows, dim), np.float32)
    for start in range(0, rows, 100_000):
        n = min(100_000, rows - start)
        out[start:start + n] = centers[rng.integers(CLUSTERS, size=n)] + \
            0.75 * rng.standard_normal((n, dim), dtype=np.float32)
    return out


def exact_top_k(data: np.ndarray, ids: np.ndarray, q: np.ndarray, k: int) -> set[int]:
    """The ids of the ``k`` rows of ``data`` nearest to ``q`` by squared L2, in float64."""
    best_d, best_i = np.empty(0), np.empty(0, np.int64)
    for start in range(0, len(data), 100_000):
        chunk = data[start:start + 100_000].astype(np.float64)
        d = ((chunk - q.astype(np.float64)) ** 2).sum(axis=1)
        best_d, best_i = np.concatenate([best_d, d]), np.concatenate([best_i, ids[start:start + len(chunk)]])
        keep = np.argsort(best_d, kind="stable")[:k]
        best_d, best_i = best_d[keep], best_i[keep]
    return set(best_i.tolist())


def session(root: Path):
    """A local[2] session with the catalog ``lance`` over ``root``/lance."""
    spark = lancepart.spark_session(str(root / "lance"), **{
        "spark.driver.memory": "8g", "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
        "spark.sql.warehouse.dir": str(root / "spark-warehouse")})
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def write_data(spark, root: Path, data: np.ndarray, per_partition: int) -> Path:
    """The vectors as the lancepart table TABLE and as one unpartitioned pylance dataset, unless
    they are there with every row; returns the dataset's path."""
    import lance
    rows, dim = data.shape
    ids = pa.array(np.arange(rows, dtype=np.int64))
    parts = pa.array((np.arange(rows) // per_partition).astype(np.int32))
    vectors = pa.FixedSizeListArray.from_arrays(pa.array(data.reshape(-1)), dim)
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lance.search")
    if not spark.catalog.tableExists(TABLE) or spark.table(TABLE).count() != rows:
        staging = root / "staging.parquet"
        pq.write_table(pa.table({"id": ids, "part": parts, "embedding": vectors.cast(pa.list_(pa.float32()))}),
                       staging, row_group_size=per_partition)
        started = time.perf_counter()
        spark.sql(f"DROP TABLE IF EXISTS {TABLE}")
        spark.sql(f"CREATE TABLE {TABLE} (id BIGINT, part INT, embedding ARRAY<FLOAT>) PARTITIONED BY (part) "
                  f"TBLPROPERTIES ('lancepart.fixed-size-list.embedding' = '{dim}')")
        spark.sql(f"INSERT INTO {TABLE} SELECT id, part, embedding FROM parquet.`{staging}`")
        print(f"lancepart table written in {time.perf_counter() - started:.1f}s", flush=True)
        staging.unlink()
    unpartitioned = root / "unpartitioned.lance"
    if not unpartitioned.exists() or lance.dataset(str(unpartitioned)).count_rows() != rows:
        shutil.rmtree(unpartitioned, ignore_errors=True)
        lance.write_dataset(pa.table({"id": ids, "part": parts, "embedding": vectors}), str(unpartitioned),
                            max_rows_per_file=rows)
    return unpartitioned


def partition_datasets(spark) -> dict[int, str]:
    """The location of each partition table, by its ``part`` value (from __manifest, with pylance)."""
    import lance
    table_dir, _ = lancepart.table_uri(spark, TABLE)
    leaves = lance.dataset(f"{table_dir}/__manifest").to_table(filter="object_type = 'table'").to_pylist()
    return {next(v for c, v in r.items() if c.startswith("partition_field_")): f"{table_dir}/{r['location']}"
            for r in leaves}


def vector_sql(q: np.ndarray) -> str:
    """``q`` as a SQL array literal (doubles that hold each float exactly)."""
    return "array(" + ", ".join(f"{float(x)!r}D" for x in q) + ")"


class Searches:
    """The searches compared, each a function of a query vector returning the ids found. The
    Spark searches take the vector as a literal in the SQL text, but for ``python_search``
    (``lancepart.search``)."""

    def __init__(self, spark, k: int, part: int):
        self.spark, self.k, self.part = spark, k, part
        self.options_supported = True

    def lancepart(self, everywhere: bool, options: dict[str, str]):
        where = "" if everywhere else f"WHERE part = {self.part}"
        given = ", ".join(f"'{key}', '{value}'" for key, value in options.items())
        extra = f", 'l2', map({given})" if options and self.options_supported else ""

        def search(q: np.ndarray) -> list[int]:
            sql = f"SELECT id FROM lance_vector_search('{TABLE}', 'embedding', {vector_sql(q)}, {self.k}{extra}) {where}"
            return [r.id for r in self.spark.sql(sql).collect()]
        return search

    def python_search(self, options: dict[str, str]):
        """``lancepart.search`` in the partition."""
        tuning = {key: int(value) for key, value in options.items()}

        def search(q: np.ndarray) -> list[int]:
            found = lancepart.search(self.spark, TABLE, "embedding", q, self.k, where=f"part = {self.part}", **tuning)
            return [r.id for r in found.select("id").collect()]
        return search

    def spark_floor(self) -> Callable[[np.ndarray], list[int]]:
        """Not a search: 10 rows of the partition through the same table and plan shape (a scan
        pruned to one partition table, a top-k), what any such Spark query costs here."""
        sql = f"SELECT id FROM {TABLE} WHERE part = {self.part} ORDER BY id LIMIT {self.k}"
        return lambda q: [r.id for r in self.spark.sql(sql).collect()]

    def brute_force_sql(self, everywhere: bool) -> Callable[[np.ndarray], list[int]]:
        where = "" if everywhere else f"WHERE part = {self.part}"

        def search(q: np.ndarray) -> list[int]:
            sql = (f"SELECT id FROM {TABLE} {where} ORDER BY aggregate(zip_with(embedding, {vector_sql(q)}, "
                   f"(a, b) -> (a - b) * (a - b)), 0D, (acc, x) -> acc + x) LIMIT {self.k}")
            return [r.id for r in self.spark.sql(sql).collect()]
        return search

    def pylance(self, uri: str, use_index: bool, options: dict[str, str], where: str | None = None):
        return self.pylance_merged([uri], use_index, options, where)

    def pylance_merged(self, uris: list[str], use_index: bool, options: dict[str, str], where: str | None = None):
        """pylance's search of each of ``uris`` in turn, the k nearest of their k nearest."""
        import lance
        datasets = [lance.dataset(uri) for uri in uris]  # opened now: the latest version, with the index just built
        tuning = {key: int(value) for key, value in options.items()}

        def search(q: np.ndarray) -> list[int]:
            found = [ds.to_table(columns=["id", "_distance"], filter=where, prefilter=True,
                                 disable_scoring_autoprojection=True, nearest={
                                     "column": "embedding", "q": q, "k": self.k, "use_index": use_index, **tuning})
                     for ds in datasets]
            nearest = pa.concat_tables(found).sort_by("_distance").slice(0, self.k)
            return nearest.column("id").to_pylist()
        return search


def measure(group: str, runs: dict[str, Callable[[np.ndarray], list[int]]], queries: np.ndarray,
            truth: dict[str, list[set[int]]], repeats: int, warm_ups: int, k: int) -> list[dict]:
    """Latency (median ms of each system's timed calls, systems in turn, each call on the next
    query vector) and recall@k over the query vectors searched (all of them when the calls are as
    many); ``truth`` maps a system to the exact top-k of each query over the rows it searches."""
    found = {name: {} for name in runs}

    def cycling(name: str, search: Callable[[np.ndarray], list[int]]) -> Callable[[], None]:
        calls = itertools.count()

        def run() -> None:
            i = next(calls) % len(queries)
            found[name][i] = search(queries[i])
        return run
    seconds = interleaved_median_seconds({n: cycling(n, s) for n, s in runs.items()}, repeats, warm_ups)
    records = []
    for name in runs:
        recalls = [len(set(ids[:k]) & truth[name][i]) / k for i, ids in sorted(found[name].items())
                   if truth[name] is not None]
        recall = round(float(np.mean(recalls)), 4) if recalls else None
        records.append({"group": group, "system": name, "ms": round(seconds[name] * 1000, 2), "recall": recall,
                        "min_recall": min(recalls, default=None), "queries": len(found[name]),
                        "calls": warm_ups + repeats,
                        "results_not_k": [i for i, ids in found[name].items() if len(ids) != k]})
        print(f"{group:<34} {name:<44} {seconds[name] * 1000:9.1f} ms  recall@{k} {recall}", flush=True)
    return records


def index_options(kind: str, num_partitions: int, args) -> dict[str, str]:
    """create_index options for ``kind`` with ``num_partitions`` IVF partitions."""
    if kind == "IVF_PQ":
        return {"num_partitions": str(num_partitions), "num_sub_vectors": str(args.num_sub_vectors)}
    return {"num_partitions": str(num_partitions), "m": str(args.hnsw_m), "ef_construction": str(args.ef_construction)}


def search_options(kind: str, args) -> dict[str, str]:
    """The query-time settings of searches with a ``kind`` index."""
    if kind == "IVF_PQ":
        return {"nprobes": str(args.nprobes), "refine_factor": str(args.refine_factor)}
    return {"nprobes": str(args.nprobes), "ef": str(args.ef)}


def drop_indexes(spark, partition_uri: str) -> None:
    """Drops the vector index of a previous run from every partition table (the partition table at
    ``partition_uri`` tells whether there is one)."""
    import lance
    if any(i["name"] == INDEX for i in lance.dataset(partition_uri).list_indices()):
        spark.sql(f"CALL lance.system.drop_index(table => '{TABLE}', index_name => '{INDEX}')").collect()


def markdown(result: dict) -> str:
    """The generated part of docs/benchmarks.md's "Vector search": the run, every record, the
    index builds and the goals."""
    p = result["parameters"]
    lines = [f"Run: {result['cores']} cores, Spark {result['spark']}, pylance {result['pylance']}, commit "
             f"{result['commit']} (jar built {result.get('jar_modified', '?')}), {result['minutes']} minutes in all; "
             f"{p['rows']:,} vectors of dimension {p['dim']} "
             f"in {p['partitions']} partitions, k = {p['k']}, {p['queries']} query vectors, median of "
             f"{p['repeats']} calls after {p['warm_ups']} warm-ups each (brute force across all: "
             f"{p['slow_repeats']} after 1).", "",
             "| search | system | ms | recall@10 | query vectors |", "|---|---|---|---|---|"]
    for r in result["records"]:
        recall = "-" if r["recall"] is None else f"{r['recall']:.3f}"
        lines.append(f"| {r['group']} | {r['system']} | {r['ms']:,.1f} | {recall} | {r['queries']} |")
    lines += ["", "| index build | seconds |", "|---|---|"]
    lines += [f"| {b['what']} | {b['seconds']:.1f} |" for b in result["builds"]]
    if result["goals"]:
        lines += ["", "| goal | measured | met |", "|---|---|---|"]
        lines += [f"| {g['goal']} | {g['measured']} | {'yes' if g['met'] else 'no'} |" for g in result["goals"]]
    return "\n".join(lines)


def write_docs(result: dict, png: Path) -> None:
    """The table of ``result`` between docs/benchmarks.md's search markers, and the chart ``png``
    next to it for the docs site (img/search.png)."""
    shutil.copyfile(png, DOCS.parent / "img" / "search.png")
    text = DOCS.read_text()
    section = f"{START}\n{markdown(result)}\n{END}"
    if START in text:
        text = text[:text.index(START)] + section + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n## Vector search\n\n" + section + "\n"
    DOCS.write_text(text)


def chart(result: dict, png: Path) -> None:
    """Latency per system on a log scale, with recall: a row per selection (one partition, all),
    a column per index (none, then each type)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    groups = list(dict.fromkeys(r["group"] for r in result["records"]))
    kinds = list(dict.fromkeys(g.split(", ", 1)[1] for g in groups))
    fig, axes = plt.subplots(2, len(kinds), figsize=(5 * len(kinds), 11), sharey=True, squeeze=False)
    for row, selection in enumerate(("1 partition", "all partitions")):
        for col, kind in enumerate(kinds):
            ax, group = axes[row][col], f"{selection}, {kind}"
            records = [r for r in result["records"] if r["group"] == group]
            colors = ["tab:orange" if r["system"].startswith("lancepart") else
                      "tab:gray" if r["recall"] is None else "tab:blue" for r in records]
            ax.bar(range(len(records)), [r["ms"] for r in records], color=colors)
            for i, r in enumerate(records):
                recall = "" if r["recall"] is None else f"\nrecall {r['recall']:.2f}"
                ax.text(i, r["ms"], f"{r['ms']:,.0f} ms{recall}", ha="center", va="bottom", fontsize=7)
            ax.set_xticks(range(len(records)), [r["system"] for r in records], rotation=35, ha="right", fontsize=7)
            ax.set_yscale("log")
            ax.set_title(group, fontsize=9)
        axes[row][0].set_ylabel("milliseconds (log scale)")
    p = result["parameters"]
    fig.suptitle(f"lance_vector_search: {p['rows']:,} vectors of dimension {p['dim']} in {p['partitions']} "
                 f"partitions, k = {p['k']} ({result['cores']} cores)", fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=100)


def goals(records: list[dict]) -> list[dict]:
    """Issue 20's goals for each index type: a 1-partition indexed search within 2x of pylance on
    that partition's dataset alone, and at least 20x faster than the brute-force Spark SQL top-k
    (over the same partition, and over the whole table); the same 20x across all partitions."""
    ms = {(r["group"], r["system"]): r["ms"] for r in records}
    brute = "Spark SQL brute-force top-k"
    brute_one, brute_all = ms.get(("1 partition, no index", brute)), ms.get(("all partitions, no index", brute))
    out = []
    for (group, system), value in ms.items():
        if system != "lancepart" or group.endswith("no index"):
            continue
        if group.startswith("1 partition, "):
            alone = ms[(group, "pylance, the partition's dataset")]
            out.append({"goal": f"{group}: lancepart within 2x of pylance on the partition's dataset",
                        "measured": f"{value:.1f} ms vs {alone:.1f} ms ({value / alone:.1f}x)",
                        "met": value <= 2 * alone})
        for label, reference in (("the same partition", brute_one if group.startswith("1 ") else None),
                                 ("the whole table", brute_all)):
            if reference:
                out.append({"goal": f"{group}: lancepart >= 20x faster than Spark SQL brute force over {label}",
                            "measured": f"{value:.1f} ms vs {reference:,.1f} ms ({reference / value:.1f}x)",
                            "met": reference >= 20 * value})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", help="where the data is kept (default: a temporary directory, removed at the end)")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--partitions", type=int, default=100)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--part", type=int, default=42, help="the partition of the 1-partition searches")
    parser.add_argument("--queries", type=int, default=10)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--warm-ups", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--slow-repeats", type=int, default=3, help="repeats of the brute-force search across all")
    parser.add_argument("--index-types", default="IVF_PQ,IVF_HNSW_SQ")
    parser.add_argument("--num-partitions", type=int, default=32, help="IVF partitions of a partition table's index")
    parser.add_argument("--big-num-partitions", type=int, default=256,
                        help="IVF partitions of the unpartitioned dataset's index")
    parser.add_argument("--num-sub-vectors", type=int, default=16)
    parser.add_argument("--hnsw-m", type=int, default=20)
    parser.add_argument("--ef-construction", type=int, default=150)
    parser.add_argument("--nprobes", type=int, default=20)
    parser.add_argument("--refine-factor", type=int, default=5)
    parser.add_argument("--ef", type=int, default=100)
    parser.add_argument("--output", type=Path, default=RESULTS,
                        help="where search.json and search.png go; docs/benchmarks.md is written only for the default")
    args = parser.parse_args()
    started = time.time()
    root = Path(args.root or tempfile.mkdtemp(prefix="lancepart-search-")).absolute()
    root.mkdir(parents=True, exist_ok=True)
    per_partition = args.rows // args.partitions

    cached = root / f"vectors-{args.rows}x{args.dim}.npy"
    if not cached.exists():
        np.save(cached, mixture(args.rows, args.dim, seed=1))
    data = np.load(cached)
    queries = mixture(args.queries, args.dim, seed=2)
    ids = np.arange(args.rows)
    in_part = slice(args.part * per_partition, (args.part + 1) * per_partition)
    truth_part = [exact_top_k(data[in_part], ids[in_part], q, args.k) for q in queries]
    truth_all = [exact_top_k(data, ids, q, args.k) for q in queries]

    spark = session(root)
    import lance  # after the JVM starts (lance warns when imported before pyspark forks it)
    unpartitioned = str(write_data(spark, root, data, per_partition))
    partitions = partition_datasets(spark)
    partition_uri = partitions[args.part]
    searches = Searches(spark, args.k, args.part)
    try:
        searches.lancepart(False, {"nprobes": "1"})(queries[0])
    except Exception as e:  # the options map is newer than some builds
        print(f"lance_vector_search takes no options map in this build ({str(e).splitlines()[0]}); "
              "searching with Lance's defaults", flush=True)
        searches.options_supported = False
    drop_indexes(spark, partition_uri)
    builds, records = [], []
    one, everywhere = f"part = {args.part}", None

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=Path(__file__).parent).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "jvm"], capture_output=True, text=True,
                           cwd=Path(__file__).parent).stdout.strip()

    def save() -> dict:
        """Writes search.json with what is measured so far (a run cut short keeps it)."""
        result = {"commit": commit + (" (jvm/ with uncommitted changes)" if dirty else ""), "cores": os.cpu_count(),
                  "spark": spark.version, "pylance": lance.__version__, "jar": lancepart.jar.jar_path(),
                  "jar_modified": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                time.gmtime(os.path.getmtime(lancepart.jar.jar_path()))),
                  "minutes": round((time.time() - started) / 60, 1),
                  "parameters": {**{k: v for k, v in vars(args).items() if k not in ("root", "output")},
                                 "clusters": CLUSTERS, "rows_per_partition": per_partition,
                                 "search_options_passed_to_lancepart": searches.options_supported},
                  "builds": builds, "records": records, "goals": goals(records)}
        args.output.mkdir(parents=True, exist_ok=True)
        (args.output / "search.json").write_text(json.dumps(result, indent=1) + "\n")
        return result

    def run_group(group: str, runs: dict, truth: dict, repeats: int = args.repeats, warm_ups: int = args.warm_ups):
        records.extend(measure(group, runs, queries, truth, repeats, warm_ups, args.k))
        save()

    names_one = ["lancepart", "pylance, the partition's dataset", "pylance, unpartitioned, WHERE part",
                 "Spark SQL brute-force top-k"]
    run_group("1 partition, no index", dict(zip(names_one, [
        searches.lancepart(False, {}), searches.pylance(partition_uri, False, {}),
        searches.pylance(unpartitioned, False, {}, one), searches.brute_force_sql(False)])),
        dict.fromkeys(names_one, truth_part))
    names_all = ["lancepart", "pylance, unpartitioned", "pylance, each partition's dataset in turn, merged"]
    every = [partitions[p] for p in sorted(partitions)]
    run_group("all partitions, no index", dict(zip(names_all, [
        searches.lancepart(True, {}), searches.pylance(unpartitioned, False, {}, everywhere),
        searches.pylance_merged(every, False, {})])), dict.fromkeys(names_all, truth_all))
    brute = "Spark SQL brute-force top-k"  # tens of seconds a call: fewer calls, on fewer query vectors
    run_group("all partitions, no index", {brute: searches.brute_force_sql(True)}, {brute: truth_all},
              args.slow_repeats, 1)

    for kind in [t for t in args.index_types.split(",") if t]:
        options = index_options(kind, args.num_partitions, args)
        given = ", ".join(f"'{key}', '{value}'" for key, value in options.items())
        t0 = time.perf_counter()
        spark.sql(f"CALL lance.system.create_index(table => '{TABLE}', column => 'embedding', type => '{kind}', "
                  f"options => map({given}))").collect()
        builds.append({"what": f"lancepart {kind}, {args.partitions} partition tables ({options})",
                       "seconds": round(time.perf_counter() - t0, 2)})
        big = {key: int(value) for key, value in index_options(kind, args.big_num_partitions, args).items()}
        t0 = time.perf_counter()
        lance.dataset(unpartitioned).create_index("embedding", index_type=kind, name=INDEX, replace=True, **big)
        builds.append({"what": f"pylance {kind}, unpartitioned dataset ({big})",
                       "seconds": round(time.perf_counter() - t0, 2)})
        print(builds[-2], builds[-1], sep="\n", flush=True)
        tuning = search_options(kind, args)
        floor = "Spark floor: ORDER BY id LIMIT 10 of the partition"
        python = "lancepart.search (Python)"
        systems = {"lancepart": searches.lancepart(False, tuning),
                   "pylance, the partition's dataset": searches.pylance(partition_uri, True, tuning),
                   "pylance, unpartitioned, WHERE part": searches.pylance(unpartitioned, True, tuning, one),
                   python: searches.python_search(tuning), floor: searches.spark_floor()}
        run_group(f"1 partition, {kind}", systems, {**dict.fromkeys(systems, truth_part), floor: None})
        run_group(f"all partitions, {kind}", dict(zip(names_all, [
            searches.lancepart(True, tuning), searches.pylance(unpartitioned, True, tuning, everywhere),
            searches.pylance_merged(every, True, tuning)])), dict.fromkeys(names_all, truth_all))

    result = save()
    chart(result, args.output / "search.png")
    if args.output == RESULTS:
        write_docs(result, args.output / "search.png")
    for g in result["goals"]:
        print(f"{'MET' if g['met'] else 'MISSED'}: {g['goal']}: {g['measured']}")
    spark.stop()
    if not args.root:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
