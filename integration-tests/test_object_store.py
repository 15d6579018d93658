"""The core cases (namespaces, create, write, prune, crosscheck, vacuum, drop) on local disk, on S3
and on Azure Blob Storage: the same tests against catalog `lance` (a local root), catalog `s3`
(s3://... on a loopback S3 server) and catalog `az` (az://... on a loopback Azurite); then the
row-level commands, maintenance, repair and concurrent commits on both object stores. The object
stores' runs check the stored objects with boto3 and Azure's SDK, not through lancepart."""

from __future__ import annotations

import datetime as dt
import itertools
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import lance
import pyarrow as pa
import pytest

import lancepart
from conftest import tables_scanned

_names = itertools.count()


@dataclass
class Backend:
    catalog: str
    objects: Callable[[str], list[str]]  # relative path under the catalog root -> files under it
    uri: Callable[[str], str]  # relative path under the catalog root -> its URI


def object_store(request, kind: str) -> Backend:
    """The catalog on the loopback S3 server or Azurite, each rooted at `warehouse/` of its bucket
    or container; `objects` lists with the store's own client."""
    if kind == "s3":
        from s3_server import BUCKET

        catalog, server = request.getfixturevalue("s3_catalog"), request.getfixturevalue("s3")
        listed, base = server.keys, f"s3://{BUCKET}/warehouse"
    else:
        from azure_server import CONTAINER

        catalog, server = request.getfixturevalue("azure_catalog"), request.getfixturevalue("azure")
        listed, base = server.blobs, f"az://{CONTAINER}/warehouse"

    def files(rel: str) -> list[str]:
        prefix = f"warehouse/{rel}/"
        return sorted(k[len(prefix):] for k in listed(prefix) if k != prefix)
    return Backend(catalog, files, lambda rel: f"{base}/{rel}")


@pytest.fixture(params=["local", "s3", "azure"])
def backend(request, root) -> Backend:
    if request.param != "local":
        return object_store(request, request.param)

    def local_files(rel: str) -> list[str]:
        base = Path(root) / rel
        return sorted(str(p.relative_to(base)) for p in base.rglob("*") if p.is_file()) if base.exists() else []
    return Backend("lance", local_files, lambda rel: str(Path(root) / rel))


@pytest.fixture(params=["s3", "azure"])
def remote(request) -> Backend:
    return object_store(request, request.param)


def new_namespace(spark, backend: Backend) -> str:
    name = f"os{next(_names)}"
    spark.sql(f"CREATE NAMESPACE {backend.catalog}.{name}")
    return name


@pytest.fixture
def bns(spark, backend) -> str:
    """A new namespace in the backend's catalog."""
    return new_namespace(spark, backend)


def test_namespaces(spark, backend, bns):
    cat = backend.catalog
    spark.sql(f"CREATE NAMESPACE {cat}.{bns}.inner")
    assert [r.namespace for r in spark.sql(f"SHOW NAMESPACES IN {cat}.{bns}").collect()] == [f"{bns}.inner"]
    assert bns in [r.namespace for r in spark.sql(f"SHOW NAMESPACES IN {cat}").collect()]
    spark.sql(f"DROP NAMESPACE {cat}.{bns}.inner")
    assert spark.sql(f"SHOW NAMESPACES IN {cat}.{bns}").count() == 0
    assert backend.objects(bns) == [], "the namespace's directory (on an object store, its marker) is gone"


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


