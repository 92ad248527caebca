"""`t42 hint`: the best play for a seat that sees only its own hand."""

from __future__ import annotations

import argparse
import itertools
from contextlib import contextmanager
from typing import Callable, Iterator

from ..game.errors import PositionError
from ..game.quick import parse_seat, read_subject
from ..game.view import View
from ..hidden.deals import MAX_ENUMERATION_LIMIT
from ..hidden.hint import (DEFAULT_DEALS, DEFAULT_ENUMERATION_LIMIT, MAX_DEALS, OBJECTIVES, Hint,
                           as_view, check_options, hint)
from ..hidden.inference import MODES as INFERENCE_MODES
from ..hidden.seat_view import (DEFAULT_DEPTH, DEFAULT_INNER_DEALS, MAX_DEPTH, MAX_INNER_DEALS,
                                METHODS, SeatViewHint, seat_view_hint)
from .common import InputError, guarded, inference_line, run_records, working
from .quick_options import add_position_options, view_records


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hint", help="score every move of a seat that sees only its own hand",
                       description="Hint for the seat of a view (its hand, the contract, the "
                                   "plays so far): every legal move scored double dummy over "
                                   "the consistent deals (all of them when there are at most "
                                   "--enumerate-limit, else a seeded uniform sample): mean "
                                   "value, P(make), P(best), and the best move. The input is "
                                   "a view, a position, hand or game record or diagram (the "
                                   "view of --seat, default the seat to move), or the quick "
                                   "options, e.g. t42 hint --seat E --hand "
                                   "E=66,65,64,50,41,32,00 --contract W:fours:30 --plays 11,22")
    p.add_argument("file", nargs="?", help="view JSON, or JSON Lines of views, positions or "
                                           "records, or a diagram (default: stdin)")
    p.add_argument("--json", action="store_true", help="one JSON object per view")
    p.add_argument("--deals", type=int, default=DEFAULT_DEALS,
                   help=f"deals to sample when there are too many to score all, "
                        f"1..{MAX_DEALS} (default {DEFAULT_DEALS})")
    p.add_argument("--enumerate-limit", type=int, default=DEFAULT_ENUMERATION_LIMIT,
                   help=f"score every consistent deal when there are at most this many, "
                        f"0..{MAX_ENUMERATION_LIMIT} (default {DEFAULT_ENUMERATION_LIMIT})")
    p.add_argument("--objective", choices=OBJECTIVES, default="make",
                   help="rank moves by P(make) then mean (make, the default), or the reverse")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the sample (default: a random one, printed)")
    p.add_argument("--adaptive", action="store_true",
                   help="keep sampling batches of --deals until the best move's lead is clear "
                        "or --max-deals is reached")
    p.add_argument("--max-deals", type=int, default=None,
                   help=f"budget of an adaptive hint, --deals..{MAX_DEALS} "
                        f"(default 10 x --deals, at most {MAX_DEALS})")
    p.add_argument("--examples", type=int, default=0, metavar="K",
                   help="also show up to K deals on which the best move and the runner-up differ")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="stop a view's hint after this long (an adaptive hint answers with "
                        "the deals scored so far)")
    p.add_argument("--inference", choices=INFERENCE_MODES, default=None,
                   help="weigh the deals by the other seats' calls (the view's auction), "
                        "plays, or both (default off)")
    p.add_argument("--search", choices=METHODS, default="double-dummy",
                   help="how a move is valued: double-dummy (every deal solved with every hand "
                        "open, the default), postponed (the viewer's next --depth decisions "
                        "made once for the deals it cannot tell apart) or playout (each deal "
                        "played out by players that each see only their own hand)")
    p.add_argument("--depth", type=int, default=DEFAULT_DEPTH,
                   help=f"--search postponed: the viewer's later decisions searched over what "
                        f"it knows, 0..{MAX_DEPTH} (default {DEFAULT_DEPTH}; 0 is double dummy)")
    p.add_argument("--inner-deals", type=int, default=DEFAULT_INNER_DEALS,
                   help=f"--search playout: the deals each player samples per decision, "
                        f"1..{MAX_INNER_DEALS} (default {DEFAULT_INNER_DEALS})")
    p.add_argument("--svg", metavar="FILE", help="also draw each view as SVG, its legal tiles "
                   "labelled with P(make) and mean (the n-th of several: FILE-n.svg)")
    p.add_argument("--any-seat", action="store_true",
                   help="a seat that is not to move gets an answer without moves that names "
                        "the seat to move (exit 0) instead of an error, e.g. t42 hint "
                        "--any-seat --seat N examples/deal.json")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress line, e.g. t42 hint --no-progress examples/view.json"
                        " (the line is drawn on stderr only "
                        "when that is a terminal, once a hint has taken T42_PROGRESS_DELAY "
                        "seconds, default 1)")
    add_position_options(p, view=True, at=True)
    p.set_defaults(run=run_hint)


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def format_hint(h: Hint) -> str:
    """A table of moves, best first, with the counts and the method."""
    if h.viewer is not None:
        now = "the hand is over" if h.to_move is None else f"{h.to_move} is"
        return (f"{h.viewer} is not to move ({now}): no move to make now; "
                f"{h.count:,} consistent deals ({h.side} side)")
    if h.method == "enumerated":
        head = f"{h.count:,} consistent deals, every one scored"
    else:
        head = f"{h.deals:,} of {h.count:,} consistent deals sampled (seed {h.seed})"
        if h.adaptive:
            head += f", adaptive: stopped ({h.stopped})"
    lines = [f"{h.to_move} to move ({h.side} side); {head}",
             f"objective {h.objective}; values are the declaring side's {h.unit}"]
    if h.inference is not None:
        lines.append(inference_line(h.inference))
    lines.append("")
    sampled = h.method == "sampled"
    header = f"  {'move':5} {'mean':>6} {'P(make)':>8} {'P(best)':>8}"
    if sampled:
        header += f"  {'mean 95%':>13}  {'P(make) 95%':>15}"
    lines.append(header)
    for tile, m in h.moves.items():
        row = f"  {tile:5} {m.mean:6.2f} {_pct(m.p_make):>8} {_pct(m.p_best):>8}"
        if sampled and m.mean_ci and m.p_make_ci:
            row += (f"  {m.mean_ci[0]:5.1f} - {m.mean_ci[1]:5.1f}"
                    f"  {_pct(m.p_make_ci[0])} - {_pct(m.p_make_ci[1])}")
        if tile in h.best:
            row += "  best"
        lines.append(row)
    lines += ["", "Best: " + " or ".join(h.best)]
    for i, ex in enumerate(h.examples, 1):
        hands = ex.position.to_json()["hands"]
        worth = ", ".join(f"{t} {v}" for t, v in ex.values.items())
        lines.append(f"Example {i} ({worth}): " + "; ".join(
            f"{s} {' '.join(ts)}" for s, ts in hands.items()))
    return "\n".join(lines)


