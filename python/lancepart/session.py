"""SparkSession setup: the plugin jar, its SQL extension and a ``spark.sql.catalog.<name>`` entry."""

from __future__ import annotations

import os
import re
from pathlib import Path

from py4j.protocol import Py4JJavaError
from pyspark import SparkContext
from pyspark.find_spark_home import _find_spark_home
from pyspark.sql import SparkSession

from lancepart.errors import LancepartError
from lancepart.jar import plugin_conf

CATALOG_CLASS = "lancepart.spark.PartitionedCatalog"

#: Spark's session catalog, the one that names without a catalog resolve in; over a root it is
#: ``SESSION_CATALOG_CLASS``, which keeps Spark's own tables beside the lance tables.
SESSION_CATALOG = "spark_catalog"
SESSION_CATALOG_CLASS = "lancepart.spark.PartitionedSessionCatalog"

#: The session extension that parses ``ALTER TABLE ... ADD / DROP / REPLACE PARTITION FIELD``.
EXTENSIONS_CLASS = "lancepart.spark.LancepartSparkSessionExtensions"
EXTENSIONS_KEY = "spark.sql.extensions"

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
    """Adds the plugin (``plugin_conf``: the jar, in ``spark.jars`` and on the driver and executor
    class paths, with the jars of lance-core and the AWS SDK a wheel's jar needs, resolved with the
    builder's Ivy settings; the values of those three settings the builder has follow the
    plugin's), its SQL extension (appended to the ``spark.sql.extensions`` the builder has) and the
    catalog ``catalog`` rooted at ``root`` to ``builder`` (``spark_catalog``: Spark's own catalog, a
    ``SESSION_CATALOG_CLASS``). ``storage`` entries become ``spark.sql.catalog.<catalog>.storage.<key>``
    (Lance object-store options). ``SPJ_CONF`` is set too (settings given later on the builder
    override it).
    """
    # a builder keeps its settings in _options, which has no public getter
    options = builder._options
    plugin = plugin_conf(options)
    # a value set here replaces spark-defaults.conf's, which the plugin's are put before instead
    lists = with_plugin_lists(plugin, {**{key: value for key, value in spark_defaults().items() if key in PLUGIN_LISTS},
                                       **{key: options[key] for key in PLUGIN_LISTS if key in options}})
    for key, value in {**plugin, **lists, EXTENSIONS_KEY: with_extension(options.get(EXTENSIONS_KEY)),
                       **catalog_conf(catalog, root, storage), **SPJ_CONF}.items():
        builder = builder.config(key, value)
    return builder


def with_extension(extensions: str | None) -> str:
    """A ``spark.sql.extensions`` value: ``extensions`` (comma-separated class names, or None)
    with lancepart's appended unless it is there."""
    names = [name.strip() for name in (extensions or "").split(",") if name.strip()]
    return ",".join(names if EXTENSIONS_CLASS in names else [*names, EXTENSIONS_CLASS])


def catalog_conf(catalog: str, root: str, storage: dict[str, str] | None = None) -> dict[str, str]:
    """The Spark settings that define catalog ``catalog`` over ``root`` (a local path or a URI
    such as ``s3://bucket/prefix``) with Lance object-store options ``storage``: a
    ``CATALOG_CLASS``, or for ``SESSION_CATALOG`` a ``SESSION_CATALOG_CLASS``."""
    cls = SESSION_CATALOG_CLASS if catalog == SESSION_CATALOG else CATALOG_CLASS
    conf = {f"spark.sql.catalog.{catalog}": cls, f"spark.sql.catalog.{catalog}.root": root}
    conf.update({f"spark.sql.catalog.{catalog}.storage.{key}": value for key, value in (storage or {}).items()})
    return conf


def resolve_table(spark: SparkSession, name: str, catalog: str = "lance") -> tuple[str, str]:
    """The lancepart catalog and the table name in it that ``name`` means, as ``Admin`` and
    ``crosscheck`` take names: ``<catalog>.<namespace>...<table>`` when its first part is a
    lancepart catalog of the session, else ``name`` in ``catalog`` (by default ``lance``, the one
    ``spark_session`` registers). Raises LancepartError unless that catalog is lancepart's."""
    def configured(candidate: str) -> str | None:
        return spark.conf.get(f"spark.sql.catalog.{candidate}", None)
    head, _, rest = name.partition(".")
    table = name
    if "." in rest and (head == catalog or configured(head) == CATALOG_CLASS):
        catalog, table = head, rest
    kind = configured(catalog)
    if kind != CATALOG_CLASS:
        raise LancepartError(
            f"catalog '{catalog}' is not configured: set spark.sql.catalog.{catalog}" if kind is None
            else f"catalog '{catalog}' is {kind}, not {CATALOG_CLASS}" + (
                ": register a lancepart catalog over the same root (lancepart.register_catalog(spark, 'lance', "
                "root)) and name it" if kind == SESSION_CATALOG_CLASS else ""))
    return catalog, table


def register_catalog(spark: SparkSession, catalog: str, root: str, storage: dict[str, str] | None = None) -> None:
    """Adds catalog ``catalog`` to a running session whose class path already holds the plugin
    (one made by ``spark_session`` or ``configure``); Spark loads it on first use. Raises
    LancepartError when the session's JVM cannot load the plugin (``require_plugin``)."""
    context = getattr(spark, "_sc", None)  # None in a Spark Connect session, whose server loads the plugin
    if context is not None:
        require_plugin(context)
    for key, value in catalog_conf(catalog, root, storage).items():
        spark.conf.set(key, value)


