"""Spark Connect: a Spark Connect server with the plugin runs as a local process on loopback, and a
client process (no py4j there) writes, reads with pruning, and runs the admin operations that are
SQL procedures, through `CALL` and through `lancepart.Admin`, progress bars included."""

import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pyspark

from lancepart import jar_path
from lancepart.session import catalog_conf

CLIENT = textwrap.dedent("""
    import datetime as dt
    import sys
    from pyspark.sql import SparkSession
    import lancepart
    spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
    spark.sql("CREATE NAMESPACE lance.cn")
    spark.sql("CREATE TABLE lance.cn.t (id BIGINT, c STRING) PARTITIONED BY (c)")
    for _ in range(2):
        spark.sql("INSERT INTO lance.cn.t SELECT id, CAST(id % 3 AS STRING) FROM range(30)")
    print("RESULT", tuple(spark.sql("SELECT count(*), sum(id) FROM lance.cn.t WHERE c = '1'").first()))
    admin = lancepart.Admin(spark)
    print("VACUUM", admin.vacuum("cn.t", progress=True))
    print("REPAIR", admin.repair("cn.t", progress=True))
    print("COMPACT", admin.rewrite_data_files("cn.t")["rewritten_data_files_count"])
    try:
        admin.vacuum("cn.t", older_than=dt.timedelta(0))
    except lancepart.LancepartError as e:
        print("REFUSED", str(e).splitlines()[0])
    print("AFTER", tuple(spark.sql("SELECT count(*), sum(id) FROM lance.cn.t").first()))
""")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_spark_connect_client_writes_reads_and_administers(tmp_path):
    port = free_port()
    jar = jar_path()
    conf = {**catalog_conf("lance", str(tmp_path / "warehouse")), "spark.connect.grpc.binding.address": "127.0.0.1",
            "spark.connect.grpc.binding.port": str(port), "spark.driver.extraClassPath": jar, "spark.ui.enabled": "false"}
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
        out = subprocess.run([sys.executable, "-c", CLIENT, f"sc://127.0.0.1:{port}"], capture_output=True, text=True,
                             timeout=600)
        ids = [i for i in range(30) if i % 3 == 1]
        assert f"RESULT ({2 * len(ids)}, {2 * sum(ids)})" in out.stdout, \
            f"exit {out.returncode}; client stderr:\n{out.stderr[-3000:]}\nserver log:\n{log()[-3000:]}"
        assert "VACUUM {'removed_directories': [], 'removed_files': []}" in out.stdout, out.stdout
        assert "REPAIR 0" in out.stdout, out.stdout
        assert "COMPACT 6" in out.stdout, out.stdout  # two fragments in each of three partition tables
        assert "less than 1 hour ago, would remove the files of writes still running" in out.stdout, out.stdout
        assert f"AFTER (60, {2 * sum(range(30))})" in out.stdout, out.stdout
        assert "repair cn.t" in out.stderr and "vacuum cn.t" in out.stderr, "progress bars: " + out.stderr[-2000:]
    finally:
        server.terminate()
        server.wait(timeout=60)
