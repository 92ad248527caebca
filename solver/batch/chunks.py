"""The input of a batch as a stream of chunks: fixed runs of records, each with a digest.

A record is a non-blank line (blank lines are skipped, as `t42 solve` skips
them; lines end at newline bytes only, as there). Chunk ``i`` holds records
``i * size`` ... ``i * size + size - 1``; its digest (SHA-256 of its lines)
keys its part file, so a re-run knows which chunks are done and notices an
input that changed under them.
Only one chunk is held in memory at a time, whatever the input's size.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from typing import BinaryIO, Iterator

from ..game.jsondoc import blank_line


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


def open_input(path: str) -> BinaryIO:
    """The input at ``path`` as bytes; ``-`` is standard input."""
    if path == "-":
        return sys.stdin.buffer
    return open(path, "rb")


def read_chunks(stream: BinaryIO, size: int) -> Iterator[Chunk]:
    """Chunks of ``size`` records of ``stream`` (the last may be shorter), in input order.

    A record's line is held as text without its end (``\\n``, ``\\r\\n``); bytes that
    are not UTF-8 survive in it as surrogates (``surrogateescape``), so the worker
    judges the very bytes that `t42 JOB --json` judges.
    """
    lines: list[str] = []
    digest = hashlib.sha256()
    first = last = index = 0
    for number, raw in enumerate(stream, 1):
        if blank_line(raw):
            continue
        raw = raw.rstrip(b"\r\n")
        if not lines:
            first = number
        lines.append(raw.decode("utf-8", "surrogateescape"))
        last = number
        digest.update(raw + b"\n")
        if len(lines) == size:
            yield Chunk(index, lines, first, last, digest.hexdigest()[:16])
            lines, digest, index = [], hashlib.sha256(), index + 1
    if lines:
        yield Chunk(index, lines, first, last, digest.hexdigest()[:16])
