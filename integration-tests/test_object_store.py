"""The core cases (namespaces, create, write, prune, crosscheck, vacuum, drop) on local disk and
on S3: the same tests against catalog `lance` (a local root) and catalog `s3` (s3://... on a
loopback S3 server). The S3 runs check the bucket's objects with boto3, not through lancepart."""

from __future__ import annotations

import datetime as dt
import itertools
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

import lancepart
from conftest import tables_scanned

_names = itertools.count()


@dataclass
class Backend:
    catalog: str
    objects: Callable[[str], list[str]]  # relative path under the catalog root -> files under it
    uri: Callable[[str], str]  # relative path under the catalog root -> its URI


@pytest.fixture(params=["local", "s3"])
def backend(request, root) -> Backend:
    if request.param == "local":
        def local_files(rel: str) -> list[str]:
            base = Path(root) / rel
            return sorted(str(p.relative_to(base)) for p in base.rglob("*") if p.is_file()) if base.exists() else []
        return Backend("lance", local_files, lambda rel: str(Path(root) / rel))
    catalog = request.getfixturevalue("s3_catalog")
    s3 = request.getfixturevalue("s3")
    from s3_server import BUCKET

    def s3_files(rel: str) -> list[str]:
        prefix = f"warehouse/{rel}/"
        return sorted(k[len(prefix):] for k in s3.keys(prefix) if k != prefix)
    return Backend(catalog, s3_files, lambda rel: f"s3://{BUCKET}/warehouse/{rel}")


@pytest.fixture
def bns(spark, backend) -> str:
    """A new namespace in the backend's catalog."""
    name = f"os{next(_names)}"
    spark.sql(f"CREATE NAMESPACE {backend.catalog}.{name}")
    return name


def test_namespaces(spark, backend, bns):
    cat = backend.catalog
    spark.sql(f"CREATE NAMESPACE {cat}.{bns}.inner")
    assert [r.namespace for r in spark.sql(f"SHOW NAMESPACES IN {cat}.{bns}").collect()] == [f"{bns}.inner"]
    assert bns in [r.namespace for r in spark.sql(f"SHOW NAMESPACES IN {cat}").collect()]
    spark.sql(f"DROP NAMESPACE {cat}.{bns}.inner")
    assert spark.sql(f"SHOW NAMESPACES IN {cat}.{bns}").count() == 0
    assert backend.objects(f"{bns}/inner") == []


def test_create_write_prune_crosscheck_drop(spark, backend, bns):
    t = f"{backend.catalog}.{bns}.events"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, country STRING, amount DOUBLE) PARTITIONED BY (country)")
    assert [r.tableName for r in spark.sql(f"SHOW TABLES IN {backend.catalog}.{bns}").collect()] == ["events"]
    spark.sql(f"""INSERT INTO {t} SELECT id, element_at(array('DE', 'FR', 'US'), CAST(id % 3 AS INT) + 1),
                  id * 1.5 FROM range(300)""")
    spark.sql(f"INSERT INTO {t} VALUES (1000, 'JP', 1.0)")

    assert spark.sql(f"SELECT count(*), sum(id) FROM {t}").collect()[0] == (301, sum(range(300)) + 1000)
    query = f"SELECT sum(amount) FROM {t} WHERE country = 'FR'"
    assert tables_scanned(spark, query) == (1, 4)
    assert spark.sql(query).collect()[0][0] == sum(i * 1.5 for i in range(300) if i % 3 == 1)
    assert lancepart.crosscheck(spark, t) == {"rows": 301, "tables": 4}
    assert lancepart.crosscheck(spark, t, where="country = 'FR'")["rows"] == 100

    files = backend.objects(f"{bns}/events")
    leaves = {f.split("/")[0] for f in files} - {"__manifest"}
    assert len(leaves) == 4 and any(f.startswith("__manifest/") for f in files)
    spark.sql(f"DROP TABLE {t}")
    assert backend.objects(f"{bns}/events") == []
    assert spark.sql(f"SHOW TABLES IN {backend.catalog}.{bns}").count() == 0


