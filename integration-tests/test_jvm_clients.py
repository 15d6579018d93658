"""docs/jvm.md as written: its spark-shell command runs the page's Scala block, then its spark-sql
command reads the table back, with the jar and root replaced by the built jar and a temporary
directory (the pyspark distribution's own spark-shell and spark-sql)."""

import re
import shlex
import subprocess
from pathlib import Path

import pyspark

from differential import ICEBERG_JAR
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


def spark_sql_with_iceberg(tmp_path, extensions: str, statements: list[str]) -> subprocess.CompletedProcess:
    """spark-sql with the plugin, Iceberg's runtime, `extensions` and both catalogs, running `statements`."""
    args = ["--jars", f"{jar_path()},{ICEBERG_JAR}", "--conf", f"spark.driver.extraClassPath={jar_path()}",
            "--conf", f"spark.sql.extensions={extensions}",
            "--conf", "spark.sql.catalog.lance=lancepart.spark.PartitionedCatalog",
            "--conf", f"spark.sql.catalog.lance.root={tmp_path / 'lance'}",
            "--conf", "spark.sql.catalog.ice=org.apache.iceberg.spark.SparkCatalog",
            "--conf", "spark.sql.catalog.ice.type=hadoop", "--conf", f"spark.sql.catalog.ice.warehouse={tmp_path / 'iceberg'}",
            "-e", "; ".join(statements)]
    return subprocess.run(command("spark-sql", tmp_path) + args, cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)


ICEBERG_EXTENSION = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
LANCE_TABLE = ["CREATE NAMESPACE lance.j", "CREATE TABLE lance.j.t (id BIGINT, c STRING) PARTITIONED BY (c)"]


def test_spark_sql_with_iceberg_evolves_both_tables(tmp_path):
    """With Iceberg's extension named before lancepart's, as docs/sql.md says, a JVM-built session
    (which applies the jar's own copy of lancepart's extension first) parses ALTER TABLE ... PARTITION
    FIELD with lancepart's parser on lancepart tables and with Iceberg's on Iceberg tables."""
    out = spark_sql_with_iceberg(tmp_path, f"{ICEBERG_EXTENSION},lancepart.spark.LancepartSparkSessionExtensions", [
        *LANCE_TABLE, "ALTER TABLE lance.j.t ADD PARTITION FIELD bucket(4, id)",
        "CREATE NAMESPACE ice.j", "CREATE TABLE ice.j.t (id BIGINT, c STRING) USING iceberg PARTITIONED BY (c)",
        "ALTER TABLE ice.j.t ADD PARTITION FIELD bucket(4, id)",
        "INSERT INTO lance.j.t VALUES (1, 'a'), (2, 'b')", "INSERT INTO ice.j.t VALUES (1, 'a'), (2, 'b')",
        "SELECT DISTINCT 'lance', spec_id FROM lance.j.t.partitions",
        "SELECT DISTINCT 'iceberg', spec_id FROM ice.j.t.partitions",
    ])
    assert out.returncode == 0, f"{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    # rows written after the ALTER take the second spec: lancepart's is v2, Iceberg's spec id 1
    assert out.stdout.split()[-4:] == ["lance", "2", "iceberg", "1"], out.stdout[-3000:]


def test_partition_field_ddl_that_icebergs_parser_took_names_the_extension_order(tmp_path):
    """Iceberg's extension alone in a JVM-built session comes after lancepart's class-path copy, so
    Iceberg's parser takes the statement; on a lancepart table it fails saying how to order them."""
    out = spark_sql_with_iceberg(tmp_path, ICEBERG_EXTENSION,
                                 [*LANCE_TABLE, "ALTER TABLE lance.j.t ADD PARTITION FIELD bucket(4, id)"])
    assert out.returncode != 0
    assert ("table lance.j.t: ALTER TABLE ... ADD PARTITION FIELD was parsed by Iceberg's SQL extension" in out.stderr
            and "name lancepart's extension after Iceberg's" in out.stderr), out.stderr[-3000:]
