"""The wheel `make wheel` builds carries each Spark line's jar. Installed into a fresh virtual
environment outside the checkout that already holds the pyspark of the environment running this
test (`make test` runs it on 3.5, the oldest pyspark the package takes: LINE_SUITES_3.5_2.12 in the
Makefile; the 4.2 slice runs the wheel with 4.x's resolved jars), with the newest pylance the
package takes, it leaves that pyspark as it is and runs a write, a pruned read and a crosscheck
with `lancepart.spark_session(root)` and no other step: Spark's Ivy resolves lance-core and the
AWS SDK from Maven (a fresh Ivy directory and lancepart cache here), which it says in one line. A
second session takes them from the cache. Neither prints Ivy's report or Lance's panic (the jars
are on the driver's class path)."""

import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path
from typing import NamedTuple

import pyspark
import pytest
from lancepart.jar import LINES, jar_name, spark_line
from test_interop_newest_pylance import NEWEST_PYTHON

REPO = Path(__file__).resolve().parent.parent

FIRST = textwrap.dedent("""
    import sys
    import lancepart
    spark = lancepart.spark_session(sys.argv[1], **{"spark.ui.enabled": "false", "spark.jars.ivy": sys.argv[2]})
    spark.sql("CREATE NAMESPACE lance.ns")
    spark.sql("CREATE TABLE lance.ns.t (id BIGINT, p STRING) PARTITIONED BY (p)")
    spark.sql("INSERT INTO lance.ns.t SELECT id, CAST(id % 3 AS STRING) FROM range(100)")
    print("JAR", lancepart.jar_path())
    print("RESULT", tuple(spark.sql("SELECT count(*), sum(id) FROM lance.ns.t WHERE p = '1'").collect()[0]))
    import lance
    print("PYLANCE", lance.__version__)
    print("CROSSCHECK", lancepart.crosscheck(spark, "lance.ns.t"))
""")

SECOND = textwrap.dedent("""
    import sys
    import lancepart
    spark = lancepart.spark_session(sys.argv[1], **{"spark.ui.enabled": "false", "spark.jars.ivy": sys.argv[2]})
    print("COUNT", spark.table("lance.ns.t").count())
""")

#: What Spark's Ivy prints resolving packages (on a first resolution, a proxy hint per artifact it
#: cannot find in a repository), and Lance's native dispatcher when lance-core is not on the
#: JVM's class path.
NOISE = (":: resolving dependencies", "added as a dependency", "Ivy Default Cache", "resolution report",
         "proxy server that is not well configured", "panicked", "AsyncScanner")


def noise(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if any(marker in line for marker in NOISE)]


class Installed(NamedTuple):
    """The wheel installed in a fresh environment (`python`), and its first session's output."""
    python: str
    env: dict[str, str]
    args: list[str]
    venv: Path
    cache: Path
    newest_pylance: str
    first: subprocess.CompletedProcess


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    tmp_path = tmp_path_factory.mktemp("wheel")
    wheels = sorted((REPO / "target" / "wheel").glob("lancepart-*.whl"))
    assert len(wheels) == 1, f"expected one wheel in target/wheel (run `make wheel`), found {wheels}"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    # nothing of the checkout's: no package on the path, no jar named
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LANCEPART_JAR")}
    # with the newest pylance the package takes (that of the environment test_interop_newest_pylance uses)
    newest = subprocess.run([str(NEWEST_PYTHON), "-c", "import lance; print(lance.__version__)"], capture_output=True,
                            text=True, check=True, timeout=300).stdout.strip()
    # the pyspark a user has, then the wheel, which must leave it (modules compiled when first
    # imported, not by pip: 9 CPU seconds less)
    for packages in ([f"pyspark=={pyspark.__version__}"], [str(wheels[0]), f"pylance=={newest}"]):
        install = subprocess.run([python, "-m", "pip", "install", "-q", "--no-compile", *packages], env=env,
                                 cwd=tmp_path, capture_output=True, text=True, timeout=900)
        assert install.returncode == 0, install.stderr[-3000:]
    env["LANCEPART_CACHE_DIR"] = str(tmp_path / "cache")
    args = [str(tmp_path / "warehouse"), str(tmp_path / "ivy")]
    first = subprocess.run([python, "-c", FIRST, *args], cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=900)
    return Installed(python, env, args, venv, tmp_path / "cache", newest, first)


def test_the_wheel_carries_each_lines_plugin_classes_alone():
    (wheel,) = (REPO / "target" / "wheel").glob("lancepart-*.whl")
    with zipfile.ZipFile(wheel) as files:
        jars = sorted(name for name in files.namelist() if name.endswith(".jar"))
        assert jars == sorted(f"lancepart/jars/{jar_name(line)}" for line in LINES)
        for jar in jars:
            with zipfile.ZipFile(files.open(jar)) as classes:
                bundled = [name for name in classes.namelist() if name.endswith((".class", ".so", ".dylib"))
                           and not name.startswith(("lancepart/", "org/apache/spark/sql/lancepart/"))
                           and name != "lance/DefaultSource.class"]  # USING lance's provider class
            # the plugin's own classes only: Spark resolves lance-core and the rest (a second `mvn
            # package` once left the shaded jar in its place)
            assert not bundled, f"{jar} bundles {len(bundled)} other files, such as {bundled[:3]}"


def test_the_wheel_works_in_a_fresh_environment(installed: Installed):
    version = subprocess.run([installed.python, "-c", "import pyspark; print(pyspark.__version__)"],
                             capture_output=True, text=True, check=True, timeout=300).stdout.strip()
    assert version == pyspark.__version__
    first = installed.first
    assert first.returncode == 0, f"exit {first.returncode}; stderr ends:\n{first.stderr[-4000:]}"
    # the wheel's own jar of this line, not the checkout's
    assert f"JAR {installed.venv}" in first.stdout and f"/{jar_name(spark_line())}\n" in first.stdout, first.stdout
    ids = [i for i in range(100) if i % 3 == 1]
    assert f"RESULT ({len(ids)}, {sum(ids)})" in first.stdout, first.stdout
    assert "CROSSCHECK {'rows': 100, 'tables': 3}" in first.stdout, first.stdout
    assert f"PYLANCE {installed.newest_pylance}" in first.stdout, first.stdout
    (listing,) = installed.cache.glob("lance-core-*.jars")
    fetching = [line for line in first.stderr.splitlines() if line.startswith("lancepart:")]
    assert fetching == [f"lancepart: fetching org.lance:lance-core:7.0.0 and the AWS SDK's S3 client (about 270 MB) "
                        f"with Spark's Ivy, once; its output goes to {listing.with_suffix('.log')}"], first.stderr
    assert not noise(first.stderr), first.stderr
    ivy_jars = Path(installed.args[1]) / "jars"
    assert all(Path(jar).parent == ivy_jars for jar in listing.read_text().splitlines())


def test_a_second_session_takes_the_jars_from_the_cache(installed: Installed):
    (listing,) = installed.cache.glob("lance-core-*.jars")
    resolved = listing.stat().st_mtime_ns
    second = subprocess.run([installed.python, "-c", SECOND, *installed.args], cwd=installed.cache.parent,
                            env=installed.env, capture_output=True, text=True, timeout=900)
    assert "COUNT 100" in second.stdout, f"exit {second.returncode}; stderr ends:\n{second.stderr[-4000:]}"
    # the cache's jars: nothing resolved, nothing said
    assert listing.stat().st_mtime_ns == resolved
    assert not [line for line in second.stderr.splitlines() if line.startswith("lancepart:")], second.stderr
    assert not noise(second.stderr), second.stderr
