"""Spark Connect: a Spark Connect server with the plugin on its class path runs as a local process on
loopback, and a client process (no py4j there) connects with `lancepart.spark_session(remote=...)`
and runs DDL with every transform, writes, pruned reads, UPDATE, DELETE and MERGE INTO, crosscheck
(its pylance side in the client), ALTER TABLE ... ADD PARTITION FIELD, every `lancepart.Admin` method (progress bars included), a
storage-partitioned join, a streaming write and a streaming read."""

import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pyspark

from lancepart import jar_path

CLIENT = textwrap.dedent("""
    import datetime as dt
    import sys
    import time
    import lancepart

    url, root = sys.argv[1], sys.argv[2]
    spark = lancepart.spark_session(root, remote=url, **{"spark.sql.catalog.lance.spj.min-bytes-per-partition-key": "0"})
    admin = lancepart.Admin(spark)

    def step(name, got, expected):
        assert got == expected, f"{name}: got {got!r}, expected {expected!r}"
        print("OK", name, flush=True)

    spark.sql("CREATE NAMESPACE lance.cn")
    # every transform (hours(ts) adds the year, month, day and hour fields), two on one column, and an
    # expression field: Admin.create_table
    described = admin.create_table("cn.e", "id BIGINT, ts TIMESTAMP, s STRING, n INT", [
        "hours(ts)", "bucket(4, id)", "truncate(2, s)", "s",
        {"field_id": "m", "expression": "col0 % 5", "sources": ["n"], "result_type": "int"}])
    step("create_table", [f["transform"].split("(")[0] for f in described["partition_fields"]],
         ["year", "month", "day", "hour", "bucket", "truncate", "identity", "expression 'col0 % 5'"])
    # every row its own partition: (year, month, day, hour) differ across the 40 rows
    rows = [(i, dt.datetime(2024 + i % 2, 1 + i % 12, 1 + i % 28, i % 24), f"s{i % 4}x", i) for i in range(40)]
    spark.createDataFrame(rows, "id BIGINT, ts TIMESTAMP, s STRING, n INT").writeTo("lance.cn.e").append()
    step("read", tuple(spark.sql("SELECT count(*), sum(id) FROM lance.cn.e").first()), (40, sum(range(40))))
    pruned = "SELECT id FROM lance.cn.e WHERE s = 's1x' AND ts >= TIMESTAMP '2025-01-01 00:00:00'"
    step("pruned read", sorted(r.id for r in spark.sql(pruned).collect()), [i for i in range(40) if i % 4 == 1])
    step("pruned plan", "tables=10/40" in spark.sql(f"EXPLAIN {pruned}").first()[0], True)
    step("partitions", sorted(p["row_count"] for p in admin.partitions("cn.e")), [1] * 40)
    spark.sql("UPDATE lance.cn.e SET n = n + 100 WHERE id < 5")
    spark.sql("DELETE FROM lance.cn.e WHERE id >= 35")
    spark.createDataFrame([(1, dt.datetime(2030, 1, 1), "zz", 7), (90, dt.datetime(2030, 1, 1), "zz", 8)],
                          "id BIGINT, ts TIMESTAMP, s STRING, n INT").createOrReplaceTempView("src")
    spark.sql(\"\"\"MERGE INTO lance.cn.e t USING src ON t.id = src.id
                 WHEN MATCHED THEN UPDATE SET n = src.n WHEN NOT MATCHED THEN INSERT *\"\"\")
    step("row-level", sorted(tuple(r) for r in spark.sql("SELECT id, n FROM lance.cn.e WHERE id < 5 OR id = 90").collect()),
         [(0, 100), (1, 7), (2, 102), (3, 103), (4, 104), (90, 8)])
    step("crosscheck", lancepart.crosscheck(spark, "lance.cn.e")["rows"], 36)
    step("evolve", admin.evolve_partition_spec("cn.e", ["bucket(2, id)"])["current_spec_id"], 2)
    for _ in range(2):  # two fragments in one partition table of spec 2
        spark.sql("INSERT INTO lance.cn.e VALUES (200, TIMESTAMP '2031-01-01 00:00:00', 'q', 1)")
    step("describe", admin.describe("cn.e")["specs"]["2"]["fields"][0]["transform"]["type"], "bucket")
    spark.sql("ALTER TABLE lance.cn.e ADD PARTITION FIELD truncate(3, s) AS s3")
    step("add partition field", [f["field_id"] for f in admin.describe("cn.e")["specs"]["3"]["fields"]][1:], ["s3"])
    step("describe_namespace", sorted(admin.describe_namespace("cn.e", ["v2"])["properties"]), ["partition_spec"])
    step("repair", admin.repair("cn.e", progress=True), 0)
    step("vacuum", admin.vacuum("cn.e", progress=True), {"removed_directories": [], "removed_files": []})
    try:
        admin.vacuum("cn.e", older_than=dt.timedelta(0))
    except lancepart.LancepartError as e:
        step("vacuum refused", "less than 1 hour ago, would remove the files of writes still running" in str(e), True)
    step("rewrite_data_files", admin.rewrite_data_files("cn.e", where="id = 200")["rewritten_data_files_count"], 2)
    step("rewrite_manifests", admin.rewrite_manifests("cn.e")["added_fragments_count"], 1)
    # a strong-mode table: rollback and expiry
    admin.create_table("cn.s", "id BIGINT, c STRING", ["c"], {"transaction.mode": "strong"})
    spark.sql("INSERT INTO lance.cn.s VALUES (1, 'a')")
    version = admin.describe("cn.s")["manifest_version"]
    spark.sql("INSERT INTO lance.cn.s VALUES (2, 'b')")
    step("rollback_to_version", admin.rollback_to_version("cn.s", version)["restored_version"], version)
    step("rolled back", [tuple(r) for r in spark.sql("SELECT * FROM lance.cn.s").collect()], [(1, "a")])
    time.sleep(0.1)
    mark = dt.datetime.now(dt.timezone.utc)
    time.sleep(0.1)
    spark.sql("INSERT INTO lance.cn.s VALUES (3, 'c')")
    admin.rollback_to_timestamp("cn.s", mark)
    step("rollback_to_timestamp", [tuple(r) for r in spark.sql("SELECT * FROM lance.cn.s").collect()], [(1, "a")])
    step("expire_snapshots", admin.expire_snapshots("cn.s", older_than=dt.datetime.now(dt.timezone.utc),
                                                    retain_last=1)["expired_versions_count"] > 0, True)
    # a storage-partitioned join: both sides bucketed alike, no shuffle
    for t in ("l", "r"):
        spark.sql(f"CREATE TABLE lance.cn.{t} (id BIGINT, v STRING) PARTITIONED BY (bucket(4, id))")
        spark.sql(f"INSERT INTO lance.cn.{t} SELECT id, CAST(id AS STRING) FROM range(100)")
    joined = spark.sql("SELECT count(*) FROM lance.cn.l JOIN lance.cn.r USING (id)")
    step("spj rows", joined.first()[0], 100)
    plan = spark.sql("EXPLAIN SELECT count(*) FROM lance.cn.l JOIN lance.cn.r USING (id)").first()[0]
    step("spj without shuffle", ("Exchange hashpartitioning" in plan, "tables=4/4" in plan), (False, True))
    # a stream of JSON files appended by the server, twice: the second run appends the new file only
    import json, os
    source, checkpoint = root + "-stream", root + "-checkpoint"
    os.makedirs(source)
    spark.sql("CREATE TABLE lance.cn.events (id BIGINT, c STRING) PARTITIONED BY (c)")
    for n in range(2):
        with open(f"{source}/.{n}.json", "w") as out:
            out.writelines(json.dumps({"id": n * 10 + i, "c": f"c{i % 2}"}) + "\\n" for i in range(4))
        os.rename(f"{source}/.{n}.json", f"{source}/{n}.json")
        (spark.readStream.schema("id BIGINT, c STRING").json(source).writeStream
         .option("checkpointLocation", checkpoint).trigger(availableNow=True).toTable("lance.cn.events")
         .awaitTermination())
    step("stream", sorted(r.id for r in spark.table("lance.cn.events").collect()), [0, 1, 2, 3, 10, 11, 12, 13])
    # the table read as a stream, at most 3 rows a micro-batch, twice: the second run reads the new rows only
    spark.sql("CREATE TABLE lance.cn.events_copy (id BIGINT, c STRING) PARTITIONED BY (c)")
    def copy_events():
        (spark.readStream.option("streaming-max-rows-per-micro-batch", 3).table("lance.cn.events").writeStream
         .option("checkpointLocation", checkpoint + "-copy").trigger(availableNow=True)
         .toTable("lance.cn.events_copy").awaitTermination())
    copy_events()
    spark.sql("INSERT INTO lance.cn.events VALUES (20, 'c0'), (21, 'c2')")
    copy_events()
    step("read stream", sorted(r.id for r in spark.table("lance.cn.events_copy").collect()),
         [0, 1, 2, 3, 10, 11, 12, 13, 20, 21])
    step("drop_table", (admin.drop_table("cn.s"), admin.drop_table("cn.s")), (True, False))
    print("DONE", flush=True)
""")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


