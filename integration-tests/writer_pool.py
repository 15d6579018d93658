"""Writer processes (``writer_process.py``), each with its own JVM and Spark session, that take
commands: the concurrency tests keep a pool of them for the whole module instead of starting a
JVM per writer and test, and the fault test starts one per kill."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

SCRIPT = Path(__file__).with_name("writer_process.py")
# the longest a writer may take to print its next event before it is killed and the test fails
EVENT_TIMEOUT_SECONDS = 600


class Writer:
    """One writer process; its stderr (the JVM's) goes to a temporary file for failure messages."""

    def __init__(self, root: Path, env: dict[str, str] | None = None):
        self._stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, str(SCRIPT), str(root)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self._stderr, text=True, start_new_session=True,
                                     env=env)
        self.busy = False  # a command was sent whose "done" was not read yet, or that failed

    def send(self, command: dict | str) -> None:
        """A command (a dict) or a line to a running command (a str)."""
        self.busy = self.busy or isinstance(command, dict)
        self.proc.stdin.write((command if isinstance(command, str) else json.dumps(command)) + "\n")
        self.proc.stdin.flush()

    def event(self) -> dict:
        """The next event the writer prints; fails with its stderr when it printed none (it exited,
        or hung for EVENT_TIMEOUT_SECONDS and was killed)."""
        watchdog = threading.Timer(EVENT_TIMEOUT_SECONDS, self._signal_kill)
        watchdog.start()
        try:
            line = self.proc.stdout.readline()
        finally:
            watchdog.cancel()
        if not line:
            raise AssertionError(f"writer {self.proc.pid} exited ({self.proc.poll()}); its stderr ends:\n{self.stderr()}")
        return self._parsed(line)

    def _parsed(self, line: str) -> dict:
        try:
            return json.loads(line)
        except json.JSONDecodeError:
            raise AssertionError(f"writer {self.proc.pid} printed a line that is not an event: {line!r}; its stderr "
                                 f"ends:\n{self.stderr()}") from None

    def has_event(self) -> bool:
        """Whether the writer printed an event not read yet (one printed before the last ``event``
        and buffered with it is not seen)."""
        return bool(select.select([self.proc.stdout], [], [], 0)[0])

    def wait_ready(self) -> None:
        event = self.event()
        assert event == {"ready": True}, event

    def until_done(self) -> list[dict]:
        """The events of the running command; fails with the error of a command that raised."""
        events = []
        while not (event := self.event()).get("done"):
            events.append(event)
        assert event["error"] is None, f"writer {self.proc.pid} failed:\n{event['error']}"
        self.busy = False  # a failed one stays busy: it may leave lines it did not read (a stepping one)
        return events

    def stderr(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")[-4000:]

    def kill(self) -> list[dict]:
        """SIGKILL to the writer and its JVM (its own process group); returns the events it printed
        and no one read yet."""
        lines = self._terminate()
        events = [self._parsed(line) for line in lines]
        self._stderr.close()
        return events

    def _terminate(self) -> list[str]:
        """Kills the writer and returns the lines it printed and no one read yet."""
        self._signal_kill()
        self.proc.wait()
        return self.proc.stdout.read().splitlines()

    def _signal_kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):  # the group is gone already
            os.killpg(self.proc.pid, signal.SIGKILL)

    def close(self) -> None:
        """Ends an idle writer's session; kills one still in a command (a test that failed midway),
        or whose session has not ended after 120 s."""
        if not self.busy:
            self.proc.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=120)
        if self.proc.poll() is None:
            self._terminate()
        self._stderr.close()


class WriterPool:
    """Writers started on first use and kept until ``close``; ``take(n)`` gives n idle ones (a
    writer left in a command by a failed test, or whose command failed, is replaced)."""

    def __init__(self, root: Path):
        self.root = root
        self.writers: list[Writer] = []

    def take(self, n: int) -> list[Writer]:
        for writer in [w for w in self.writers if w.busy]:
            writer.close()
            self.writers.remove(writer)
        started = [Writer(self.root) for _ in range(n - len(self.writers))]
        for writer in started:
            writer.wait_ready()
        self.writers += started
        return self.writers[:n]

    def close(self) -> None:
        for writer in self.writers:
            writer.close()
