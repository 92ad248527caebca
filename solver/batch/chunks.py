"""The input of a batch as a stream of chunks: fixed runs of records, each with a digest.

A record is a non-blank line (blank lines are skipped, as `t42 solve` skips
them). Chunk ``i`` holds records ``i * size`` ... ``i * size + size - 1``;
its digest (SHA-256 of its lines) keys its part file, so a re-run knows
which chunks are done and notices an input that changed under them.
Only one chunk is held in memory at a time, whatever the input's size.
"""

from __future__ import annotations

import hashlib
import io
import sys
from dataclasses import dataclass
from typing import Iterator, TextIO


@dataclass
class Chunk:
    index: int
    lines: list[str]
    #: 1-based input line numbers of the first and the last record.
    first_line: int
    last_line: int
    digest: str

    @property
    def where(self) -> str:
        return f"chunk {self.index} (input lines {self.first_line}-{self.last_line})"


def open_input(path: str) -> TextIO:
    """The input as text; ``-`` is standard input. Undecodable bytes survive to the parser."""
    if path == "-":
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="surrogateescape")
    return open(path, encoding="utf-8", errors="surrogateescape")


def read_chunks(stream: TextIO, size: int) -> Iterator[Chunk]:
    """Chunks of ``size`` records (the last may be shorter), in input order."""
    lines: list[str] = []
    digest = hashlib.sha256()
    first = last = index = 0
    for number, line in enumerate(stream, 1):
        line = line.rstrip("\r\n")
        if not line.strip():
            continue
        if not lines:
            first = number
        lines.append(line)
        last = number
        digest.update(line.encode("utf-8", "surrogateescape") + b"\n")
        if len(lines) == size:
            yield Chunk(index, lines, first, last, digest.hexdigest()[:16])
            lines, digest, index = [], hashlib.sha256(), index + 1
    if lines:
        yield Chunk(index, lines, first, last, digest.hexdigest()[:16])
