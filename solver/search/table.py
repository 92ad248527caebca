"""Double-dummy table of a 42 deal: what every seat makes under every declaration.

Input is a deal, the four hands before the opening lead::

    {"hands": {"N": [...], "E": [...], "S": [...], "W": [...]},
     "doubles": "high"}

``doubles`` (optional, ``high`` by default) places the doubles in
follow-me and nello as in a contract (``high``, ``low`` or ``suit``).
``id`` and ``meta`` are passed through to the result. A full position is
accepted too, so a deal file can be tabled as it is: its ``contract`` is
ignored (every contract is tabled) and its ``plays`` must be empty.

For each point declaration (the seven pip trumps, doubles, follow-me) and
each seat as declarer, leading, the table holds the declaring side's
double-dummy points; for nello and sevens whether that seat makes them
(1 mark); and per seat the best declaration with the highest bid it makes.

Two seats of one side that declare the same trump differ only in who leads,
and every point of the hand goes to one side or the other, so one engine
per declaration answers all four seats: its transposition table is shared
and the other side's points are 42 minus the engine's. Nello (the
declarer's partner sits out) needs one engine per declarer.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Mapping, Union

from ..game.errors import PositionError, quoted
from ..game.jsondoc import JSONValue, check_keys, json_object
from ..game.position import CONTRACT_FIELDS, SEAT_INDEX, SEATS, Position, parse_game
from ..game.rules import DOUBLES_OPTIONS, PIP_NAMES
from ._core import CancelToken
from .solve import DealSolver

DealLike = Union[Mapping[str, Any], str, bytes]

#: Declarations scored in points, in table order (ties go to the first).
POINT_DECLARATIONS: tuple[str, ...] = PIP_NAMES + ("doubles", "follow-me")
#: Declarations that only take mark bids: made or not.
MARK_DECLARATIONS: tuple[str, ...] = ("sevens", "nello")
#: Declarations whose doubles follow the deal's ``doubles`` option.
_DOUBLES_OPTION_APPLIES = ("follow-me", "nello")

TOTAL_POINTS = 42
LOWEST_BID = 30
#: A mark bid makes only with every trick, i.e. every one of the 42 points.
ONE_MARK = 42

#: Fields of a deal: its own, and a position's that a deal file may carry (the
#: contract is checked for unknown keys only; its values are ignored).
DEAL_FIELDS = ("hands", "doubles", "id", "meta", "game", "contract", "plays")


def bid_made(points: int) -> int | None:
    """The highest bid that ``points`` makes: 42 (1 mark) with every point, else 30..41,
    else None."""
    if points >= TOTAL_POINTS:
        return ONE_MARK
    return points if points >= LOWEST_BID else None


@dataclass(frozen=True)
class SeatBest:
    """A seat's best declaration and the highest bid it makes (`DealTable.best`).

    Attributes:
        trump: The declaration (``"fours"``, ``"doubles"``, ``"nello"``, ...).
        points: The declaring side's double-dummy points with it; None for nello
            and sevens, which only make or fail.
        bid: The highest bid it makes (30..41, or 42 for one mark); None: not
            even 30.
    """

    trump: str
    points: int | None
    bid: int | None

    def to_json(self) -> dict:
        """``{"trump", "points", "bid"}``."""
        return {"trump": self.trump, "points": self.points, "bid": self.bid}


@dataclass
class DealTable:
    """The double-dummy table of a 42 deal, as `solve_deal` returns it.

    Attributes:
        hands: The deal, tile names by seat.
        doubles: Where doubles rank in follow-me and nello (``"high"``,
            ``"low"``, ``"suit"``).
        points: ``points[trump][seat]``: the declaring side's points when
            ``seat`` declares ``trump`` (a pip trump, doubles or follow-me) and
            leads.
        makes: ``makes[trump][seat]``: whether ``seat`` makes nello or sevens.
        best: ``best[seat]``: its best declaration and highest bid (`SeatBest`).
        id: The deal's ``id``, passed through.
        meta: The deal's ``meta``, passed through.
        nodes: Nodes searched in all.

    >>> from solver import solve_deal
    >>> table = solve_deal(open("examples/deal.json").read(), threads=1)
    >>> table.points["fours"]
    {'N': 23, 'E': 31, 'S': 17, 'W': 31}
    >>> table.best["W"].trump, table.best["W"].bid
    ('blanks', 42)
    """

    hands: dict[str, list[str]]
    doubles: str
    points: dict[str, dict[str, int]]
    makes: dict[str, dict[str, bool]]
    best: dict[str, SeatBest]
    id: JSONValue = None
    meta: dict | None = None
    nodes: int = 0

    def to_json(self) -> dict:
        """Rows per declaration (``points`` or ``makes`` by seat) and each seat's best."""
        out: dict[str, Any] = {}
        if self.id is not None:
            out["id"] = self.id
        if self.meta is not None:
            out["meta"] = self.meta
        rows: list[dict[str, Any]] = [{"trump": t, "points": dict(self.points[t])}
                                      for t in POINT_DECLARATIONS]
        rows += [{"trump": t, "makes": dict(self.makes[t])} for t in MARK_DECLARATIONS]
        out.update({"doubles": self.doubles, "rows": rows,
                    "best": {s: b.to_json() for s, b in self.best.items()}})
        return out


