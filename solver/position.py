"""Positions: the SPEC JSON parsed, validated and replayed.

A `Position` is immutable. Building one checks every field (raising
`PositionError` with the field path and a reason code) and replays the
plays so far, so that the seat to move, the trick in progress and the
points already won are known.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from . import tiles as T
from .errors import PositionError, key_text, quoted
from .jsondoc import check_keys, json_object
from .rules import DOUBLES_OPTIONS, LEAD, Declaration, Rules, build_rules, parse_declaration

SEATS = ("N", "E", "S", "W")
SEAT_INDEX = {s: i for i, s in enumerate(SEATS)}
KINDS = ("standard", "plunge", "splash")
MOON_BIDS = (4, 5, 6, 7, 21)
#: The fields of a position and of its contract (SPEC.md); any other is an error.
POSITION_FIELDS = ("game", "hands", "contract", "plays", "widow", "discard")
CONTRACT_FIELDS = ("declarer", "trump", "bid", "kind", "doubles")
#: Doubles a plunge or splash declarer must hold, and the default bid.
DOUBLES_NEEDED = {"plunge": (4, 168), "splash": (3, 84)}

#: Tiles of three-player Moon: the set without 1-0 ... 6-0.
MOON3_SET = frozenset(t for t in range(T.N_TILES) if T.ENDS[t][1] != 0 or t == 0)


#: 1 << tile, for building masks fast.
_BIT = tuple(1 << t for t in range(T.N_TILES))


def partner(seat: int) -> int:
    return (seat + 2) % 4


@dataclass(frozen=True)
class Contract:
    """Declarer, declaration, bid, kind (standard/plunge/splash), doubles option."""

    declarer: int
    declaration: Declaration
    bid: int
    kind: str = "standard"
    doubles: str = "high"

    def to_json(self) -> dict:
        return {
            "declarer": SEATS[self.declarer],
            "trump": self.declaration.name,
            "bid": self.bid,
            "kind": self.kind,
            "doubles": self.doubles,
        }


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_game(value: object, field: str = "game") -> str:
    """``"42"`` or ``"moon"`` (any case): the game's name. Only these two strings; not
    the number 42, nor 42.0."""
    if isinstance(value, str):
        if value == "42":
            return "42"
        if value.lower() == "moon":
            return "moon"
    raise PositionError(field, f"unknown game {quoted(value)} (\"42\" or \"moon\", as strings)",
                        "UNKNOWN_GAME")


def _reject_hand_tile(tile: int, where: str, seen: dict[int, str]) -> None:
    """The error for a tile of a hand that is a duplicate or outside the tile set."""
    if tile in seen:
        raise PositionError(where, f"tile {T.name_of(tile)} appears twice "
                            f"(also at {seen[tile]})", "DUPLICATE_TILE")
    raise PositionError(where, f"{T.name_of(tile)} is not in the 22-tile set of "
                        "three-player Moon (of the blanks only 0-0 stays)", "NOT_IN_TILE_SET")


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


class Position:
    """A deal, a contract and the plays so far; see SPEC.md for the JSON form."""

    game: str
    hands: dict[int, tuple[int, ...]]
    contract: Contract
    plays: tuple[int, ...]
    widow: int | None
    discard: int | None

    def __init__(self, data: Mapping[str, Any] | str | bytes) -> None:
        checked = data.__class__ is not dict
        if checked:  # text parsed, a mapping checked (a plain dict: by the reader below)
            data = json_object(data, "position", "a position")
        # The usual shape of a valid position is read in C (solver/_replay.pyx); any
        # other input, and every error, the slow way below.
        if _read_fast(self, data):
            return
        self._parse(data if checked else json_object(data, "position", "a position"))
        del self._seen  # where each tile was: only the parser's widow and discard checks need it
        self._derive_layout()
        self._replay()

    @property
    def completed_tricks(self) -> list[tuple[int, list[tuple[int, int]]]]:
        """[(winner, [(seat, tile), ...])] for every trick played out: worked out when
        first asked (few callers want it, and the fast reader does not build it)."""
        done = self.__dict__.get("_completed")
        if done is None:
            done = self._completed = self._tricks()
        return done

    @completed_tricks.setter
    def completed_tricks(self, value: list[tuple[int, list[tuple[int, int]]]]) -> None:
        self._completed = value

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str | bytes) -> "Position":
        """Build a position from the SPEC JSON: a dict, or JSON text (str, or bytes in
        UTF-8, UTF-16 or UTF-32)."""
        return cls(data)

    # ----------------------------------------------------------------- parsing

    def _parse(self, data: Mapping[str, Any]) -> None:
        check_keys(data, POSITION_FIELDS, "", "a position")
        self.game = parse_game(data.get("game", "42"))
        self._parse_hands(data.get("hands"))
        self._parse_moon_widow(data)
        self._parse_contract(data.get("contract"))
        plays = data.get("plays", [])
        if plays is None:
            plays = []
        if not isinstance(plays, list):
            raise PositionError("plays", "must be a list of tiles", "INVALID_TYPE")
        self.plays = tuple(T.parse_tiles(plays, "plays"))

    def _parse_hands(self, hands: object) -> None:
        if hands is None:
            raise PositionError("hands", "required", "MISSING_FIELD")
        if hands.__class__ is not dict and not isinstance(hands, Mapping):
            raise PositionError("hands", "must be an object of seat -> list of tiles", "INVALID_TYPE")
        for key in hands:
            if key not in SEAT_INDEX:
                raise PositionError(f"hands.{key_text(key)}", f"unknown seat {quoted(key)} "
                                    "(N, E, S or W)", "UNKNOWN_SEAT")
        expected: tuple[str, ...] = SEATS[:3] if self.game == "moon" and "W" not in hands \
            else SEATS
        for seat in expected:
            if seat not in hands:
                raise PositionError(f"hands.{seat}", "missing hand", "MISSING_FIELD")
        self.three_handed = len(expected) == 3
        allowed = MOON3_SET if self.three_handed else frozenset(range(T.N_TILES))
        held = 0  # the tiles of the hands read so far
        self.hands = {}
        for seat in expected:
            raw = hands[seat]
            field = f"hands.{seat}"
            if raw.__class__ is not list and not isinstance(raw, list):
                raise PositionError(field, "must be a list of tiles", "INVALID_TYPE")
            if len(raw) != 7:
                raise PositionError(field, f"holds {len(raw)} tiles, a hand holds 7", "HAND_SIZE")
            parsed = T.parse_tiles(raw, field)
            for i, tile in enumerate(parsed):
                bit = _BIT[tile]
                if held & bit or tile not in allowed:
                    seen = self._where(expected)  # the hands before this one, then its start
                    for j, earlier in enumerate(parsed[:i]):
                        seen.setdefault(earlier, f"{field}[{j}]")
                    _reject_hand_tile(tile, f"{field}[{i}]", seen)
                held |= bit
            self.hands[SEAT_INDEX[seat]] = tuple(parsed)
        # Where each tile is (for the widow and discard checks): only Moon for 3 has them.
        self._seen = self._where(expected) if self.three_handed else {}

    def _where(self, seats: Sequence[str]) -> dict[int, str]:
        """Tile -> its first place (hands.N[3]) in the hands parsed so far."""
        seen: dict[int, str] = {}
        for seat in seats:
            for i, tile in enumerate(self.hands.get(SEAT_INDEX[seat], ())):
                seen.setdefault(tile, f"hands.{seat}[{i}]")
        return seen


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
            # A view (solver.view) shares this parser and may not hold the declarer's hand.
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

    # ------------------------------------------------------------------ replay

    def _replay(self) -> None:
        rules = self.rules
        remaining = [0, 0, 0, 0]
        for s in self.active_seats:
            remaining[s] = T.mask_of(self.hands[s])
        leader = self.first_leader
        trick: list[tuple[int, int]] = []
        points = 0
        tricks_won = [0, 0, 0, 0]
        completed: list[tuple[int, list[tuple[int, int]]]] = []
        self.completed_tricks = completed
        per_trick = len(self.active_seats)
        total_plays = 7 * per_trick
        if len(self.plays) > total_plays:
            raise PositionError(f"plays[{total_plays}]", f"the hand is over after "
                                f"{total_plays} plays", "TOO_MANY_PLAYS")
        next_seat, lead_suit, tiers, scorer = \
            self._next_seat, rules.lead_suit, rules.tiers, self.scorer
        for i, tile in enumerate(self.plays):
            seat = leader if not trick else next_seat[trick[-1][0]]
            bit = _BIT[tile]
            held = remaining[seat]
            if not held & bit:
                self._reject_play(i, seat, tile, trick, None)
            # Rules.legal_mask inlined: the first tier the hand holds must hold the tile.
            for tier in tiers[lead_suit[trick[0][1]] if trick else LEAD]:
                if held & tier:
                    if not tier & bit:
                        self._reject_play(i, seat, tile, trick, held)
                    break
            remaining[seat] = held & ~bit
            trick.append((seat, tile))
            if len(trick) == per_trick:
                tiles_in = [t for _, t in trick]
                winner = trick[rules.winner_index(tiles_in)][0]
                if scorer[winner]:
                    points += rules.trick_value(tiles_in)
                tricks_won[winner] += 1
                completed.append((winner, trick))
                leader, trick = winner, []
        self.remaining = tuple(remaining)
        self.leader = leader
        self.trick = tuple(trick)
        self.points = points
        self.tricks_won = tuple(tricks_won)
        self.tricks_left = 7 - len(completed)
        unplayed = 0  # the tiles still held and those on the table: their count is to win
        for s in self.active_seats:
            unplayed |= remaining[s]
        for _, t in trick:
            unplayed |= _BIT[t]
        counted = sum(points for t, points in enumerate(rules.count) if points and unplayed >> t & 1)
        self.available = self.tricks_left * rules.trick_points + counted

    def _tricks(self) -> list[tuple[int, list[tuple[int, int]]]]:
        """The completed tricks of the (valid) plays: [(winner, [(seat, tile), ...])]."""
        completed: list[tuple[int, list[tuple[int, int]]]] = []
        trick: list[tuple[int, int]] = []
        leader, per_trick = self.first_leader, len(self.active_seats)
        for tile in self.plays:
            trick.append((leader if not trick else self._next_seat[trick[-1][0]], tile))
            if len(trick) == per_trick:
                leader = trick[self.rules.winner_index([t for _, t in trick])][0]
                completed.append((leader, trick))
                trick = []
        return completed

    def _reject_play(self, i: int, seat: int, tile: int, trick: list,
                     held: int | None) -> None:
        """Raise the error for play ``i``: a tile not in the hand (``held`` None) or an
        illegal one (``held``: the hand it was played from). Built only on error."""
        field, name = f"plays[{i}]", T.name_of(tile)
        if held is None:
            where = "was already played" if tile in self.hands[seat] \
                else f"is not in {SEATS[seat]}'s hand"
            raise PositionError(field, f"{name} {where} ({SEATS[seat]} to play)",
                                "TILE_NOT_IN_HAND")
        ctx = LEAD if not trick else self.rules.lead_suit[trick[0][1]]
        must = ", ".join(T.name_of(t) for t in T.tiles_of(self.rules.legal_mask(held, ctx)))
        raise PositionError(field, f"{SEATS[seat]} may not play {name}: must "
                            f"{'follow suit' if trick else 'lead'} with one of {must}",
                            "ILLEGAL_PLAY")

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

    @property
    def is_complete(self) -> bool:
        return self.tricks_left == 0

    def legal_tiles(self) -> list[int]:
        """Legal tiles (indices) of the seat to move."""
        seat = self.to_move_index
        if seat is None:
            return []
        ctx = LEAD if not self.trick else self.rules.lead_suit[self.trick[0][1]]
        return T.tiles_of(self.rules.legal_mask(self.remaining[seat], ctx))

    def makes(self, value: int, bid: int | None = None) -> bool:
        """Whether a final double-dummy value makes the bid (the contract's by default)."""
        threshold, at_least = self.make_target(bid)
        return value >= threshold if at_least else value < threshold

    def make_target(self, bid: int | None = None) -> tuple[int, bool]:
        """(t, at_least): the bid makes iff value >= t (at_least) or value < t (nello)."""
        bid = self.contract.bid if bid is None else bid
        if self.contract.declaration.name == "nello":
            return 1, False
        if self.game == "moon":
            return (7 if bid == 21 else bid), True
        return (bid if bid < 42 else 42), True

    def with_plays(self, plays: list[int] | tuple[int, ...]) -> "Position":
        """The same deal and contract with other plays (validated)."""
        data = self.to_json()
        data["plays"] = [T.name_of(t) for t in plays]
        return Position(data)

    def with_hands(self, hands: Mapping[int, Sequence[int]],
                   remaining: Sequence[int] | None = None) -> "Position":
        """The same contract and plays on other hands, without checking them.

        For dealers of many deals of one view: the caller guarantees that
        ``hands`` (seat index -> 7 tiles, the seats of this position) is a
        valid deal on which the plays are legal, so nothing is replayed.
        ``remaining`` (per seat, the mask of tiles still held; 0 for a seat
        out of play) saves working it out when the caller knows it.
        """
        clone = Position.__new__(Position)
        clone.__dict__.update(self.__dict__)
        clone.hands = {s: tuple(hands[s]) for s in self.hands}
        if remaining is None:
            played = 0
            for t in self.plays:
                played |= _BIT[t]
            held = [0, 0, 0, 0]
            for seat in self.active_seats:
                mask = 0
                for t in clone.hands[seat]:
                    mask |= _BIT[t]
                held[seat] = mask & ~played
            remaining = held
        clone.remaining = tuple(remaining)
        return clone

    # ----------------------------------------------------------------- output

    def to_json(self) -> dict:
        """The SPEC JSON of this position (tiles as H-L)."""
        out: dict[str, Any] = {}
        if self.game == "moon":
            out["game"] = "moon"
        out["hands"] = {SEATS[s]: [T.name_of(t) for t in tiles] for s, tiles in self.hands.items()}
        out["contract"] = self.contract.to_json()
        out["plays"] = [T.name_of(t) for t in self.plays]
        if self.widow is not None and self.discard is not None:
            out["widow"] = T.name_of(self.widow)
            out["discard"] = T.name_of(self.discard)
        return out

    def to_json_str(self) -> str:
        return json.dumps(self.to_json())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(self.to_json_str())

    def __repr__(self) -> str:
        return f"Position({self.to_json_str()})"

    def _repr_svg_(self) -> str:  # Jupyter shows a position as its picture
        from .svg import position_svg
        return position_svg(self)

    def __str__(self) -> str:
        from .diagram import render

        return render(self)


from ._replay import read as _read_fast  # noqa: E402 (it reads this module's tables)
