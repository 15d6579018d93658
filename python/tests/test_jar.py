"""The package finds the plugin jar or says how to build it, and the settings that load it."""

import re
from pathlib import Path

import pytest

import pyspark

from lancepart import jar_path, plugin_conf
from lancepart.jar import LINES, UnsupportedSparkError, jar_name, spark_line
from lancepart.packages import EXCLUDES, PACKAGES

REPO = Path(__file__).resolve().parents[2]


def test_missing_jar_says_how_to_build_it(monkeypatch, tmp_path):
    monkeypatch.setenv("LANCEPART_JAR", str(tmp_path / "absent.jar"))
    line = spark_line()
    with pytest.raises(FileNotFoundError, match=rf"Spark {line} not found at .*absent\.jar.*"
                                                rf"mvn -q -B -pl jvm/spark-{line}_2\.13 package -DskipTests"):
        jar_path()


def test_the_installed_pysparks_line_picks_its_jar(monkeypatch):
    monkeypatch.delenv("LANCEPART_JAR", raising=False)
    line = ".".join(pyspark.__version__.split(".")[:2])
    assert spark_line() == line and spark_line(f"{line}.9") == line
    assert Path(jar_path()).name == jar_name(line) == f"lancepart-spark-{line}_2.13-0.1.0-SNAPSHOT.jar"
    assert [jar_name(other) for other in LINES] == [f"lancepart-spark-{other}_2.13-0.1.0-SNAPSHOT.jar"
                                                    for other in LINES]


@pytest.mark.parametrize("version", ["3.5.9", "4.3.0", "4.10.1", "5.0.0"])
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
    assert sorted(modules) == sorted(LINES.items())
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
