"""The cache of the jars Spark's Ivy resolves for a wheel's jar: its entry names, its atomic
writes, and one resolution at a time (real processes; the resolution itself runs in
integration-tests/test_wheel.py and test_package_resolution.py)."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lancepart.packages import EXCLUDES, PACKAGES, cache_dir, cache_key, cached, write_atomically


def test_the_cache_directory_is_the_environment_variables_or_the_users(monkeypatch, tmp_path):
    monkeypatch.setenv("LANCEPART_CACHE_DIR", str(tmp_path))
    assert cache_dir() == tmp_path
    monkeypatch.delenv("LANCEPART_CACHE_DIR")
    assert cache_dir() == Path.home() / ".cache" / "lancepart"


def test_a_cache_entry_is_named_by_the_packages_and_the_ivy_settings():
    ivy = {"spark.jars.ivy": "/tmp/ivy", "spark.jars.repositories": "https://repo.example/maven"}
    key = cache_key(PACKAGES, EXCLUDES, ivy)
    assert key.startswith("lance-core-7.0.0-") and len(key) == len("lance-core-7.0.0-") + 16
    assert cache_key(PACKAGES, EXCLUDES, dict(reversed(ivy.items()))) == key  # the settings' order does not count
    others = [cache_key(PACKAGES, EXCLUDES, {}), cache_key(PACKAGES, EXCLUDES, {**ivy, "spark.jars.ivy": "/other"}),
              cache_key(PACKAGES, EXCLUDES[1:], ivy), cache_key(["org.lance:lance-core:7.0.1", *PACKAGES[1:]], EXCLUDES, ivy)]
    assert len({key, *others}) == 5
    assert others[-1].startswith("lance-core-7.0.1-")


def test_an_atomic_write_replaces_the_file_whole_or_not_at_all(tmp_path):
    path = tmp_path / "entry.jars"
    write_atomically(path, "a\n")
    write_atomically(path, "b\nc\n")
    assert path.read_text() == "b\nc\n"
    with pytest.raises(TypeError):
        write_atomically(path, None)  # fails while writing
    assert path.read_text() == "b\nc\n"
    assert [p.name for p in tmp_path.iterdir()] == ["entry.jars"]  # no temporary file left


def test_the_cache_is_produced_once_and_again_when_a_listed_file_is_gone(tmp_path):
    jar = tmp_path / "a.jar"
    produced = []

    def produce():
        jar.write_bytes(b"PK")
        produced.append(1)
        return [str(jar)]

    listing = tmp_path / "cache" / "entry.jars"
    assert cached(listing, produce) == [str(jar)] == cached(listing, produce)
    assert len(produced) == 1 and listing.read_text() == f"{jar}\n"
    jar.unlink()
    assert cached(listing, produce) == [str(jar)] and len(produced) == 2


CONCURRENT = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from lancepart.packages import cached
    directory = Path(sys.argv[1])
    def produce():
        with open(directory / "produced", "a") as log:
            log.write("once\\n")
        time.sleep(1)
        (directory / "a.jar").write_bytes(b"PK")
        return [str(directory / "a.jar")]
    print(cached(directory / "cache" / "entry.jars", produce))
""")


def test_two_processes_starting_together_produce_the_cache_once(tmp_path):
    processes = [subprocess.Popen([sys.executable, "-c", CONCURRENT, str(tmp_path)], stdout=subprocess.PIPE, text=True)
                 for _ in range(2)]
    outputs = [process.communicate(timeout=60)[0] for process in processes]
    assert outputs == [f"['{tmp_path / 'a.jar'}']\n"] * 2
    assert (tmp_path / "produced").read_text() == "once\n"
