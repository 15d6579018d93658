"""Options for the JVMs the suites start, and the class-data-sharing archive of a long run.

Every JVM the suites start (the workers' sessions, writer processes, docs pages, clusters,
spark-shell) runs small queries on small data, where the client compiler alone and the serial
collector cost less CPU than the defaults: C2's compilations do not pay back even over a whole
pass. The client compiler's default code cache, 48 MB, fills in a session that lives for minutes,
and JDK 17's sweeper then flushes and recompiles methods; 240 MB (the tiered compilers' default)
holds them. OPTIONS gives them all that, through JAVA_TOOL_OPTIONS.

A long run (LANCEPART_TEST_LONG_RUN=1: the first pass of `make test`) also has every JVM map a
class-data-sharing archive of the classes a Spark session with the plugin loads (`archive`), on
top of the JDK's own, instead of loading and verifying them from jars. The archive is written in
the background of the first long run after each build of the jar (`start_archive`); JVMs started
before it is there, or whose class path differs from the archive's (Spark's launcher, a
cluster's daemons), map the JDK's archive alone. docs/testing.md has the measurements.

    python jvm_options.py <archive>   writes the archive (what start_archive runs)
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import lancepart

OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:ReservedCodeCacheSize=240m"
LONG_RUN = os.environ.get("LANCEPART_TEST_LONG_RUN") == "1"
ARCHIVES = Path(__file__).resolve().parents[1] / "target" / "jvm-archives"


def archive() -> Path | None:
    """The archive for this Python environment's Spark and this build of the plugin jar (the JVM
    accepts an archive only with the jars it was written with, unchanged); None in a short run or
    before the jar is built. Its name starts with a key of the environment and the jar's path, so
    that writing the next build's replaces it."""
    import pyspark

    if not LONG_RUN:
        return None
    try:
        jar = Path(lancepart.jar_path())
    except FileNotFoundError:
        return None
    place = _digest(f"{Path(pyspark.__file__).parent}|{jar}")
    build = _digest(f"{pyspark.__version__}|{jar.stat().st_size}|{jar.stat().st_mtime_ns}")
    return ARCHIVES / f"{place}-{build}.jsa"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def set_java_tool_options() -> None:
    """Gives every JVM this process starts OPTIONS (and, in a long run, the archive on top of the
    JDK's), after the JAVA_TOOL_OPTIONS it already has."""
    ours = OPTIONS
    if (path := archive()) is not None:
        # the JDK's archive named first stays mapped while ours is missing or refused; no JVM logs
        # about either (its log goes to stdout, where writer processes print their events)
        java_home = Path(os.environ.get("JAVA_HOME") or Path(shutil.which("java")).resolve().parents[1])
        ours += f" -XX:SharedArchiveFile={java_home / 'lib' / 'server' / 'classes.jsa'}:{path} -Xlog:cds*=off"
    current = os.environ.get("JAVA_TOOL_OPTIONS", "")
    if ours not in current:  # pytest-xdist's workers inherit the options of the process that started them
        os.environ["JAVA_TOOL_OPTIONS"] = f"{current} {ours}".strip()


def start_archive() -> subprocess.Popen | None:
    """Starts writing the archive in the background when this build's is missing (in a long run);
    its output goes to a log beside it. None when there is nothing to write."""
    path = archive()
    if path is None or path.is_file():
        return None
    ARCHIVES.mkdir(parents=True, exist_ok=True)
    with path.with_suffix(".log").open("w") as log:
        # OPTIONS alone: a JVM that writes an archive takes SharedArchiveFile as the one to extend
        return subprocess.Popen([sys.executable, __file__, str(path)], env={**os.environ, "JAVA_TOOL_OPTIONS": OPTIONS},
                                start_new_session=True, stdout=log, stderr=subprocess.STDOUT)


def stop_archive(writer: subprocess.Popen | None) -> None:
    """Stops a writer still running (a later long run writes the archive again), warns about one
    that failed, and removes what an unfinished one left."""
    if writer is None:
        return
    if writer.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(writer.pid, signal.SIGKILL)
        writer.wait()
    elif writer.returncode != 0:
        warnings.warn(f"writing the JVM archive failed (exit {writer.returncode}): see {Path(writer.args[2])}.log")
    _partial(Path(writer.args[2]), writer.pid).unlink(missing_ok=True)


def _partial(path: Path, pid: int) -> Path:
    return path.with_suffix(f".{pid}.partial")


def _write_archive(path: Path) -> None:
    """Runs a session with the plugin through a write and a query, and has its JVM write the
    classes it loaded at exit to a temporary file that then becomes ``path``, replacing the
    archives of earlier builds."""
    from pyspark import SparkContext

    partial = _partial(path, os.getpid())
    with tempfile.TemporaryDirectory() as warehouse:
        spark = lancepart.spark_session(warehouse, **{
            "spark.ui.enabled": "false",
            "spark.driver.extraJavaOptions": f"-XX:ArchiveClassesAtExit={partial}"})
        spark.sql("CREATE NAMESPACE lance.ns")
        spark.sql("CREATE TABLE lance.ns.t (id BIGINT, p INT) PARTITIONED BY (p)")
        spark.sql("INSERT INTO lance.ns.t VALUES (1, 1), (2, 2)")
        spark.sql("SELECT p, count(*) FROM lance.ns.t WHERE id > 0 GROUP BY p").collect()
        gateway = SparkContext._gateway
        spark.stop()
        gateway.shutdown()
        # the JVM exits when its standard input closes, writing the archive on the way out
        gateway.proc.stdin.close()
        gateway.proc.wait()
    if archive() != path:
        sys.exit(f"the jar changed while its archive was written: {path} is not kept")
    partial.replace(path)
    for earlier in path.parent.glob(f"{path.name.split('-')[0]}-*"):
        if earlier.stem != path.stem and earlier.suffix in (".jsa", ".log"):
            earlier.unlink()


if __name__ == "__main__":
    _write_archive(Path(sys.argv[1]))
