"""What every `t42` command shares: reading input, reporting errors, JSON output.

Commands never print tracebacks for bad input: a `PositionError` becomes one
line on stderr (or an ``{"error": ...}`` object in a JSON Lines batch) and
the exit status becomes 2.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, BinaryIO, Callable, Iterable, Iterator

from ..game.errors import PositionError, SearchCancelled
from ..game.jsondoc import blank_line, decode, parse_json

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


def open_input(path: str | None) -> BinaryIO:
    """The input as a binary stream: standard input, or the file at ``path``."""
    if path in (None, "-"):
        return sys.stdin.buffer
    try:
        return open(path, "rb")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None


def read_bytes(path: str | None) -> bytes:
    stream = open_input(path)
    try:
        return stream.read()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def read_records(path: str | None) -> Iterator[Record]:
    """A whole-file JSON document, or else JSON Lines (one document per non-blank line).

    Input is decoded as JSON text is (`solver.game.jsondoc.decode`: UTF-8 with or
    without a byte-order mark, UTF-16, UTF-32). A line that does not decode
    or parse is a bad record of its own; the other lines are still read.

    Records come as the input arrives: when the first non-blank line is a JSON
    object, the input is JSON Lines and each line is yielded as soon as it is
    read (a program may write one line and wait for its answer; memory stays
    flat however long the input). Otherwise (a pretty-printed document, UTF-16,
    garbage) the whole input is read and judged as one (`records_of`).
    """
    stream = open_input(path)
    try:
        yield from _stream_records(stream)
    except OSError as exc:
        raise InputError(f"cannot read {path or 'standard input'}: {exc.strerror}") from None
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def _stream_records(stream: BinaryIO) -> Iterator[Record]:
    lines = iter(stream.readline, b"")  # readline: no read-ahead that would wait for more
    head: list[bytes] = []  # the lines read up to the first non-blank one
    for line in lines:
        head.append(line)
        if not blank_line(line):
            break
    else:
        yield from records_of(b"".join(head))  # no input, or blanks only: its error
        return
    number = len(head)
    first = parse_line(number, head[-1]) \
        if json.detect_encoding(head[-1]).startswith("utf-8") else None
    if first is None or first.error is not None:
        # Not JSON Lines of objects from the first line: read it all, judge it as one input.
        yield from records_of(b"".join(head) + b"".join(lines))
        return
    yield first
    for line in lines:
        number += 1
        if not blank_line(line):
            yield parse_line(number, line)


def records_of(raw: bytes) -> list[Record]:
    """The records of input bytes (see `read_records`)."""
    if not raw.strip():
        raise InputError("no input: give a position file, or JSON on standard input")
    try:
        text = decode(raw, "position")
    except PositionError as exc:
        return _lines(raw, Record(None, error=exc))  # judged line by line
    if not text.strip():
        raise InputError("no input: give a position file, or JSON on standard input")
    if not text.lstrip().startswith(("{", "[")):
        from ..game.quick import looks_like_diagram  # not JSON: only then
        if looks_like_diagram(text):
            return _diagram_records(text)
    try:
        return [_record(None, parse_json(text, "position"))]
    except PositionError as exc:
        return _lines(raw, Record(None, error=exc))


def _diagram_records(text: str) -> list[Record]:
    """The positions of text diagrams (as `t42 solve` prints them): one record each."""
    from ..game.quick import parse_diagrams
    try:
        positions = parse_diagrams(text)
    except PositionError as exc:
        return [Record(None, error=exc)]
    if len(positions) == 1:
        return [Record(None, positions[0])]
    return [Record(i, data) for i, data in enumerate(positions, 1)]


def _lines(raw: bytes, whole: Record) -> list[Record]:
    """JSON Lines records of ``raw``, each line judged by its bytes as `t42 batch` judges
    it; ``whole`` (the error of the input read as one document) when no line is a JSON
    object either, and that one line's own error when it is the only line.

    Split on newline bytes only: str.splitlines() would also split at U+2028 and other
    characters that a JSON string may hold.
    """
    records = [parse_line(number, line) for number, line in enumerate(raw.split(b"\n"), 1)
               if not blank_line(line)]
    if not any(r.error is None for r in records):
        if len(records) == 1:
            # One line: its error, to the column, is the one `t42 batch` gives it.
            return [Record(None, error=records[0].error)]
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


def parse_line(number: int, line: bytes) -> Record:
    """One line of JSON Lines input, as bytes (`t42 batch` judges its lines with this too).

    The line is judged without its end (``\\n``, ``\\r\\n``) and decoded as JSON text is
    (`solver.game.jsondoc.decode`): a bad line gets the same error, to the column, whichever
    command reads it.
    """
    line = line.rstrip(b"\r\n")
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


#: What a command makes of one input document: (JSON answer, a function that renders the
#: answer as text). The text is rendered only when it is shown (never under --json); a
#: handler may also give the text itself.
Handler = Callable[[Any], "tuple[dict, Callable[[], str] | str]"]


def run_records(records: Iterable[Record], as_json: bool, handle: Handler,
                progress: str | None = None, total: int | None = None) -> int:
    """Apply ``handle`` to each record, in order, answering each before reading the next.

    Bad records do not stop the others; the exit status is 2 if any was bad.
    With a ``progress`` label, a progress bar is drawn on stderr (a terminal).
    """
    status = EXIT_OK
    errors = ErrorLines()
    separator = False  # texts of several records are separated by a blank line
    if progress is not None:
        records = iter_lines_with_progress(records, progress, True, total)
    for record in records:
        errors.next_record()
        if separator:
            sys.stdout.write("\n")
            separator = False
        try:
            if record.error is not None:
                raise record.error
            obj, render = handle(record.data)
        except PositionError as exc:
            status = EXIT_BAD_INPUT
            if as_json:
                emit_json(error_json(exc))
            errors.report(record, exc)
            continue
        if as_json:
            emit_json(obj)
        else:
            sys.stdout.write((render() if callable(render) else render) + "\n")
            sys.stdout.flush()
            separator = errors.records == 1
            if errors.records > 1:
                sys.stdout.write("\n")
    errors.finish()
    return status


class ErrorLines:
    """Writes the stderr line of each bad record.

    The first record's line waits for the next record: if none comes, that
    record was the whole input (one document, named without a line number),
    as when a single-line file is read as one JSON document.
    """

    def __init__(self) -> None:
        self.records = 0
        self.pending: tuple[Record, PositionError] | None = None

    def next_record(self) -> None:
        self.records += 1
        if self.pending is not None:
            print(error_line(*self.pending), file=sys.stderr)
            self.pending = None

    def report(self, record: Record, error: PositionError) -> None:
        if self.records == 1 and record.line is not None:
            self.pending = (record, error)
        else:
            print(error_line(record, error), file=sys.stderr)

    def finish(self) -> None:
        if self.pending is not None:
            record, error = self.pending
            print(error_line(Record(None), error), file=sys.stderr)
            self.pending = None


def _encoder() -> Callable[[Any], str]:
    """json.dumps with default options. The C encoder that json.dumps makes on every call
    is made once here (without the check for cycles: answers are trees)."""
    default = json.JSONEncoder()
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return default.encode
    try:
        encode = make(None, default.default, json.encoder.encode_basestring_ascii, None,
                      default.key_separator, default.item_separator, False, False, True)
    except TypeError:  # another signature in another Python
        return default.encode
    return lambda obj: "".join(encode(obj, 0))


#: One JSON answer as the commands print it (`t42 batch` writes its lines with it too).
dumps_json = _encoder()


def emit_json(obj: dict) -> None:
    """Write one JSON line and flush it: a program reading the answers gets each at once."""
    sys.stdout.write(dumps_json(obj) + "\n")
    sys.stdout.flush()


def inference_line(report: Any) -> str:
    """The text line of an answer's inference (`solver.hidden.inference.InferenceReport`):
    the mode and models, the effective number of deals, and the fallback when there is one
    (`t42 hint` and `t42 bid`)."""
    data = report.to_json()
    models = ", ".join(f"{part} model {data[part]['name']}" for part in ("calls", "plays")
                       if part in data)
    line = (f"Inference {data['mode']} ({models}): {data['effective_deals']:,.1f} effective "
            f"deals of {data['kept']:,} kept ({data['drawn']:,} drawn)")
    if data["fallback"]:
        line += f"; fallback: {data['fallback']}"
    return line


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


def iter_lines_with_progress(items: Iterable, label: str, enabled: bool,
                             total: int | None = None) -> Iterator:
    """Yield items, drawing a progress bar on stderr when enabled and stderr is a terminal.

    Without a ``total`` (items of a list have theirs), the count so far is shown.
    """
    if total is None and isinstance(items, (list, tuple)):
        total = len(items)
    show = enabled and total != 1 and sys.stderr.isatty()
    for i, item in enumerate(items, 1):
        yield item
        if show:
            if total:
                done = int(30 * i / total)
                sys.stderr.write(f"\r{label} [{'#' * done}{'.' * (30 - done)}] {i}/{total}")
            else:
                sys.stderr.write(f"\r{label} {i}")
            sys.stderr.flush()
    if show:
        sys.stderr.write("\n")


def count_records(path: str | None) -> int | None:
    """How many non-blank lines a regular input file has (for a progress bar), read as a
    stream; None for standard input or anything that is not a regular file."""
    if path in (None, "-") or not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as f:
            return sum(1 for line in f if not blank_line(line))
    except OSError:
        return None


#: Seconds a command works before its progress line appears on a terminal; the
#: environment variable of that name overrides it (0: at once, as the tests ask).
PROGRESS_DELAY = 1.0
PROGRESS_DELAY_ENV = "T42_PROGRESS_DELAY"
#: Seconds between two refreshes of the progress line.
PROGRESS_REFRESH = 0.2


def progress_delay() -> float:
    value = os.environ.get(PROGRESS_DELAY_ENV)
    if value:
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
    return PROGRESS_DELAY


class Meter:
    """The work done so far, as a long call reports it (``meter(done, planned)``, from any
    thread): what the progress line shows."""

    def __init__(self) -> None:
        self.done = 0
        self.planned: int | None = None

    def __call__(self, done: int, planned: int) -> None:
        self.done, self.planned = done, planned


@contextmanager
def working(label: str, enabled: bool = True, unit: str = "") -> Iterator[Meter | None]:
    """Show ``label``, the work done (``done/planned unit``, once the block reports it to
    the `Meter` it is given) and the time spent on stderr while the block runs, once it has
    run for `progress_delay` seconds, and only when stderr is a terminal (tqdm draws it);
    the line is cleared when the block ends. Without a terminal the block gets None."""
    if not (enabled and sys.stderr.isatty()):
        yield None
        return
    done = threading.Event()
    meter = Meter()

    def draw() -> None:
        if done.wait(progress_delay()):
            return
        import shutil

        from tqdm import tqdm  # only when drawn: not every start pays for its import
        # A terminal that reports no size (a fresh pseudo-terminal) counts as 80 x 24:
        # tqdm would draw nothing.
        size = shutil.get_terminal_size()
        bar = tqdm(total=None, desc=label, file=sys.stderr, leave=False,
                   bar_format="{desc}: {elapsed} elapsed", ncols=size.columns,
                   nrows=size.lines)
        try:
            while not done.wait(PROGRESS_REFRESH):
                if meter.planned is not None:
                    # n/total with a bar; the planned work may be a budget not reached.
                    bar.total = meter.planned
                    bar.n = min(meter.done, meter.planned)
                    bar.bar_format = ("{desc}: {bar} {n_fmt}/{total_fmt} " + unit +
                                      ", {elapsed} elapsed").replace(" ,", ",")
                bar.refresh()
        finally:
            bar.close()

    thread = threading.Thread(target=draw, name="t42-progress", daemon=True)
    thread.start()
    try:
        yield meter
    finally:
        done.set()
        thread.join(timeout=max(1.0, PROGRESS_REFRESH * 5))
