"""`t42 deal`: random deals, or the deals consistent with a seat's view."""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any, Iterable

from ..game.errors import PositionError
from ..game.jsondoc import parse_json
from ..game.view import View
from ..hidden.dealer import Dealer
from ..hidden.deals import count_deals, iter_deals, iter_sample_deals, tile_probabilities
from ..game.quick import QuickInput, parse_contract, parse_seat, quick_view, read_subject
from .common import (EXIT_BAD_INPUT, EXIT_OK, InputError, Record, emit_json, error_line,
                     guarded, read_bytes, read_records)
from .quick_options import AUCTION_HELP, DIAGRAM_HELP, PLAYS_HELP


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "deal", help="random deals, or the deals consistent with a view",
        description="Without a view: random deals as JSON Lines, every deal that meets the "
                    "constraints equally likely. With a view (--view FILE: a view, or a "
                    "position, hand or game record, or a diagram, seen by --seat, default "
                    "the seat to move; or the quick options --seat, --hand, --contract, "
                    "--plays, e.g. t42 deal --seat E --hand E=66,65,64,50,41,32,00 "
                    "--contract W:fours:30 --plays 11,22 --stats): deals consistent with "
                    "the seat's view, drawn uniformly (--count), all of them "
                    "(--all), or their number and where each unseen tile lies (--stats).")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed (the same seed gives the same deals; default: fresh)")
    p.add_argument("--count", type=int, default=1, help="how many deals (default 1)")
    p.add_argument("--view", metavar="FILE",
                   help="a view JSON file or JSON Lines of views, positions or records, or "
                        "a diagram ('-' for stdin), e.g. --view examples/view.json")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--all", action="store_true", help="with --view: every consistent deal")
    what.add_argument("--stats", action="store_true",
                      help="with --view: {\"count\": N, \"tile_probabilities\": {...}}")
    p.add_argument("--limit", type=int, default=100_000,
                   help="with --all: refuse views with more deals than this (default 100000)")
    p.add_argument("--game", default="42", help="42 (default) or moon")
    p.add_argument("--players", type=int, default=None, help="Moon: 3 (default) or 4")
    p.add_argument("--hand", action="append", default=[], metavar="SEAT=TILES",
                   help="tiles a seat must hold, e.g. N=6-6,6-5 (repeatable; up to 7); with "
                        "--seat, the viewer's 7 tiles, e.g. --hand E=66,65,64,50,41,32,00")
    p.add_argument("--trump", help="the declaration whose trumps --min/--max-trumps count")
    for name in ("min-trumps", "max-trumps", "min-doubles", "max-doubles"):
        p.add_argument(f"--{name}", action="append", default=[], metavar="SEAT=N",
                       help=f"{name.replace('-', ' ')} in a seat's hand (repeatable)")
    p.add_argument("--contract", metavar="D:DECL:BID",
                   help="print positions under this contract (e.g. N:sixes:30, or JSON "
                        "'{\"declarer\": \"N\", \"trump\": \"sixes\", \"bid\": 30}') instead of "
                        "bare deals; with --seat, the view's contract")
    g = p.add_argument_group("a view in quick notation (instead of --view)")
    g.add_argument("--seat", help="the seat whose view it is, e.g. --seat E (with --view: "
                                  "the viewer of a position or record, default the seat to "
                                  "move)")
    g.add_argument("--plays", metavar="TILES", help=PLAYS_HELP)
    g.add_argument("--auction", metavar="CALLS", help=AUCTION_HELP)
    g.add_argument("--widow", metavar="TILE", help="three-player Moon declarer's view: the "
                   "widow, e.g. --widow 3-2 (with --discard)")
    g.add_argument("--discard", metavar="TILE", help="with --widow: the declarer's discard, "
                   "e.g. --discard 2-1")
    g.add_argument("--diagram", metavar="FILE", help=DIAGRAM_HELP)
    p.add_argument("--at", type=int, metavar="N",
                   help="with a view: its position after the first N plays (a hand record's "
                        "plays cut there), e.g. --view examples/hands.jsonl --seat N --at 4")
    p.set_defaults(run=run_deal)


def _seat_value(text: str, option: str) -> tuple[str, str]:
    seat, sep, value = text.partition("=")
    if not sep or not seat.strip() or not value.strip():
        raise PositionError(option, f"expected SEAT=VALUE, not {text!r}", "INVALID_VALUE")
    return seat.strip().upper(), value.strip()