def spark_session(root: str, catalog: str = "lance", master: str = "local[2]",
                  storage: dict[str, str] | None = None, remote: str | None = None, **conf: str) -> SparkSession:
    """A SparkSession with the catalog ``catalog`` over ``root``; ``conf`` adds Spark settings
    (pass dotted keys with ``**{"spark.sql.shuffle.partitions": "4"}``). Extensions in
    ``spark.sql.extensions`` come before lancepart's; jars in ``spark.jars`` and entries of
    ``spark.driver.extraClassPath`` and ``spark.executor.extraClassPath`` come after the plugin's;
    ``spark.jars.ivy``, ``spark.jars.ivySettings`` and ``spark.jars.repositories`` also tell Spark's
    Ivy where to find lance-core for a wheel's jar (``plugin_conf``).

    ``remote`` (``"sc://host:port"``) connects to a Spark Connect server instead of starting Spark
    here: the server must have the plugin on its class path, which brings its SQL extension (see
    docs/deployment.md); the catalog, ``SPJ_CONF`` and ``conf`` are set on the new session, and
    ``master`` is not used.

    In a process that already runs a Spark session, Spark's ``getOrCreate`` returns that session
    with these settings where they can still change; its JVM must load the plugin
    (``require_plugin``)."""
    if remote is not None:
        spark = SparkSession.builder.remote(remote).getOrCreate()
        for key, value in {**catalog_conf(catalog, root, storage), **SPJ_CONF, **conf}.items():
            spark.conf.set(key, value)
        return spark
    running = SparkContext._active_spark_context
    if running is not None:  # getOrCreate would return its session, whose class paths are fixed
        require_plugin(running)
    builder = SparkSession.builder.master(master).appName("lancepart")
    for key, value in conf.items():  # for configure: the lists and extensions it extends, the Ivy settings
        builder = builder.config(key, value)
    builder = configure(builder, root, catalog=catalog, storage=storage)
    for key, value in conf.items():  # over configure's other settings
        if key not in PLUGIN_LISTS and key != EXTENSIONS_KEY:
            builder = builder.config(key, value)
    return builder.getOrCreate()


#: Arrow's class of types, and one of the types of the Arrow lance-core builds on that Spark 3.5's
#: Arrow 12 lacks.
ARROW_TYPE_CLASS = "org.apache.arrow.vector.types.pojo.ArrowType"
NEWER_ARROW_CLASS = f"{ARROW_TYPE_CLASS}$Utf8View"


def require_plugin(spark_context: SparkContext) -> None:
    """Raises LancepartError unless the JVM of the running ``spark_context``, whose class paths
    were fixed when it started, loads the plugin's catalog (as Spark loads catalogs) and, through
    the catalog's class loader, the Arrow that lance-core needs: the Arrow jar that the loader
    takes ``ARROW_TYPE_CLASS`` from must hold ``NEWER_ARROW_CLASS`` (on Spark 3.5 only with the
    plugin on the driver class path, ahead of Spark's Arrow 12; through ``spark.jars`` alone,
    Arrow 12's classes come first and the newer ones from the plugin's jar)."""
    jvm = spark_context._jvm
    def load(name: str, loader) -> object | None:
        try:
            return jvm.java.lang.Class.forName(name, False, loader)
        except Py4JJavaError:
            return None
    advice = ("stop it (spark.stop()) before lancepart.spark_session, or start it with lancepart.configure(builder, "
              "root) or the settings of docs/jvm.md")
    catalog = load(CATALOG_CLASS, jvm.org.apache.spark.util.Utils.getContextOrSparkClassLoader())
    if catalog is None:
        raise LancepartError(f"a Spark session is already running without the lancepart plugin on its class path "
                             f"(it has no {CATALOG_CLASS}): {advice}")
    arrow = load(ARROW_TYPE_CLASS, catalog.getClassLoader())
    if arrow is None or load(NEWER_ARROW_CLASS, arrow.getClassLoader()) is None:
        raise LancepartError(f"a Spark session is already running whose Arrow comes before lance-core's ({NEWER_ARROW_CLASS} "
                             f"is missing: on Spark 3.5 the plugin must be on the driver class path): {advice}")


#: The settings that ``plugin_conf`` starts, each a list with its separator.
PLUGIN_LISTS = {"spark.jars": ",", "spark.driver.extraClassPath": os.pathsep, "spark.executor.extraClassPath": os.pathsep}


def spark_defaults() -> dict[str, str]:
    """The settings of the spark-defaults.conf that pyspark's launcher reads (in ``SPARK_CONF_DIR``,
    else ``<SPARK_HOME>/conf``), as Java properties files are read: ``key value`` or
    ``key=value``, ``#`` comments; empty without the file."""
    conf_dir = os.environ.get("SPARK_CONF_DIR") or os.path.join(_find_spark_home(), "conf")
    path = Path(conf_dir) / "spark-defaults.conf"
    if not path.is_file():
        return {}
    settings = {}
    for line in path.read_text().splitlines():
        match = re.match(r"\s*([^#!\s=:][^\s=:]*)\s*[\s=:]\s*(.*?)\s*$", line)
        if match:
            settings[match.group(1)] = match.group(2)
    return settings


def with_plugin_lists(plugin: dict[str, str], conf: dict[str, str]) -> dict[str, str]:
    """``conf`` with its ``PLUGIN_LISTS`` settings appended to the plugin's values ``plugin``
    (unless they start with them already), so that a session's other jars (Iceberg's runtime, a
    JDBC driver) and class path entries do not replace the plugin's."""
    def merged(key: str, value: str) -> str:
        separator = PLUGIN_LISTS.get(key)
        if separator is None or key not in plugin:
            return value
        own = plugin[key].split(separator)
        return value if value.split(separator)[:len(own)] == own else f"{plugin[key]}{separator}{value}"
    return {key: merged(key, value) for key, value in conf.items()}
