"""The wheel `make wheel` builds carries each Spark line's jar. Installed into a fresh virtual
environment outside the checkout that already holds the pyspark of the environment running this
test (each line's environment runs it: LINE_SUITES in the Makefile), with the newest pylance the
package takes, it leaves that pyspark as it is and runs a write, a pruned read and a crosscheck with
`lancepart.spark_session(root)` and no other step: Spark resolves lance-core and the AWS SDK from
Maven (a fresh Ivy cache here)."""

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

SCRIPT = textwrap.dedent("""
    import sys
    import lancepart
    spark = lancepart.spark_session(sys.argv[1], **{"spark.ui.enabled": "false", "spark.jars.ivy": sys.argv[2]})
    spark.sql("CREATE NAMESPACE lance.ns")
    spark.sql("CREATE TABLE lance.ns.t (id BIGINT, p STRING) PARTITIONED BY (p)")
    spark.sql("INSERT INTO lance.ns.t SELECT id, CAST(id % 3 AS STRING) FROM range(100)")
    print("RESULT", tuple(spark.sql("SELECT count(*), sum(id) FROM lance.ns.t WHERE p = '1'").collect()[0]))
    print("JAR", lancepart.jar_path())
    import lance
    print("PYLANCE", lance.__version__)
    print("CROSSCHECK", lancepart.crosscheck(spark, "lance.ns.t"))
""")


def test_the_wheel_works_in_a_fresh_environment(tmp_path):
    wheels = sorted((REPO / "target" / "wheel").glob("lancepart-*.whl"))
    assert len(wheels) == 1, f"expected one wheel in target/wheel (run `make wheel`), found {wheels}"
    with zipfile.ZipFile(wheels[0]) as wheel:
        jars = sorted(name for name in wheel.namelist() if name.endswith(".jar"))
        assert jars == sorted(f"lancepart/jars/{jar_name(line)}" for line in LINES)
        for jar in jars:
            with zipfile.ZipFile(wheel.open(jar)) as classes:
                bundled = [name for name in classes.namelist() if name.endswith((".class", ".so", ".dylib"))
                           and not name.startswith(("lancepart/", "org/apache/spark/sql/lancepart/"))]
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
    out = subprocess.run([python, "-c", SCRIPT, str(tmp_path / "warehouse"), str(tmp_path / "ivy")],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    ids = [i for i in range(100) if i % 3 == 1]
    assert f"RESULT ({len(ids)}, {sum(ids)})" in out.stdout, \
        f"exit {out.returncode}; stderr ends:\n{out.stderr[-4000:]}"
    # the wheel's own jar of this line, not the checkout's
    assert f"JAR {venv}" in out.stdout and f"/{jar_name(spark_line())}\n" in out.stdout, out.stdout
    assert "CROSSCHECK {'rows': 100, 'tables': 3}" in out.stdout, out.stdout
    assert f"PYLANCE {newest}" in out.stdout, out.stdout