def test_vacuum_removes_an_orphan_leaf_directory(spark, backend, bns):
    t = f"{backend.catalog}.{bns}.t"
    spark.sql(f"CREATE TABLE {t} (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    kept = backend.objects(f"{bns}/t")
    orphan = "0badc0de_v1$0000000000000001$dataset"  # what a writer killed before its commit leaves
    import pyarrow as pa
    import lance

    uri, storage = lancepart.table_uri(spark, t)
    assert uri == backend.uri(f"{bns}/t")
    lance.write_dataset(pa.table({"id": [9], "p": ["z"]}), f"{uri}/{orphan}", storage_options=storage)
    time.sleep(0.05)  # file times are compared in milliseconds: a cutoff in the orphan's last millisecond keeps it
    removed = lancepart.Admin(spark, backend.catalog).vacuum(f"{bns}.t", older_than=dt.timedelta(0), retention_check=False)
    assert removed["removed_directories"] == [orphan]
    assert backend.objects(f"{bns}/t") == kept
    assert spark.sql(f"SELECT id FROM {t} ORDER BY id").collect() == [(1,), (2,)]


def test_a_plain_table_made_partitioned_moves_its_dataset_into_the_table(spark, backend, bns):
    """ALTER TABLE ... ADD PARTITION FIELD on a plain table: on S3 (no rename) every object of
    its dataset is copied into the partitioned table's directory, and removed once the table is
    partitioned."""
    t = f"{backend.catalog}.{bns}.t"
    spark.sql(f"CREATE TABLE {t} (id INT, p STRING)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    files = backend.objects(f"{bns}/t.lance")
    spark.sql(f"ALTER TABLE {t} ADD PARTITION FIELD p")
    spark.sql(f"INSERT INTO {t} VALUES (3, 'a')")
    assert backend.objects(f"{bns}/t.lance") == []
    [leaf] = {f.split("/")[0] for f in backend.objects(f"{bns}/t") if f.endswith("_v1$dataset/" + files[0])}
    assert backend.objects(f"{bns}/t/{leaf}") == files
    assert spark.sql(f"SELECT id FROM {t} WHERE p = 'a' ORDER BY id").collect() == [(1,), (3,)]
    assert lancepart.crosscheck(spark, t) == {"rows": 3, "tables": 2}


def test_directory_operations_on_s3(spark, s3_catalog, s3):
    """The S3 directory primitives lancepart's commit and vacuum use (list, move, delete),
    checked against boto3's view of the bucket."""
    from s3_server import BUCKET

    client = s3.client()
    for key in ["dirs/a/data/1.lance", "dirs/a/data/2.lance", "dirs/b/x", "dirs/top"]:
        client.put_object(Bucket=BUCKET, Key=key, Body=b"x")
    options = spark._jvm.org.apache.spark.api.python.PythonUtils.toScalaMap(s3.storage_options())
    lance_access = spark._jvm.lancepart.lance.LanceAccess(options)
    base = f"s3://{BUCKET}/dirs"
    dirs = spark._jvm.lancepart.storage.Directories.forRoot(base, lance_access, spark._jsc.hadoopConfiguration())
    assert dirs.getClass().getSimpleName() == "S3Directories"

    def listed(scala_seq) -> list:
        return list(spark._jvm.scala.jdk.javaapi.CollectionConverters.asJava(scala_seq))
    assert listed(dirs.childDirectories(base)) == ["a", "b"]
    assert sorted(f.name() for f in listed(dirs.files(f"{base}/a/data"))) == ["1.lance", "2.lance"]
    assert not dirs.exists(f"{base}/missing") and dirs.exists(f"{base}/a")
    dirs.move(f"{base}/a/data/1.lance", f"{base}/c/data/1.lance")
    assert s3.keys("dirs/") == ["dirs/a/data/2.lance", "dirs/b/x", "dirs/c/data/1.lance", "dirs/top"]
    assert dirs.delete(f"{base}/a") and not dirs.delete(f"{base}/a")
    assert s3.keys("dirs/") == ["dirs/b/x", "dirs/c/data/1.lance", "dirs/top"]
    dirs.mkdirs(f"{base}/empty")
    assert listed(dirs.childDirectories(base)) == ["b", "c", "empty"]
    assert not dirs.transferDirectory(f"{base}/c", f"{base}/b/copied"), "copied, not moved: S3 has no rename"
    assert s3.keys("dirs/") == ["dirs/b/copied/data/1.lance", "dirs/b/x", "dirs/c/data/1.lance", "dirs/empty/", "dirs/top"]
    with pytest.raises(Exception, match="already exists"):
        dirs.transferDirectory(f"{base}/empty", f"{base}/b")