def parse_deal(deal: DealLike) -> tuple[dict[str, list[str]], str, Any, dict | None]:
    """Check a deal: (hands, tiles as H-L; doubles option; id; meta). Raises `PositionError`."""
    deal = json_object(deal, "deal", "a deal")
    check_keys(deal, DEAL_FIELDS, "", "a deal")
    if parse_game(deal.get("game", "42")) != "42":
        raise PositionError("game", "a double-dummy table is for a 42 deal", "UNSUPPORTED_GAME")
    contract = deal.get("contract")
    if contract is not None:
        if not isinstance(contract, Mapping):
            raise PositionError("contract", "must be an object", "INVALID_TYPE")
        check_keys(contract, CONTRACT_FIELDS, "contract", "a contract")
    if deal.get("plays"):
        raise PositionError("plays", "a table is for a deal before the opening lead; "
                            "remove the plays", "UNEXPECTED_FIELD")
    doubles = deal.get("doubles", "high")
    doubles = doubles.lower() if isinstance(doubles, str) else doubles
    if doubles.__class__ is not str or doubles not in DOUBLES_OPTIONS:
        raise PositionError("doubles", f"unknown option {quoted(doubles)} (high, low or suit)",
                            "INVALID_OPTION")
    meta = deal.get("meta")
    if meta is not None and not isinstance(meta, Mapping):
        raise PositionError("meta", "must be an object", "INVALID_TYPE")
    # A position checks the hands and names the field at fault (hands.N[3], ...).
    hands = _position(deal.get("hands"), "N", "follow-me", doubles).to_json()["hands"]
    return hands, doubles, deal.get("id"), (dict(meta) if meta is not None else None)


def _position(hands: Any, declarer: str, trump: str, doubles: str) -> Position:
    marks = trump in MARK_DECLARATIONS
    return Position({"hands": hands, "contract": {
        "declarer": declarer, "trump": trump, "bid": ONE_MARK if marks else LOWEST_BID,
        "doubles": doubles if trump in _DOUBLES_OPTION_APPLIES else "high"}})


class _SideSolver:
    """One engine for a declaration, answering for every seat as declarer.

    The engine counts North-South's points; a seat is made declarer by
    starting the deal with that seat on lead, and East-West's points are the
    rest of the 42.
    """

    def __init__(self, hands: Any, trump: str, doubles: str, token: CancelToken | None):
        self.start = _position(hands, "N", trump, doubles)
        self.solver = DealSolver(self.start, token)

    def load(self, seat: str) -> bool:
        """Start the deal with ``seat`` on lead; True when the engine counts ``seat``'s side."""
        self.solver.open_with_leader(SEAT_INDEX[seat])
        return seat in ("N", "S")

    def points_by_seat(self) -> dict[str, int]:
        """The declaring side's points with each seat declaring."""
        north_south: dict[str, int] = {}
        for first, second in (("N", "S"), ("E", "W")):
            self.load(first)
            north_south[first] = self.solver.value()
            self.load(second)
            # Partners' leads usually come out close: the first is the second's guess.
            north_south[second] = self.solver.value(north_south[first])
        return {s: north_south[s] if s in ("N", "S") else TOTAL_POINTS - north_south[s]
                for s in SEATS}

    def takes_every_trick(self, seat: str) -> bool:
        # Every trick is worth at least a point: all 42 points, or none for the others.
        if self.load(seat):
            return self.solver.at_least(TOTAL_POINTS)
        return not self.solver.at_least(1)


