"""A batch's output directory: its settings, one part file per chunk, the joined results.

    OUTDIR/batch.json            the job, its options and the chunk size (a re-run must match)
    OUTDIR/parts/part-IIIIIIII-DDDDDDDDDDDDDDDD.jsonl
                                 chunk I's output lines; D is the digest of its input
    OUTDIR/results.jsonl         every part in input order, written when all are done

A part is written to a temporary file and renamed, so it is there whole or
not at all: whatever stops a run, the parts present are done chunks.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Iterable

from .chunks import Chunk

PART_NAME = re.compile(r"part-(\d{8})-([0-9a-f]{16})\.jsonl")
ERROR_PREFIX = '{"error": '


class BatchError(Exception):
    """The run cannot go on as asked; the message says why and what to do."""


class OutputDir:
    """A batch run's output directory at ``path``: its settings (``batch.json``), one part
    file per chunk (``parts/``) and the joined ``results.jsonl``."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.settings_file = self.path / "batch.json"
        self.parts = self.path / "parts"
        self.results = self.path / "results.jsonl"

    def open(self, settings: dict) -> dict[int, str]:
        """Start or resume the run with ``settings``; return its done chunks (index -> digest).

        Raises `BatchError` when the path cannot be an output directory (an existing
        file, a path under a file, no permission).
        """
        if self.path.exists() and not self.path.is_dir():
            raise BatchError(f"{self.path} exists and is not a directory: give a new or a "
                             "batch output directory")
        try:
            return self._open(settings)
        except OSError as exc:
            raise BatchError(f"cannot use {self.path} as the output directory: "
                             f"{exc.strerror or exc}") from None

    def _open(self, settings: dict) -> dict[int, str]:
        if self.settings_file.exists():
            try:
                held = json.loads(self.settings_file.read_bytes())["settings"]
                _describe(held)
            except (ValueError, LookupError, TypeError, AttributeError, RecursionError):
                raise BatchError(f"{self.settings_file} is not the settings file of a batch "
                                 "run: use another output directory") from None
            if held != settings:
                raise BatchError(
                    f"{self.path} holds a batch run with other settings ({_describe(held)}; "
                    f"this run: {_describe(settings)}): use another output directory, "
                    f"or remove it to start over")
        elif self.path.exists() and any(self.path.iterdir()):
            raise BatchError(f"{self.path} exists and is not a batch output directory")
        else:
            self.parts.mkdir(parents=True, exist_ok=True)
            _write_atomically(self.settings_file, json.dumps({"settings": settings}) + "\n")
        self.parts.mkdir(exist_ok=True)
        done = {}
        for entry in os.scandir(self.parts):
            match = PART_NAME.fullmatch(entry.name)
            if match:
                done[int(match[1])] = match[2]
            elif entry.name.startswith(".tmp-"):
                os.unlink(entry.path)  # a part being written when the run stopped
        return done

    def check(self, chunk: Chunk, done: dict[int, str]) -> bool:
        """Is ``chunk`` done? Refuses a chunk whose input differs from the done one."""
        digest = done.get(chunk.index)
        if digest is not None and digest != chunk.digest:
            raise self.changed(f"{chunk.where} differs")
        return digest is not None

    def changed(self, what: str) -> BatchError:
        return BatchError(f"the input is not the one of the run in {self.path}: {what}; "
                          f"use another output directory, or remove it to start over")

    def part(self, index: int, digest: str) -> Path:
        return self.parts / f"part-{index:08d}-{digest}.jsonl"

    def write_part(self, index: int, digest: str, text: str) -> None:
        """A chunk's output lines (joined by newlines) as its part file."""
        _write_atomically(self.part(index, digest), text + "\n")

    def join(self, done: dict[int, str], chunks: int) -> tuple[int, int]:
        """Write results.jsonl from parts 0 .. chunks-1; return (records, error records)."""
        records = errors = 0
        tmp = self.path / ".tmp-results.jsonl"
        with open(tmp, "w", encoding="utf-8", errors="surrogateescape") as out:
            for index in range(chunks):
                with open(self.part(index, done[index]), encoding="utf-8",
                          errors="surrogateescape") as part:
                    for line in part:
                        records += 1
                        errors += line.startswith(ERROR_PREFIX)
                        out.write(line)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, self.results)
        return records, errors

    def remove_parts(self, indices: Iterable[int], done: dict[int, str]) -> None:
        for index in indices:
            self.part(index, done[index]).unlink(missing_ok=True)

    def record_run(self, summary: dict) -> None:
        """Keep the last finished run's summary beside the settings."""
        held = json.loads(self.settings_file.read_text())
        held["last_run"] = summary
        _write_atomically(self.settings_file, json.dumps(held) + "\n")


def _describe(settings: dict) -> str:
    options = ", ".join(f"{k}={v}" for k, v in settings.get("options", {}).items())
    return (f"job {settings.get('job')}" + (f" ({options})" if options else "")
            + f", chunk size {settings.get('chunk_size')}")


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.parent / f".tmp-{path.name}"
    with open(tmp, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
