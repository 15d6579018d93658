"""The package finds the plugin jar or says how to build it, and the settings that load it."""

import re
from pathlib import Path

import pytest

import pyspark

from lancepart import jar_path, plugin_conf
from lancepart.jar import LINES, UnsupportedSparkError, jar_name, spark_line
from lancepart.packages import ARROW, EXCLUDES, PACKAGES, excludes

REPO = Path(__file__).resolve().parents[2]


def test_missing_jar_says_how_to_build_it(monkeypatch, tmp_path):
    monkeypatch.setenv("LANCEPART_JAR", str(tmp_path / "absent.jar"))
    line = spark_line()
    with pytest.raises(FileNotFoundError, match=rf"Spark {line} not found at .*absent\.jar.*"
                                                rf"mvn -q -B -pl jvm/spark-{line}_{LINES[line]} package -DskipTests"):
        jar_path()


def test_the_installed_pysparks_line_picks_its_jar(monkeypatch):
    monkeypatch.delenv("LANCEPART_JAR", raising=False)
    line = ".".join(pyspark.__version__.split(".")[:2])
    assert spark_line() == line and spark_line(f"{line}.9") == line
    assert Path(jar_path()).name == jar_name(line) == f"lancepart-spark-{line}_{LINES[line]}-0.1.0-SNAPSHOT.jar"
    assert jar_name("3.5") == "lancepart-spark-3.5_2.12-0.1.0-SNAPSHOT.jar"


@pytest.mark.parametrize("version", ["3.4.4", "4.3.0", "4.10.1", "5.0.0"])
def test_a_spark_of_another_line_fails_naming_it_and_the_supported_lines(version):
    with pytest.raises(UnsupportedSparkError) as failure:
        jar_path(version)
    newest_major, newest_minor = list(LINES)[-1].split(".")
    upper = f"{newest_major}.{int(newest_minor) + 1}"
    assert str(failure.value) == (
        f"this environment runs Spark {version} (pyspark), and lancepart is built for Spark "
        f"{', '.join(f'{line}.x' for line in LINES)}: install one of those, for example "
        f"pip install 'pyspark>={list(LINES)[0]},<{upper}'")


def test_every_line_has_a_maven_module_and_the_package_takes_its_pyspark():
    modules = re.findall(r"<module>jvm/spark-([\d.]+)_([\d.]+)</module>", (REPO / "pom.xml").read_text())
    assert set(LINES.items()) <= set(modules)
    pyproject = (REPO / "python" / "pyproject.toml").read_text()
    newest_major, newest_minor = list(LINES)[-1].split(".")
    assert f'"pyspark>={list(LINES)[0]},<{newest_major}.{int(newest_minor) + 1}"' in pyproject


def test_explicit_jar_is_used(monkeypatch, tmp_path):
    jar = tmp_path / "plugin.jar"
    jar.write_bytes(b"PK")
    monkeypatch.setenv("LANCEPART_JAR", str(jar))
    assert jar_path() == str(jar)


def test_a_jar_that_carries_lance_core_goes_on_the_class_paths_alone(monkeypatch, tmp_path):
    jar = tmp_path / "plugin.jar"
    jar.write_bytes(b"PK")
    monkeypatch.setenv("LANCEPART_JAR", str(jar))
    monkeypatch.setenv("LANCEPART_CACHE_DIR", str(tmp_path / "cache"))
    assert plugin_conf({"spark.jars.ivy": str(tmp_path / "ivy")}) == {
        "spark.jars": str(jar), "spark.driver.extraClassPath": str(jar), "spark.executor.extraClassPath": str(jar)}
    assert not (tmp_path / "cache").exists()  # nothing resolved


def test_the_wheels_maven_packages_have_the_versions_the_jar_is_built_with():
    pom = (REPO / "pom.xml").read_text()
    version = {name: re.search(rf"<{re.escape(name)}>([^<]+)</", pom).group(1)
               for name in ("lance.version", "aws.sdk.version")}
    assert PACKAGES == [f"org.lance:lance-core:{version['lance.version']}",
                        f"software.amazon.awssdk:s3:{version['aws.sdk.version']}",
                        f"software.amazon.awssdk:url-connection-client:{version['aws.sdk.version']}"]


def test_the_wheels_maven_packages_leave_out_what_the_pom_excludes():
    pom = (REPO / "pom.xml").read_text()
    excluded = re.findall(r"<exclusion>\s*<groupId>([^<]+)</groupId>\s*<artifactId>([^<]+)</artifactId>", pom)
    assert excluded and {f"{group}:{artifact}" for group, artifact in excluded} <= set(EXCLUDES)


def test_a_spark_35_session_takes_the_arrow_its_jar_carries_and_spark_4_sessions_leave_it_to_spark():
    bundled = re.findall(r"<include>([^<]+)</include>", (REPO / "jvm" / "spark-3.5-common" / "pom.xml").read_text())
    assert sorted(bundled) == sorted(ARROW)
    assert not set(ARROW) & set(excludes("3.5"))
    assert set(ARROW) <= set(excludes("4.0")) and excludes("4.1") == excludes("4.2") == excludes("4.0")
