"""lancepart.configure puts lancepart's SQL extension in spark.sql.extensions after the builder's
own, once, and spark_session's jar settings add to the plugin's; no Spark session is started."""

import os

from pyspark.sql import SparkSession

from lancepart import configure
from lancepart.session import (
    CATALOG_CLASS, EXTENSIONS_CLASS, EXTENSIONS_KEY, SESSION_CATALOG_CLASS, catalog_conf, with_plugin_lists,
)


def extensions(builder: SparkSession.Builder) -> str:
    return builder._options[EXTENSIONS_KEY]


def test_the_extension_is_set_on_a_builder_without_one(monkeypatch, tmp_path):
    monkeypatch.setenv("LANCEPART_JAR", str(tmp_path / "plugin.jar"))
    (tmp_path / "plugin.jar").write_bytes(b"PK")
    assert extensions(configure(SparkSession.builder, "warehouse")) == EXTENSIONS_CLASS


def test_the_extension_is_appended_to_the_builders_once(monkeypatch, tmp_path):
    monkeypatch.setenv("LANCEPART_JAR", str(tmp_path / "plugin.jar"))
    (tmp_path / "plugin.jar").write_bytes(b"PK")
    builder = SparkSession.builder.config(EXTENSIONS_KEY, "org.example.A, org.example.B")
    builder = configure(configure(builder, "warehouse"), "warehouse", catalog="other")
    assert extensions(builder) == f"org.example.A,org.example.B,{EXTENSIONS_CLASS}"


def test_jars_and_class_paths_given_to_spark_session_add_to_the_plugins():
    plugin = {"spark.jars": "/p/plugin.jar,/p/lance-core.jar",
              "spark.driver.extraClassPath": os.pathsep.join(["/p/plugin.jar", "/p/lance-core.jar"])}
    conf = with_plugin_lists(plugin, {"spark.jars": "/opt/iceberg.jar", "spark.driver.extraClassPath": "/opt/jdbc.jar",
                                      "spark.sql.shuffle.partitions": "4"})
    assert conf == {"spark.jars": "/p/plugin.jar,/p/lance-core.jar,/opt/iceberg.jar",
                    "spark.driver.extraClassPath": os.pathsep.join(["/p/plugin.jar", "/p/lance-core.jar", "/opt/jdbc.jar"]),
                    "spark.sql.shuffle.partitions": "4"}
    assert with_plugin_lists(plugin, conf) == conf  # once


def test_configure_keeps_the_jars_the_builder_has(monkeypatch, tmp_path):
    """Regression: configure replaced spark.jars, so a session lost the Iceberg runtime set before."""
    monkeypatch.setenv("LANCEPART_JAR", str(tmp_path / "plugin.jar"))
    (tmp_path / "plugin.jar").write_bytes(b"PK")
    builder = SparkSession.builder.config("spark.jars", "/opt/iceberg.jar")
    builder = configure(configure(builder, "warehouse"), "warehouse", catalog="other")
    assert builder._options["spark.jars"] == f"{tmp_path / 'plugin.jar'},/opt/iceberg.jar"


def test_the_session_catalog_is_lanceparts_session_catalog():
    assert catalog_conf("spark_catalog", "warehouse") == {
        "spark.sql.catalog.spark_catalog": SESSION_CATALOG_CLASS, "spark.sql.catalog.spark_catalog.root": "warehouse"}
    assert catalog_conf("lance", "warehouse")["spark.sql.catalog.lance"] == CATALOG_CLASS


def test_configure_puts_the_plugins_class_paths_before_those_of_spark_defaults(monkeypatch, tmp_path):
    """Regression: the plugin's class paths replaced spark-defaults.conf's (a cluster's own jars)."""
    monkeypatch.setenv("LANCEPART_JAR", str(tmp_path / "plugin.jar"))
    (tmp_path / "plugin.jar").write_bytes(b"PK")
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    (tmp_path / "spark-defaults.conf").write_text(
        "# a cluster's\nspark.driver.extraClassPath   /usr/lib/emrfs.jar\nspark.executor.extraClassPath=/usr/lib/x.jar\n"
        "spark.jars.packages org.example:other:1.0\n")
    options = configure(SparkSession.builder, "warehouse")._options
    assert options["spark.driver.extraClassPath"] == os.pathsep.join([str(tmp_path / "plugin.jar"), "/usr/lib/emrfs.jar"])
    assert options["spark.executor.extraClassPath"] == os.pathsep.join([str(tmp_path / "plugin.jar"), "/usr/lib/x.jar"])
    assert options["spark.jars"] == str(tmp_path / "plugin.jar") and "spark.jars.packages" not in options
