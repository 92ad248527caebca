"""`t42 solve` and `t42 make-or-set`."""

from __future__ import annotations

import argparse
import itertools
from typing import Any, Callable

from ..game.position import Position
from ..search.solve import make_or_set, solve
from .common import InputError, guarded, run_records
from .quick_options import add_position_options, position_records, subject_of


def _threads(text: str) -> int:
    """--threads: a whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is out of range (>= 1)")
    return value


THREADS_HELP = ("threads for one search (default: every core for positions with enough "
                "tricks left, else 1)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("solve", help="exact value and every legal move's value",
                       description="Solve positions double-dummy: value, makes, every legal "
                                   "move scored, one optimal line. The input is a position, "
                                   "a hand record (its id and meta are kept in the answer; "
                                   "with all its plays, the hands may be left out), a game "
                                   "record (its last hand with a contract), a diagram as "
                                   "this command prints it, or the quick options, e.g. "
                                   "t42 solve --hand N=63,62,60,54,53,52,22 --hand E=... "
                                   "--hand S=... --hand W=... --contract W:fours:30 "
                                   "--plays 11,22")
    p.add_argument("file", nargs="?", help="position JSON, JSON Lines, or a diagram "
                                           "(default: stdin)")
    p.add_argument("--json", action="store_true", help="one JSON object per position")
    p.add_argument("--best-only", action="store_true", help="score only the optimal moves")
    p.add_argument("--svg", metavar="FILE", help="also draw each position as SVG, its moves "
                   "labelled with their values (the n-th of several: FILE-n.svg)")
    p.add_argument("--threads", type=_threads, metavar="N", help=THREADS_HELP)
    add_position_options(p, at=True)
    p.set_defaults(run=run_solve)

    p = sub.add_parser("make-or-set", help="does the declaring side make the bid?",
                       description="Null-window answer to: does the declaring side make the bid "
                                   "(the contract's own by default)? Input as t42 solve takes "
                                   "it, e.g. t42 make-or-set examples/deal.json --bid 32")
    p.add_argument("file", nargs="?", help="position JSON, JSON Lines, or a diagram "
                                           "(default: stdin)")
    p.add_argument("--bid", type=int, help="bid to test (default: the contract's)")
    p.add_argument("--json", action="store_true", help="one JSON object per position")
    p.add_argument("--threads", type=_threads, metavar="N", help=THREADS_HELP)
    add_position_options(p, at=True)
    p.set_defaults(run=run_make_or_set)


def _title(extras: dict) -> list[str]:
    """A record's name above its diagram."""
    return [f"Hand {extras['id']}", ""] if "id" in extras else []


def format_solution(position: Position, result, extras: dict | None = None) -> str:
    unit = "tricks" if position.max_value == 7 else "points"
    lines = _title(extras or {}) + [str(position), ""]
    verdict = "makes" if result.makes else "is set"
    lines.append(f"Double-dummy value: {result.value} {unit}; the contract {verdict}")
    if result.moves:
        lines.append(f"{result.to_move} to play:")
        lines.append("  tile   value")
        for tile, value in result.moves.items():
            mark = "  best" if value == result.value else ""
            lines.append(f"  {tile:5}  {value:5}{mark}")
        lines.append("Optimal line: " + " ".join(result.line))
    return "\n".join(lines)


def solve_record(data, *, best_only: bool = False,
                 picture: Callable[[Position, Any], None] | None = None,
                 threads: int | None = None, at: int | None = None
                 ) -> tuple[dict, Callable[[], str]]:
    """One position (or hand or game record): (JSON answer, its text's renderer), for
    `t42 solve` and `t42 batch solve`.

    ``picture`` is called with the position and its solution (`t42 solve --svg`); ``at``
    cuts the plays after that many (`t42 solve --at`).
    """
    subject = subject_of(data, "solve", at)
    position = Position(subject.position)
    result = solve(position, best_only=best_only, threads=threads)
    if picture is not None:
        picture(position, result)
    return subject.with_extras(result.to_json()), \
        lambda: format_solution(position, result, subject.extras)


def make_or_set_record(data, *, bid: int | None = None, threads: int | None = None,
                       at: int | None = None) -> tuple[dict, Callable[[], str]]:
    """One position: (JSON answer, its text's renderer), for `t42 make-or-set` and
    `t42 batch make-or-set`; ``at`` cuts the plays after that many."""
    subject = subject_of(data, "make-or-set", at)
    position = Position(subject.position)
    result = make_or_set(position, bid, threads=threads)
    verdict = "makes" if result.makes else "is set"
    title = "".join(line + "\n" for line in _title(subject.extras))
    return subject.with_extras(result.to_json()), \
        lambda: f"{title}{position}\n\nBid {result.bid}: the declaring side {verdict}"


@guarded
def run_solve(args: argparse.Namespace) -> int:
    pictures = itertools.count(1)

    def picture(position: Position, result) -> None:
        from ..show import svg  # only with --svg: not every start pays for its import
        try:
            svg.save(svg.solution_svg(position, result), args.svg, next(pictures))
        except OSError as exc:
            raise InputError(f"cannot write {args.svg}: {exc.strerror or exc}") from None

    return run_records(position_records(args, args.file), args.json, lambda data: solve_record(
        data, best_only=args.best_only, picture=picture if args.svg else None,
        threads=args.threads, at=args.at))


@guarded
def run_make_or_set(args: argparse.Namespace) -> int:
    return run_records(position_records(args, args.file), args.json,
                       lambda data: make_or_set_record(data, bid=args.bid,
                                                       threads=args.threads, at=args.at))
