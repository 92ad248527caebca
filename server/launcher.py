"""Run `t42 serve` as a child process: for tests, benchmarks and embedding apps.

The child listens on the port it is given (0: a free one, read back from its
``listening`` log line); its JSON log lines are collected as they arrive.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Optional


def t42_command() -> list[str]:
    """The `t42` executable of this interpreter's environment (or ``python -m solver``)."""
    script = Path(sys.executable).parent / "t42"
    return [str(script)] if script.exists() else [sys.executable, "-m", "solver"]


class ServerProcess:
    """A `t42 serve` child process on 127.0.0.1; use as a context manager."""

    def __init__(self, *args: str, host: str = "127.0.0.1", start_timeout: float = 30.0) -> None:
        self.args = ["serve", "--host", host, "--port", "0", *args]
        self.host = host
        self.start_timeout = start_timeout
        self.port = 0
        self.metrics_port: Optional[int] = None
        self.events: list[dict[str, Any]] = []
        self.other_output: list[str] = []
        self._lock = threading.Lock()
        self._listening = threading.Event()
        self.process: Optional[subprocess.Popen[str]] = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def start(self) -> "ServerProcess":
        """Start the child and wait until it listens; raises RuntimeError if it does not."""
        self.process = subprocess.Popen(t42_command() + self.args, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        threading.Thread(target=self._read_log, daemon=True).start()
        if not self._listening.wait(self.start_timeout) or not self.port:
            self.kill()
            raise RuntimeError("server did not start: " + " ".join(self.other_output[-20:]))
        return self

    def _read_log(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        for line in self.process.stderr:
            try:
                event = json.loads(line)
            except ValueError:
                event = None
            with self._lock:
                if isinstance(event, dict):
                    self.events.append(event)
                else:
                    self.other_output.append(line.rstrip("\n"))
            if isinstance(event, dict) and event.get("event") == "listening":
                self.port = int(event["port"])
                self.metrics_port = event.get("metrics_port")
                self._listening.set()
        self._listening.set()  # the child exited: stop waiting

    def log(self, event: Optional[str] = None) -> list[dict[str, Any]]:
        """The JSON log lines so far (only those of one ``event`` kind if given)."""
        with self._lock:
            return [e for e in self.events if event is None or e.get("event") == event]

    def terminate(self) -> None:
        """Send SIGTERM: the server drains calls in flight and exits."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)

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
            self.kill()
