"""Finds the plugin jar for the running Spark and the Spark settings that load it. lancepart builds
a jar per Spark line (``LINES``), and the installed pyspark's version picks it: another Spark fails
here, before a session starts. An installed wheel carries each line's own classes
(``lancepart/jars/``), and the jars of lance-core and the AWS SDK's S3 client come from Maven
(``packages.resolved_jars``); a checkout's Maven build (``target/``) and a jar that
``LANCEPART_JAR`` names carry them inside."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

import pyspark

from lancepart.packages import resolved_jars

#: The Spark lines lancepart is built for, oldest first, each with the Scala binary version pyspark
#: runs it on (the Maven modules jvm/spark-<line>_<scala>; the one of Spark 3.5 on Scala 2.13 is for
#: JVM applications); python/pyproject.toml's pyspark range spans them.
LINES = {"3.5": "2.12", "4.0": "2.13", "4.1": "2.13", "4.2": "2.13"}
VERSION = "0.1.0-SNAPSHOT"
_WHEEL_JARS = Path(__file__).resolve().parent / "jars"
_REPO_ROOT = Path(__file__).resolve().parents[2]


class UnsupportedSparkError(RuntimeError):
    """The running Spark is of a line lancepart has no jar for."""


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


def plugin_conf(settings: Mapping[str, str] | None = None) -> dict[str, str]:
    """The Spark settings that load the plugin: its jar, and for a wheel's jar (the plugin's classes
    only) the jars of lance-core and the AWS SDK's S3 client, which ``packages.resolved_jars``
    resolves once with the Ivy settings of the session ``settings`` (``spark.jars.ivy``,
    ``spark.jars.ivySettings``, ``spark.jars.repositories``), in ``spark.jars`` and on the driver
    and executor class paths: Lance's native threads look up Java classes through the JVM's system
    class loader (without them there, they print a harmless panic)."""
    jar = jar_path()
    jars = [jar, *resolved_jars(settings or {}, spark_line())] if Path(jar).parent == _WHEEL_JARS else [jar]
    return {"spark.jars": ",".join(jars), "spark.driver.extraClassPath": os.pathsep.join(jars),
            "spark.executor.extraClassPath": os.pathsep.join(jars)}