@pytest.mark.parametrize("kind", ["s3", "azure"])
def test_directory_operations(spark, request, kind):
    """The directory primitives lancepart's catalog, commits and vacuum use (list, move, delete,
    create), checked against the store's own client: boto3, Azure's SDK. Names hold what
    lancepart's leaf directories hold ('$') and what users' partition values may ('é', ' ')."""
    if kind == "s3":
        from s3_server import BUCKET

        server = request.getfixturevalue("s3")
        base, listed, expected_class = f"s3://{BUCKET}/dirs", server.keys, "S3Directories"
        put = lambda key: server.client().put_object(Bucket=BUCKET, Key=key, Body=b"x")  # noqa: E731
        marker = "dirs/empty/"  # S3: an empty object named like the prefix
    else:
        from azure_server import CONTAINER

        server = request.getfixturevalue("azure")
        base, listed, expected_class = f"az://{CONTAINER}/dirs", server.blobs, "AzureDirectories"
        container = server.client().get_container_client(CONTAINER)
        put = lambda key: container.upload_blob(key, b"x")  # noqa: E731
        marker = "dirs/empty"  # Azure: an empty blob with metadata hdi_isfolder=true
    for key in ["dirs/a/data/1.lance", "dirs/a/data/2 é.lance", "dirs/b/x", "dirs/top", "dirs/v1$0$dataset/y"]:
        put(key)
    options = spark._jvm.org.apache.spark.api.python.PythonUtils.toScalaMap(server.storage_options())
    lance_access = spark._jvm.lancepart.lance.LanceAccess(options)
    dirs = spark._jvm.lancepart.storage.Directories.forRoot(base, lance_access, spark._jsc.hadoopConfiguration())
    assert dirs.getClass().getSimpleName() == expected_class

    def listed_by_lancepart(scala_seq) -> list:
        return list(spark._jvm.scala.jdk.javaapi.CollectionConverters.asJava(scala_seq))
    assert listed_by_lancepart(dirs.childDirectories(base)) == ["a", "b", "v1$0$dataset"]
    assert sorted(f.name() for f in listed_by_lancepart(dirs.files(f"{base}/a/data"))) == ["1.lance", "2 é.lance"]
    assert not dirs.exists(f"{base}/missing") and dirs.exists(f"{base}/a") and dirs.exists(f"{base}/v1$0$dataset")
    dirs.move(f"{base}/a/data/2 é.lance", f"{base}/c/data/2 é.lance")
    assert listed("dirs/") == ["dirs/a/data/1.lance", "dirs/b/x", "dirs/c/data/2 é.lance", "dirs/top", "dirs/v1$0$dataset/y"]
    assert dirs.delete(f"{base}/a") and not dirs.delete(f"{base}/a")
    assert dirs.delete(f"{base}/v1$0$dataset")
    assert listed("dirs/") == ["dirs/b/x", "dirs/c/data/2 é.lance", "dirs/top"]
    dirs.mkdirs(f"{base}/empty")
    assert dirs.exists(f"{base}/empty") and listed_by_lancepart(dirs.childDirectories(base)) == ["b", "c", "empty"]
    assert listed_by_lancepart(dirs.files(base))[0].name() == "top" and len(listed_by_lancepart(dirs.files(base))) == 1
    assert not dirs.transferDirectory(f"{base}/c", f"{base}/b/copied"), "copied, not moved: no rename"
    assert listed("dirs/") == sorted(["dirs/b/copied/data/2 é.lance", "dirs/b/x", "dirs/c/data/2 é.lance", marker,
                                      "dirs/top"])
    with pytest.raises(Exception, match="already exists"):
        dirs.transferDirectory(f"{base}/empty", f"{base}/b")
    assert dirs.delete(f"{base}/empty") and not dirs.exists(f"{base}/empty")
    assert marker not in listed("dirs/")


