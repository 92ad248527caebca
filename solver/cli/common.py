"""What every `t42` command shares: reading input, reporting errors, JSON output.

Commands never print tracebacks for bad input: a `PositionError` becomes one
line on stderr (or an ``{"error": ...}`` object in a JSON Lines batch) and
the exit status becomes 2.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from ..errors import PositionError, SearchCancelled
from ..jsondoc import decode, parse_json

EXIT_OK = 0
EXIT_BAD_INPUT = 2


class InputError(Exception):
    """The input could not be read at all (missing file, empty input)."""


@dataclass
class Record:
    """One input document: its 1-based line (None for a whole-file document) and content."""

    line: int | None
    data: Any = None
    error: PositionError | None = None


def read_bytes(path: str | None) -> bytes:
    if path in (None, "-"):
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None


def read_records(path: str | None) -> list[Record]:
    """A whole-file JSON document, or else JSON Lines (one document per non-blank line).

    Input is decoded as JSON text is (`solver.jsondoc.decode`: UTF-8 with or
    without a byte-order mark, UTF-16, UTF-32). A line that does not decode
    or parse is a bad record of its own; the other lines are still read.
    """
    return records_of(read_bytes(path))


def records_of(raw: bytes) -> list[Record]:
    """The records of input bytes (see `read_records`)."""
    if not raw.strip():
        raise InputError("no input: give a position file, or JSON on standard input")
    try:
        text = decode(raw, "position")
    except PositionError as exc:
        if not json.detect_encoding(raw).startswith("utf-8"):
            return [Record(None, error=exc)]  # UTF-16/32 has no lines to recover
        return _lines(raw.split(b"\n"), Record(None, error=exc))  # decode line by line
    if not text.strip():
        raise InputError("no input: give a position file, or JSON on standard input")
    try:
        return [_record(None, parse_json(text, "position"))]
    except PositionError as exc:
        # Split on newlines only: str.splitlines() would also split at U+2028 and
        # other characters that a JSON string may hold.
        return _lines(text.split("\n"), Record(None, error=exc))


def _lines(lines: list[str] | list[bytes], whole: Record) -> list[Record]:
    """JSON Lines records; ``whole`` (the error of the input read as one document)
    when no line is a JSON object either."""
    records = []
    for number, line in enumerate(lines, 1):
        if line.strip():
            records.append(parse_line(number, line))
    if not any(r.error is None for r in records):
        # Not JSON Lines of objects either: one broken document (a pretty-printed
        # file, some of whose lines may parse as a string or a number), one error.
        return [whole]
    return records


def _record(line: int | None, data: Any) -> Record:
    """A record of parsed JSON: an object, else an error (a JSON string is not read
    again as JSON text, as the Python API would)."""
    if isinstance(data, dict):
        return Record(line, data)
    return Record(line, error=PositionError("position", "an input document must be a JSON "
                                            "object", "INVALID_TYPE"))


def parse_line(number: int, line: str | bytes) -> Record:
    """One line of JSON Lines input (`t42 batch` reads its input with this too)."""
    try:
        return _record(number, parse_json(line, "position"))
    except PositionError as exc:
        return Record(number, error=exc)


def error_json(exc: PositionError) -> dict:
    """What a bad record yields in JSON output, in its place."""
    return {"error": {"field": exc.field, "reason": exc.reason, "code": exc.code}}


def error_line(record: Record, error: PositionError) -> str:
    where = f"line {record.line}: " if record.line is not None else ""
    return f"t42: error: {where}{error.field}: {error.reason}"


def run_records(records: list[Record], as_json: bool,
                handle: Callable[[Any], tuple[dict, str]], progress: str | None = None) -> int:
    """Apply ``handle`` (data -> (json object, human text)) to each record, in order.

    Bad records do not stop the others; the exit status is 2 if any was bad.
    With a ``progress`` label, a progress bar is drawn on stderr (a terminal).
    """
    status = EXIT_OK
    for record in iter_lines_with_progress(records, progress or "", progress is not None):
        try:
            if record.error is not None:
                raise record.error
            obj, text = handle(record.data)
        except PositionError as exc:
            status = EXIT_BAD_INPUT
            if as_json:
                emit_json(error_json(exc))
            print(error_line(record, exc), file=sys.stderr)
            continue
        if as_json:
            emit_json(obj)
        else:
            print(text)
            if len(records) > 1:
                print()
    return status


def emit_json(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def guarded(command: Callable[..., int]) -> Callable[..., int]:
    """Turn input failures and interrupts into one stderr line and an exit status."""

    def run(*args: Any, **kwargs: Any) -> int:
        try:
            return command(*args, **kwargs)
        except InputError as exc:
            print(f"t42: error: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
        except PositionError as exc:
            print(f"t42: error: {exc.field}: {exc.reason}", file=sys.stderr)
            return EXIT_BAD_INPUT
        except SearchCancelled as exc:
            print(f"t42: error: {exc}", file=sys.stderr)
            return 1
        except BrokenPipeError:
            # The reader went away (t42 ... | head): stop quietly, as Unix tools do.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return EXIT_OK
        except KeyboardInterrupt:
            print("t42: interrupted", file=sys.stderr)
            return 130

    return run


def iter_lines_with_progress(items: list, label: str, enabled: bool) -> Iterator:
    """Yield items, drawing a progress bar on stderr when enabled and stderr is a terminal."""
    total = len(items)
    show = enabled and total > 1 and sys.stderr.isatty()
    for i, item in enumerate(items, 1):
        yield item
        if show:
            done = int(30 * i / total)
            sys.stderr.write(f"\r{label} [{'#' * done}{'.' * (30 - done)}] {i}/{total}")
            sys.stderr.flush()
    if show:
        sys.stderr.write("\n")
