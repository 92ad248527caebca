"""Analysis of a played hand: what each play cost the side that made it.

A hand record is a position (docs/formats.md) whose ``plays`` are the tiles actually
played (all of them, or fewer for a hand stopped early), plus two optional
fields that are passed through to the result unchanged:

* ``id``: any JSON value naming the hand;
* ``meta``: an object of metadata. Known keys are checked: ``players``
  (seat -> name), ``date`` and ``event`` (strings), ``auction`` (a list,
  e.g. ``[{"seat": "N", "bid": "pass"}, {"seat": "E", "bid": 30}]``); any
  other key is kept as it is.

Any other top-level field is an error, so that a misspelt ``plays`` is not
silently analysed as a hand with no plays.

Every play gets the double-dummy value before and after it (the declaring
side's points, or the nello declarer's tricks; see `Position.maximizer`),
its cost to the side that made it, and, when it cost something, the plays
that would have kept the value. One `DealSolver`, and so one transposition
table, serves the whole hand. A play is tested first with a single
null-window search against the value before it: a play can never improve
its own side's result, so "still at least the value" (or "still at most",
for the minimising side) means optimal, and the exact value after is only
searched for the plays that lost something.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Union

from ..game import tiles as T
from ..game.errors import PositionError, key_text, quoted
from ..game.jsondoc import JSONValue, check_keys, json_object
from ..game.position import POSITION_FIELDS, SEATS, Contract, Position
from ._core import CancelToken
from .solve import DealSolver

RecordLike = Union[Mapping[str, Any], str, bytes]

#: Fields of a hand record: a position's, and the two a hand record adds.
RECORD_FIELDS = POSITION_FIELDS + ("id", "meta")


@dataclass(frozen=True)
class PlayAnalysis:
    """One play of an analysed hand (`HandAnalysis.plays`).

    Attributes:
        index: The play's place in the hand's ``plays`` (0 first).
        trick: The trick it belongs to (0 first).
        seat: Who played it.
        tile: The tile played.
        value_before: The double-dummy value before the play.
        value_after: The double-dummy value after it.
        cost: How much the play worsened the result for the side that made it
            (0 when optimal).
        alternatives: When it cost something, the legal tiles that would have
            kept ``value_before`` (tile order).
    """

    index: int
    trick: int
    seat: str
    tile: str
    value_before: int
    value_after: int
    cost: int
    alternatives: tuple[str, ...] = ()

    @property
    def optimal(self) -> bool:
        """Whether the play kept the value (cost 0)."""
        return self.cost == 0

    def to_json(self) -> dict:
        """The play's JSON, as `t42 analyze --json` writes it."""
        return {"index": self.index, "trick": self.trick, "seat": self.seat, "tile": self.tile,
                "value_before": self.value_before, "value_after": self.value_after,
                "cost": self.cost, "optimal": self.optimal,
                "alternatives": list(self.alternatives)}


@dataclass(frozen=True)
class SeatSummary:
    """A seat's plays in the hand, how many of them cost something, and their total cost.

    Attributes:
        plays: The seat's plays in the hand.
        costly_plays: How many of them cost something.
        total_cost: Their cost in all.
    """

    plays: int = 0
    costly_plays: int = 0
    total_cost: int = 0

    def to_json(self) -> dict:
        """``{"plays", "costly_plays", "total_cost"}``."""
        return {"plays": self.plays, "costly_plays": self.costly_plays,
                "total_cost": self.total_cost}


@dataclass
class HandAnalysis:
    """A played hand, play by play, and its outcome, as `analyze_hand` returns it.

    Attributes:
        position: The hand as recorded (a `Position` with its plays).
        value: The double-dummy value at the opening lead.
        makes: Whether the contract should have made (at ``value``).
        result: What the declaring side actually took (points, or the nello
            declarer's tricks) in the tricks completed.
        final_value: The double-dummy value after the last recorded play (the
            same as ``result`` when the hand is ``complete``).
        made: Whether the contract made; None when a hand stopped early had
            not decided it yet.
        plays: Every play analysed (`PlayAnalysis`), in order.
        seats: Each seat's summary (`SeatSummary`).
        id: The record's ``id``, passed through.
        meta: The record's ``meta``, passed through.
        nodes: Nodes searched in all.

    >>> import json
    >>> from solver import analyze_hand
    >>> analysis = analyze_hand(json.loads(open("examples/hands.jsonl").readline()))
    >>> analysis.value, analysis.made
    (29, True)
    >>> [(p.seat, p.tile, p.cost) for p in analysis.costly_plays]
    [('W', '5-0', 5), ('W', '3-3', 1)]
    """

    position: Position = field(repr=False)
    value: int
    makes: bool
    result: int
    final_value: int
    made: bool | None
    plays: list[PlayAnalysis]
    seats: dict[str, SeatSummary]
    id: JSONValue = None
    meta: dict | None = None
    nodes: int = 0

    @property
    def contract(self) -> Contract:
        """The hand's contract."""
        return self.position.contract

    @property
    def complete(self) -> bool:
        """Whether every trick of the hand was played."""
        return self.position.is_complete

    @property
    def unit(self) -> str:
        """What values count: ``points`` (42) or ``tricks`` (nello, Moon)."""
        return "tricks" if self.position.max_value == 7 else "points"

    @property
    def costly_plays(self) -> list[PlayAnalysis]:
        """The plays that cost something, in order."""
        return [p for p in self.plays if p.cost]

    def to_json(self) -> dict:
        """The analysis JSON, as `t42 analyze --json` writes it."""
        out: dict[str, Any] = {}
        if self.id is not None:
            out["id"] = self.id
        if self.meta is not None:
            out["meta"] = self.meta
        out.update({
            "game": self.position.game,
            "contract": self.contract.to_json(),
            "unit": self.unit,
            "value": self.value,
            "makes": self.makes,
            "result": self.result,
            "complete": self.complete,
            "final_value": self.final_value,
            "made": self.made,
            "plays": [p.to_json() for p in self.plays],
            "seats": {s: summary.to_json() for s, summary in self.seats.items()},
        })
        return out


