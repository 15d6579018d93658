"""docs/jvm.md as written: its spark-shell command runs the page's Scala block, then its spark-sql
command reads the table back, with the jar and root replaced by the built jar and a temporary
directory (the pyspark distribution's own spark-shell and spark-sql)."""

import re
import shlex
import subprocess
from pathlib import Path

import pyspark

from lancepart import jar_path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "jvm.md"
FENCE = re.compile(r"^```(\S*)\n(.*?)^```$", re.S | re.M)


def command(text: str, root: Path) -> list[str]:
    """A documented command line as arguments: its program from pyspark's bin, the built jar, `root`."""
    text = text.replace("lancepart.jar", jar_path()).replace("/data/warehouse", str(root)).replace("\\\n", " ")
    program, *args = shlex.split(text)
    return [str(Path(pyspark.__file__).parent / "bin" / program), "--master", "local[2]",
            "--conf", "spark.ui.enabled=false", *args]


def test_spark_shell_and_spark_sql_as_documented(tmp_path):
    blocks = FENCE.findall(PAGE.read_text())
    [shell] = [code for lang, code in blocks if lang == "text" and code.startswith("spark-shell")]
    [sql] = [code for lang, code in blocks if lang == "text" and code.startswith("spark-sql")]
    [scala] = [code for lang, code in blocks if lang == "scala"]
    root = tmp_path / "warehouse"
    out = subprocess.run(command(shell, root), input=scala + "\nSystem.exit(0)\n", cwd=tmp_path, capture_output=True,
                         text=True, timeout=600)
    assert re.search(r"\|\s*DE\|\s*25\|\n\|\s*US\|\s*75\|", out.stdout), f"{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    assert f"|{root}/jvm/events|2" in out.stdout.replace(" ", ""), out.stdout[-3000:]  # spec 2: the field ALTER TABLE added
    out = subprocess.run(command(sql, root), cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0 and out.stdout.splitlines()[-1].split() == ["DE", "25"], \
        f"{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
