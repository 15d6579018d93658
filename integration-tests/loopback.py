"""Servers the tests start as local processes on loopback: a free port, and a wait until the
server listens there."""

from __future__ import annotations

import socket
import subprocess
import time
from typing import IO


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_listening(process: subprocess.Popen, port: int, log: IO[bytes], name: str) -> None:
    """Returns once ``process`` accepts connections on ``port``; raises, with the end of its
    ``log``, when it exits first or does not listen within 30 s."""
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise RuntimeError(f"{name} did not start on port {port}: {log.read().decode()[-2000:]}")
            time.sleep(0.1)
