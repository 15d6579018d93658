"""The driver program of test_cluster.py: connects to a standalone cluster with the plugin jar in
`spark.jars` only, and runs a write, a pruned read, a crosscheck, a join and a compaction in each
catalog it is given (an s3:// root, an az:// root).
Prints one line `RESULT <json>` with what the test checks, by catalog.

    cluster_job.py <master url> <{catalog: [root, storage options]} as JSON>
"""

import json
import sys
import urllib.request

from pyspark.sql import SparkSession

import lancepart

master, catalogs = sys.argv[1], json.loads(sys.argv[2])
builder = (SparkSession.builder.master(master).appName("lancepart cluster test")
           .config("spark.jars", lancepart.jar_path())
           .config("spark.executor.memory", "1g").config("spark.executor.cores", "1").config("spark.cores.max", "2")
           .config("spark.driver.memory", "1g").config("spark.ui.port", "0")
           .config("spark.sql.shuffle.partitions", "4"))
for catalog, (root, storage) in catalogs.items():
    # its tables are small: report their partitioning for storage-partitioned joins anyway
    conf = {**lancepart.session.catalog_conf(catalog, root, storage),
            f"spark.sql.catalog.{catalog}.spj.min-bytes-per-partition-key": "0"}
    for key, value in conf.items():
        builder = builder.config(key, value)
for key, value in lancepart.session.SPJ_CONF.items():
    builder = builder.config(key, value)
spark = builder.getOrCreate()
spark.sparkContext.setLogLevel("ERROR")


def run(c: str) -> dict:
    spark.sql(f"CREATE NAMESPACE {c}.cluster")
    spark.sql(f"CREATE TABLE {c}.cluster.events (id BIGINT, country STRING, amount DOUBLE) PARTITIONED BY (country)")
    spark.sql(f"""INSERT INTO {c}.cluster.events
                  SELECT id, element_at(array('DE', 'FR', 'JP', 'US'), CAST(id % 4 AS INT) + 1), id / 10.0
                  FROM range(0, 20000, 1, 8)""")
    pruned = f"SELECT count(*), sum(id) FROM {c}.cluster.events WHERE country = 'JP'"
    plan = spark.sql(f"EXPLAIN {pruned}").collect()[0][0]

    spark.sql(f"CREATE TABLE {c}.cluster.a (id BIGINT, x BIGINT) PARTITIONED BY (bucket(8, id))")
    spark.sql(f"CREATE TABLE {c}.cluster.b (id BIGINT, y BIGINT) PARTITIONED BY (bucket(4, id))")
    spark.sql(f"INSERT INTO {c}.cluster.a SELECT id, id * 2 FROM range(0, 5000, 1, 4)")
    spark.sql(f"INSERT INTO {c}.cluster.b SELECT id * 3, id FROM range(0, 5000, 1, 4)")
    join = f"SELECT count(*), sum(x + y) FROM {c}.cluster.a JOIN {c}.cluster.b USING (id)"
    join_plan = spark.sql(f"EXPLAIN {join}").collect()[0][0]
    result = {
        "pruned": list(spark.sql(pruned).collect()[0]),
        "scan": next(line for line in plan.splitlines() if "tables=" in line),
        "crosscheck": lancepart.crosscheck(spark, f"{c}.cluster.events"),
        "join": list(spark.sql(join).collect()[0]),
        "join_shuffles": "hashpartitioning" in join_plan,  # the global aggregate above it exchanges to one partition
    }
    # a second fragment in every partition table, then a compaction whose rewrites run on the executors
    spark.sql(f"INSERT INTO {c}.cluster.events SELECT id + 20000, element_at(array('DE', 'FR', 'JP', 'US'), "
              "CAST(id % 4 AS INT) + 1), 0.0 FROM range(0, 20000, 1, 4)")
    result["compaction"] = spark.sql(
        f"CALL {c}.system.rewrite_data_files(table => 'cluster.events')").collect()[0].asDict()
    result["compacted"] = list(spark.sql(f"SELECT count(*), count(DISTINCT id), sum(id) FROM {c}.cluster.events").first())
    return result


results = {c: run(c) for c in catalogs}
executors = json.load(urllib.request.urlopen(
    f"{spark.sparkContext.uiWebUrl}/api/v1/applications/{spark.sparkContext.applicationId}/executors"))
results["executor_tasks"] = {e["id"]: [e["totalTasks"], e["failedTasks"]] for e in executors if e["id"] != "driver"}
print("RESULT " + json.dumps(results), flush=True)
spark.stop()
