"""A Spark session started without lancepart's helpers, before lancepart is asked for a catalog in
it (a notebook's session, a job launched with `--jars`): `register_catalog` and `spark_session`
use it when its JVM loads the plugin and refuse it, saying why, when it cannot. Each session is a
JVM of its own, so each runs in a subprocess."""

import subprocess
import sys
import textwrap

import pytest

from differential import ICEBERG_SPARK_LINE as PRIMARY
from lancepart.jar import plugin_conf, spark_line

SCRIPT = textwrap.dedent("""
    import sys
    import lancepart
    from pyspark.sql import SparkSession
    jars, root, helper = sys.argv[1:]
    builder = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
    spark = (builder.config("spark.jars", jars) if jars else builder).getOrCreate()
    try:
        if helper == "register_catalog":
            lancepart.register_catalog(spark, "lance", root)
        else:
            spark = lancepart.spark_session(root)
    except lancepart.LancepartError as e:
        print("REFUSED", e)
        sys.exit()
    spark.sql("CREATE NAMESPACE lance.ns")
    spark.sql("CREATE TABLE lance.ns.t (id BIGINT, p STRING) PARTITIONED BY (p)")
    spark.sql("INSERT INTO lance.ns.t SELECT id, CAST(id % 3 AS STRING) FROM range(100)")
    print("RESULT", spark.sql("SELECT count(*), sum(id) FROM lance.ns.t WHERE p = '1'").collect()[0])
""")


def run(jars: str, root, helper: str) -> str:
    """The output of SCRIPT: a session started with ``jars`` in spark.jars, then lancepart's
    ``helper`` (register_catalog or spark_session) asked for catalog lance over ``root``."""
    out = subprocess.run([sys.executable, "-c", SCRIPT, jars, str(root), helper], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, f"exit {out.returncode}; stderr ends:\n{out.stderr[-4000:]}"
    return out.stdout


def test_the_plugin_jar_in_spark_jars_alone_serves_spark_4_and_is_refused_on_spark_3_5(tmp_path):
    if spark_line() not in ("3.5", PRIMARY):
        pytest.skip(f"Spark {spark_line()} loads the jar as {PRIMARY} does (a JVM each: make test's time)")
    # the jars lancepart's settings name: the checkout's jar (lance-core inside), or a wheel's with
    # lance-core's jars (the other lines' slices)
    stdout = run(plugin_conf()["spark.jars"], tmp_path, "register_catalog")
    if spark_line() == "3.5":  # Spark's Arrow 12 comes before lance-core's Arrow 18
        assert "REFUSED a Spark session is already running whose Arrow comes before lance-core's" in stdout, stdout
    else:
        ids = [i for i in range(100) if i % 3 == 1]
        assert f"RESULT Row(count(1)={len(ids)}, sum(id)={sum(ids)})" in stdout, stdout


def test_a_session_without_the_plugin_is_refused(tmp_path):
    if spark_line() != PRIMARY:
        pytest.skip("the check runs before any line's classes load; the primary line's run covers it")
    stdout = run("", tmp_path, "spark_session")
    assert "REFUSED a Spark session is already running without the lancepart plugin on its class path" in stdout, stdout
