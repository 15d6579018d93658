"""The wheel `make wheel` builds carries each Spark line's jar. Installed into a fresh virtual
environment outside the checkout that already holds the pyspark of the environment running this
test (each line's environment runs it: LINE_SUITES in the Makefile), with the newest pylance the
package takes, it leaves that pyspark as it is and runs a write, a pruned read and a crosscheck with
`lancepart.spark_session(root)` and no other step, in two processes: the first has Spark's Ivy
resolve lance-core and the AWS SDK from Maven (a fresh Ivy directory and lancepart cache here) and
says so in one line, the second takes them from the cache; neither prints Ivy's report or Lance's
panic (the jars are on the driver's class path)."""

import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pyspark
from lancepart.jar import LINES, jar_name, spark_line
from test_interop_newest_pylance import NEWEST_PYTHON

REPO = Path(__file__).resolve().parent.parent

WRITE = textwrap.dedent("""
    import sys
    import lancepart
    spark = lancepart.spark_session(sys.argv[1], **{"spark.ui.enabled": "false", "spark.jars.ivy": sys.argv[2]})
    spark.sql("CREATE NAMESPACE lance.ns")
    spark.sql("CREATE TABLE lance.ns.t (id BIGINT, p STRING) PARTITIONED BY (p)")
    spark.sql("INSERT INTO lance.ns.t SELECT id, CAST(id % 3 AS STRING) FROM range(100)")
    print("JAR", lancepart.jar_path())
""")

READ = textwrap.dedent("""
    import sys
    import lancepart
    spark = lancepart.spark_session(sys.argv[1], **{"spark.ui.enabled": "false", "spark.jars.ivy": sys.argv[2]})
    print("RESULT", tuple(spark.sql("SELECT count(*), sum(id) FROM lance.ns.t WHERE p = '1'").collect()[0]))
    import lance
    print("PYLANCE", lance.__version__)
    print("CROSSCHECK", lancepart.crosscheck(spark, "lance.ns.t"))
""")

#: What Spark's Ivy prints resolving packages (on a first resolution, a proxy hint per artifact it
#: cannot find in a repository), and Lance's native dispatcher when lance-core is not on the
#: JVM's class path.
NOISE = (":: resolving dependencies", "added as a dependency", "Ivy Default Cache", "resolution report",
         "proxy server that is not well configured", "panicked", "AsyncScanner")


def noise(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if any(marker in line for marker in NOISE)]


def test_the_wheel_works_in_a_fresh_environment(tmp_path):
    wheels = sorted((REPO / "target" / "wheel").glob("lancepart-*.whl"))
    assert len(wheels) == 1, f"expected one wheel in target/wheel (run `make wheel`), found {wheels}"
    with zipfile.ZipFile(wheels[0]) as wheel:
        jars = sorted(name for name in wheel.namelist() if name.endswith(".jar"))
        assert jars == sorted(f"lancepart/jars/{jar_name(line)}" for line in LINES)
        for jar in jars:
            with zipfile.ZipFile(wheel.open(jar)) as classes:
                bundled = [name for name in classes.namelist() if name.endswith((".class", ".so", ".dylib"))
                           and not name.startswith(("lancepart/", "org/apache/spark/sql/lancepart/"))
                           and name != "lance/DefaultSource.class"]  # USING lance's provider class
            # the plugin's own classes only: Spark resolves lance-core and the rest (a second `mvn
            # package` once left the shaded jar in its place)
            assert not bundled, f"{jar} bundles {len(bundled)} other files, such as {bundled[:3]}"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    # nothing of the checkout's: no package on the path, no jar named
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LANCEPART_JAR")}
    # with the newest pylance the package takes (that of the environment test_interop_newest_pylance uses)
    newest = subprocess.run([str(NEWEST_PYTHON), "-c", "import lance; print(lance.__version__)"], capture_output=True,
                            text=True, check=True, timeout=300).stdout.strip()
    # the pyspark a user has, then the wheel, which must leave it
    for packages in ([f"pyspark=={pyspark.__version__}"], [str(wheels[0]), f"pylance=={newest}"]):
        install = subprocess.run([python, "-m", "pip", "install", "-q", *packages], env=env, cwd=tmp_path,
                                 capture_output=True, text=True, timeout=900)
        assert install.returncode == 0, install.stderr[-3000:]
    installed = subprocess.run([python, "-c", "import pyspark; print(pyspark.__version__)"], capture_output=True,
                               text=True, check=True, timeout=300).stdout.strip()
    assert installed == pyspark.__version__
    env["LANCEPART_CACHE_DIR"] = str(tmp_path / "cache")
    args = [str(tmp_path / "warehouse"), str(tmp_path / "ivy")]
    write = subprocess.run([python, "-c", WRITE, *args], cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=900)
    assert write.returncode == 0, f"exit {write.returncode}; stderr ends:\n{write.stderr[-4000:]}"
    # the wheel's own jar of this line, not the checkout's
    assert f"JAR {venv}" in write.stdout and f"/{jar_name(spark_line())}\n" in write.stdout, write.stdout
    (listing,) = (tmp_path / "cache").glob("lance-core-*.jars")
    fetching = [line for line in write.stderr.splitlines() if line.startswith("lancepart:")]
    assert fetching == [f"lancepart: fetching org.lance:lance-core:7.0.0 and the AWS SDK's S3 client (about 270 MB) "
                        f"with Spark's Ivy, once; its output goes to {listing.with_suffix('.log')}"], write.stderr
    assert not noise(write.stderr), write.stderr
    assert all(Path(jar).parent == tmp_path / "ivy" / "jars" for jar in listing.read_text().splitlines())
    resolved = listing.stat().st_mtime_ns

    read = subprocess.run([python, "-c", READ, *args], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=900)
    ids = [i for i in range(100) if i % 3 == 1]
    assert f"RESULT ({len(ids)}, {sum(ids)})" in read.stdout, f"exit {read.returncode}; stderr ends:\n{read.stderr[-4000:]}"
    assert "CROSSCHECK {'rows': 100, 'tables': 3}" in read.stdout, read.stdout
    assert f"PYLANCE {newest}" in read.stdout, read.stdout
    # the cache's jars: nothing resolved, nothing said
    assert listing.stat().st_mtime_ns == resolved
    assert not [line for line in read.stderr.splitlines() if line.startswith("lancepart:")], read.stderr
    assert not noise(read.stderr), read.stderr
