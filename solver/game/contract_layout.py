"""A hand's contract and the seat layout it implies, shared by a full deal and a view.

`ContractLayout` is the base of `solver.game.position.Position` (every hand
known) and `solver.game.view.View` (one seat's hand): both read the contract
and the three-player Moon widow and discard with the same checks and
`PositionError`s, and derive from the contract the rules, the seats in
play, who scores and who leads.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Mapping

from . import tiles as T
from .errors import PositionError, quoted
from .jsondoc import check_keys
from .rules import DOUBLES_OPTIONS, Declaration, Rules, build_rules, parse_declaration

SEATS = ("N", "E", "S", "W")
SEAT_INDEX = {s: i for i, s in enumerate(SEATS)}
KINDS = ("standard", "plunge", "splash")
MOON_BIDS = (4, 5, 6, 7, 21)
#: The fields of a contract (docs/formats.md); any other is an error.
CONTRACT_FIELDS = ("declarer", "trump", "bid", "kind", "doubles")
#: Doubles a plunge or splash declarer must hold, and the default bid.
DOUBLES_NEEDED = {"plunge": (4, 168), "splash": (3, 84)}

#: Tiles of three-player Moon: the set without 1-0 ... 6-0.
MOON3_SET = frozenset(t for t in range(T.N_TILES) if T.ENDS[t][1] != 0 or t == 0)


def partner(seat: int) -> int:
    """The seat index across the table from ``seat`` (N-S, E-W)."""
    return (seat + 2) % 4


@dataclass(frozen=True)
class Contract:
    """A hand's contract: who declared what, for which bid (a position's ``contract``).

    Attributes:
        declarer: The declarer's seat index (0..3 for N, E, S, W).
        declaration: The declaration's rules name and trump pip
            (`solver.game.rules.Declaration`: ``name`` such as ``"fours"``,
            ``"doubles"``, ``"nello"``; ``trump_pip`` 0..6 or None).
        bid: In 42, points 30..41 or marks as multiples of 42 (42 one mark, 84
            two); in Moon, tricks 4..7 or 21 to shoot the moon (docs/formats.md).
        kind: ``"standard"``, ``"plunge"`` or ``"splash"``.
        doubles: Where doubles rank: ``"high"``, ``"low"`` or ``"suit"``.

    >>> from solver import Position
    >>> Position(open("examples/deal.json").read()).contract.to_json()
    {'declarer': 'W', 'trump': 'fours', 'bid': 30, 'kind': 'standard', 'doubles': 'high'}
    """

    declarer: int
    declaration: Declaration
    bid: int
    kind: str = "standard"
    doubles: str = "high"

    def to_json(self) -> dict:
        """The contract JSON of docs/formats.md, every field spelled out."""
        return {
            "declarer": SEATS[self.declarer],
            "trump": self.declaration.name,
            "bid": self.bid,
            "kind": self.kind,
            "doubles": self.doubles,
        }


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@functools.lru_cache(maxsize=None)
def _layout(three_handed: bool, nello: bool, declarer: int, kind: str) -> tuple:
    """(active seats, scorer, maximizer, first leader, next seat of each seat): a few
    dozen layouts exist, each worked out once."""
    if three_handed:
        active = [0, 1, 2]
    elif nello:
        active = [s for s in range(4) if s != partner(declarer)]
    else:
        active = [0, 1, 2, 3]
    solo = three_handed or nello
    declaring = {declarer} if solo else {declarer, partner(declarer)}
    scorer = tuple(1 if s in declaring else 0 for s in range(4))
    # The declaring side maximises the value, except in nello, where the
    # value counts the declarer's tricks and the declarer wants none.
    maximizer = tuple((1 if s in declaring else 0) ^ (1 if nello else 0) for s in range(4))
    first_leader = partner(declarer) if kind != "standard" else declarer
    next_of = [-1, -1, -1, -1]
    for i, seat in enumerate(active):
        next_of[seat] = active[(i + 1) % len(active)]
    return tuple(active), scorer, maximizer, first_leader, tuple(next_of)


class ContractLayout:
    """Contract, widow and seat layout of a hand, for `Position` and `View`.

    A subclass sets ``game``, ``three_handed`` and ``hands`` (seat index ->
    tiles; a view holds only the viewer's) before `_parse_moon_widow`, and
    ``_seen`` (tile -> where it is in the hands) for its discard check;
    `_parse_contract` comes next, then `_derive_layout`. `to_move` reads the
    subclass's replay: ``tricks_left``, ``leader`` and ``trick``.
    """

    game: str
    three_handed: bool
    hands: dict[int, tuple[int, ...]]
    contract: Contract
    widow: int | None
    discard: int | None
    _seen: dict[int, str]
    tricks_left: int
    leader: int
    trick: tuple[tuple[int, int], ...]

    # ----------------------------------------------------------------- parsing

    def _parse_moon_widow(self, data: Mapping[str, Any]) -> None:
        self.widow = self.discard = None
        has_widow, has_discard = "widow" in data, "discard" in data
        if not (has_widow or has_discard):
            return
        if not self.three_handed:
            name = "widow" if has_widow else "discard"
            raise PositionError(name, "only three-player Moon has a widow and a discard",
                                "UNEXPECTED_FIELD")
        if has_widow != has_discard:
            missing = "discard" if has_widow else "widow"
            raise PositionError(missing, "widow and discard come together", "MISSING_FIELD")
        self.widow = T.parse_tile(data["widow"], "widow")
        self.discard = T.parse_tile(data["discard"], "discard")
        for name, tile in (("widow", self.widow), ("discard", self.discard)):
            if tile not in MOON3_SET:
                raise PositionError(name, f"{T.name_of(tile)} is not in the 22-tile Moon set",
                                    "NOT_IN_TILE_SET")
        if self.discard in self._seen:
            raise PositionError("discard", f"{T.name_of(self.discard)} is also in "
                                f"{self._seen[self.discard]}", "DUPLICATE_TILE")

    def _parse_contract(self, raw: object) -> None:
        if raw is None:
            raise PositionError("contract", "required", "MISSING_FIELD")
        if raw.__class__ is not dict and not isinstance(raw, Mapping):
            raise PositionError("contract", "must be an object", "INVALID_TYPE")
        check_keys(raw, CONTRACT_FIELDS, "contract", "a contract")
        seats = SEATS[:3] if self.three_handed else SEATS
        declarer = raw.get("declarer")
        if declarer is None:
            raise PositionError("contract.declarer", "required", "MISSING_FIELD")
        if declarer.__class__ is not str or declarer not in seats:
            raise PositionError("contract.declarer", f"unknown seat {quoted(declarer)} "
                                f"(one of {', '.join(seats)})", "UNKNOWN_SEAT")
        if "trump" not in raw:
            raise PositionError("contract.trump", "required", "MISSING_FIELD")
        decl = parse_declaration(raw["trump"])
        kind = raw.get("kind", "standard")
        kind = kind.lower() if isinstance(kind, str) else kind
        if kind.__class__ is not str or kind not in KINDS:
            raise PositionError("contract.kind", f"unknown kind {quoted(kind)} (standard, "
                                "plunge or splash)", "UNKNOWN_KIND")
        doubles = raw.get("doubles", "high")
        doubles = doubles.lower() if isinstance(doubles, str) else doubles
        if doubles.__class__ is not str or doubles not in DOUBLES_OPTIONS:
            raise PositionError("contract.doubles", f"unknown option {quoted(doubles)} (high, "
                                "low or suit)", "INVALID_OPTION")
        if doubles != "high" and (self.game == "moon" or decl.name not in ("follow-me", "nello")):
            raise PositionError("contract.doubles", f"doubles {doubles!r} is only for follow-me "
                                "and nello in 42; otherwise doubles are high", "INVALID_OPTION")
        seat = SEAT_INDEX[declarer]
        if self.game == "moon":
            if decl.name in ("nello", "sevens"):
                raise PositionError("contract.trump", f"{decl.name} is not a Moon declaration "
                                    "(a pip suit, doubles or follow-me)", "UNKNOWN_DECLARATION")
            if kind != "standard":
                raise PositionError("contract.kind", "Moon has no plunge or splash", "UNKNOWN_KIND")
        elif kind != "standard":
            if decl.name in ("nello", "sevens"):
                raise PositionError("contract.kind", f"{kind} cannot be played as {decl.name}",
                                    "INVALID_CONTRACT")
            need, _ = DOUBLES_NEEDED[kind]
            # A view (solver.game.view) may not hold the declarer's hand.
            held = sum(1 for t in self.hands.get(seat, ()) if T.is_double(t))
            if held < need and seat in self.hands:
                raise PositionError("contract.kind", f"{kind} needs {need} doubles in the "
                                    f"declarer's hand; {declarer} holds {held}",
                                    "PLUNGE_NEEDS_FOUR_DOUBLES" if kind == "plunge"
                                    else "SPLASH_NEEDS_THREE_DOUBLES")
        bid = raw.get("bid")
        if bid is None and kind in DOUBLES_NEEDED:
            bid = DOUBLES_NEEDED[kind][1]
        # check_bid reads the declaration and kind, so the contract comes first.
        self.contract = Contract(seat, decl, 0, kind, doubles)
        self.contract = Contract(seat, decl, self.check_bid(bid, "contract.bid"), kind, doubles)
        if self.widow is not None and self.widow != self.discard and self.widow not in self.hands[seat]:
            raise PositionError("widow", f"the widow {T.name_of(self.widow)} is neither in the "
                                f"declarer's hand nor the discard", "WIDOW_MISMATCH")

    def check_bid(self, bid: object, field: str = "bid") -> int:
        """Validate a bid for this position's game and contract; returns it."""
        if bid is None:
            raise PositionError(field, "required", "MISSING_FIELD")
        if not _is_int(bid):
            raise PositionError(field, f"must be a whole number, not {quoted(bid)}", "INVALID_TYPE")
        assert isinstance(bid, int)
        if self.game == "moon":
            if bid not in MOON_BIDS:
                raise PositionError(field, f"Moon bid {quoted(bid)} is out of range (4..7 tricks, "
                                    "or 21 to shoot the moon)", "BID_OUT_OF_RANGE")
            return bid
        marks_only = self.contract.declaration.name in ("nello", "sevens") or \
            self.contract.kind != "standard"
        if bid % 42 == 0 and 42 <= bid <= 294:
            return bid
        if 30 <= bid <= 41 and not marks_only:
            return bid
        what = self.contract.kind if self.contract.kind != "standard" else \
            self.contract.declaration.name
        if marks_only and 30 <= bid <= 41:
            raise PositionError(field, f"{what} takes mark bids only (42, 84, ... 294), "
                                f"not {bid} points", "BID_OUT_OF_RANGE")
        raise PositionError(field, f"bid {quoted(bid)} is out of range (30..41 points or 42*k "
                            "marks, 42..294)", "BID_OUT_OF_RANGE")

    # ------------------------------------------------------------------ layout

    def _derive_layout(self) -> None:
        c = self.contract
        decl = c.declaration
        nello = decl.name == "nello"
        trick_scored = nello or self.game == "moon"
        self.rules: Rules = build_rules(decl, c.doubles, with_count=not trick_scored)
        self.active_seats: tuple[int, ...]
        #: seats whose tricks make the value
        self.scorer: tuple[int, ...]
        (self.active_seats, self.scorer, self.maximizer, self.first_leader,
         self._next_seat) = _layout(self.three_handed, nello, c.declarer, c.kind)
        self.max_value = 7 if trick_scored else 42

    def next_seat(self, seat: int) -> int:
        return self._next_seat[seat]

    # ------------------------------------------------------------- properties

    @property
    def to_move(self) -> str | None:
        """Seat to move, or None when all tricks have been played."""
        seat = self.to_move_index
        return None if seat is None else SEATS[seat]

    @property
    def to_move_index(self) -> int | None:
        if self.tricks_left == 0:
            return None
        return self.leader if not self.trick else self._next_seat[self.trick[-1][0]]
