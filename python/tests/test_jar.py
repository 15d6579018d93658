"""The package finds the plugin jar or says how to build it."""

import pytest

from lancepart import jar_path


def test_missing_jar_says_how_to_build_it(monkeypatch, tmp_path):
    monkeypatch.setenv("LANCEPART_JAR", str(tmp_path / "absent.jar"))
    with pytest.raises(FileNotFoundError, match=r"absent\.jar.*mvn -q -B package -DskipTests"):
        jar_path()


def test_explicit_jar_is_used(monkeypatch, tmp_path):
    jar = tmp_path / "plugin.jar"
    jar.write_bytes(b"PK")
    monkeypatch.setenv("LANCEPART_JAR", str(jar))
    assert jar_path() == str(jar)
