"""Positions: the position JSON (docs/formats.md) parsed, validated and replayed.

A `Position` is immutable. Building one checks every field (raising
`PositionError` with the field path and a reason code) and replays the
plays so far, so that the seat to move, the trick in progress and the
points already won are known. The contract, the Moon widow and the seat
layout are read by its base, `solver.game.contract_layout.ContractLayout`,
which `solver.game.view.View` shares.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from . import tiles as T
from ._replay import read as _read_fast
# Re-exported: other modules import these names from here.
from .contract_layout import (CONTRACT_FIELDS, DOUBLES_NEEDED, KINDS,  # noqa: F401
                              MOON3_SET, MOON_BIDS, SEAT_INDEX, SEATS, Contract,
                              ContractLayout, _layout, partner)
from .errors import ArgumentError, PositionError, key_text, quoted
from .jsondoc import check_keys, json_object
from .rules import LEAD

#: The fields of a position (docs/formats.md); any other is an error.
POSITION_FIELDS = ("game", "hands", "contract", "plays", "widow", "discard")


#: 1 << tile, for building masks fast.
_BIT = tuple(1 << t for t in range(T.N_TILES))


def parse_game(value: object, field: str = "game") -> str:
    """``"42"`` or ``"moon"`` (any case): the game's name. Only these two strings; not
    the number 42, nor 42.0.

    Args:
        value: The ``game`` field as read (any JSON value).
        field: The field to name in the error.

    Raises:
        PositionError: (``UNKNOWN_GAME``) anything else.

    >>> parse_game("Moon")
    'moon'
    """
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


def _tile_text(tile: object, field: str) -> str:
    """A tile given to the API as a name (any spelling the JSON accepts, checked by the
    parser) or a tile number 0..27 (`Position.legal_ids`), as the JSON text to parse."""
    if tile.__class__ is str:
        return tile  # type: ignore[return-value]
    if tile.__class__ is int and 0 <= tile < T.N_TILES:  # type: ignore[operator]
        return T.NAMES[tile]  # type: ignore[index]
    raise PositionError(field, f"unknown tile {quoted(tile)} (a name such as 6-4, or a tile "
                        "number 0..27)", "UNKNOWN_TILE")


def _seat_index(seat: object, seats: Sequence[int]) -> int:
    """The index of ``seat`` (a letter N, E, S, W in any case, or an index 0..3), which
    must be one of ``seats``; `ArgumentError` otherwise."""
    if seat.__class__ is str and seat.upper() in SEAT_INDEX:  # type: ignore[attr-defined]
        index = SEAT_INDEX[seat.upper()]  # type: ignore[attr-defined]
    elif seat.__class__ is int:
        index = seat  # type: ignore[assignment]
    else:
        raise ArgumentError("seat", f"unknown seat {quoted(seat)} (N, E, S or W)")
    if index not in seats:
        letters = ", ".join(SEATS[s] for s in seats)
        raise ArgumentError("seat", f"{quoted(seat)} holds no hand here (one of {letters})")
    return index


class Position(ContractLayout):
    """A deal, a contract and the plays so far (the position JSON of docs/formats.md).

    Building one checks every field and replays the plays, so that the seat to move,
    the trick in progress and the points won so far are known. The public answers speak
    as the JSON does, tiles as names ("6-4") and seats as letters: `to_json`,
    `to_move`, `legal_tiles`, `hand`, `held`. `legal_ids` is the tile-number form of
    `legal_tiles`, for code that works on numbers.

    Args:
        data (dict | str | bytes): The position JSON, as a dict or as text (str, or
            bytes in UTF-8, UTF-16 or UTF-32).

    Raises:
        PositionError: For bad input, with the field path and a reason code.

    Attributes:
        game (str): ``"42"`` or ``"moon"``.
        contract (Contract): The contract (its ``declarer`` is a seat index).
        hands (dict[int, tuple[int, ...]]): Internal: seat index (0..3 for N, E, S, W)
            -> the tile numbers (0..27) as dealt; `hand` gives the names.
        plays (tuple[int, ...]): Internal: the tile numbers played; `to_json` gives the
            names.
        remaining (tuple[int, ...]): Internal: per seat index, the mask (bit ``t`` for
            tile number ``t``) of the tiles still held; `held` gives the names.
        trick (tuple[tuple[int, int], ...]): Internal: (seat index, tile number) of
            each play of the trick in progress.
        leader (int): Internal: the seat index that led (or leads) the trick.
        widow (int | None): Internal: the Moon widow's tile number.
        discard (int | None): Internal: the Moon discard's tile number.
        points (int): Points (or tricks) the declaring side has won so far.
        tricks_won (tuple[int, ...]): Tricks won so far, per seat index.
        tricks_left (int): Tricks not yet complete (the one in progress included).

    >>> Position(json.load(open("examples/deal.json"))).to_move
    'W'
    """

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
        # The usual shape of a valid position is read in C (solver/game/_replay.pyx); any
        # other input, and every error, the slow way below.
        if _read_fast(self, data):
            return
        self._parse(data if checked else json_object(data, "position", "a position"))
        del self._seen  # where each tile was: only the parser's widow and discard checks need it
        self._derive_layout()
        self._replay()

    @property
    def completed_tricks(self) -> list[tuple[int, list[tuple[int, int]]]]:
        """Internal: [(winner, [(seat, tile), ...])] for every trick played out, as seat
        indices and tile numbers: worked out when first asked (few callers want it, and
        the fast reader does not build it)."""
        done = self.__dict__.get("_completed")
        if done is None:
            done = self._completed = self._tricks()
        return done

    @completed_tricks.setter
    def completed_tricks(self, value: list[tuple[int, list[tuple[int, int]]]]) -> None:
        self._completed = value

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str | bytes) -> "Position":
        """Build a position from its JSON (docs/formats.md), the same as ``Position(data)``.

        Args:
            data (dict | str | bytes): The position JSON, as a dict or as text (str, or
                bytes in UTF-8, UTF-16 or UTF-32).

        Returns:
            Position: The position.

        Raises:
            PositionError: For bad input.

        >>> Position.from_json(open("examples/deal.json").read()).contract.bid
        30
        """
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
            raise PositionError("hands", "must be an object of seat -> list of tiles",
                                "INVALID_TYPE")
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
        counted = sum(points for t, points in enumerate(rules.count)
                      if points and unplayed >> t & 1)
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
    def is_complete(self) -> bool:
        """Whether every trick has been played (then `to_move` is None).

        >>> Position(json.load(open("examples/deal.json"))).is_complete
        False
        """
        return self.tricks_left == 0

    def legal_tiles(self) -> list[str]:
        """The legal tiles of the seat to move, as names.

        Returns:
            list[str]: Tile names ("6-4") in tile order (0-0 first, 6-6 last); [] when
                the hand is over. `legal_ids` gives the same tiles as numbers.

        >>> Position(json.load(open("examples/deal.json"))).legal_tiles()
        ['1-1', '2-0', '3-3', '4-0', '4-3', '5-1', '5-5']
        """
        return [T.NAMES[t] for t in self.legal_ids()]

    def legal_ids(self) -> list[int]:
        """The legal tiles of the seat to move, as tile numbers, for code that works on
        numbers.

        Returns:
            list[int]: Tile numbers (0..27: ``H*(H+1)/2 + L`` for ``H-L``) in increasing
                order; [] when the hand is over. `legal_tiles` is the same list as names.

        >>> Position(json.load(open("examples/deal.json"))).legal_ids()
        [2, 3, 9, 10, 13, 16, 20]
        """
        seat = self.to_move_index
        if seat is None:
            return []
        ctx = LEAD if not self.trick else self.rules.lead_suit[self.trick[0][1]]
        return T.tiles_of(self.rules.legal_mask(self.remaining[seat], ctx))

    def hand(self, seat: str | int) -> list[str]:
        """The hand of a seat as dealt.

        Args:
            seat (str | int): A seat letter (N, E, S, W, any case) or index (0..3) of a
                seat holding a hand (N, E and S in three-player Moon).

        Returns:
            list[str]: Its tile names, in the order of the JSON.

        Raises:
            ArgumentError: For any other seat.

        >>> Position(json.load(open("examples/deal.json"))).hand("N")
        ['6-3', '6-2', '6-0', '5-4', '5-3', '5-2', '2-2']
        """
        return [T.NAMES[t] for t in self.hands[_seat_index(seat, self.hands)]]

    def held(self, seat: str | int) -> list[str]:
        """The tiles a seat still holds: its hand as dealt less its plays.

        Args:
            seat (str | int): As for `hand`.

        Returns:
            list[str]: Tile names, in the order of the JSON.

        Raises:
            ArgumentError: For a seat holding no hand.

        >>> Position(json.load(open("examples/deal.json"))).held("S")[:3]
        ['6-1', '4-4', '4-2']
        """
        index = _seat_index(seat, self.hands)
        mask = self.remaining[index]
        return [T.NAMES[t] for t in self.hands[index] if mask >> t & 1]

    def makes(self, value: int, bid: int | None = None) -> bool:
        """Whether a final double-dummy value makes the bid.

        Args:
            value (int): The declaring side's points (42) or tricks (Moon), or nello's
                tricks, at the end of the hand.
            bid (int | None): The bid to test; None: the contract's.

        Returns:
            bool: True when ``value`` makes ``bid``.

        >>> Position(json.load(open("examples/deal.json"))).makes(30)
        True
        """
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

    def with_plays(self, plays: Sequence[str | int]) -> "Position":
        """The same deal and contract with other plays, validated as the JSON's are.

        Args:
            plays (Sequence[str | int]): Every play from the first, each a tile name
                ("6-4", or any spelling the JSON accepts) or a tile number 0..27 (as
                `legal_ids` and ``plays`` hold). An int is always a tile number here,
                never the two-digit form 64 that the JSON also accepts.

        Returns:
            Position: A new position.

        Raises:
            PositionError: For a bad or illegal play (field ``plays[i]``).

        >>> Position(json.load(open("examples/deal.json"))).with_plays(["5-5"]).to_move
        'N'
        """
        data = self.to_json()
        data["plays"] = [_tile_text(t, f"plays[{i}]") for i, t in enumerate(plays)]
        return Position(data)

    def with_hands(self, hands: Mapping[int, Sequence[int]],
                   remaining: Sequence[int] | None = None) -> "Position":
        """The same contract and plays on other hands, without checking them (internal:
        tile numbers and seat indices).

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
        """The JSON of this position (docs/formats.md).

        Returns:
            dict: ``game`` (Moon only), ``hands``, ``contract``, ``plays`` and the Moon
                ``widow`` and ``discard``, tiles as names "H-L" and seats as letters.

        >>> Position(json.load(open("examples/deal.json"))).to_json()["hands"]["W"][0]
        '5-5'
        """
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
        """The JSON of this position as text.

        Returns:
            str: `to_json` as one line of JSON.

        >>> Position(json.load(open("examples/deal.json"))).to_json_str()[:20]
        '{"hands": {"N": ["6-'
        """
        return json.dumps(self.to_json())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(self.to_json_str())

    def __repr__(self) -> str:
        return f"Position({self.to_json_str()})"

    def _repr_svg_(self) -> str:  # Jupyter shows a position as its picture
        from ..show.svg import position_svg
        return position_svg(self)

    def __str__(self) -> str:
        from ..show.diagram import render

        return render(self)

