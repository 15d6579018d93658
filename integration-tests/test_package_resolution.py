"""When Spark's Ivy cannot resolve the packages a wheel's jar needs (offline, or a repository
without them), the session does not start and the error says why and where Ivy's output is. The
repository here is an empty directory named by an Ivy settings file (a real resolution, no
network); the resolution that succeeds runs in test_wheel.py."""

import textwrap

import pytest

from lancepart.jar import spark_line
from lancepart.packages import PackageResolutionError, resolved_jars


def test_a_failed_resolution_names_the_missing_packages_and_the_log(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("LANCEPART_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "empty").mkdir()
    settings = tmp_path / "ivysettings.xml"
    settings.write_text(textwrap.dedent(f"""
        <ivysettings>
          <settings defaultResolver="empty"/>
          <resolvers><ibiblio name="empty" m2compatible="true" root="{(tmp_path / 'empty').as_uri()}"/></resolvers>
        </ivysettings>
    """))
    with pytest.raises(PackageResolutionError) as failure:
        resolved_jars({"spark.jars.ivySettings": str(settings), "spark.jars.ivy": str(tmp_path / "ivy")}, spark_line())
    (log,) = (tmp_path / "cache").glob("lance-core-7.0.0-*.log")
    message = str(failure.value)
    assert message.startswith("Spark's Ivy could not resolve org.lance:lance-core:7.0.0, software.amazon.awssdk:s3:"
                              "2.56.0, software.amazon.awssdk:url-connection-client:2.56.0: java.lang.RuntimeException: "
                              "[unresolved dependency: org.lance#lance-core;7.0.0: not found"), message
    assert f"Its output is in {log}." in message and "spark.jars.repositories" in message
    assert "UNRESOLVED DEPENDENCIES" in log.read_text()
    assert not list((tmp_path / "cache").glob("*.jars"))  # nothing cached: the next start tries again
    assert capfd.readouterr().err == f"lancepart: fetching org.lance:lance-core:7.0.0 and the AWS SDK's S3 client " \
                                     f"(about 270 MB) with Spark's Ivy, once; its output goes to {log}\n"
