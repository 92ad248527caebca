"""`t42 bid`: what to bid with seven tiles (bid advice over random deals)."""

from __future__ import annotations

import argparse
from typing import Any, Callable

from ..game.bid_request import request_from_json
from ..game import tiles as T
from ..game.errors import PositionError
from ..game.quick import parse_call_words, parse_hands
from ..hidden.bidding import MAX_DEALS, BidAdvice
from ..hidden.seat_view_bidding import bid_advice
from ..hidden.deals import check_deal_count, check_seconds
from ..play.bots import defence_players
from .common import (InputError, Record, guarded, inference_line, read_records, run_records,
                     working)

def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bid", help="what to bid with seven tiles, and how sure",
                       description="Bid advice: deals the other tiles at random and, for every "
                                   "declaration, gives P(make) of every bid (declarer leading, "
                                   "double dummy), the mean value and the recommended bid. "
                                   "The hand comes from the arguments, or JSON / JSON Lines on "
                                   "standard input ({\"hand\": [...], \"seat\": \"N\", ...}); "
                                   "options fill in what a JSON request leaves out. E.g. "
                                   "t42 bid 66 64 55 44 33 20 11, or t42 bid --hand "
                                   "S=66,64,55,44,33,20,11 --auction 30,pass")
    p.add_argument("tiles", nargs="*", help="the seven tiles, e.g. 6-6 6-4 5-5 4-4 3-3 2-0 1-1 "
                                            "(none: read JSON requests from stdin)")
    p.add_argument("--hand", metavar="SEAT=TILES",
                   help="the seat and its seven tiles as the other commands take them, e.g. "
                        "--hand S=66,64,55,44,33,20,11 (instead of --seat and the tiles)")
    p.add_argument("--seat", help="the seat holding the hand (default N; a JSON request's "
                                  "own seat comes first)")
    p.add_argument("--game", choices=("42", "moon"), help="game (default 42)")
    p.add_argument("--players", type=int, choices=(3, 4), help="Moon players (default 4)")
    p.add_argument("--auction", help="the calls so far, comma-separated (30,pass,31), or "
                                     "the highest bid; only higher bids are recommended")
    p.add_argument("--doubles", choices=("high", "low", "suit"),
                   help="doubles in follow-me and nello (default high)")
    p.add_argument("--declarations", help="declarations to consider, comma-separated "
                                          "(default: all; plunge/splash when the hand qualifies)")
    p.add_argument("--deals", type=int, help=f"random deals, 1..{MAX_DEALS} (default 200)")
    p.add_argument("--seed", type=int, help="seed of the deals (default: a fresh one, reported)")
    p.add_argument("--threshold", type=float, help="P(make) a recommended bid needs "
                                                   "(default 0.75)")
    p.add_argument("--adaptive", action="store_true", default=None,
                   help="deal in rounds of 50 and stop once the recommendation is settled")
    p.add_argument("--calibrated", action="store_true", default=None,
                   help="map P(make) through the measured calibration (double dummy, or "
                        "with --fixed-lead the fixed-lead figures, against play with hidden "
                        "hands) and recommend by the calibrated figure")
    p.add_argument("--fixed-lead", action="store_true", default=None,
                   help="hold the declarer to one opening lead for every deal, as one who "
                        "sees only its own hand must lead (less optimistic than double dummy)")
    p.add_argument("--search", choices=("double-dummy", "playout"),
                   help="double-dummy (default): every deal solved with every hand open; "
                        "playout: every deal played out by players who each see only their "
                        "own tiles (by what a seat can know; 30 deals a declaration by "
                        "default)")
    p.add_argument("--inner-deals", type=int,
                   help="with --search playout: deals each player draws per decision "
                        "(default 3)")
    p.add_argument("--lead-deals", type=int,
                   help="with --search playout: deals over which the declarer's opening lead "
                        "is decided, once for every deal (default 20; 0: each deal's "
                        "declarer decides its own lead)")
    p.add_argument("--screen", type=int,
                   help="with --search playout: play out only the declarations double dummy "
                        "ranks first, this many (default 3; 0: every declaration)")
    p.add_argument("--defence", choices=("seat-view", "rule"),
                   help="with --search playout: who defends, seat-view players (default) or "
                        "the rule bot")
    p.add_argument("--inference", choices=("off", "auction"),
                   help="keep each deal as likely as the other seats' calls in --auction "
                        "were with the hands it gives them (default off; 42 only)")
    p.add_argument("--timeout", type=float, help="give up after this many seconds (>= 0)")
    p.add_argument("--json", action="store_true", help="one JSON object per hand")
    p.add_argument("--with-deals", action="store_true",
                   help="with --json: add every deal and what each declaration scored on it")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress line, e.g. t42 bid --no-progress 66 64 55 44 33 20 11"
                        " (the line is drawn on stderr only "
                        "when that is a terminal, once advice has taken T42_PROGRESS_DELAY "
                        "seconds, default 1)")
    p.set_defaults(run=run_bid)


