"""Finds the plugin jar for the running Spark and the Spark settings that load it. lancepart builds
a jar per Spark line (``LINES``), and the installed pyspark's version picks it: another Spark fails
here, before a session starts. An installed wheel carries each line's own classes
(``lancepart/jars/``), and Spark resolves lance-core and the AWS SDK's S3 client from Maven Central
(``PACKAGES``); a checkout's Maven build (``target/``) and a jar that ``LANCEPART_JAR`` names carry
them inside."""

from __future__ import annotations

import os
from pathlib import Path

import pyspark

#: The Spark lines lancepart is built for, oldest first, each with its Scala binary version (the
#: Maven modules jvm/spark-<line>_<scala>); python/pyproject.toml's pyspark range spans them.
LINES = {"4.0": "2.13", "4.1": "2.13", "4.2": "2.13"}
VERSION = "0.1.0-SNAPSHOT"
_WHEEL_JARS = Path(__file__).resolve().parent / "jars"
_REPO_ROOT = Path(__file__).resolve().parents[2]


class UnsupportedSparkError(RuntimeError):
    """The running Spark is of a line lancepart has no jar for."""


#: What the wheel's jar needs beyond Spark, as Maven coordinates (the versions pom.xml builds with).
PACKAGES = [
    "org.lance:lance-core:7.0.0",
    "software.amazon.awssdk:s3:2.56.0",
    "software.amazon.awssdk:url-connection-client:2.56.0",
]

#: What ``PACKAGES`` bring along that Spark ships itself (as the checkout's jar leaves them out), and
#: the AWS SDK's Apache and Netty HTTP clients, which pom.xml excludes too (url-connection-client
#: replaces them; they would bring Netty 4.1 beside Spark's 4.2).
EXCLUDES = [
    "software.amazon.awssdk:apache-client", "software.amazon.awssdk:apache5-client",
    "software.amazon.awssdk:netty-nio-client",
    "org.apache.arrow:arrow-vector", "org.apache.arrow:arrow-format", "org.apache.arrow:arrow-memory-core",
    "org.apache.arrow:arrow-memory-netty", "org.apache.arrow:arrow-memory-netty-buffer-patch",
    "com.google.flatbuffers:flatbuffers-java", "org.slf4j:slf4j-api", "io.netty:netty-buffer", "io.netty:netty-common",
    "com.fasterxml.jackson.core:jackson-core", "com.fasterxml.jackson.core:jackson-annotations",
    "com.fasterxml.jackson.core:jackson-databind", "com.fasterxml.jackson.datatype:jackson-datatype-jsr310",
    "com.fasterxml.jackson.jaxrs:jackson-jaxrs-json-provider", "com.fasterxml.jackson.jaxrs:jackson-jaxrs-base",
    "com.fasterxml.jackson.module:jackson-module-jaxb-annotations", "javax.xml.bind:jaxb-api",
    "jakarta.activation:jakarta.activation-api", "commons-codec:commons-codec", "org.apache.commons:commons-lang3",
    "com.google.guava:guava", "com.google.guava:failureaccess", "com.google.guava:listenablefuture",
    "com.google.code.findbugs:jsr305", "org.checkerframework:checker-qual",
    "com.google.errorprone:error_prone_annotations", "com.google.j2objc:j2objc-annotations",
]


def spark_line(version: str | None = None) -> str:
    """The line (such as ``"4.1"``) of Spark ``version``, by default the installed pyspark's;
    raises UnsupportedSparkError naming the version and the supported lines when lancepart has no
    jar for it."""
    version = version or pyspark.__version__
    line = ".".join(version.split(".")[:2])
    if line not in LINES:
        oldest, newest = list(LINES)[0], list(LINES)[-1]
        major, minor = newest.split(".")
        raise UnsupportedSparkError(
            f"this environment runs Spark {version} (pyspark), and lancepart is built for Spark "
            f"{', '.join(f'{supported}.x' for supported in LINES)}: install one of those, for example "
            f"pip install 'pyspark>={oldest},<{major}.{int(minor) + 1}'")
    return line


def jar_name(line: str) -> str:
    """The file name of line ``line``'s plugin jar (``lancepart-spark-<line>_<scala>-<version>.jar``)."""
    return f"lancepart-spark-{line}_{LINES[line]}-{VERSION}.jar"


def jar_path(spark_version: str | None = None) -> str:
    """Absolute path of the plugin jar for Spark ``spark_version`` (by default the installed
    pyspark's, checked by ``spark_line``): ``LANCEPART_JAR``, else the one an installed wheel
    carries, else the checkout's Maven build; raises FileNotFoundError saying how to build it."""
    line = spark_line(spark_version)
    explicit = os.environ.get("LANCEPART_JAR")
    if explicit:
        candidate = Path(explicit)
    elif (_WHEEL_JARS / jar_name(line)).is_file():
        candidate = _WHEEL_JARS / jar_name(line)
    else:
        candidate = _REPO_ROOT / "target" / jar_name(line)
    if not candidate.is_file():
        raise FileNotFoundError(
            f"lancepart plugin jar for Spark {line} not found at {candidate}. Build it with "
            f"`mvn -q -B -pl jvm/spark-{line}_{LINES[line]} package -DskipTests` in {_REPO_ROOT} (or run "
            "`make jar` for every line), or set LANCEPART_JAR to the jar's path."
        )
    return str(candidate)


def plugin_conf() -> dict[str, str]:
    """The Spark settings that load the plugin. A jar that carries lance-core also goes on the
    driver and executor class paths (Lance's native threads look up Java classes there; without
    it they print a harmless panic). A wheel's jar goes in ``spark.jars`` only, beside the Maven
    packages Spark resolves for it: on the class path its classes would not see those packages."""
    jar = jar_path()
    if Path(jar).parent == _WHEEL_JARS:
        return {"spark.jars": jar, "spark.jars.packages": ",".join(PACKAGES), "spark.jars.excludes": ",".join(EXCLUDES)}
    return {"spark.jars": jar, "spark.driver.extraClassPath": jar, "spark.executor.extraClassPath": jar}
