"""`t42 analyze`: played hands, play by play, against double-dummy play."""

from __future__ import annotations

import argparse
import sys
from typing import Callable

from ..game.errors import PositionError
from ..hidden.coaching import (DEFAULT_DEALS, DEFAULT_SEED, SEARCHES, grade_game,
                                grade_hand)
from ..hidden.deals import MAX_ENUMERATION_LIMIT, check_deal_count, check_seed
from ..hidden.hint import DEFAULT_ENUMERATION_LIMIT
from ..hidden.seat_view import DEFAULT_DEPTH, MAX_DEPTH
from ..hidden.game_analysis import (DEFAULT_ADVICE_DEALS, DEFAULT_ADVICE_SEED, CallFigures,
                                    GameAnalysis, GameHandAnalysis, analyze_game)
from ..search.analysis import HandAnalysis, analyze_hand
from ..game.quick import fill_hands
from .common import InputError, count_records, guarded, run_records, working
from .quick_options import add_position_options, position_records
from .game_cmd import format_pad
from .seat_view_grades import format_game_grades, format_hand_record_grades


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
                                   "seat held the tiles it played. With --seat-view, every "
                                   "decision is graded by what its seat knew instead: each "
                                   "play over the deals consistent with its seat's view, each "
                                   "call against bid advice, mistakes apart from luck "
                                   "(docs/guides/coaching.md). Quick input: e.g. t42 "
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
    g = p.add_argument_group("seat view (grades by what each seat knew)")
    g.add_argument("--seat-view", action="store_true",
                   help="grade every call, declaration, discard and play from its seat's "
                        "view: what each option was worth over the deals the seat could "
                        "not tell apart, the loss against the best with a 95%% interval, "
                        "mistakes, and each play's skill, information (the price of "
                        "hidden information) and luck")
    g.add_argument("--deals", type=int, metavar="N",
                   help=f"--seat-view: deals drawn per play (default {DEFAULT_DEALS})")
    g.add_argument("--seed", type=int, metavar="S",
                   help="--seat-view: the seed of every play's deals, so that a grading "
                        f"repeats (default {DEFAULT_SEED})")
    g.add_argument("--enumerate-limit", type=int, metavar="N",
                   help="--seat-view: a view with at most N consistent deals uses every "
                        f"one, exactly (default {DEFAULT_ENUMERATION_LIMIT})")
    g.add_argument("--search", choices=SEARCHES,
                   help="--seat-view: how a play is valued on each deal: double-dummy "
                        "(default) or postponed (the seat's own next decisions made once "
                        "for the deals it cannot tell apart; slower)")
    g.add_argument("--depth", type=int, metavar="D",
                   help=f"--search postponed: the seat's next decisions searched over its "
                        f"view (0..{MAX_DEPTH}, default {DEFAULT_DEPTH})")
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


#: The options that go with --seat-view only.
SEAT_VIEW_OPTIONS = ("deals", "seed", "enumerate_limit", "search", "depth")


def _seat_view_settings(args: argparse.Namespace) -> dict:
    """The --seat-view options, checked before any input is read (each error names its
    option), as `grade_game` takes them."""
    if not args.seat_view:
        for name in SEAT_VIEW_OPTIONS:
            if getattr(args, name) is not None:
                raise InputError(f"--{name.replace('_', '-')}: goes with --seat-view")
        return {}
    return check_seat_view_options(deals=args.deals, seed=args.seed,
                                   enumerate_limit=args.enumerate_limit, search=args.search,
                                   depth=args.depth)


