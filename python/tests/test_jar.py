"""The package finds the plugin jar or says how to build it, and the settings that load it."""

import re
from pathlib import Path

import pytest

from lancepart import jar_path, plugin_conf
from lancepart.jar import PACKAGES


def test_missing_jar_says_how_to_build_it(monkeypatch, tmp_path):
    monkeypatch.setenv("LANCEPART_JAR", str(tmp_path / "absent.jar"))
    with pytest.raises(FileNotFoundError, match=r"absent\.jar.*mvn -q -B package -DskipTests"):
        jar_path()


def test_explicit_jar_is_used(monkeypatch, tmp_path):
    jar = tmp_path / "plugin.jar"
    jar.write_bytes(b"PK")
    monkeypatch.setenv("LANCEPART_JAR", str(jar))
    assert jar_path() == str(jar)


def test_a_jar_that_carries_lance_core_goes_on_the_class_paths(monkeypatch, tmp_path):
    jar = tmp_path / "plugin.jar"
    jar.write_bytes(b"PK")
    monkeypatch.setenv("LANCEPART_JAR", str(jar))
    assert plugin_conf() == {"spark.jars": str(jar), "spark.driver.extraClassPath": str(jar),
                             "spark.executor.extraClassPath": str(jar)}


def test_the_wheels_maven_packages_have_the_versions_the_jar_is_built_with():
    pom = (Path(__file__).resolve().parents[2] / "pom.xml").read_text()
    version = {name: re.search(rf"<{re.escape(name)}>([^<]+)</", pom).group(1)
               for name in ("lance.version", "aws.sdk.version")}
    assert PACKAGES == [f"org.lance:lance-core:{version['lance.version']}",
                        f"software.amazon.awssdk:s3:{version['aws.sdk.version']}",
                        f"software.amazon.awssdk:url-connection-client:{version['aws.sdk.version']}"]