def solve_deal(deal: DealLike, *, token: CancelToken | None = None,
               threads: int | None = None) -> DealTable:
    """The double-dummy table of a 42 deal: every seat's points under every
    declaration, nello and sevens made or not, each seat's best declaration.

    The fourteen searches (nine point declarations, sevens, nello for each
    seat) are independent and run in parallel threads (the search releases
    the GIL).

    Args:
        deal: The four hands before the opening lead, as JSON (a dict or text):
            ``{"hands": {...}, "doubles": "high"}``; ``doubles`` is optional,
            ``id`` and ``meta`` are passed through. A position from the
            opening lead is accepted too (its contract is ignored).
        token: Stops the searches (`CancelToken`).
        threads: Threads for the searches; None: one per core; pass 1 when
            the caller parallelises already.

    Returns:
        The `DealTable`.

    Raises:
        PositionError: A bad deal, a Moon deal, or plays in it.
        SearchCancelled: ``token`` stopped a search.

    >>> from solver import solve_deal
    >>> solve_deal(open("examples/deal.json").read(), threads=1).makes["sevens"]
    {'N': True, 'E': False, 'S': True, 'W': False}
    """
    hands, doubles, deal_id, meta = parse_deal(deal)

    def point_job(trump: str) -> tuple[dict[str, int], int]:
        side = _SideSolver(hands, trump, doubles, token)
        return side.points_by_seat(), side.solver.nodes

    def sevens_job() -> tuple[dict[str, bool], int]:
        sevens = _SideSolver(hands, "sevens", doubles, token)
        return {s: sevens.takes_every_trick(s) for s in SEATS}, sevens.solver.nodes

    def nello_job(seat: str) -> tuple[bool, int]:
        nello = DealSolver(_position(hands, seat, "nello", doubles), token)
        return nello.make_or_set().makes, nello.nodes

    jobs: list[Callable[[], tuple[Any, int]]] = [partial(point_job, t) for t in POINT_DECLARATIONS]
    jobs += [sevens_job] + [partial(nello_job, s) for s in SEATS]
    threads = (os.cpu_count() or 1) if threads is None else threads
    if threads > 1:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            results = list(pool.map(lambda job: job(), jobs))
    else:
        results = [job() for job in jobs]
    n = len(POINT_DECLARATIONS)
    points = {t: results[i][0] for i, t in enumerate(POINT_DECLARATIONS)}
    makes = {"sevens": results[n][0],
             "nello": {s: results[n + 1 + i][0] for i, s in enumerate(SEATS)}}
    nodes = sum(r[1] for r in results)
    best = {seat: best_for_seat(seat, points, makes) for seat in SEATS}
    return DealTable(hands=hands, doubles=doubles,
                     points=points, makes=makes, best=best, id=deal_id, meta=meta, nodes=nodes)


def best_for_seat(seat: str, points: Mapping[str, Mapping[str, int]],
                  makes: Mapping[str, Mapping[str, bool]]) -> SeatBest:
    """A seat's best declaration from table entries: the highest bid made, then the most
    points; ties go to the earlier declaration (`POINT_DECLARATIONS`, then sevens, nello).

    Args:
        seat: The seat (``"N"`` ...).
        points: ``points[trump][seat]`` of the point declarations (`DealTable.points`).
        makes: ``makes[trump][seat]`` of nello and sevens (`DealTable.makes`).
    """
    candidates = [SeatBest(t, points[t][seat], bid_made(points[t][seat]))
                  for t in POINT_DECLARATIONS]
    candidates += [SeatBest(t, None, ONE_MARK) for t in MARK_DECLARATIONS if makes[t][seat]]
    return max(candidates, key=lambda c: (c.bid or 0, TOTAL_POINTS if c.points is None
                                          else c.points))


__all__ = ["DealTable", "MARK_DECLARATIONS", "POINT_DECLARATIONS", "SeatBest", "best_for_seat",
           "bid_made", "parse_deal", "solve_deal"]
