"""The docs site builds (mkdocs, strict: no broken links or missing pages), and every code
example in it and in README.md runs: each page's python and sql blocks, in order, as one fresh
Python process with its own Spark session (sql blocks become spark.sql calls). bash blocks hold
make commands: `make demo` runs; `make test` (CI itself) and `make bench` (over 1.5 hours) must
name Makefile targets. Every fenced block must say its language; `text` blocks are not code,
and `scala` blocks run in spark-shell (test_jvm_clients.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from azure_server import ACCOUNT, KEY, AzureServer
from s3_server import S3Server

REPO = Path(__file__).resolve().parent.parent
PAGES = sorted((REPO / "docs").glob("*.md")) + [REPO / "README.md"]
FENCE = re.compile(r"^```(\S*)\n(.*?)^```$", re.S | re.M)
EXECUTED = {"python", "sql", "bash"}
DOCS_BUCKET = "lancepart-docs"


def blocks(page: Path) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(page.read_text())]


def sql_statements(block: str) -> list[str]:
    """Statements of a sql block: separated by ';' at a line end."""
    return [s.strip() for s in re.split(r";\s*$", block, flags=re.M) if s.strip()]


def page_script(page: Path) -> str:
    parts = []
    for language, code in blocks(page):
        if language == "python":
            parts.append(code)
        elif language == "sql":
            parts.extend(f"for _row in spark.sql({s!r}).collect():\n    print(_row)\n" for s in sql_statements(code))
    return "\n".join(parts)


def test_every_block_names_its_language():
    for page in PAGES:
        for language, code in blocks(page):
            # scala blocks (docs/jvm.md) run in spark-shell: test_jvm_clients.py
            assert language in EXECUTED | {"text", "scala"}, f"{page.name}: block without a known language: {code[:80]!r}"


def test_site_builds_strictly(tmp_path):
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(REPO / "mkdocs.yml"),
                          "-d", str(tmp_path / "site")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "site" / "sql" / "index.html").is_file()


@pytest.mark.parametrize("page", [p for p in PAGES if page_script(p)], ids=lambda p: p.name)
def test_page_examples_run(page, tmp_path, s3: S3Server, azure: AzureServer):
    buckets = [b["Name"] for b in s3.client().list_buckets()["Buckets"]]
    if DOCS_BUCKET not in buckets:
        s3.client().create_bucket(Bucket=DOCS_BUCKET)
    if not azure.client().get_container_client(DOCS_BUCKET).exists():
        azure.client().create_container(DOCS_BUCKET)
    env = {**os.environ, "AWS_ENDPOINT_URL": s3.endpoint, "AWS_ACCESS_KEY_ID": s3.access_key,
           "AWS_SECRET_ACCESS_KEY": s3.secret_key, "AZURE_STORAGE_ACCOUNT_NAME": ACCOUNT,
           "AZURE_STORAGE_ACCOUNT_KEY": KEY, "AZURE_STORAGE_ENDPOINT": azure.endpoint,
           "PYSPARK_SUBMIT_ARGS": "--driver-memory 1g pyspark-shell"}
    script = tmp_path / f"{page.stem}.py"
    script.write_text(page_script(page))
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, f"{page.name} examples failed:\n{out.stdout[-3000:]}\n{out.stderr[-5000:]}"


def test_make_commands_in_the_docs():
    targets = set(re.findall(r"^([a-z-]+):", (REPO / "Makefile").read_text(), re.M))
    commands = {line.split("#")[0].strip() for page in PAGES for language, code in blocks(page)
                if language == "bash" for line in code.splitlines() if line.split("#")[0].strip()}
    for command in commands:
        assert re.fullmatch(r"make [a-z-]+", command), f"only make commands belong in bash blocks: {command!r}"
        assert command.split()[1] in targets, command
    assert "make demo" in commands
    out = subprocess.run(["make", "demo"], cwd=REPO, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-5000:]
    assert "crosscheck" in out.stdout.lower(), out.stdout[-3000:]
