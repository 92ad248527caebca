"""A bid advice question, read and checked: a hand, a seat, the game, the auction so far.

`read_bid_request` checks what `solver.hidden.bidding.advise` is asked (the same
strictness and errors as positions and views: a `PositionError` naming the field);
`request_from_json` reads the JSON form that `t42 bid` and the service take.
`bids_on_offer` says which bids a declaration may make after the auction so far.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Mapping, Sequence, Union

from . import tiles as T
# The bid ladder is the auction's (re-exported: bid advice imports these names from here).
from .auction import (MAX_MARKS, ONE_MARK, OPENING_MARKS, POINT_BIDS,  # noqa: F401
                      SPECIAL_CALLS, marks_of, top_marks_over)
from .errors import PositionError, key_text, quoted
from .jsondoc import json_object
from .position import DOUBLES_NEEDED, MOON3_SET, MOON_BIDS, SEAT_INDEX, SEATS
from .rules import DOUBLES_OPTIONS, PIP_NAMES, parse_declaration

#: Declarations whose value is points (42) or tricks (Moon): exact value per deal.
POINT_DECLARATIONS: tuple[str, ...] = PIP_NAMES + ("doubles", "follow-me")
#: Every declaration in table order (the last tie-break), then the two
#: contract kinds the partner names trump for.
ORDER_42: tuple[str, ...] = POINT_DECLARATIONS + ("nello", "sevens", "plunge", "splash")
ORDER_MOON: tuple[str, ...] = POINT_DECLARATIONS
#: The ``auction`` of a bid request: the highest bid, or the calls so far (a bid, a
#: call word such as ``"pass"``, or ``{"seat", "bid"}``), or None (no bid yet).
AuctionLike = Union[int, str, Sequence[Union[int, str, Mapping[str, Any]]], None]
KIND_DECLARATIONS = ("plunge", "splash")



@dataclass(frozen=True)
class BidRequest:
    """The checked question: the hand, the table, the auction, the declarations
    (`read_bid_request`).

    Attributes:
        game: ``"42"`` or ``"moon"``.
        players: 4, or 3 for three-player Moon.
        seat: The asking seat's index.
        hand: Its seven tiles (tile numbers).
        doubles: Where doubles rank (``"high"``, ``"low"``, ``"suit"``).
        highest: The highest bid so far; None: none.
        threshold: The P(make) a recommended bid must reach.
        declarations: The declarations to consider, in table order.
    """

    game: str
    players: int
    seat: int
    hand: tuple[int, ...]
    doubles: str
    highest: int | None
    threshold: float
    declarations: tuple[str, ...]

    @property
    def moon3(self) -> bool:
        return self.game == "moon" and self.players == 3

    @property
    def order(self) -> tuple[str, ...]:
        return ORDER_MOON if self.game == "moon" else ORDER_42

    def tile_set(self) -> frozenset[int]:
        return MOON3_SET if self.moon3 else frozenset(range(T.N_TILES))

    def seats(self) -> tuple[int, ...]:
        return (0, 1, 2) if self.moon3 else (0, 1, 2, 3)

    @cached_property
    def unseen(self) -> tuple[int, ...]:
        """The tiles dealt to the others (and the widow), in tile order."""
        return tuple(sorted(self.tile_set() - set(self.hand)))

    @cached_property
    def other_seats(self) -> tuple[int, ...]:
        return tuple(s for s in self.seats() if s != self.seat)


def _parse_game(game: object, players: object) -> tuple[str, int]:
    if game in (42, "42"):
        name = "42"
    elif isinstance(game, str) and game.lower() == "moon":
        name = "moon"
    else:
        raise PositionError("game", f"unknown game {game!r} (\"42\" or \"moon\")", "UNKNOWN_GAME")
    if isinstance(players, bool) or players not in (3, 4):
        raise PositionError("players", f"players must be 3 or 4, not {players!r}",
                            "INVALID_VALUE")
    if name == "42" and players != 4:
        raise PositionError("players", "42 is played by 4 players", "INVALID_VALUE")
    return name, int(players)  # type: ignore[arg-type]


def _parse_seat(seat: object, players: int) -> int:
    key = seat.upper() if isinstance(seat, str) else seat
    seats = SEATS[:players]
    if key not in seats:
        raise PositionError("seat", f"unknown seat {seat!r} (one of {', '.join(seats)})",
                            "UNKNOWN_SEAT")
    return SEAT_INDEX[key]  # type: ignore[index]


def _parse_hand(hand: object, allowed: frozenset[int]) -> tuple[int, ...]:
    if isinstance(hand, str):
        hand = hand.split()
    if not isinstance(hand, (list, tuple)):
        raise PositionError("hand", "must be a list of 7 tiles", "INVALID_TYPE")
    if len(hand) != 7:
        raise PositionError("hand", f"holds {len(hand)} tiles, a hand holds 7", "HAND_SIZE")
    seen: dict[int, int] = {}
    for i, text in enumerate(hand):
        tile = T.parse_tile(text, f"hand[{i}]")
        if tile not in allowed:
            raise PositionError(f"hand[{i}]", f"{T.name_of(tile)} is not in the 22-tile set of "
                                "three-player Moon (of the blanks only 0-0 stays)",
                                "NOT_IN_TILE_SET")
        if tile in seen:
            raise PositionError(f"hand[{i}]", f"tile {T.name_of(tile)} appears twice (also at "
                                f"hand[{seen[tile]}])", "DUPLICATE_TILE")
        seen[tile] = i
    return tuple(seen)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_bid(bid: object, game: str, where: str) -> int:
    if not _is_int(bid):
        raise PositionError(where, f"a bid is a whole number or \"pass\", not {quoted(bid)}",
                            "INVALID_TYPE")
    assert isinstance(bid, int)
    if game == "moon":
        if bid not in MOON_BIDS:
            raise PositionError(where, f"Moon bid {bid} is out of range (4..7 tricks, or 21 to "
                                "shoot the moon)", "BID_OUT_OF_RANGE")
    elif not (30 <= bid <= 41 or (bid % ONE_MARK == 0 and ONE_MARK <= bid <= MAX_MARKS * ONE_MARK)):
        raise PositionError(where, f"bid {bid} is out of range (30..41 points or 42*k marks, "
                            "42..294)", "BID_OUT_OF_RANGE")
    return bid


def _parse_auction(auction: object, game: str, players: int) -> int | None:
    """The highest bid of the auction: None, one bid, or the calls so far in order
    (each a bid, ``"pass"``, 42's ``"plunge"`` or ``"splash"`` (the marks each stands
    for), or ``{"seat": ..., "bid": ...}``); every bid must beat the last."""
    if auction is None or auction == "pass":
        return None
    if not isinstance(auction, (list, tuple)):
        return _check_bid(auction, game, "auction")
    highest: int | None = None
    for i, call in enumerate(auction):
        where = f"auction[{i}]"
        if isinstance(call, Mapping):
            if "seat" in call and (not isinstance(call["seat"], str)
                                   or call["seat"].upper() not in SEATS[:players]):
                raise PositionError(f"{where}.seat", f"unknown seat {call['seat']!r}",
                                    "UNKNOWN_SEAT")
            if "bid" not in call:
                raise PositionError(f"{where}.bid", "required", "MISSING_FIELD")
            call, where = call["bid"], f"{where}.bid"
        if isinstance(call, str) and call.lower() == "pass":
            continue
        if game == "42" and isinstance(call, str) and call.lower() in SPECIAL_CALLS:
            # A plunge or splash made earlier stands for its bid (4 or 2 marks).
            bid = SPECIAL_CALLS[call.lower()][0]
        else:
            bid = _check_bid(call, game, where)
        if highest is not None and bid <= highest:
            raise PositionError(where, f"bid {bid} is not higher than the last bid {highest}",
                                "BID_NOT_HIGHER")
        highest = bid
    return highest


def _parse_declarations(names: object, setup_game: str, hand: tuple[int, ...]
                        ) -> tuple[str, ...]:
    order = ORDER_MOON if setup_game == "moon" else ORDER_42
    doubles_held = sum(1 for t in hand if T.is_double(t))
    if names is None:
        return tuple(d for d in order if d not in KIND_DECLARATIONS
                     or doubles_held >= DOUBLES_NEEDED[d][0])
    if isinstance(names, str):
        names = names.replace(",", " ").split()
    if not isinstance(names, (list, tuple)) or not names:
        raise PositionError("declarations", "must be a non-empty list of declarations",
                            "INVALID_TYPE")
    chosen = set()
    for i, raw in enumerate(names):
        where = f"declarations[{i}]"
        key = raw.strip().lower() if isinstance(raw, str) else raw
        if key in KIND_DECLARATIONS:
            name = key
            need = DOUBLES_NEEDED[name][0]
            if doubles_held < need:
                raise PositionError(where, f"{name} needs {need} doubles in the hand; it holds "
                                    f"{doubles_held}", "PLUNGE_NEEDS_FOUR_DOUBLES"
                                    if name == "plunge" else "SPLASH_NEEDS_THREE_DOUBLES")
        else:
            name = parse_declaration(raw, where).name
        if name not in order:
            raise PositionError(where, f"{name} is not a Moon declaration (a pip suit, doubles "
                                "or follow-me)", "UNKNOWN_DECLARATION")
        chosen.add(name)
    return tuple(d for d in order if d in chosen)


def read_bid_request(hand: Sequence[str] | str, seat: str, game: str, players: int | None,
                     auction: AuctionLike, doubles: str, threshold: float,
                     declarations: Sequence[str] | str | None) -> BidRequest:
    """Check the question `advise` is asked, with the strictness of positions.

    Args:
        hand: The seven tiles (names, or one string of them separated by spaces).
        seat: The seat holding them.
        game: ``"42"`` or ``"moon"``.
        players: 4, or 3 for three-player Moon; None: 4.
        auction: The highest bid so far, or the calls so far in order.
        doubles: Where doubles rank (``"high"``, ``"low"``, ``"suit"``).
        threshold: The P(make) a recommended bid must reach, in (0, 1].
        declarations: The declarations to consider; None: every one the hand may
            bid.

    Raises:
        PositionError: A bad field, named (``hand``, ``auction[2].bid``, ...).
    """
    game_name, n_players = _parse_game(game, 4 if players is None else players)
    seat_index = _parse_seat(seat, n_players)
    moon3 = game_name == "moon" and n_players == 3
    tiles = _parse_hand(hand, MOON3_SET if moon3 else frozenset(range(T.N_TILES)))
    option = doubles.lower() if isinstance(doubles, str) else doubles
    if option not in DOUBLES_OPTIONS:
        raise PositionError("doubles", f"unknown option {doubles!r} (high, low or suit)",
                            "INVALID_OPTION")
    if game_name == "moon" and option != "high":
        raise PositionError("doubles", "Moon plays doubles high", "INVALID_OPTION")
    if not (_is_int(threshold) or isinstance(threshold, float)) or not 0 < threshold <= 1:
        raise PositionError("threshold", f"must be a number in (0, 1], not {threshold!r}",
                            "INVALID_VALUE")
    highest = _parse_auction(auction, game_name, n_players)
    chosen = _parse_declarations(declarations, game_name, tiles)
    return BidRequest(game_name, n_players, seat_index, tiles, option, highest, float(threshold),
                  chosen)


def bids_on_offer(declaration: str, game: str, highest: int | None) -> tuple[int, ...]:
    """The bids a declaration is scored for, given the highest bid so far (None: none).

    Args:
        declaration: The declaration's name.
        game: ``"42"`` or ``"moon"``.
        highest: The highest bid so far; None: none.

    42: 30..41 and 1 .. the highest allowed number of marks (2, or one more than the
    marks bid already); nello and sevens only the marks; plunge 4 marks and splash 2,
    or one mark over the highest bid. Moon: 4..7 and 21.
    """
    if game == "moon":
        return MOON_BIDS
    marks_so_far = (highest // ONE_MARK) if highest is not None and highest >= ONE_MARK else 0
    if declaration in KIND_DECLARATIONS:
        marks = max(DOUBLES_NEEDED[declaration][1] // ONE_MARK, marks_so_far + 1)
        return (marks * ONE_MARK,) if marks <= MAX_MARKS else ()
    top = top_marks_over(highest)
    mark_bids = tuple(k * ONE_MARK for k in range(1, top + 1))
    return mark_bids if declaration in ("nello", "sevens") else POINT_BIDS + mark_bids


REQUEST_FIELDS = frozenset({"hand", "hands", "seat", "game", "players", "auction", "doubles",
                            "deals", "seed", "threshold", "declarations", "adaptive", "calibrated",
                            "inference", "fixed_lead", "search", "inner_deals", "defence",
                            "screen", "lead_deals", "id"})


def request_from_json(data: Mapping[str, Any] | str) -> dict[str, Any]:
    """The `advise` arguments of a JSON request (docs/formats.md, "Bid request").

    Args:
        data: ``{"hand": [...], "seat": "N", ...}`` (any keyword of `advise` but
            the deadline), or a seat's view before the lead (``{"seat": "E",
            "hands": {"E": [...]}, "auction": [...]}``); a dict or JSON text.

    Raises:
        PositionError: An unknown field, no seat, or no hand.
    """
    data = json_object(data, "request", "a bid request")
    for key in data:
        if key not in REQUEST_FIELDS:
            raise PositionError(key_text(key), "unknown field of a bid request",
                                "UNKNOWN_FIELD")
    if "seat" not in data:
        raise PositionError("seat", "required", "MISSING_FIELD")
    args = {k: v for k, v in data.items() if k not in ("hand", "hands", "seat", "id")}
    if "hand" in data:
        hand = data["hand"]
    elif isinstance(data.get("hands"), Mapping) and isinstance(data["seat"], str) \
            and data["seat"] in data["hands"]:
        hand = data["hands"][data["seat"]]
    else:
        raise PositionError("hand", "required (the seat's 7 tiles)", "MISSING_FIELD")
    return {"hand": hand, "seat": data["seat"], **args}


__all__ = ["BidRequest", "KIND_DECLARATIONS", "MAX_MARKS", "ONE_MARK", "ORDER_42", "ORDER_MOON",
           "POINT_BIDS", "POINT_DECLARATIONS", "bids_on_offer", "marks_of", "read_bid_request",
           "request_from_json"]