def _auction(text: str | None) -> list[Any] | None:
    """The calls of ``--auction``: numbers as bids, anything else as given (``pass``)."""
    return None if text is None else parse_call_words(text, "auction")


def option_values(args: argparse.Namespace) -> dict[str, Any]:
    """The `advise` keywords given as options (None: not given); the counts and the
    timeout are checked here, before any input is read (`InputError` naming the option)."""
    try:
        if args.deals is not None:
            check_deal_count("deals", args.deals)
        check_seconds("timeout", args.timeout)
        auction = _auction(args.auction)
    except PositionError as exc:
        raise InputError(f"--{exc.field}: {exc.reason}") from None
    given = {"seat": args.seat, "game": args.game, "players": args.players,
             "auction": auction, "doubles": args.doubles,
             "declarations": args.declarations.split(",") if args.declarations else None,
             "deals": args.deals, "seed": args.seed, "threshold": args.threshold,
             "adaptive": args.adaptive, "calibrated": args.calibrated,
             "inference": args.inference, "fixed_lead": args.fixed_lead,
             "search": args.search, "inner_deals": args.inner_deals, "defence": args.defence,
             "screen": args.screen, "lead_deals": args.lead_deals}
    return {k: v for k, v in given.items() if v is not None}


def _pct(p: float) -> str:
    return f"{round(100 * p):d}%"


def bid_name(bid: int, game: str) -> str:
    if game == "moon":
        return "21 (moon)" if bid == 21 else f"{bid} tricks"
    if bid >= 42:
        marks = bid // 42
        return f"{bid} ({marks} mark{'s' if marks > 1 else ''})"
    return str(bid)


def _column(bid: int, game: str) -> str:
    return f"{bid // 42}m" if game == "42" and bid >= 42 else str(bid)


def _lead(advice: BidAdvice) -> str:
    """How a playout's declarer decided its opening lead, for the playout's line."""
    return f", the lead once over {advice.lead_deals}" if advice.lead_deals else ""


