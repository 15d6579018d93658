"""The Maven packages a wheel's plugin jar needs beside Spark (``PACKAGES``: lance-core and the AWS
SDK's S3 client), resolved once by Spark's own Ivy and remembered. Spark resolves a session's
``spark.jars.packages`` at every start, printing Ivy's report to stderr, and adds them to its own
class loader, where Lance's native threads do not see them; so instead a child process launches
Spark's launcher (``spark-submit``) with those packages, Ivy's output going to a log file, and the
jar paths it resolved are written to a file in the cache directory (``LANCEPART_CACHE_DIR``, by
default ``~/.cache/lancepart``), named by the packages and the session's Ivy settings. The jars
stay where Spark's Ivy puts them (``<spark.jars.ivy>/jars``, by default ``~/.ivy2.5.2/jars``, ``~/.ivy2/jars`` on Spark 3.5)."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, Mapping
from urllib.parse import unquote, urlparse

from pyspark import SparkConf
from pyspark.java_gateway import launch_gateway

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
    "org.slf4j:slf4j-api", "io.netty:netty-buffer", "io.netty:netty-common",
    "com.fasterxml.jackson.core:jackson-core", "com.fasterxml.jackson.core:jackson-annotations",
    "com.fasterxml.jackson.core:jackson-databind", "com.fasterxml.jackson.datatype:jackson-datatype-jsr310",
    "com.fasterxml.jackson.jaxrs:jackson-jaxrs-json-provider", "com.fasterxml.jackson.jaxrs:jackson-jaxrs-base",
    "com.fasterxml.jackson.module:jackson-module-jaxb-annotations", "javax.xml.bind:jaxb-api",
    "jakarta.activation:jakarta.activation-api", "commons-codec:commons-codec", "org.apache.commons:commons-lang3",
    "com.google.guava:guava", "com.google.guava:failureaccess", "com.google.guava:listenablefuture",
    "com.google.code.findbugs:jsr305", "org.checkerframework:checker-qual",
    "com.google.errorprone:error_prone_annotations", "com.google.j2objc:j2objc-annotations",
]

#: The Arrow that lance-core builds on: Spark 4 ships it (excluded as ``EXCLUDES`` are); Spark 3.5
#: ships Arrow 12, which lacks what lance-core needs, so its sessions take lance-core's, on the class
#: paths ahead of Spark's own jars.
ARROW = [
    "org.apache.arrow:arrow-vector", "org.apache.arrow:arrow-format", "org.apache.arrow:arrow-memory-core",
    "org.apache.arrow:arrow-memory-netty", "org.apache.arrow:arrow-memory-netty-buffer-patch",
    "com.google.flatbuffers:flatbuffers-java",
]


def excludes(spark_line: str) -> list[str]:
    """What Spark line ``spark_line`` (such as ``"4.1"``) needs left out of ``PACKAGES``' jars."""
    return EXCLUDES if spark_line == "3.5" else [*EXCLUDES, *ARROW]


#: The environment variable naming the cache directory.
CACHE_ENV = "LANCEPART_CACHE_DIR"

#: A session's settings that say where and how Spark's Ivy resolves (they name the cache entry).
IVY_SETTINGS = ("spark.jars.ivy", "spark.jars.ivySettings", "spark.jars.repositories")

#: A session's setting passed on to the resolving JVM as well (proxies: ``-Dhttps.proxyHost=...``).
JAVA_OPTIONS = "spark.driver.extraJavaOptions"


class PackageResolutionError(RuntimeError):
    """Spark's Ivy could not resolve ``PACKAGES``; the message names the log holding its output."""