@pytest.mark.parametrize("kind, mode", [("azure", "weak"), ("s3", "strong")])
def test_row_level_commands_maintenance_and_repair(spark, request, kind, mode):
    """DELETE, UPDATE (rows moving partitions) and MERGE, compaction, expire_snapshots and
    rewrite_manifests, then repair after another client rewrote __manifest without its partition
    columns (as pylance 14's DirectoryNamespace does): rows as Python computes them after each.
    Each store in one transaction mode: the modes differ in what Lance commits, not in how the store is reached."""
    remote = object_store(request, kind)
    bns = new_namespace(spark, remote)
    t, name = f"{remote.catalog}.{bns}.t", f"{bns}.t"
    admin = lancepart.Admin(spark, remote.catalog)
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING, v INT) PARTITIONED BY (p) "
              f"TBLPROPERTIES ('transaction.mode' = '{mode}')")
    expected = {}
    for start in (0, 10):
        spark.sql(f"INSERT INTO {t} SELECT id, element_at(array('a', 'b', 'c'), CAST(id % 3 AS INT) + 1), "
                  f"CAST(id AS INT) FROM range({start}, {start + 10})")
        expected |= {i: ("abc"[i % 3], i) for i in range(start, start + 10)}

    def table_rows():
        return {r.id: (r.p, r.v) for r in spark.table(t).collect()}

    spark.sql(f"DELETE FROM {t} WHERE id % 5 = 0")
    expected = {i: r for i, r in expected.items() if i % 5}
    spark.sql(f"UPDATE {t} SET p = 'd', v = -v WHERE p = 'a' AND id > 10")
    expected |= {i: ("d", -v) for i, (p, v) in expected.items() if p == "a" and i > 10}
    spark.sql(f"MERGE INTO {t} x USING (SELECT * FROM VALUES (1L, 100), (99L, 99) AS s(id, v)) s ON x.id = s.id "
              "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT (id, p, v) VALUES (s.id, 'e', s.v)")
    expected |= {1: (expected[1][0], 100), 99: ("e", 99)}
    assert table_rows() == expected

    files_before = len(remote.objects(f"{bns}/t"))
    admin.rewrite_data_files(name)
    time.sleep(0.05)  # versions are expired by commit time in milliseconds
    expired = admin.expire_snapshots(name, older_than=dt.datetime.now())
    assert expired["expired_versions_count"] > 0, expired
    assert expired["deleted_partition_tables_count"] + expired["deleted_files_count"] > 0, expired
    admin.rewrite_manifests(name)
    assert table_rows() == expected
    assert len(remote.objects(f"{bns}/t")) < files_before, "expired versions' files are gone from the store"

    uri, storage = lancepart.table_uri(spark, t)
    manifest = lance.dataset(f"{uri}/__manifest", storage_options=storage)
    manifest.drop_columns([c for c in manifest.schema.names if c.startswith("partition_field_")] + ["read_version"])
    with pytest.raises(Exception, match=r"Admin.repair"):
        spark.table(t).collect()
    assert admin.repair(name) > 0
    assert table_rows() == expected
    assert tables_scanned(spark, f"SELECT * FROM {t} WHERE p = 'e'") == (1, 5)
    lancepart.crosscheck(spark, t)


def test_concurrent_commits(spark, remote):
    """Four writers at once on one table, into partitions they share and one each: the object
    store's conditional puts decide which commit of a version wins, the others retry; no row is
    lost or doubled."""
    bns = new_namespace(spark, remote)
    t = f"{remote.catalog}.{bns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING) PARTITIONED BY (p)")
    errors = []

    def write(writer: int):
        try:
            for batch in range(3):
                spark.sql(f"INSERT INTO {t} SELECT {writer} * 1000 + {batch} * 100 + id, "
                          f"element_at(array('shared', 'w{writer}'), CAST(id % 2 AS INT) + 1) FROM range(10)")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    ids = sorted(r.id for r in spark.table(t).collect())
    assert ids == sorted(w * 1000 + b * 100 + i for w in range(4) for b in range(3) for i in range(10))
    assert lancepart.crosscheck(spark, t) == {"rows": 120, "tables": 5}


def test_azure_listings_take_every_page(spark, azure):
    """The Blob service returns a listing a page at a time (5,000 entries at most): with pages of
    2, every operation that lists still sees every blob and directory."""
    from azure_server import CONTAINER

    container = azure.client().get_container_client(CONTAINER)
    names = [f"pages/d/f{i}" for i in range(5)] + [f"pages/d/sub{i}/x" for i in range(3)]
    for name in names:
        container.upload_blob(name, b"x")
    options = spark._jvm.org.apache.spark.api.python.PythonUtils.toScalaMap(azure.storage_options())
    storage = spark._jvm.lancepart.storage
    blobs = storage.AzureBlobs.fromOptions(spark._jvm.scala.Option.empty(), options)
    dirs = storage.AzureDirectories(storage.AzureBlobs(blobs.account(), blobs.service(), blobs.credential(), 2))
    base = f"az://{CONTAINER}/pages/d"

    def listed(scala_seq) -> list:
        return list(spark._jvm.scala.jdk.javaapi.CollectionConverters.asJava(scala_seq))
    assert listed(dirs.childDirectories(base)) == ["sub0", "sub1", "sub2"]
    assert sorted(f.name() for f in listed(dirs.files(base))) == [f"f{i}" for i in range(5)]
    assert dirs.lastModified(base) > 0 and dirs.exists(base)
    assert dirs.delete(base) and azure.blobs("pages/") == []