def _count(text: str, option: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise PositionError(option, f"expected a number, not {text!r}", "INVALID_VALUE") from None


def _bounds(args: argparse.Namespace, what: str) -> dict[str, tuple[int, int]]:
    """--min-X / --max-X options as seat -> (min, max)."""
    bounds: dict[str, list[int]] = {}
    for index, option in ((0, f"min_{what}"), (1, f"max_{what}")):
        for text in getattr(args, option):
            seat, value = _seat_value(text, "--" + option.replace("_", "-"))
            bounds.setdefault(seat, [0, 7])[index] = _count(value, "--" + option.replace("_", "-"))
    return {seat: (lo, hi) for seat, (lo, hi) in bounds.items()}


#: Dealer argument -> the option that sets it.
_OPTION_OF = {"fixed": "--hand", "trumps": "--min/--max-trumps",
              "doubles": "--min/--max-doubles"}


def build_dealer(args: argparse.Namespace) -> Dealer:
    fixed = {}
    for text in args.hand:
        seat, tiles = _seat_value(text, "--hand")
        fixed[seat] = [t.strip() for t in tiles.split(",")]
    game = args.game.lower()
    try:
        return Dealer(game=game, players=args.players, fixed=fixed, trump=args.trump,
                      trumps=_bounds(args, "trumps"), doubles=_bounds(args, "doubles"))
    except PositionError as exc:
        # Name the option, not the Dealer argument: fixed.N[2] -> --hand N[2].
        head, dot, rest = exc.field.partition(".")
        option = _OPTION_OF.get(head, f"--{head}")
        raise PositionError(f"{option} {rest}" if dot else option, exc.reason,
                            exc.code) from None


@guarded
def run_deal(args: argparse.Namespace) -> int:
    if args.count < 0:
        raise PositionError("--count", f"must be at least 0, not {args.count}", "INVALID_VALUE")
    quick = [f"--{name}" for name in ("plays", "auction", "widow", "discard", "diagram")
             if getattr(args, name) is not None]
    if args.view is not None:
        mixed = quick + (["--hand"] if args.hand else []) + \
            (["--contract"] if args.contract is not None else [])
        if mixed:
            raise InputError(f"{mixed[0]}: cannot be combined with --view ({args.view}): give "
                             "the view either as a file or with the quick options")
        return run_view_deals(args, read_records(args.view))
    if args.seat is not None or quick:
        return run_view_deals(args, [Record(None, quick_view(_quick_input(args)))])
    if args.all or args.stats or args.at is not None:
        option = "--at" if args.at is not None else "--all and --stats"
        raise PositionError("--view", f"{option} need a view", "MISSING_FIELD")
    dealer = build_dealer(args)
    contract = None
    if args.contract is not None:
        contract = _contract(args.contract)
    write = sys.stdout.write
    for deal in dealer.deals(args.count, args.seed):
        if contract is None:
            write(deal.to_json_str() + "\n")
        else:
            write(deal.position(contract).to_json_str() + "\n")
    sys.stdout.flush()
    return EXIT_OK


def _contract(text: str) -> dict:
    """--contract: JSON, or the quick notation (N:sixes:30)."""
    if text.lstrip().startswith("{"):
        return parse_json(text, "--contract")
    return parse_contract(text)


def _quick_input(args: argparse.Namespace) -> QuickInput:
    diagram = read_bytes(args.diagram).decode("utf-8", "replace") \
        if args.diagram is not None else None
    return QuickInput(hands=args.hand, contract=_contract(args.contract)
                      if args.contract is not None else None, plays=args.plays,
                      game=args.game.lower(), players=args.players, widow=args.widow,
                      discard=args.discard, seat=args.seat, auction=args.auction,
                      diagram=diagram)


def run_view_deals(args: argparse.Namespace, records: Iterable[Record]) -> int:
    """Each view of the input: its deals or its stats; a bad view costs only its own line.
    A position or record stands for the view of --seat (default: the seat to move); its
    id and meta are kept in each answer."""
    status = EXIT_OK
    rng = random.Random(args.seed)
    seat = parse_seat(args.seat, "--seat") if args.seat is not None else None
    for record in records:
        try:
            if record.error is not None:
                raise record.error
            subject = read_subject(record.data).at(args.at)
            view = View(subject.view_json(seat))
            if args.stats:
                out: Iterable[dict[str, Any]] = [subject.with_extras(
                    {"count": count_deals(view), "tile_probabilities": tile_probabilities(view)})]
            elif args.all:
                if count_deals(view) > args.limit:
                    raise PositionError("view", f"{count_deals(view)} consistent deals, more "
                                        f"than --limit {args.limit}", "TOO_MANY_DEALS")
                out = (subject.with_extras(deal.to_json()) for deal in iter_deals(view))
            else:
                out = (subject.with_extras(deal.to_json())
                       for deal in iter_sample_deals(view, args.count, rng))
        except PositionError as exc:
            status = EXIT_BAD_INPUT
            emit_json({"error": exc.to_json()})
            print(error_line(record, exc), file=sys.stderr)
            continue
        for obj in out:
            sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()
    return status
