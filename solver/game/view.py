"""A seat's view: its own hand, the contract and the plays (docs/formats.md, a seat's view).

Parsing a `View` checks every field with the same `PositionError`s as a
`Position` (the contract and the Moon widow are read by their common base,
`solver.game.contract_layout.ContractLayout`) and replays the plays to learn
what they reveal about the hidden hands:

* who played each tile (the order of play follows from the tiles alone);
* per play, the tiles the player could not have held then: the tiers of
  the rules that come before the played tile's tier (a seat that did not
  follow holds none of the led suit; in sevens, none closer to 7). The
  player held then every tile it played later and every tile it still
  holds, so this is a per-place restriction on the unseen tiles and a
  check on the known later plays;
* how many unseen tiles each place holds (7 as dealt minus the tiles
  played; the nello partner 7; the three-player Moon discard 1);
* a plunge or splash declarer's doubles: a bound on the doubles that
  place receives.

A view that no deal is consistent with is refused (``NO_CONSISTENT_DEAL``).
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from . import tiles as T
from .auction import read_call
from .completions import Bound, Completions
from .contract_layout import (DOUBLES_NEEDED, MOON3_SET, SEAT_INDEX, SEATS, ContractLayout,
                              _is_int, partner)
from .errors import PositionError, quoted
from .jsondoc import check_keys, json_object
from .position import Position, parse_game
from .rules import LEAD

DISCARD = "discard"


#: The fields of a view (docs/formats.md, a seat's view); any other is an error.
VIEW_FIELDS = ("seat", "game", "players", "hands", "contract", "plays", "widow", "discard",
               "auction")


class View(ContractLayout):
    """What one seat knows during a hand (the view JSON of docs/formats.md).

    Building one checks every field and replays the plays to learn what they reveal
    about the hidden hands. The public answers speak as the JSON does, tiles as names
    ("6-4") and seats as letters: `to_json`, `to_move`, `side`, `places`, `hand`,
    `legal_tiles`, `held`. `legal_ids` and ``hand_ids`` are the tile-number forms of
    `legal_tiles` and `hand`, for code that works on numbers.

    Args:
        data (dict | str): The view JSON, as a dict or as text.

    Raises:
        PositionError: For bad input, with the field path and a reason code;
            ``NO_CONSISTENT_DEAL`` when no deal fits the view.

    Attributes:
        game (str): ``"42"`` or ``"moon"``.
        players (int): 4, or 3 for three-player Moon.
        contract (Contract): The contract (its ``declarer`` is a seat index).
        places (tuple[str, ...]): Where the unseen tiles may lie: seat letters, then
            ``"discard"`` for a three-player Moon discard the view does not give.
        seat (int): Internal: the viewer's seat index (0..3 for N, E, S, W).
        hand_ids (tuple[int, ...]): The viewer's tile numbers (0..27) as dealt, for
            code that works on numbers; `hand` gives the names.
        plays (tuple[int, ...]): Internal: the tile numbers played.
        play_seats (list[int]): Internal: the seat index of each play.
        trick (tuple[tuple[int, int], ...]): Internal: (seat index, tile number) of
            each play of the trick in progress.
        unseen (tuple[int, ...]): Internal: the tile numbers the viewer cannot place.
        widow (int | None): Internal: the Moon widow's tile number (declarer only).
        discard (int | None): Internal: the Moon discard's tile number.

    >>> View(json.load(open("examples/view.json"))).to_move
    'E'
    """

    seat: int
    game: str
    players: int
    hand_ids: tuple[int, ...]
    plays: tuple[int, ...]
    widow: int | None
    discard: int | None

    def __init__(self, data: Mapping[str, Any] | str) -> None:
        data = json_object(data, "view", "a view")
        self.raw = data
        self._parse(data)
        self._derive_layout()
        if self.game == "42" and self.contract.declaration.name == "nello" and \
                self.seat == partner(self.contract.declarer):
            raise PositionError("seat", f"{SEATS[self.seat]} is the nello declarer's partner, "
                                "who sits out and has no view", "NELLO_PARTNER_VIEW")
        self._replay()
        self._derive_places()
        self.completions = Completions(self.allowed, self.capacity, self.bounds)
        if not self.completions.count():
            raise PositionError("plays" if self.plays else "hands", "no deal is consistent "
                                "with this view (the unseen tiles cannot be placed)",
                                "NO_CONSISTENT_DEAL")

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str) -> "View":
        """Build a view from its JSON (docs/formats.md), the same as ``View(data)``.

        Args:
            data (dict | str): The view JSON, as a dict or as text.

        Returns:
            View: The view.

        Raises:
            PositionError: For bad input.

        >>> View.from_json(open("examples/view.json").read()).contract.bid
        30
        """
        return cls(data)

    # ----------------------------------------------------------------- parsing

    def _parse(self, data: Mapping[str, Any]) -> None:
        check_keys(data, VIEW_FIELDS, "", "a view")
        self.game = parse_game(data.get("game", "42"))
        seat = data.get("seat")
        if seat is None:
            raise PositionError("seat", "required: the seat whose view this is", "MISSING_FIELD")
        if not isinstance(seat, str) or seat not in SEAT_INDEX:
            raise PositionError("seat", f"unknown seat {quoted(seat)} (N, E, S or W)",
                                "UNKNOWN_SEAT")
        self.seat = SEAT_INDEX[seat]
        plays = data.get("plays", [])
        if plays is None:
            plays = []
        if not isinstance(plays, list):
            raise PositionError("plays", "must be a list of tiles", "INVALID_TYPE")
        self.plays = tuple(T.parse_tile(p, f"plays[{i}]") for i, p in enumerate(plays))
        self._parse_hand(data.get("hands"))
        self._parse_players(data)
        self._parse_moon_widow(data)
        widow, discard = self.widow, self.discard
        # The contract parser checks a widow against the declarer's
        # hand, which a defender's view lacks: check it here instead.
        self.widow = self.discard = None
        self._parse_contract(data.get("contract"))
        self.widow, self.discard = widow, discard
        if widow is not None:
            if self.contract.declarer != self.seat:
                raise PositionError("widow", "only the Moon declarer sees the widow and the "
                                    "discard; a defender's view has neither", "UNEXPECTED_FIELD")
            if widow != discard and widow not in self.hand_ids:
                raise PositionError("widow", f"the widow {T.name_of(widow)} is neither in the "
                                    "declarer's hand nor the discard", "WIDOW_MISMATCH")
        self.auction = self._parse_auction(data.get("auction"))

    def _parse_auction(self, auction: object) -> list | None:
        """The optional auction: calls ``{"seat": "N", "bid": 30 | "pass" | "plunge" |
        "splash"}`` (kept as given)."""
        if auction is None:
            return None
        if not isinstance(auction, list):
            raise PositionError("auction", "must be a list of calls", "INVALID_TYPE")
        seats = SEATS[:3] if self.three_handed else SEATS
        for i, call in enumerate(auction):
            # The shape of each call, as a game record's calls are read (plunge and splash
            # included); whether the calls are legal in turn is not a view's to judge.
            read_call(call, f"auction[{i}]", seats)
        return auction

    def _parse_hand(self, hands: object) -> None:
        if hands is None:
            raise PositionError("hands", "required", "MISSING_FIELD")
        if not isinstance(hands, Mapping):
            raise PositionError("hands", "must be an object of seat -> list of tiles",
                                "INVALID_TYPE")
        name = SEATS[self.seat]
        if name not in hands:
            raise PositionError(f"hands.{name}", "missing: the viewer's hand", "MISSING_FIELD")
        for key in hands:
            if key != name:
                raise PositionError(f"hands.{key}", f"a view holds only the viewer's hand "
                                    f"({name})", "UNEXPECTED_HAND")
        raw = hands[name]
        field = f"hands.{name}"
        if not isinstance(raw, list):
            raise PositionError(field, "must be a list of tiles", "INVALID_TYPE")
        if len(raw) != 7:
            raise PositionError(field, f"holds {len(raw)} tiles, a hand holds 7", "HAND_SIZE")
        seen: dict[int, str] = {}
        for i, text in enumerate(raw):
            where = f"{field}[{i}]"
            tile = T.parse_tile(text, where)
            if tile in seen:
                raise PositionError(where, f"tile {T.name_of(tile)} appears twice "
                                    f"(also at {seen[tile]})", "DUPLICATE_TILE")
            seen[tile] = where
        self.hand_ids = tuple(seen)
        self.hands = {self.seat: self.hand_ids}
        self._seen = seen

    def _parse_players(self, data: Mapping[str, Any]) -> None:
        players = data.get("players")
        if players is not None and not _is_int(players):
            # As a bid is checked: 4.0 or true is no count of players.
            raise PositionError("players", f"must be a whole number, not {quoted(players)}",
                                "INVALID_TYPE")
        if self.game == "42":
            if players not in (None, 4):
                raise PositionError("players", "42 is played by 4 players", "INVALID_VALUE")
            self.players = 4
        else:
            shows_four = self.seat == 3 or any(
                t not in MOON3_SET for t in self.hand_ids + self.plays)
            if players is None:
                players = 4 if shows_four else 3
            if players not in (3, 4) or isinstance(players, bool):
                raise PositionError("players", f"Moon is played by 3 or 4 players, not "
                                    f"{quoted(players)}", "INVALID_VALUE")
            self.players = players
            if players == 3:
                if self.seat == 3:
                    raise PositionError("seat", "three-player Moon has seats N, E and S",
                                        "UNKNOWN_SEAT")
                for field, tiles in ((f"hands.{SEATS[self.seat]}", self.hand_ids),
                                     ("plays", self.plays)):
                    for i, t in enumerate(tiles):
                        if t not in MOON3_SET:
                            raise PositionError(f"{field}[{i}]", f"{T.name_of(t)} is not in the "
                                                "22-tile set of three-player Moon (of the blanks "
                                                "only 0-0 stays)", "NOT_IN_TILE_SET")
        self.three_handed = self.players == 3

    # ------------------------------------------------------------------ replay

    def _replay(self) -> None:
        """Seat of every play; what each play forbids; to move; tricks so far."""
        rules = self.rules
        per_trick = len(self.active_seats)
        total_plays = 7 * per_trick
        if len(self.plays) > total_plays:
            raise PositionError(f"plays[{total_plays}]", f"the hand is over after "
                                f"{total_plays} plays", "TOO_MANY_PLAYS")
        first_at: dict[int, int] = {}
        leader = self.first_leader
        trick: list[tuple[int, int]] = []
        self.play_seats: list[int] = []
        self.play_forbids: list[int] = []
        tricks_won = [0, 0, 0, 0]
        known = set(self.hand_ids)
        if self.widow is not None:
            known |= {self.widow, self.discard}
        for i, tile in enumerate(self.plays):
            field = f"plays[{i}]"
            if tile in first_at:
                raise PositionError(field, f"{T.name_of(tile)} was already played "
                                    f"(plays[{first_at[tile]}])", "DUPLICATE_PLAY")
            first_at[tile] = i
            seat = leader if not trick else self.next_seat(trick[-1][0])
            if seat == self.seat and tile not in self.hand_ids:
                raise PositionError(field, f"{T.name_of(tile)} is not in {SEATS[seat]}'s hand "
                                    f"({SEATS[seat]} to play)", "TILE_NOT_IN_HAND")
            if seat != self.seat and tile in known:
                whose = "the viewer's hand" if tile in self.hand_ids else "the discard"
                raise PositionError(field, f"{SEATS[seat]} cannot play {T.name_of(tile)}: it is "
                                    f"in {whose}", "NO_CONSISTENT_DEAL")
            ctx = LEAD if not trick else rules.lead_suit[trick[0][1]]
            forbid = 0
            for tier in rules.tiers[ctx]:
                if tier >> tile & 1:
                    break
                forbid |= tier
            self.play_seats.append(seat)
            self.play_forbids.append(forbid)
            trick.append((seat, tile))
            if len(trick) == per_trick:
                winner = trick[rules.winner_index([t for _, t in trick])][0]
                tricks_won[winner] += 1
                leader, trick = winner, []
        self.leader = leader
        self.trick = tuple(trick)
        self.tricks_won = tuple(tricks_won)
        self.tricks_left = 7 - len(self.plays) // per_trick
        # A seat held, at each of its plays, every tile it played later and
        # every tile it still holds: none of them may be one the play forbids.
        later = [0, 0, 0, 0]
        later[self.seat] = T.mask_of(self.hand_ids) & ~T.mask_of(self.plays)
        self.forbidden = [0, 0, 0, 0]
        for i in range(len(self.plays) - 1, -1, -1):
            seat, forbid = self.play_seats[i], self.play_forbids[i]
            clash = later[seat] & forbid
            if clash:
                shown = T.name_of(T.tiles_of(clash)[0])
                raise PositionError(f"plays[{i}]", f"{SEATS[seat]} could not play "
                                    f"{T.name_of(self.plays[i])} while holding {shown}",
                                    "NO_CONSISTENT_DEAL")
            self.forbidden[seat] |= forbid
            later[seat] |= 1 << self.plays[i]

    def _derive_places(self) -> None:
        """Places of the unseen tiles, their room, and which tiles each may hold."""
        played_by = [0, 0, 0, 0]
        for seat, tile in zip(self.play_seats, self.plays):
            played_by[seat] |= 1 << tile
        self.played_by = played_by
        full_set = MOON3_SET if self.three_handed else frozenset(range(T.N_TILES))
        known = set(self.hand_ids) | set(self.plays)
        if self.widow is not None:
            known |= {self.widow, self.discard}
        self.unseen = tuple(sorted(full_set - known, reverse=True))
        place_seats: list[int | None] = [s for s in self.active_seats if s != self.seat]
        capacity = [7 - bin(played_by[s]).count("1") for s in place_seats]
        nello_partner = None
        if self.game == "42" and self.contract.declaration.name == "nello":
            nello_partner = partner(self.contract.declarer)
            place_seats.append(nello_partner)
            capacity.append(7)
        if self.three_handed and self.widow is None:
            place_seats.append(None)
            capacity.append(1)
        self.place_seats = tuple(place_seats)
        self.places = tuple(DISCARD if s is None else SEATS[s] for s in place_seats)
        self.capacity = tuple(capacity)
        self.allowed: dict[int, int] = {}
        for t in self.unseen:
            mask = 0
            for p, s in enumerate(place_seats):
                if s is None or not self.forbidden[s] >> t & 1:
                    mask |= 1 << p
            self.allowed[t] = mask
        self.bounds: tuple[Bound, ...] = ()
        kind = self.contract.kind
        declarer = self.contract.declarer
        if kind in DOUBLES_NEEDED and declarer != self.seat:
            need = DOUBLES_NEEDED[kind][0]
            shown = sum(1 for t in T.tiles_of(played_by[declarer]) if T.is_double(t))
            place = place_seats.index(declarer)
            self.bounds = (Bound(T.mask_of(T.DOUBLES), place, max(0, need - shown)),)

    # ------------------------------------------------------------- properties

    @property
    def side(self) -> str:
        """The viewer's side.

        Returns:
            str: ``"declaring"`` or ``"defending"``.

        >>> View(json.load(open("examples/view.json"))).side
        'declaring'
        """
        return "declaring" if self.scorer[self.seat] else "defending"

    @property
    def hand(self) -> list[str]:
        """The viewer's hand as dealt, its plays included.

        Returns:
            list[str]: Tile names, in the order of the JSON; ``hand_ids`` holds the same
                as numbers, `held` the tiles not yet played.

        >>> View(json.load(open("examples/view.json"))).hand
        ['6-6', '6-5', '6-4', '5-0', '4-1', '3-2', '0-0']
        """
        return [T.NAMES[t] for t in self.hand_ids]

    @property
    def remaining(self) -> tuple[int, ...]:
        """The viewer's tiles not yet played, as tile numbers (internal; `held` gives
        the names)."""
        played = set(self.plays)
        return tuple(t for t in self.hand_ids if t not in played)

    def held(self) -> list[str]:
        """The viewer's tiles not yet played.

        Returns:
            list[str]: Tile names, in the order of its hand.

        >>> View(json.load(open("examples/view.json"))).held()
        ['6-6', '6-5', '6-4', '5-0', '4-1', '3-2', '0-0']
        """
        return [T.NAMES[t] for t in self.remaining]

    def legal_tiles(self) -> list[str]:
        """The viewer's legal tiles, as names.

        Returns:
            list[str]: Tile names ("6-4") in tile order (0-0 first, 6-6 last) when the
                viewer is to move, else []. `legal_ids` gives the same tiles as numbers.

        >>> View(json.load(open("examples/view.json"))).legal_tiles()
        ['0-0', '3-2', '4-1', '5-0', '6-4', '6-5', '6-6']
        """
        return [T.NAMES[t] for t in self.legal_ids()]

    def legal_ids(self) -> list[int]:
        """The viewer's legal tiles, as tile numbers, for code that works on numbers.

        Returns:
            list[int]: Tile numbers (0..27: ``H*(H+1)/2 + L`` for ``H-L``) in increasing
                order when the viewer is to move, else []. `legal_tiles` is the same list
                as names.

        >>> View(json.load(open("examples/view.json"))).legal_ids()
        [0, 8, 11, 15, 25, 26, 27]
        """
        if self.to_move_index != self.seat:
            return []
        ctx = LEAD if not self.trick else self.rules.lead_suit[self.trick[0][1]]
        return T.tiles_of(self.rules.legal_mask(T.mask_of(self.remaining), ctx))

    def check_can_hint(self) -> None:
        """Raise `PositionError` unless the viewer is the seat to move (a hint needs that)."""
        if self.to_move_index is None:
            raise PositionError("plays", "every trick has been played: there is no move to "
                                "hint", "HAND_OVER")
        if self.to_move_index != self.seat:
            raise PositionError("seat", f"{SEATS[self.seat]} is not to move ({self.to_move} is)",
                                "NOT_TO_MOVE")

    # ------------------------------------------------------------------ output

    def to_json(self) -> dict:
        """The JSON of this view (docs/formats.md).

        Returns:
            dict: ``seat``, ``hands``, ``contract``, ``plays`` and what else the view was
                given, tiles as names "H-L" and seats as letters.

        >>> View(json.load(open("examples/view.json"))).to_json()["plays"]
        ['1-1', '2-2']
        """
        out: dict[str, Any] = {}
        if self.game == "moon":
            out["game"] = "moon"
            out["players"] = self.players
        out["seat"] = SEATS[self.seat]
        out["hands"] = {SEATS[self.seat]: [T.name_of(t) for t in self.hand_ids]}
        out["contract"] = self.contract.to_json()
        out["plays"] = [T.name_of(t) for t in self.plays]
        if self.widow is not None and self.discard is not None:
            out["widow"] = T.name_of(self.widow)
            out["discard"] = T.name_of(self.discard)
        if self.auction is not None:
            out["auction"] = self.auction
        return out

    def __repr__(self) -> str:
        return f"View({json.dumps(self.to_json())})"


def seat_view(position: Position, auction: Sequence[Mapping[str, Any]] | None = None) -> View:
    """What the seat to move knows of ``position``: a `View` built from the JSON view
    (its hand, the contract, the plays; the auction when given; the three-player Moon
    declarer's widow and discard), which holds no reference to the deal.

    Args:
        position: The deal at its point of play.
        auction: The auction's calls (JSON objects), or None.

    Raises:
        ValueError: The hand is over (no seat to move).

    >>> from solver import Position
    >>> from solver.game.view import seat_view
    >>> v = seat_view(Position.from_json(open("examples/deal.json").read()))
    >>> v.hand                                   # West leads: its hand, no other
    ['5-5', '5-1', '4-3', '4-0', '3-3', '2-0', '1-1']
    """
    seat = position.to_move_index
    if seat is None:
        raise ValueError("the hand is over: no seat is to move")
    data: dict = {"seat": SEATS[seat],
                  "hands": {SEATS[seat]: [T.name_of(t) for t in position.hands[seat]]},
                  "contract": position.contract.to_json(),
                  "plays": [T.name_of(t) for t in position.plays]}
    if position.game == "moon":
        data["game"] = "moon"
        data["players"] = len(position.hands)
        if position.widow is not None and seat == position.contract.declarer and \
                position.discard is not None:
            data["widow"] = T.name_of(position.widow)
            data["discard"] = T.name_of(position.discard)
    if auction is not None:
        data["auction"] = [dict(c) for c in auction]
    return View(data)


