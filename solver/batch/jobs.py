"""The jobs `t42 batch` runs: a job name -> the per-record function of its command.

Each entry is the very function the single-process command (`t42 solve`,
`t42 analyze`, ...) calls for one record, so a record gets the same output
line either way, `{"error": ...}` included. Adding a job is one line in
`JOBS`. This module is what the workers import; it does not import Dask.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from ..cli import analyze_cmd, arena_cmd, bid_cmd, discard_cmd, hint_cmd, solve_cmd, table_cmd
from ..cli.common import dumps_json, error_json, parse_line
from ..game.errors import PositionError


@dataclass(frozen=True)
class Job:
    """A command's per-record function: (record data, **options) -> (JSON answer, text).

    Attributes:
        record: The function.
        chunk_size: Records per chunk by default: about a second of work on one core.
        options: Keyword options of ``record`` that the user may set.
        fixed: Keyword options always passed in a batch.
    """

    record: Callable[..., tuple[dict, str]]
    #: Records per chunk by default: about a second of work on one core (bench/README.md).
    chunk_size: int
    #: Keyword options of ``record`` that the user may set (`--best-only` -> best_only).
    options: tuple[str, ...] = ()
    #: Keyword options always passed in a batch (the workers already run in parallel).
    fixed: Mapping[str, Any] = field(default_factory=dict)


JOBS: dict[str, Job] = {
    "solve": Job(solve_cmd.solve_record, 200, ("best_only",), fixed={"threads": 1}),
    "make-or-set": Job(solve_cmd.make_or_set_record, 1000, ("bid",), fixed={"threads": 1}),
    "analyze": Job(analyze_cmd.analyze_record, 100),
    "table": Job(table_cmd.table_record, 15, fixed={"threads": 1}),
    "discard": Job(discard_cmd.discard_record, 40, ("trump",)),
    "hint": Job(hint_cmd.hint_record, 2, ("deals", "seed", "objective", "enumerate_limit",
                                          "inference"), fixed={"threads": 1}),
    "bid": Job(bid_cmd.bid_record, 1, ("deals", "seed", "threshold", "inference"),
               fixed={"threads": 1}),
    "arena": Job(arena_cmd.arena_record, 10),
    "arena-game": Job(arena_cmd.arena_game_record, 2),
    # A game record is tens of seconds of grading: a chunk is one record.
    "grade": Job(analyze_cmd.grade_record, 1, ("deals", "seed", "enumerate_limit", "search",
                                               "depth", "advice_deals", "advice_seed"),
                 fixed={"threads": 1}),
}


def output_line(job: Job, line: str, options: Mapping[str, Any]) -> str:
    """One input ``line`` -> its output line for ``job`` with ``options``, exactly as the
    command prints it with --json."""
    # As bytes: the commands read a line as bytes when the input is not all
    # UTF-8, so a line that is not gets the same error either way.
    record = parse_line(0, line.encode("utf-8", "surrogateescape"))
    try:
        if record.error is not None:
            raise record.error
        answer, _text = job.record(record.data, **options)
    except PositionError as exc:
        answer = error_json(exc)
    return dumps_json(answer)


def run_chunk(name: str, lines: str, options: Mapping[str, Any], index: int,
              hold: tuple[str, int] | None = None) -> str:
    """The task a worker runs: a chunk's input ``lines`` -> its output lines, in order, for
    the job ``name`` with ``options``; ``index`` is the chunk's; ``hold`` (a directory
    and a first chunk index, a test hook: T42_BATCH_HOLD) holds the chunks from that
    index on until the test releases them.

    Both as one string, the lines joined by newlines: Dask moves one string
    between client and worker for far less than a list of hundreds.
    """
    if hold is not None and index >= hold[1]:
        _hold(Path(hold[0]), index)
    job = JOBS[name]
    options = {**options, **job.fixed}
    return "\n".join(output_line(job, line, options) for line in lines.split("\n"))


def _hold(directory: Path, index: int, timeout: float = 120.0) -> None:
    """Test hook (T42_BATCH_HOLD=DIR:FIRST): say which process runs this chunk, then wait.

    The tests use it to stop a run at a known point without racing the
    workers: they see ``running-INDEX-PID``, act (kill that worker, interrupt
    the client), then create ``release``.
    """
    (directory / f"running-{index}-{os.getpid()}").touch()
    deadline = time.monotonic() + timeout
    while not (directory / "release").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
