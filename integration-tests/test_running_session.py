"""The plugin jar alone, through `spark.jars` and nothing else, runs a write and a read in a fresh
Spark (its own JVM, so it runs in a subprocess)."""

import subprocess
import sys
import textwrap

from lancepart import jar_path

SCRIPT = textwrap.dedent("""
    import sys
    from pyspark.sql import SparkSession
    jar, root = sys.argv[1], sys.argv[2]
    spark = (SparkSession.builder.master("local[2]").config("spark.jars", jar)
             .config("spark.sql.catalog.lance", "lancepart.spark.PartitionedCatalog")
             .config("spark.sql.catalog.lance.root", root)
             .config("spark.ui.enabled", "false").getOrCreate())
    spark.sql("CREATE NAMESPACE lance.ns")
    spark.sql("CREATE TABLE lance.ns.t (id BIGINT, p STRING) PARTITIONED BY (p)")
    spark.sql("INSERT INTO lance.ns.t SELECT id, CAST(id % 3 AS STRING) FROM range(100)")
    print("RESULT", spark.sql("SELECT count(*), sum(id) FROM lance.ns.t WHERE p = '1'").collect()[0])
""")


def test_spark_jars_alone_loads_the_plugin(tmp_path):
    out = subprocess.run([sys.executable, "-c", SCRIPT, jar_path(), str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    ids = [i for i in range(100) if i % 3 == 1]
    assert f"RESULT Row(count(1)={len(ids)}, sum(id)={sum(ids)})" in out.stdout, \
        f"exit {out.returncode}; stderr begins:\n{out.stderr[:4000]}\n...\nends:\n{out.stderr[-2000:]}"
