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


def read_text(path: str | None) -> str:
    if path in (None, "-"):
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None


def read_records(path: str | None) -> list[Record]:
    """A whole-file JSON document, or else JSON Lines (one document per non-blank line)."""
    text = read_text(path)
    if not text.strip():
        raise InputError("no input: give a position file, or JSON on standard input")
    try:
        return [Record(None, json.loads(text))]
    except ValueError as exc:
        whole_document_error = PositionError("position", f"not valid JSON: {exc}", "INVALID_JSON")
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            records.append(parse_line(number, line))
    if all(r.error is not None for r in records):
        # Not JSON Lines either: one broken document (a pretty-printed file), one error.
        return [Record(None, error=whole_document_error)]
    return records


def parse_line(number: int, line: str) -> Record:
    """One line of JSON Lines input (`t42 batch` reads its input with this too)."""
    try:
        return Record(number, json.loads(line))
    except ValueError as exc:
        return Record(number, error=PositionError(
            "position", f"not valid JSON: {exc}", "INVALID_JSON"))


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