def check_seat_view_options(*, deals: int | None = None, seed: int | None = None,
                            enumerate_limit: int | None = None, search: str | None = None,
                            depth: int | None = None) -> dict:
    """The seat-view options given (None: the default), checked as `t42 analyze
    --seat-view` and `t42 batch grade` check them, each error naming its option; returns
    every one, defaults filled in."""
    settings = {"deals": DEFAULT_DEALS if deals is None else deals,
                "seed": DEFAULT_SEED if seed is None else seed,
                "enumerate_limit": DEFAULT_ENUMERATION_LIMIT if enumerate_limit is None
                else enumerate_limit,
                "search": search or "double-dummy",
                "depth": DEFAULT_DEPTH if depth is None else depth}
    check_deal_count("--deals", settings["deals"])
    check_seed(settings["seed"], "--seed")
    check_deal_count("--enumerate-limit", settings["enumerate_limit"], low=0,
                     high=MAX_ENUMERATION_LIMIT)
    if depth is not None and settings["search"] != "postponed":
        raise InputError("--depth: goes with --search postponed")
    check_deal_count("--depth", settings["depth"], 0, MAX_DEPTH)
    return settings


def check_advice_options(advice_deals: int, advice_seed: int) -> None:
    """--advice-deals and --advice-seed, each error naming its option."""
    check_deal_count("--advice-deals", advice_deals)
    if advice_seed < 0:
        raise PositionError("--advice-seed", f"must be 0 or more, not {advice_seed}",
                            "INVALID_VALUE")


def grade_record(data, *, deals: int = DEFAULT_DEALS, seed: int = DEFAULT_SEED,
                 enumerate_limit: int = DEFAULT_ENUMERATION_LIMIT,
                 search: str = "double-dummy", depth: int = DEFAULT_DEPTH,
                 advice_deals: int = DEFAULT_ADVICE_DEALS,
                 advice_seed: int = DEFAULT_ADVICE_SEED, threads: int | None = None,
                 progress: Callable[[int, int], None] | None = None
                 ) -> tuple[dict, Callable[[], str]]:
    """One game or hand record graded from each seat's view: (JSON answer, its text's
    renderer), for `t42 analyze --seat-view` and `t42 batch grade`. A game record is
    graded hand by hand (`grade_game`), a hand record play by play (`grade_hand`; with
    complete plays its hands may be left out). ``threads`` does not change a figure."""
    settings = {"deals": deals, "seed": seed, "enumerate_limit": enumerate_limit,
                "search": search, "depth": depth}
    if is_game_record(data):
        graded = grade_game(data, advice_deals=advice_deals, advice_seed=advice_seed,
                            threads=threads, progress=progress, **settings)
        return graded.to_json(), lambda: format_game_grades(graded)
    if isinstance(data, dict) and not isinstance(data.get("hands", {}), list):
        data = fill_hands(data)
    hand = grade_hand(data, threads=threads, progress=progress, **settings)
    assert hand.analysis is not None
    return hand.to_json(), lambda: format_hand_record_grades(
        hand, _header(hand.analysis))   # type: ignore[arg-type]


def seat_view_document(settings: dict, advice_deals: int, advice_seed: int,
                       progress: bool):
    """The `t42 analyze --seat-view` handler: a game record graded hand by hand, a hand
    record play by play; a progress line while a record is graded."""
    count = iter(range(1, 1 << 62))

    def handle(data) -> tuple[dict, Callable[[], str]]:
        with working(f"t42 analyze --seat-view: record {next(count)}", progress,
                     "decisions") as meter:
            return grade_record(data, advice_deals=advice_deals, advice_seed=advice_seed,
                                progress=meter, **settings)
    return handle


@guarded
def run_analyze(args: argparse.Namespace) -> int:
    check_advice_options(args.advice_deals, args.advice_seed)
    settings = _seat_view_settings(args)
    if args.seat_view:
        # Each record draws its own progress line (decisions graded), not the records'.
        return run_records(position_records(args, args.file), args.json,
                           seat_view_document(settings, args.advice_deals, args.advice_seed,
                                              args.progress))
    return run_records(position_records(args, args.file), args.json,
                       analyze_document(args.advice_deals, args.advice_seed),
                       progress="analysing" if args.progress else None,
                       total=count_records(args.file) if args.progress and sys.stderr.isatty()
                       else None)
