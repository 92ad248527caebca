"""`t42 analyze`: played hands, play by play, against double-dummy play."""

from __future__ import annotations

import argparse
import sys
from typing import Callable

from ..search.analysis import HandAnalysis, analyze_hand
from .common import count_records, guarded, read_records, run_records


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("analyze", help="what each play of a played hand cost",
                       description="Analyse played hands: the double-dummy value before and "
                                   "after every play, what each play cost the side that made "
                                   "it and the plays that were better, and a per-seat summary. "
                                   "A hand record is a position whose plays are the tiles "
                                   "played, with optional \"id\" and \"meta\".")
    p.add_argument("file", nargs="?", help="hand record JSON, or JSON Lines of many hands "
                                           "(default: stdin)")
    p.add_argument("--json", action="store_true", help="one JSON object per hand")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress bar (it is drawn on stderr only when that is a terminal)")
    p.set_defaults(run=run_analyze)


def _header(analysis: HandAnalysis) -> list[str]:
    meta = analysis.meta or {}
    title = "Hand" + (f" {analysis.id}" if analysis.id is not None else "")
    about = [str(meta[k]) for k in ("event", "date") if meta.get(k)]
    players = meta.get("players") or {}
    if players:
        about.append(", ".join(f"{seat}: {name}" for seat, name in players.items()))
    lines = [" - ".join([title] + about)]
    # The deal as the solve command draws it: contract line and the four hands.
    lines += str(analysis.position.with_plays([])).split("\n\n")[:2]
    return lines


def _amount(n: int, unit: str) -> str:
    return f"{n} {unit[:-1] if n == 1 else unit}"


def _verdict(made: bool | None) -> str:
    return "undecided" if made is None else "made" if made else "set"


def format_analysis(analysis: HandAnalysis) -> str:
    """A play-by-play table (costly plays marked ``*``) and a per-seat summary."""
    unit = analysis.unit
    lines = _header(analysis)
    should = "should make" if analysis.makes else "should be set"
    lines.append("")
    lines.append(f"Double-dummy value at the opening lead: {_amount(analysis.value, unit)} "
                 f"({should})")
    if analysis.complete:
        lines.append(f"Result: {_amount(analysis.result, unit)}, {_verdict(analysis.made)}")
    else:
        lines.append(f"Stopped after {len(analysis.plays)} plays with "
                     f"{_amount(analysis.result, unit)} taken, {_verdict(analysis.made)}; "
                     f"double-dummy value from there {analysis.final_value}")
    if analysis.plays:
        lines += ["", "    #  trick  seat  tile  before  after  cost  better"]
        for p in analysis.plays:
            mark = "*" if p.cost else " "
            better = " ".join(p.alternatives)
            lines.append(f"{mark}{p.index + 1:4}  {p.trick:5}  {p.seat:4}  {p.tile:4}  "
                         f"{p.value_before:6}  {p.value_after:5}  {p.cost:4}  {better}".rstrip())
    players = (analysis.meta or {}).get("players") or {}
    lines += ["", "  seat  plays  costly  cost  player"]
    for seat, s in analysis.seats.items():
        lines.append(f"  {seat:4}  {s.plays:5}  {s.costly_plays:6}  {s.total_cost:4}  "
                     f"{players.get(seat, '')}".rstrip())
    return "\n".join(lines)


def analyze_record(data) -> tuple[dict, Callable[[], str]]:
    """One hand record: (JSON answer, its text's renderer), for `t42 analyze` and
    `t42 batch analyze`."""
    analysis = analyze_hand(data)
    return analysis.to_json(), lambda: format_analysis(analysis)


@guarded
def run_analyze(args: argparse.Namespace) -> int:
    return run_records(read_records(args.file), args.json, analyze_record,
                       progress="analysing" if args.progress else None,
                       total=count_records(args.file) if args.progress and sys.stderr.isatty()
                       else None)