def parse_record(record: RecordLike) -> tuple[Position, Any, dict | None]:
    """Split and check a hand record: (position with its plays, id, meta).

    Raises `PositionError` naming the field at fault.
    """
    record = json_object(record, "record", "a hand record")
    check_keys(record, RECORD_FIELDS, "", "a hand record")
    position = Position({k: v for k, v in record.items() if k in POSITION_FIELDS})
    meta = record.get("meta")
    if meta is not None:
        _check_meta(meta, position)
        meta = dict(meta)
    return position, record.get("id"), meta


def _check_meta(meta: object, position: Position) -> None:
    if not isinstance(meta, Mapping):
        raise PositionError("meta", "must be an object", "INVALID_TYPE")
    players = meta.get("players")
    if players is not None:
        if not isinstance(players, Mapping):
            raise PositionError("meta.players", "must be an object of seat -> name",
                                "INVALID_TYPE")
        for seat, name in players.items():
            if seat not in SEATS or SEATS.index(seat) not in position.hands:
                raise PositionError(f"meta.players.{key_text(seat)}", f"unknown seat "
                                    f"{quoted(seat)}", "UNKNOWN_SEAT")
            if not isinstance(name, str):
                raise PositionError(f"meta.players.{seat}", "a player's name must be a string",
                                    "INVALID_TYPE")
    for key in ("date", "event"):
        if key in meta and not isinstance(meta[key], str):
            raise PositionError(f"meta.{key}", "must be a string", "INVALID_TYPE")
    if "auction" in meta and not isinstance(meta["auction"], list):
        raise PositionError("meta.auction", "must be a list of calls", "INVALID_TYPE")


def _decided(position: Position) -> bool | None:
    """Whether the contract made, if the tricks played already decide it."""
    threshold, at_least = position.make_target()
    low, high = position.points, position.points + position.available
    if low >= threshold:
        return at_least
    if high < threshold:
        return not at_least
    return None


def analyze_hand(record: RecordLike, *, token: CancelToken | None = None) -> HandAnalysis:
    """Analyse a played hand play by play against double-dummy play.

    Each play gets the double-dummy value before and after it, its cost to
    the side that made it and, when it cost something, the plays that would
    have kept the value. One engine serves the whole hand.

    Args:
        record: A hand record (docs/formats.md): a position whose ``plays`` are
            the tiles actually played (all, or fewer for a hand stopped early),
            with optional ``id`` and ``meta``; a dict or JSON text.
        token: Stops the searches (`CancelToken`).

    Returns:
        The `HandAnalysis`.

    Raises:
        PositionError: A bad record (an unknown field, an illegal play, ...).
        SearchCancelled: ``token`` stopped a search.

    >>> import json
    >>> from solver import analyze_hand
    >>> record = json.loads(open("examples/hands.jsonl").readline())
    >>> analyze_hand(record).seats["W"].total_cost
    6
    """
    played, hand_id, meta = parse_record(record)
    start = played.with_plays([])
    solver = DealSolver(start, token)
    maximizer = start.maximizer
    value = solver.value()
    before = value
    plays: list[PlayAnalysis] = []
    per_trick = len(start.active_seats)
    for index, tile in enumerate(played.plays):
        seat = solver.to_move
        is_max = bool(maximizer[seat])
        legal = solver.legal()
        alternatives: tuple[str, ...] = ()
        solver.play(tile)
        if len(legal) == 1:
            after = before  # a forced play costs nothing
        elif is_max and solver.at_least(before):
            after = before  # the maximiser cannot gain, so ">= before" means unchanged
        elif not is_max and not solver.at_least(before + 1):
            after = before
        else:
            # The value moved away from the mover: start the search one step off.
            after = solver.value(before - 1 if is_max else before + 1)
            solver.undo()
            alternatives = tuple(T.name_of(t) for t in sorted(legal)
                                 if t != tile and solver.child_is_optimal(t, before))
            solver.play(tile)
        plays.append(PlayAnalysis(
            index=index, trick=index // per_trick + 1, seat=SEATS[seat], tile=T.name_of(tile),
            value_before=before, value_after=after,
            cost=before - after if is_max else after - before, alternatives=alternatives))
        before = after
    return HandAnalysis(
        position=played, value=value, makes=start.makes(value), result=played.points,
        final_value=before, made=_decided(played), plays=plays, seats=_summarise(start, plays),
        id=hand_id, meta=meta, nodes=solver.nodes)


def _summarise(position: Position, plays: list[PlayAnalysis]) -> dict[str, SeatSummary]:
    seats = {SEATS[s]: SeatSummary() for s in position.active_seats}
    for play in plays:
        s = seats[play.seat]
        seats[play.seat] = SeatSummary(s.plays + 1, s.costly_plays + (play.cost > 0),
                                       s.total_cost + play.cost)
    return seats


__all__ = ["HandAnalysis", "PlayAnalysis", "SeatSummary", "analyze_hand", "parse_record"]