STEPS = ["create_table", "read", "pruned read", "pruned plan", "partitions", "row-level", "crosscheck", "evolve",
         "describe", "add partition field", "describe_namespace", "repair", "vacuum", "vacuum refused", "rewrite_data_files",
         "rewrite_manifests", "rollback_to_version", "rolled back", "rollback_to_timestamp", "expire_snapshots", "spj rows",
         "spj without shuffle", "stream", "read stream", "drop_table"]


def test_a_spark_connect_client_runs_ddl_writes_reads_and_every_admin_method(tmp_path):
    port = free_port()
    jar = jar_path()
    # the server has the plugin on its class path (its SQL extension loads from the jar, unnamed) and
    # no catalog: lancepart.spark_session(remote=...) sets the catalog
    conf = {"spark.connect.grpc.binding.address": "127.0.0.1", "spark.connect.grpc.binding.port": str(port),
            "spark.driver.extraClassPath": jar, "spark.ui.enabled": "false"}
    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    server = subprocess.Popen(
        [str(submit), "--master", "local[2]", "--jars", jar, *[a for k, v in conf.items() for a in ("--conf", f"{k}={v}")],
         "--class", "org.apache.spark.sql.connect.service.SparkConnectServer", "spark-internal"],
        stdout=subprocess.DEVNULL, stderr=open(tmp_path / "server.log", "w"))
    try:
        deadline = time.time() + 180
        while time.time() < deadline and server.poll() is None:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(1)
        log = (tmp_path / "server.log").read_text
        assert server.poll() is None, f"the Spark Connect server exited:\n{log()[-3000:]}"
        out = subprocess.run([sys.executable, "-c", CLIENT, f"sc://127.0.0.1:{port}", str(tmp_path / "warehouse")],
                             capture_output=True, text=True, timeout=900)
        done = [line[3:] for line in out.stdout.splitlines() if line.startswith("OK ")]
        assert done == STEPS and "DONE" in out.stdout, \
            f"exit {out.returncode}; steps done {done}; client stderr:\n{out.stderr[:2500]}\n...\n{out.stderr[-1500:]}"
        assert "repair cn.e" in out.stderr and "vacuum cn.e" in out.stderr, "progress bars: " + out.stderr[-2000:]
    finally:
        server.terminate()
        server.wait(timeout=60)
