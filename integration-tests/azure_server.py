"""A real Azure Blob service on loopback for the object-storage tests: Azurite in a container
(testcontainers) when a Docker engine answers, otherwise Azurite's blob server from the npm
registry (`make test` installs it and names it in LANCEPART_AZURITE) started as a local process.
Neither is optional: when the chosen server cannot start, the tests fail."""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from azure.storage.blob import BlobServiceClient

from loopback import free_port, wait_until_listening
from s3_server import docker_engine_available

CONTAINER = "lancepart-tests"
ACCOUNT = "devstoreaccount1"
# Azurite's well-known account key (learn.microsoft.com: "Use the Azurite emulator")
KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="


@dataclass(frozen=True)
class AzureServer:
    kind: str  # "container" or "process"
    endpoint: str  # the account's blob service: http://host:port/<account>

    def storage_options(self) -> dict[str, str]:
        """Lance object-store options (also what the catalog's ``storage.*`` settings take)."""
        return {
            "azure_storage_account_name": ACCOUNT,
            "azure_storage_account_key": KEY,
            "azure_storage_endpoint": self.endpoint,
            "allow_http": "true",
        }

    def client(self):
        return BlobServiceClient(self.endpoint, credential={"account_name": ACCOUNT, "account_key": KEY})

    def blobs(self, prefix: str) -> list[str]:
        """Every blob name under ``prefix`` in the test container."""
        return [b.name for b in self.client().get_container_client(CONTAINER).list_blobs(name_starts_with=prefix)]


@contextlib.contextmanager
def azure_server() -> Iterator[AzureServer]:
    """Starts a server, creates the test container, and stops the server on exit."""
    starter = _container if docker_engine_available() else _process
    with starter() as server:
        server.client().create_container(CONTAINER)
        yield server


@contextlib.contextmanager
def _container() -> Iterator[AzureServer]:
    from testcontainers.azurite import AzuriteContainer

    with AzuriteContainer() as container:
        port = container.get_exposed_port(container.blob_service_port)
        yield AzureServer("container", f"http://{container.get_container_host_ip()}:{port}/{ACCOUNT}")


@contextlib.contextmanager
def _process() -> Iterator[AzureServer]:
    azurite = os.environ.get("LANCEPART_AZURITE", "")
    if not Path(azurite).is_file():
        raise RuntimeError(f"Azurite's blob server is missing (LANCEPART_AZURITE={azurite!r}): `make test` installs it "
                           "from npm and sets LANCEPART_AZURITE; or set it to an installed azurite-blob")
    port = free_port()
    with tempfile.TemporaryDirectory() as data, tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [azurite, "--blobHost", "127.0.0.1", "--blobPort", str(port), "--location", data,
             "--skipApiVersionCheck", "--loose", "--disableTelemetry"], stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_until_listening(process, port, log, "Azurite")
            yield AzureServer("process", f"http://127.0.0.1:{port}/{ACCOUNT}")
        finally:
            process.terminate()
            process.wait(timeout=30)