def cache_dir() -> Path:
    """``LANCEPART_CACHE_DIR``, else ``~/.cache/lancepart``."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "lancepart")


def cache_key(packages: list[str], excludes: list[str], ivy: Mapping[str, str]) -> str:
    """The name of the cache entry for ``packages`` resolved without ``excludes`` with the Ivy
    settings ``ivy``: the first package's name and version and a digest of all three
    (``lance-core-7.0.0-<16 hex digits>``)."""
    _, name, version = packages[0].split(":")
    digest = hashlib.sha256(json.dumps([packages, excludes, sorted(ivy.items())]).encode()).hexdigest()
    return f"{name}-{version}-{digest[:16]}"


def resolved_jars(settings: Mapping[str, str], spark_line: str) -> list[str]:
    """The local paths of the jars of ``PACKAGES`` and their dependencies but ``excludes(spark_line)``, from the
    cache when it names existing files, else resolved now by Spark's Ivy with the session
    ``settings``' ``IVY_SETTINGS`` and ``JAVA_OPTIONS`` (and whatever spark-defaults.conf sets),
    printing one line to stderr; raises PackageResolutionError naming the log when Ivy fails."""
    ivy = {key: settings[key] for key in IVY_SETTINGS if key in settings}
    left_out = excludes(spark_line)
    entry = cache_dir() / cache_key(PACKAGES, left_out, ivy)
    java = {JAVA_OPTIONS: settings[JAVA_OPTIONS]} if JAVA_OPTIONS in settings else {}
    return cached(Path(f"{entry}.jars"), lambda: _resolve({**ivy, **java}, left_out, Path(f"{entry}.log")))


def cached(listing: Path, produce: Callable[[], list[str]]) -> list[str]:
    """The paths file ``listing`` holds (one a line) when every one is an existing file; else
    ``produce()``'s, written to ``listing`` atomically. One process at a time produces (it holds
    a lock on ``<listing>.lock``); one that waited for another takes what that one wrote."""
    paths = _existing_files(listing)
    if paths is not None:
        return paths
    listing.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{listing}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        paths = _existing_files(listing)
        if paths is None:
            paths = produce()
            write_atomically(listing, "".join(f"{path}\n" for path in paths))
    return paths


def _existing_files(listing: Path) -> list[str] | None:
    if not listing.is_file():
        return None
    paths = listing.read_text().splitlines()
    return paths if paths and all(Path(path).is_file() for path in paths) else None


def write_atomically(path: Path, text: str) -> None:
    """Writes ``text`` to a new file beside ``path``, then renames it to ``path``: a reader sees the
    old content or all of the new, never part of it."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
        os.chmod(temporary, 0o644)  # mkstemp's file is the owner's alone
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _resolve(settings: dict[str, str], left_out: list[str], log: Path) -> list[str]:
    """Runs this module in a child Python process, whose Spark resolves ``PACKAGES`` without
    ``left_out`` with the settings ``settings``, its output going to ``log``; the child prints the
    jar paths as JSON."""
    print(f"lancepart: fetching {PACKAGES[0]} and the AWS SDK's S3 client (about 270 MB) with Spark's Ivy, "
          f"once; its output goes to {log}", file=sys.stderr, flush=True)
    # spark.jars empty: the child's spark.jars then lists the resolved jars alone, whatever
    # spark-defaults.conf adds
    conf = {"spark.jars.packages": ",".join(PACKAGES), "spark.jars.excludes": ",".join(left_out),
            "spark.jars": "", **settings}
    # a new JVM (not the one that runs this process under spark-submit), without the --packages of
    # PYSPARK_SUBMIT_ARGS (which would replace these), importing the modules this process imports
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYSPARK_GATEWAY_PORT", "PYSPARK_GATEWAY_SECRET", "PYSPARK_SUBMIT_ARGS")}
    env["PYTHONPATH"] = os.pathsep.join(path for path in sys.path if path)
    with open(log, "w") as out:
        child = subprocess.run([sys.executable, "-m", __name__, json.dumps(conf)], stdout=subprocess.PIPE,
                               stderr=out, text=True, env=env)
    if child.returncode != 0:
        lines = log.read_text(errors="replace").splitlines()
        failure = next((line.removeprefix('Exception in thread "main" ') for line in lines
                        if line.startswith('Exception in thread "main" ')), f"exit status {child.returncode}")
        raise PackageResolutionError(
            f"Spark's Ivy could not resolve {', '.join(PACKAGES)}: {failure}. Its output is in {log}. "
            "Without access to Maven Central (offline, or behind a proxy), name a repository that has them "
            "with spark.jars.repositories or an Ivy settings file (spark.jars.ivySettings), or give the JVM "
            f"the proxy (-Dhttps.proxyHost=... -Dhttps.proxyPort=... in {JAVA_OPTIONS})")
    if not child.stdout.strip():
        raise PackageResolutionError(f"Spark's launcher listed no jars for {', '.join(PACKAGES)}; its output is in {log}")
    return json.loads(child.stdout.splitlines()[-1])


def _main(conf: dict[str, str]) -> None:
    """In the child: launches Spark's launcher with ``conf`` (its output to this process's stderr),
    then prints the local paths of the jars it resolved into ``spark.jars``."""
    gateway = launch_gateway(SparkConf(loadDefaults=False).setAll(conf.items()),
                             popen_kwargs={"stdout": sys.stderr, "stderr": sys.stderr})
    try:
        jars = gateway.jvm.System.getProperty("spark.jars")
    finally:
        gateway.shutdown()
        gateway.proc.stdin.close()  # the gateway JVM exits when its stdin closes
        gateway.proc.wait()
    print(json.dumps([unquote(urlparse(jar).path) for jar in jars.split(",") if jar]))


if __name__ == "__main__":
    _main(json.loads(sys.argv[1]))