def format_advice(advice: BidAdvice) -> str:
    """The hand, the recommendation, and a declaration-by-bid grid of P(make), best first."""
    players = f", {advice.players} players" if advice.game == "moon" else ""
    doubles = f", doubles {advice.doubles}" if advice.doubles != "high" else ""
    auction = f"; highest bid so far {advice.highest_bid}" if advice.highest_bid else ""
    lines = [f"{'Moon' if advice.game == 'moon' else '42'}{players}{doubles}: {advice.seat} "
             f"holds {' '.join(advice.hand)}{auction}",
             f"{advice.deals} deals (seed {advice.seed}), {advice.seconds:.2f} s, "
             f"{advice.nodes:,} nodes"]
    if advice.inference is not None:
        lines.append(inference_line(advice.inference))
    if advice.search == "playout":
        defenders = "seat-view players" if advice.defence == "seat-view" else \
            f"the {advice.defence} bot"
        lines.append(f"Every deal played out by players who see only their own tiles "
                     f"({advice.inner_deals} deals a decision{_lead(advice)}); defended by "
                     f"{defenders}")
        if advice.screened:
            lines.append(f"Played out: the {len(advice.declarations)} declarations double "
                         f"dummy ranks first; not played out: {', '.join(advice.screened)}")
    lines.append("")
    cal = advice.calibration
    if cal is not None:
        kind = ", one lead for every deal" if cal.source.get("fixed_lead") else ""
        lines.append(f"P(make) calibrated by play with hidden hands ({cal.source.get('hands')} "
                     f"hands, seed {cal.source.get('seed')}{kind})")
    rec = advice.recommendation
    if rec.chance is None or rec.bid is None:
        lines.append(f"Recommended: pass (no bid reaches P(make) {_pct(advice.threshold)})")
    else:
        low, high = rec.chance.interval_used
        unit = "points" if advice.game == "moon" else "marks"
        dd = f" (double dummy {_pct(rec.chance.p_make)})" if cal is not None else ""
        lines.append(f"Recommended: {bid_name(rec.bid, advice.game)} {rec.declaration}, P(make) "
                     f"{_pct(rec.chance.p_used)} [{_pct(low)}, {_pct(high)}]{dd}, "
                     f"E[{unit}] {rec.chance.marks * (2 * rec.chance.p_used - 1):+.2f}")
    bids = sorted({c.bid for d in advice.declarations for c in d.bids})
    kind = "calibrated P(make)" if cal is not None else "P(make)"
    leads = "declarer leads one tile on every deal" if advice.fixed_lead else "declarer leads"
    lines += ["", f"{kind} by bid, best first ({leads}; plunge and splash: partner)",
              "  declaration   mean " + "".join(f"{_column(b, advice.game):>5}" for b in bids)]
    for row in advice.declarations:
        mean = f"{row.mean:6.1f}" if row.mean is not None else "     -"
        cells = []
        for b in bids:
            chance = row.chance(b)
            cells.append(f"{_pct(chance.p_used):>5}" if chance is not None else "     ")
        lines.append(f"  {row.declaration:11} {mean}" + "".join(cells).rstrip())
    return "\n".join(lines)


def bid_record(data: Any, *, timeout: float | None = None, with_deals: bool = False,
               threads: int | None = None,
               progress: Callable[[int, int], None] | None = None,
               **options: Any) -> tuple[dict, Callable[[], str]]:
    """One bid request: (JSON answer, its text's renderer), for `t42 bid` and `t42 batch bid`.

    ``options`` are `advise` keywords that fill in what the request leaves out; ``progress``
    is `advise`'s.
    """
    if isinstance(data, dict) and "seat" not in data:
        data = {**data, "seat": options.get("seat", "N")}
    request = {**options, **request_from_json(data)}
    if request.get("defence") is not None:
        request["defenders"] = defence_players(request["defence"])
    advice = bid_advice(**request, deadline=timeout, return_deals=with_deals,
                        threads=threads, progress=progress)
    return advice.to_json(), lambda: format_advice(advice)


def _hand_option(args: argparse.Namespace) -> dict[str, Any] | None:
    """--hand SEAT=TILES as a request (None: not given); with tiles or another --seat, an
    error."""
    if args.hand is None:
        return None
    if args.tiles:
        raise InputError("--hand: give the tiles either as arguments or with --hand, not both")
    seat, tiles = next(iter(parse_hands([args.hand]).items()))
    if args.seat is not None and args.seat.upper() != seat:
        raise InputError(f"--hand: the hand is {seat}'s, --seat says {args.seat}")
    return {"hand": [T.name_of(t) for t in tiles], "seat": seat}


@guarded
def run_bid(args: argparse.Namespace) -> int:
    options = option_values(args)
    request = _hand_option(args)
    what = f", {args.deals} deals" if args.deals else ""
    count = iter(range(1, 1 << 62))

    def handle(data: Any) -> tuple[dict, Callable[[], str]]:
        # The progress line is drawn while a hand is worked on, gone before its answer.
        with working(f"t42 bid: hand {next(count)}{what}", args.progress,
                     "searches") as meter:
            return bid_record(data, timeout=args.timeout, with_deals=args.with_deals,
                              progress=meter, **options)

    if request is not None:
        records: Any = [Record(None, request)]
    else:
        records = [Record(None, {"hand": args.tiles})] if args.tiles else read_records(None)
    return run_records(records, args.json, handle)
