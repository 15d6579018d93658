"""SparkSession setup: the plugin jar plus a ``spark.sql.catalog.<name>`` entry."""

from __future__ import annotations

from pyspark.sql import SparkSession

from lancepart.jar import jar_path

CATALOG_CLASS = "lancepart.spark.PartitionedCatalog"

#: Spark settings for storage-partitioned joins over partitions that lancepart scans report
#: (bucket(N) with bucket(M) reduce to their common divisor; join keys may be a subset of them).
SPJ_CONF = {
    "spark.sql.sources.v2.bucketing.enabled": "true",
    "spark.sql.sources.v2.bucketing.pushPartValues.enabled": "true",
    "spark.sql.sources.v2.bucketing.partiallyClusteredDistribution.enabled": "false",
    "spark.sql.sources.v2.bucketing.allowCompatibleTransforms.enabled": "true",
    "spark.sql.sources.v2.bucketing.allowJoinKeysSubsetOfPartitionKeys.enabled": "true",
    "spark.sql.requireAllClusterKeysForCoPartition": "false",
}


def configure(builder: SparkSession.Builder, root: str, catalog: str = "lance",
              storage: dict[str, str] | None = None) -> SparkSession.Builder:
    """Adds the jar and the catalog ``catalog`` rooted at ``root`` to ``builder``.

    ``storage`` entries become ``spark.sql.catalog.<catalog>.storage.<key>`` (Lance object-store
    options). The jar also goes on the driver and executor class paths: Lance's native code looks
    up Java classes from its own threads, which only see the JVM's class path. ``SPJ_CONF`` is
    set too (settings given later on the builder override it).
    """
    jar = jar_path()
    builder = (builder.config("spark.jars", jar)
               .config("spark.driver.extraClassPath", jar)
               .config("spark.executor.extraClassPath", jar)
               .config(f"spark.sql.catalog.{catalog}", CATALOG_CLASS)
               .config(f"spark.sql.catalog.{catalog}.root", root))
    for key, value in (storage or {}).items():
        builder = builder.config(f"spark.sql.catalog.{catalog}.storage.{key}", value)
    for key, value in SPJ_CONF.items():
        builder = builder.config(key, value)
    return builder


def spark_session(root: str, catalog: str = "lance", master: str = "local[2]",
                  storage: dict[str, str] | None = None, **conf: str) -> SparkSession:
    """A SparkSession with the catalog ``catalog`` over ``root``; ``conf`` adds Spark settings
    (pass dotted keys with ``**{"spark.sql.shuffle.partitions": "4"}``)."""
    builder = SparkSession.builder.master(master).appName("lancepart")
    builder = configure(builder, root, catalog=catalog, storage=storage)
    for key, value in conf.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()
