"""The quick-input options of the commands that take a position or a view: a deal, a
contract and the plays typed on the command line instead of a JSON file (the notation
is `solver.game.quick`'s), or a text diagram."""

from __future__ import annotations

import argparse
from typing import Any, Iterable

from ..game.errors import PositionError
from ..game.quick import QuickInput, quick_position, quick_view, read_subject
from .common import InputError, Record, read_bytes, read_records

HAND_HELP = ("a seat's tiles, 6-3 or 63, separated by commas or blanks, e.g. "
             "--hand N=63,62,60,54,53,52,22 (repeat for each seat; with all the plays "
             "given, the hands may be left out)")
CONTRACT_HELP = ("DECLARER:DECLARATION:BID[:DOUBLES], e.g. W:fours:30, N:sixes:84 (marks as "
                 "42*k), S:nello:84, E:follow-me:42:low, N:sixes:plunge (plunge or splash: "
                 "the trump its partner named), or the contract's JSON")
PLAYS_HELP = "the tiles played so far, in order, e.g. --plays 11,22"
DIAGRAM_HELP = ("a position diagram as t42 solve prints it, e.g. --diagram out.txt (a file "
                "or standard input holding one is read as a position too); after trick 1 "
                "give --plays with it")
SEAT_HELP = "the seat whose view it is, e.g. --seat E (default: the seat to move)"
AUCTION_HELP = ("the calls, as t42 bid --auction takes them, e.g. --auction pass,pass,pass,30 "
                "(seats counted back from the declarer) or E:pass,S:30,W:pass,N:31")


def add_position_options(p: argparse.ArgumentParser, *, view: bool = False,
                         game: bool = True, at: bool = False) -> None:
    """--hand, --contract, --plays, --game, --widow, --discard, --diagram (and, for a view,
    --seat, --players, --auction; with ``at``, --at). ``game``: add --game and --players (a
    command may already have them)."""
    g = p.add_argument_group("quick input (instead of a file)")
    g.add_argument("--hand", action="append", default=[], metavar="SEAT=TILES", help=HAND_HELP)
    g.add_argument("--contract", metavar="D:DECL:BID", help=CONTRACT_HELP)
    g.add_argument("--plays", metavar="TILES", help=PLAYS_HELP)
    if game:
        g.add_argument("--game", choices=("42", "moon"),
                       help="42 (default) or moon, e.g. --game moon --hand N=... --hand E=... "
                            "--hand S=... (three players: no W)")
    g.add_argument("--widow", metavar="TILE", help="three-player Moon: the widow, e.g. "
                   "--widow 3-2 (with --discard)")
    g.add_argument("--discard", metavar="TILE", help="three-player Moon: the declarer's "
                   "discard, e.g. --discard 2-1 (with --widow)")
    g.add_argument("--diagram", metavar="FILE", help=DIAGRAM_HELP)
    if at:
        p.add_argument("--at", type=int, metavar="N",
                       help="the position after the first N plays of the input (a hand "
                            "record's plays cut there), e.g. --at 0 for the opening lead")
    if view:
        g.add_argument("--seat", metavar="SEAT", help=SEAT_HELP)
        if game:
            g.add_argument("--players", type=int, choices=(3, 4),
                           help="Moon: 3 or 4 players, e.g. --game moon --players 4 "
                                "(default: 4 with a seat W, else 3)")
        g.add_argument("--auction", metavar="CALLS", help=AUCTION_HELP)


#: The quick options by their attribute; a command may lack some.
_OPTIONS = ("hand", "contract", "plays", "widow", "discard", "diagram", "auction")


def quick_input(args: argparse.Namespace) -> QuickInput:
    diagram = None
    if getattr(args, "diagram", None) is not None:
        diagram = read_bytes(args.diagram).decode("utf-8", "replace")
    return QuickInput(hands=getattr(args, "hand", None) or (),
                      contract=getattr(args, "contract", None),
                      plays=getattr(args, "plays", None), game=getattr(args, "game", None),
                      players=getattr(args, "players", None),
                      widow=getattr(args, "widow", None), discard=getattr(args, "discard", None),
                      seat=getattr(args, "seat", None), auction=getattr(args, "auction", None),
                      diagram=diagram)


def given_options(args: argparse.Namespace) -> list[str]:
    """The quick options given, as ``--name``."""
    return [f"--{name}" for name in _OPTIONS if getattr(args, name, None)]


def check_no_file(args: argparse.Namespace, file: str | None, what: str = "a file") -> None:
    """Quick options and a file are two ways to give one input: not both."""
    given = given_options(args)
    if given and file is not None:
        raise InputError(f"{given[0]}: cannot be combined with {what} ({file}): give the "
                         "position either as a file or with the quick options")


def position_records(args: argparse.Namespace, file: str | None,
                     need_contract: bool = True) -> Iterable[Record]:
    """The input of a command that works on positions: the quick options' position, or
    the records of ``file`` (standard input when None). Without ``need_contract`` the
    hands alone will do (a deal)."""
    check_no_file(args, file)
    if given_options(args):
        return [Record(None, quick_position(quick_input(args), need_contract))]
    if getattr(args, "game", None) is not None:
        raise InputError("--game: goes with --hand (quick input); a file names its own game")
    return read_records(file)


def view_records(args: argparse.Namespace, file: str | None) -> Iterable[Record]:
    """The input of a command that works on views: the quick options' view, or the
    records of ``file``."""
    check_no_file(args, file)
    if given_options(args):
        return [Record(None, quick_view(quick_input(args)))]
    for name in ("game", "players"):
        if getattr(args, name, None) is not None:
            raise InputError(f"--{name}: goes with --hand (quick input); a file names its "
                             "own game")
    return read_records(file)


def subject_of(data: Any, command: str, at: int | None = None):
    """`read_subject` for a command that needs every hand (a view will not do), cut after
    ``at`` plays when given."""
    subject = read_subject(data).at(at)
    if subject.view is not None:
        raise PositionError("seat", f"a view holds one hand: {command} needs a position with "
                            "every hand (or a hand or game record)", "INVALID_VALUE")
    return subject
