"""`t42 analyze`: played hands, play by play, against double-dummy play."""

from __future__ import annotations

import argparse
import sys
from typing import Callable

from ..game.errors import PositionError
from ..hidden.deals import check_deal_count
from ..hidden.game_analysis import (DEFAULT_ADVICE_DEALS, DEFAULT_ADVICE_SEED, CallFigures,
                                    GameAnalysis, GameHandAnalysis, analyze_game)
from ..search.analysis import HandAnalysis, analyze_hand
from ..game.quick import fill_hands
from .common import count_records, guarded, run_records
from .quick_options import add_position_options, position_records
from .game_cmd import format_pad


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("analyze", help="what each play of a played hand cost",
                       description="Analyse played hands: the double-dummy value before and "
                                   "after every play, what each play cost the side that made "
                                   "it and the plays that were better, and a per-seat summary. "
                                   "A hand record is a position whose plays are the tiles "
                                   "played, with optional \"id\" and \"meta\". A game record "
                                   "(docs/formats.md, \"Game record\") is analysed hand by hand: every "
                                   "hand with a contract as a hand record, and beside every "
                                   "call what bid advice would have said with that seat's "
                                   "tiles and the calls before it. A hand (of either record) "
                                   "whose plays are complete may leave out its hands: each "
                                   "seat held the tiles it played. Quick input: e.g. t42 "
                                   "analyze --contract W:fours:30 --plays 11,22,32,21,...")
    p.add_argument("file", nargs="?", help="hand record JSON, or JSON Lines of many hands "
                                           "(default: stdin)")
    p.add_argument("--json", action="store_true", help="one JSON object per hand")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress bar (it is drawn on stderr only when that is a terminal)")
    p.add_argument("--advice-deals", type=int, default=DEFAULT_ADVICE_DEALS, metavar="N",
                   help="game records: random deals of bid advice per call (default "
                        f"{DEFAULT_ADVICE_DEALS})")
    p.add_argument("--advice-seed", type=int, default=DEFAULT_ADVICE_SEED, metavar="S",
                   help="game records: the seed of bid advice's deals, the same for every "
                        f"call, so that an analysis repeats (default {DEFAULT_ADVICE_SEED})")
    add_position_options(p)
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
    `t42 batch analyze`. With complete plays the hands may be left out."""
    if isinstance(data, dict) and not isinstance(data.get("hands", {}), list):
        data = fill_hands(data)
    analysis = analyze_hand(data)
    return analysis.to_json(), lambda: format_analysis(analysis)


def _call_text(figures: CallFigures) -> str:
    if figures.call == "pass":
        return "pass"
    if isinstance(figures.call, str) or figures.declaration is None:
        return str(figures.call)
    return f"{figures.call} {figures.declaration}"


def _figure(value: float | None, width: int) -> str:
    return ("-" if value is None else f"{value:.2f}").rjust(width)


def _format_game_hand(hand: GameHandAnalysis, p_make: str) -> list[str]:
    lines = ["", f"== Hand {hand.index + 1} (shaker {hand.shaker}) =="]
    if not hand.calls:
        lines.append("No call yet.")
    else:
        lines.append(f"Auction beside bid advice ({p_make} P(make); E[marks] for the "
                     "caller's side):")
        rows = [("seat", "call", "P(make)", "E[marks]", "advice", "P(make)", "E[marks]")]
        for c in hand.calls:
            rows.append((c.seat, _call_text(c.made), _figure(c.made.p_make, 7),
                         _figure(c.made.e_marks, 8), ("= " if c.agrees else "") +
                         _call_text(c.advised), _figure(c.advised.p_make, 7),
                         _figure(c.advised.e_marks, 8)))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        for r in rows:
            cells = [cell.ljust(w) if i in (0, 1, 4) else cell.rjust(w)
                     for i, (cell, w) in enumerate(zip(r, widths))]
            lines.append(("  " + "  ".join(cells)).rstrip())
    if hand.play is not None:
        lines += ["", format_analysis(hand.play)]
    elif hand.contract is None:
        lines.append("No contract: nothing played.")
    return lines


def format_game_analysis(analysis: GameAnalysis) -> str:
    """The score pad, then each hand: its calls beside bid advice and its play analysis."""
    game = analysis.game
    title = "Game" + (f" {game.id}" if game.has_id else "")
    lines = [f"{title} - bid advice over {analysis.deals} deals a call, seed {analysis.seed}",
             "", format_pad(game)]
    for hand in analysis.hands:
        lines += _format_game_hand(hand, analysis.p_make)
    return "\n".join(lines)


def is_game_record(data: object) -> bool:
    """A game record lists its hands; a hand record maps seats to tiles."""
    return isinstance(data, dict) and isinstance(data.get("hands"), list)


def analyze_document(deals: int, seed: int):
    """The `t42 analyze` handler: a game record analysed as a game, else a hand record."""
    def handle(data) -> tuple[dict, Callable[[], str]]:
        if not is_game_record(data):
            return analyze_record(data)
        analysis = analyze_game(data, deals=deals, seed=seed)
        return analysis.to_json(), lambda: format_game_analysis(analysis)
    return handle


@guarded
def run_analyze(args: argparse.Namespace) -> int:
    check_deal_count("--advice-deals", args.advice_deals)
    if args.advice_seed < 0:
        raise PositionError("--advice-seed", f"must be 0 or more, not {args.advice_seed}",
                            "INVALID_VALUE")
    return run_records(position_records(args, args.file), args.json,
                       analyze_document(args.advice_deals, args.advice_seed),
                       progress="analysing" if args.progress else None,
                       total=count_records(args.file) if args.progress and sys.stderr.isatty()
                       else None)