def format_seat_view(h: SeatViewHint) -> str:
    """A seat-view hint as a table of moves, best first, naming the search."""
    how = (f"postponed reasoning, depth {h.depth}" if h.method == "postponed" else
           f"playouts by seat-view players ({h.inner_deals} deals a decision)")
    deals = f"{h.count:,} consistent deals, every one valued" if h.enumerated else \
        f"{h.deals:,} of {h.count:,} consistent deals sampled (seed {h.seed})"
    lines = [f"{h.seat} to move ({'declaring' if h.declaring else 'defending'} side); "
             f"{deals}; {how}", f"objective {h.objective}; values are the declaring side's "
             "points (Moon, nello: tricks) as the seats would play it", "",
             f"  {'move':5} {'mean':>6} {'P(make)':>8} {'P(best)':>8}"]
    for tile, m in h.moves.items():
        lines.append(f"  {tile:5} {m.mean:6.2f} {_pct(m.p_make):>8} {_pct(m.p_best):>8}"
                     + ("  best" if tile in h.best else ""))
    lines += ["", "Best: " + " or ".join(h.best)]
    return "\n".join(lines)


def hint_record(data, *, deals: int = DEFAULT_DEALS,
                enumerate_limit: int = DEFAULT_ENUMERATION_LIMIT, objective: str = "make",
                seed: int | None = None, adaptive: bool = False, max_deals: int | None = None,
                examples: int = 0, timeout: float | None = None, threads: int | None = None,
                picture: Callable[[View, Hint], None] | None = None,
                inference: str | None = None, seat: str | None = None,
                any_seat: bool = False, at: int | None = None,
                progress: Callable[[int, int], None] | None = None,
                search: str = "double-dummy", depth: int = DEFAULT_DEPTH,
                inner_deals: int = DEFAULT_INNER_DEALS
                ) -> tuple[dict, Callable[[], str]]:
    """One view (or position, hand or game record: the view of ``seat``, default the
    seat to move): (JSON answer, its text's renderer), for `t42 hint` and `t42 batch hint`.

    ``picture`` is called with the view and its hint (`t42 hint --svg`); ``progress`` is
    `hint`'s. ``search`` other than ``double-dummy`` values the moves by
    `solver.hidden.seat_view.seat_view_hint` (``depth``, ``inner_deals``).
    """
    subject = read_subject(data).at(at)
    view = as_view(subject.view_json(seat))  # parsed once, for the hint and its picture
    if search != "double-dummy":
        sv = seat_view_hint(view, method=search, deals=deals, depth=depth,
                            inner_deals=inner_deals, enumerate_limit=enumerate_limit,
                            objective=objective, seed=seed, progress=progress)
        return subject.with_extras(sv.to_json()), lambda: format_seat_view(sv)
    h = hint(view, deals=deals, enumerate_limit=enumerate_limit, objective=objective,
             seed=seed, adaptive=adaptive, max_deals=max_deals, examples=examples,
             timeout=timeout, threads=threads, inference=inference, any_seat=any_seat,
             progress=progress)
    if picture is not None and h.viewer is None:
        picture(view, h)
    return subject.with_extras(h.to_json()), lambda: format_hint(h)


