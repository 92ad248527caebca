"""A batch's output directory: its settings, one part file per chunk, the joined results.

    OUTDIR/batch.json            the job, its options and the chunk size (a re-run must match)
    OUTDIR/parts/part-IIIIIIII-DDDDDDDDDDDDDDDD-CCCCCCCCCCCCCCCC.jsonl
                                 chunk I's output lines; D is the digest of its input,
                                 C the checksum of the part's own bytes
    OUTDIR/results.jsonl         every part in input order, written when all are done

A part is written to a temporary file and renamed, so it is there whole or
not at all: whatever stops a run, the parts present are done chunks. A re-run
trusts a part only when its bytes still match its checksum and it holds one
line per record of its chunk: a part damaged since (cut short, emptied,
edited) is removed and its chunk run again, never copied into the results.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from .chunks import Chunk

PART_NAME = re.compile(r"part-(\d{8})-([0-9a-f]{16})-([0-9a-f]{16})\.jsonl")
ERROR_PREFIX = '{"error": '
#: Bytes read at a time when a part is checked (memory stays flat whatever its size).
_BLOCK = 1 << 20


class BatchError(Exception):
    """The run cannot go on as asked; the message says why and what to do."""


@dataclass(frozen=True)
class Part:
    """A part file, as its name tells: the digest of its chunk's input and the checksum of
    its own bytes."""

    digest: str
    checksum: str


def _stderr(message: str) -> None:
    print(f"t42 batch: {message}", file=sys.stderr)


class OutputDir:
    """A batch run's output directory at ``path``: its settings (``batch.json``), one part
    file per chunk (``parts/``) and the joined ``results.jsonl``. ``warn`` gets a line for
    each damaged part that is run again."""

    def __init__(self, path: str | os.PathLike,
                 warn: Callable[[str], None] = _stderr) -> None:
        self.path = Path(path)
        self.settings_file = self.path / "batch.json"
        self.parts = self.path / "parts"
        self.results = self.path / "results.jsonl"
        self.warn = warn
        #: Chunks whose part was checked, or written, by this run.
        self.sound: set[int] = set()

    def open(self, settings: dict) -> dict[int, Part]:
        """Start or resume the run with ``settings``; return its done chunks (index -> part),
        as their part files' names say (`check` looks inside).

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

    def _open(self, settings: dict) -> dict[int, Part]:
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
            _write_atomically(self.settings_file,
                              (json.dumps({"settings": settings}) + "\n").encode())
        self.parts.mkdir(exist_ok=True)
        done = {}
        for entry in os.scandir(self.parts):
            match = PART_NAME.fullmatch(entry.name)
            if match:
                done[int(match[1])] = Part(match[2], match[3])
            elif entry.name.startswith(".tmp-"):
                os.unlink(entry.path)  # a part being written when the run stopped
        return done

    def check(self, chunk: Chunk, done: dict[int, Part]) -> bool:
        """Is ``chunk`` done? Refuses a chunk whose input differs from the done one; a part
        that is not as written (`_damage`) is removed from ``done`` and from the disk,
        with a warning, so the chunk is run again."""
        part = done.get(chunk.index)
        if part is None:
            return False
        if part.digest != chunk.digest:
            raise self.changed(f"{chunk.where} differs")
        if chunk.index not in self.sound:
            path = self.part(chunk.index, part)
            damage = self._damage(path, part, len(chunk.lines))
            if damage:
                del done[chunk.index]
                self._remove(path, damage, chunk.where)
                return False
            self.sound.add(chunk.index)
        return True

    @staticmethod
    def _damage(path: Path, part: Part, records: int) -> str | None:
        """Why the part at ``path`` is not the one written for ``records`` records (None
        when it is): its bytes must match its checksum and hold one line per record."""
        checksum = hashlib.sha256()
        lines = 0
        try:
            # O_NONBLOCK: a FIFO in a part's place must not block the check.
            with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    return "is not a regular file"
                while block := f.read(_BLOCK):
                    checksum.update(block)
                    lines += block.count(b"\n")
        except OSError as exc:
            return f"cannot be read ({exc.strerror or exc})"
        if checksum.hexdigest()[:16] != part.checksum:
            return "does not match its checksum (cut short or changed since it was written)"
        if lines != records:   # a cheap second guard: the count is known
            return f"holds {lines} lines for {records} records"
        return None

    def _remove(self, path: Path, why: str, where: str = "") -> None:
        """Remove the damaged part at ``path`` (``why``: what is wrong with it) and say so."""
        try:
            path.unlink()
        except OSError as exc:
            raise BatchError(f"{path} {why} and cannot be removed ({exc.strerror or exc}): "
                             "remove it and run again") from None
        self.warn(f"{where + ': ' if where else ''}part {path.name} {why}; removed, "
                  "its chunk is run again")

    def changed(self, what: str) -> BatchError:
        return BatchError(f"the input is not the one of the run in {self.path}: {what}; "
                          f"use another output directory, or remove it to start over")

    def part(self, index: int, part: Part) -> Path:
        return self.parts / f"part-{index:08d}-{part.digest}-{part.checksum}.jsonl"

    def write_part(self, index: int, digest: str, text: str) -> Part:
        """A chunk's output lines (joined by newlines) as its part file; return the part."""
        data = (text + "\n").encode("utf-8", "surrogateescape")
        part = Part(digest, hashlib.sha256(data).hexdigest()[:16])
        _write_atomically(self.part(index, part), data)
        self.sound.add(index)
        return part

    def join(self, done: dict[int, Part], chunks: int) -> tuple[int, int]:
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

    def remove_parts(self, indices: Iterable[int], done: dict[int, Part]) -> None:
        for index in indices:
            self.part(index, done[index]).unlink(missing_ok=True)

    def record_run(self, summary: dict) -> None:
        """Keep the last finished run's summary beside the settings."""
        held = json.loads(self.settings_file.read_text())
        held["last_run"] = summary
        _write_atomically(self.settings_file, (json.dumps(held) + "\n").encode())


def _describe(settings: dict) -> str:
    options = ", ".join(f"{k}={v}" for k, v in settings.get("options", {}).items())
    return (f"job {settings.get('job')}" + (f" ({options})" if options else "")
            + f", chunk size {settings.get('chunk_size')}")


def _write_atomically(path: Path, data: bytes) -> None:
    tmp = path.parent / f".tmp-{path.name}"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
