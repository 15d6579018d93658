"""A real S3-compatible server on loopback for the object-storage tests: MinIO in a container
(testcontainers) when a Docker engine answers, otherwise moto's server started as a local
process. Neither is optional: when the chosen server cannot start, the tests fail."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Iterator

import boto3

from loopback import free_port, wait_until_listening

BUCKET = "lancepart-tests"
REGION = "us-east-1"


@dataclass(frozen=True)
class S3Server:
    kind: str  # "minio" or "moto"
    endpoint: str
    access_key: str
    secret_key: str

    def storage_options(self) -> dict[str, str]:
        """Lance object-store options (also what the catalog's ``storage.*`` settings take)."""
        return {
            "aws_endpoint": self.endpoint,
            "aws_region": REGION,
            "aws_access_key_id": self.access_key,
            "aws_secret_access_key": self.secret_key,
            "allow_http": "true",
        }

    def client(self):
        return boto3.client("s3", endpoint_url=self.endpoint, region_name=REGION,
                            aws_access_key_id=self.access_key, aws_secret_access_key=self.secret_key)

    def keys(self, prefix: str) -> list[str]:
        """Every object key under ``prefix`` in the test bucket."""
        pages = self.client().get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix)
        return [o["Key"] for page in pages for o in page.get("Contents", [])]


def docker_engine_available() -> bool:
    if shutil.which("docker") is None:
        return False
    return subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode == 0


@contextlib.contextmanager
def s3_server() -> Iterator[S3Server]:
    """Starts a server, creates the test bucket, and stops the server on exit."""
    starter = _minio if docker_engine_available() else _moto
    with starter() as server:
        server.client().create_bucket(Bucket=BUCKET)
        yield server


@contextlib.contextmanager
def _minio() -> Iterator[S3Server]:
    from testcontainers.minio import MinioContainer

    with MinioContainer() as container:
        config = container.get_config()
        yield S3Server("minio", f"http://{config['endpoint']}", config["access_key"], config["secret_key"])


@contextlib.contextmanager
def _moto() -> Iterator[S3Server]:
    port = free_port()
    # The server logs every request: to a file, since a pipe nobody reads would fill and block it.
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                                   stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_until_listening(process, port, log, "moto server")
            yield S3Server("moto", f"http://127.0.0.1:{port}", "testing", "testing")
        finally:
            process.terminate()
            process.wait(timeout=30)