def check_option_values(args: argparse.Namespace) -> None:
    """The counts and the timeout of `t42 hint`, checked before any input is read
    (`InputError` naming the option)."""
    try:
        check_options(deals=args.deals, enumerate_limit=args.enumerate_limit,
                      max_deals=args.max_deals, examples=args.examples, timeout=args.timeout)
    except PositionError as exc:
        raise InputError(f"--{exc.field.replace('_', '-')}: {exc.reason}") from None
    if args.search != "double-dummy":
        for option, given in (("--adaptive", args.adaptive), ("--examples", args.examples),
                              ("--inference", args.inference), ("--svg", args.svg),
                              ("--any-seat", args.any_seat), ("--timeout", args.timeout)):
            if given:
                raise InputError(f"{option}: only with --search double-dummy")
        if not 0 <= args.depth <= MAX_DEPTH:
            raise InputError(f"--depth: must be 0..{MAX_DEPTH}, not {args.depth}")
        if not 1 <= args.inner_deals <= MAX_INNER_DEALS:
            raise InputError(f"--inner-deals: must be 1..{MAX_INNER_DEALS}, "
                             f"not {args.inner_deals}")


@contextmanager
def _pointing_to_any_seat() -> Iterator[None]:
    """A viewer not to move: the error says how to get an answer anyway."""
    try:
        yield
    except PositionError as exc:
        if exc.code != "NOT_TO_MOVE":
            raise
        raise PositionError(exc.field, f"{exc.reason}; --any-seat answers anyway",
                            exc.code) from None


@guarded
def run_hint(args: argparse.Namespace) -> int:
    check_option_values(args)
    pictures = itertools.count(1)

    def picture(view: View, h: Hint) -> None:
        from ..show import svg  # only with --svg: not every start pays for its import
        try:
            svg.save(svg.view_svg(view, h), args.svg, next(pictures))
        except OSError as exc:
            raise InputError(f"cannot write {args.svg}: {exc.strerror or exc}") from None

    seat = parse_seat(args.seat, "--seat") if args.seat is not None else None
    records = view_records(args, args.file)
    count = itertools.count(1)

    def handle(data):
        # The progress line is drawn while a view is worked on, gone before its answer.
        with working(f"t42 hint: view {next(count)}", args.progress, "deals") as meter, \
                _pointing_to_any_seat():
            return hint_record(data, deals=args.deals, enumerate_limit=args.enumerate_limit,
                               objective=args.objective, seed=args.seed,
                               adaptive=args.adaptive, max_deals=args.max_deals,
                               examples=args.examples, timeout=args.timeout,
                               picture=picture if args.svg else None,
                               inference=args.inference, seat=seat, any_seat=args.any_seat,
                               at=args.at, progress=meter, search=args.search,
                               depth=args.depth, inner_deals=args.inner_deals)

    return run_records(records, args.json, handle)
