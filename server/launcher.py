"""Run `t42 serve` as a child process: for tests, benchmarks and embedding apps.

The child listens on the port it is given (0: a free one, read back from its
``listening`` log line); its JSON log lines are read back from a file.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional


def t42_command() -> list[str]:
    """The `t42` executable of this interpreter's environment (or ``python -m solver``)."""
    script = Path(sys.executable).parent / "t42"
    return [str(script)] if script.exists() else [sys.executable, "-m", "solver"]


class ServerProcess:
    """A `t42 serve` child process on 127.0.0.1; use as a context manager.

    The child's log goes to a file (read on demand), so a busy server never
    waits on, nor costs CPU in, the parent.

    Args:
        args: More `t42 serve` arguments (``--workers``, ``--http-port`` ...).
        host: The address to listen on.
        start_timeout: Seconds the child gets to log that it listens.
        env: Environment variables for the child, beside the parent's.
    """

    def __init__(self, *args: str, host: str = "127.0.0.1", start_timeout: float = 30.0,
                 env: Optional[dict[str, str]] = None) -> None:
        self.args = ["serve", "--host", host, "--port", "0", *args]
        self.env = env or {}
        self.host = host
        self.start_timeout = start_timeout
        self.port = 0
        self.metrics_port: Optional[int] = None
        self.http_port: Optional[int] = None  # with --http-port
        self.process: Optional[subprocess.Popen[bytes]] = None
        self._log = tempfile.NamedTemporaryFile(prefix="t42-serve-", suffix=".log")

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def start(self) -> "ServerProcess":
        """Start the child and wait until it listens; raises RuntimeError if it does not."""
        self.process = subprocess.Popen(t42_command() + self.args, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=self._log,
                                        env={**os.environ, "PYTHONUNBUFFERED": "1", **self.env})
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline and self.process.poll() is None:
            listening = self.log("listening")
            if listening:
                self.port = int(listening[0]["port"])
                self.metrics_port = listening[0].get("metrics_port")
                self.http_port = listening[0].get("http_port")
                return self
            time.sleep(0.02)
        self.kill()
        raise RuntimeError("server did not start: " + self.log_text()[-2000:])

    def log_text(self) -> str:
        """Everything the child wrote to its log so far."""
        return Path(self._log.name).read_text(errors="replace")

    def log(self, event: Optional[str] = None) -> list[dict[str, Any]]:
        """The JSON log lines so far (only those of one ``event`` kind if given)."""
        events = []
        for line in self.log_text().splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a line still being written, or not JSON
            if isinstance(record, dict) and (event is None or record.get("event") == event):
                events.append(record)
        return events

    def terminate(self, signum: int = signal.SIGTERM) -> None:
        """Send SIGTERM (or ``signum``): the server drains calls in flight and exits."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signum)

    def wait(self, timeout: Optional[float] = None) -> int:
        """Wait for the child to exit; its exit status."""
        assert self.process is not None
        return self.process.wait(timeout)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM, then wait (killing it if it hangs); the exit status."""
        self.terminate()
        try:
            return self.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def __enter__(self) -> "ServerProcess":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        try:
            self.stop()
        finally:
            self.kill()  # the log file stays readable until this object is dropped
