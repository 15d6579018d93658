"""Fixtures for the end-to-end suites: one real SparkSession with the plugin (and, when its jar
is fetched, an Iceberg catalog `ice` and Iceberg's SQL extension for the differential suites) for
the whole run, a fresh warehouse root, and a fresh Spark namespace per test. Every JVM the suites
start runs with the options of jvm_options.py."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
from pathlib import Path

import pytest

import lancepart
import lancepart.jar
import jvm_options
from differential import ICEBERG_CATALOG, ICEBERG_JAR, ICEBERG_SPARK_LINE

_counter = itertools.count()

jvm_options.set_java_tool_options()
_ARCHIVE_WRITER = pytest.StashKey[subprocess.Popen | None]()
DURATIONS = Path(__file__).resolve().parents[1] / "bench" / "results" / "test-durations.json"


def pytest_configure(config):
    # once per run: in the process that starts pytest-xdist's workers, or the only one
    if not hasattr(config, "workerinput"):
        config.stash[_ARCHIVE_WRITER] = jvm_options.start_archive()


def pytest_unconfigure(config):
    jvm_options.stop_archive(config.stash.get(_ARCHIVE_WRITER, None))


def pytest_collection_modifyitems(items):
    """The slowest modules first, by the per-test times of a committed run (modules it lacks
    last), so that pytest-xdist's workers, handed whole modules in this order (`make test`'s
    --dist loadfile --no-loadscope-reorder), finish together rather than one waiting on the other."""
    suites = json.loads(DURATIONS.read_text())["pytest"]["suites"]
    items.sort(key=lambda item: -suites.get(item.path.name, {}).get("seconds", 0))


@pytest.fixture(scope="session")
def root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("warehouse")


def iceberg_conf() -> dict[str, str]:
    """The Iceberg runtime jar after the plugin's in `spark.jars`, Iceberg's SQL extension (which
    `lancepart.spark_session` puts before lancepart's, so that each parses its own tables' ALTER
    TABLE ... PARTITION FIELD) and catalog `ice`; nothing when the jar is not fetched (`make test`
    fetches it).

    `ice` is Iceberg's in-memory catalog, whose tables keep their metadata and data files in the
    JVM's memory: the same Spark integration, commits and readers as any Iceberg catalog. A Hadoop
    catalog on local disk had Hadoop's local file system fork `chmod` for every file Iceberg wrote
    (6,081 processes in the differential suite alone, which took 254-264 CPU seconds and 179-184 s
    with one worker instead of 218 and 151).

    Nothing either in an environment of another Spark line than the jar's (the other lines' core
    slice, LINE_SUITES in the Makefile), which has no Iceberg suite."""
    if not ICEBERG_JAR.is_file() or lancepart.jar.spark_line() != ICEBERG_SPARK_LINE:
        return {}
    return {
        "spark.jars": f"{lancepart.jar_path()},{ICEBERG_JAR}",
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        f"spark.sql.catalog.{ICEBERG_CATALOG}": "org.apache.iceberg.spark.SparkCatalog",
        f"spark.sql.catalog.{ICEBERG_CATALOG}.catalog-impl": "org.apache.iceberg.inmemory.InMemoryCatalog",
    }


@pytest.fixture(scope="session")
def spark(root):
    session = lancepart.spark_session(
        str(root),
        **{
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "4",
            "spark.sql.session.timeZone": "UTC",
            # the tests' tables are small: report their partitioning for storage-partitioned joins anyway
            "spark.sql.catalog.lance.spj.min-bytes-per-partition-key": "0",
            "spark.driver.memory": os.environ.get("LANCEPART_TEST_DRIVER_MEMORY", "2g"),
            **iceberg_conf(),
        },
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def iceberg(spark):
    """Catalog `ice` of the session (iceberg_conf), for the suites that compare with Iceberg."""
    if not ICEBERG_JAR.is_file():
        pytest.fail(f"Iceberg runtime jar not found at {ICEBERG_JAR}: run `make test` or `make bench` to fetch it")
    return ICEBERG_CATALOG


@pytest.fixture(scope="session")
def admin(spark):
    return lancepart.Admin(spark)


@pytest.fixture
def ns(spark) -> str:
    """A new namespace `lance.t<N>`; tables of a test live in it."""
    name = f"t{next(_counter)}"
    spark.sql(f"CREATE NAMESPACE lance.{name}")
    return name


def local_relation(spark, rows, schema):
    """`rows` of `schema` as a DataFrame that Spark holds on the driver (a LocalRelation), the
    values exactly as `createDataFrame` makes them. A DataFrame of Python rows runs Python worker
    tasks every time a query reads it (about 0.4 CPU seconds a query on 2 cores); this one runs
    them once, here."""
    python_rows = spark.createDataFrame(rows, schema)
    if not hasattr(type(python_rows), "toArrow"):  # Spark 3.5: computed once, kept by the executors
        return python_rows.localCheckpoint()
    return spark.createDataFrame(python_rows.toArrow(), python_rows.schema)


def scan_description(spark, query: str) -> str:
    """The lancepart scan's line of EXPLAIN output for ``query``."""
    plan = spark.sql(f"EXPLAIN {query}").collect()[0][0]
    lines = [line for line in plan.splitlines() if "BatchScan" in line]
    assert lines, plan
    return lines[0]


def tables_scanned(spark, query: str) -> tuple[int, int]:
    """(k, n) from the scan's ``tables=k/n``."""
    desc = scan_description(spark, query)
    k, n = desc.split("tables=")[1].split(",")[0].split("/")
    return int(k), int(n)


@pytest.fixture(scope="session")
def s3():
    """An S3-compatible server on loopback for the whole run (see s3_server.py)."""
    from s3_server import s3_server

    with s3_server() as server:
        yield server


@pytest.fixture(scope="session")
def s3_catalog(spark, s3) -> str:
    """Catalog `s3`, rooted at s3://<test bucket>/warehouse on the loopback server."""
    from s3_server import BUCKET

    lancepart.register_catalog(spark, "s3", f"s3://{BUCKET}/warehouse", s3.storage_options())
    return "s3"


@pytest.fixture(scope="session")
def azure():
    """An Azure Blob service on loopback for the whole run (see azure_server.py)."""
    from azure_server import azure_server

    with azure_server() as server:
        yield server


@pytest.fixture(scope="session")
def azure_catalog(spark, azure) -> str:
    """Catalog `az`, rooted at az://<test container>/warehouse on the loopback service."""
    from azure_server import CONTAINER

    lancepart.register_catalog(spark, "az", f"az://{CONTAINER}/warehouse", azure.storage_options())
    return "az"
