"""Finds the plugin jar and the Spark settings that load it. An installed wheel carries the
plugin's own classes (``lancepart/jars/``), and Spark resolves lance-core and the AWS SDK's S3
client from Maven Central (``PACKAGES``); a checkout's Maven build (``target/``) and a jar that
``LANCEPART_JAR`` names carry them inside."""

from __future__ import annotations

import os
from pathlib import Path

JAR_NAME = "lancepart-spark-4.1_2.13-0.1.0-SNAPSHOT.jar"
_WHEEL_JAR = Path(__file__).resolve().parent / "jars" / JAR_NAME
_REPO_ROOT = Path(__file__).resolve().parents[2]

#: What the wheel's jar needs beyond Spark, as Maven coordinates (the versions pom.xml builds with).
PACKAGES = [
    "org.lance:lance-core:7.0.0",
    "software.amazon.awssdk:s3:2.56.0",
    "software.amazon.awssdk:url-connection-client:2.56.0",
]

#: What ``PACKAGES`` bring along that Spark ships itself (as the checkout's jar leaves them out).
EXCLUDES = [
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


def jar_path() -> str:
    """Absolute path of the plugin jar: ``LANCEPART_JAR``, else the one an installed wheel
    carries, else the checkout's Maven build; raises FileNotFoundError saying how to build it."""
    explicit = os.environ.get("LANCEPART_JAR")
    if explicit:
        candidate = Path(explicit)
    elif _WHEEL_JAR.is_file():
        candidate = _WHEEL_JAR
    else:
        candidate = _REPO_ROOT / "target" / JAR_NAME
    if not candidate.is_file():
        raise FileNotFoundError(
            f"lancepart plugin jar not found at {candidate}. Build it with "
            f"`mvn -q -B package -DskipTests` in {_REPO_ROOT} (or run `make demo`), "
            "or set LANCEPART_JAR to the jar's path."
        )
    return str(candidate)


def plugin_conf() -> dict[str, str]:
    """The Spark settings that load the plugin. A jar that carries lance-core also goes on the
    driver and executor class paths (Lance's native threads look up Java classes there; without
    it they print a harmless panic). A wheel's jar goes in ``spark.jars`` only, beside the Maven
    packages Spark resolves for it: on the class path its classes would not see those packages."""
    jar = jar_path()
    if Path(jar) == _WHEEL_JAR:
        return {"spark.jars": jar, "spark.jars.packages": ",".join(PACKAGES), "spark.jars.excludes": ",".join(EXCLUDES)}
    return {"spark.jars": jar, "spark.driver.extraClassPath": jar, "spark.executor.extraClassPath": jar}
