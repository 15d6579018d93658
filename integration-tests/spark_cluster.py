"""A standalone Spark cluster on loopback from the pyspark distribution: one master and two
workers (one core each) as local processes, stopped (with their executors) on exit."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pyspark


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait(condition, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.5)


@contextlib.contextmanager
def standalone_cluster(work_dir: Path, workers: int = 2, worker_memory: str = "1536m") -> Iterator[str]:
    """Yields the master URL (spark://127.0.0.1:<port>) once every worker has registered."""
    spark_class = Path(pyspark.__file__).parent / "bin" / "spark-class"
    env = {**os.environ, "SPARK_HOME": str(Path(pyspark.__file__).parent), "SPARK_LOCAL_IP": "127.0.0.1"}
    port, ui_port = _free_port(), _free_port()
    master_url = f"spark://127.0.0.1:{port}"
    processes: list[subprocess.Popen] = []

    def start(name: str, *args: str) -> None:
        log = open(work_dir / f"{name}.log", "wb")
        processes.append(subprocess.Popen([str(spark_class), *args], env=env, stdout=log, stderr=subprocess.STDOUT,
                                          start_new_session=True))  # own process group: its executors too

    def master_state() -> dict:
        with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/json/", timeout=5) as response:
            return json.load(response)

    def registered() -> bool:
        try:
            return master_state()["aliveworkers"] == workers
        except OSError:
            return False

    try:
        start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
              "--webui-port", str(ui_port))
        for i in range(workers):
            worker_dir = work_dir / f"worker{i}"
            worker_dir.mkdir()
            start(f"worker{i}", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", "1",
                  "--memory", worker_memory, "--webui-port", str(_free_port()), "--work-dir", str(worker_dir),
                  master_url)
        _wait(registered, f"{workers} workers to register with {master_url} (logs in {work_dir})")
        yield master_url
    finally:
        for process in processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
