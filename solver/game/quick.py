"""Quick notation: a deal, a contract, plays and an auction typed on a command line; the
text diagram of a position read back; hand and game records read as the position (or a
seat's view) they stand for.

Everything here turns text into JSON (a position or a view), checked by building
the `Position` or `View` it describes; errors name the option at fault
(``--hand N[3]``, ``--contract``) instead of the JSON field.

Notation (the command line's words)::

    --hand N=63,62,60,54,53,52,22    a seat's tiles: 6-3 or 63, commas or blanks
    --contract W:fours:30            DECLARER:DECLARATION:BID[:DOUBLES]
    --contract N:sixes:84            marks as 42*k, as in JSON
    --contract S:sixes:plunge        plunge / splash: its bid (168 / 84) and kind
    --contract E:follow-me:42:low    follow-me or nello with doubles low (or suit)
    --plays 11,22                    the tiles played so far, in order
    --auction 30,pass,31,pass        the calls, as `t42 bid --auction` takes them;
                                     seats named (E:pass,S:30) or, when all are left
                                     out, counted back from the contract's declarer

A record whose plays are complete may leave out ``hands``: each seat held the tiles it
played (`solver.game.game_record.hands_from_plays`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from . import tiles as T
from .contract_layout import MOON3_SET, SEAT_INDEX, SEATS
from .errors import PositionError, quoted
from .position import POSITION_FIELDS, Position, parse_game
from .rules import DOUBLES_OPTIONS, parse_declaration

# Game records, views and auctions are imported where they are used: a command that
# reads a plain position does not pay for their import at every start.

#: More digits than any bid has: such a call is refused before it is read as a number.
BID_DIGITS = 3
#: Fields a record adds to a position or a view; kept, never read.
RECORD_EXTRAS = ("id", "meta")

_SPLIT = re.compile(r"[,\s]+")


# ------------------------------------------------------------------- words

def parse_tile_list(text: str, option: str) -> list[int]:
    """Tiles written ``6-3`` or ``63`` (or ``3-6``, ``6:3``), separated by commas or blanks.

    Args:
        text: The option's text.
        option: The option named in an error (``--plays``).

    Returns:
        The tiles' numbers, in order.

    Raises:
        PositionError: A word that is no tile, named by its place (``--plays[2]``).

    >>> parse_tile_list("63, 6-2 0:0", "--plays")
    [24, 23, 0]
    """
    words = [w for w in _SPLIT.split(text.strip()) if w]
    return [T.parse_tile(w, f"{option}[{i}]") for i, w in enumerate(words)]


def parse_seat(text: str, option: str, seats: Sequence[str] = SEATS) -> str:
    seat = text.strip().upper()
    if seat not in seats:
        raise PositionError(option, f"unknown seat {quoted(text.strip())} (one of "
                            f"{', '.join(seats)})", "UNKNOWN_SEAT")
    return seat


def parse_hands(values: Sequence[str], option: str = "--hand") -> dict[str, list[int]]:
    """Repeated ``SEAT=TILES`` options: seat -> tiles (a seat given twice is an error).

    Args:
        values: The options' texts (``N=63,62,60,54,53,52,22``; ``N:...`` too).
        option: The option named in an error.

    Returns:
        Seat letter -> its seven tiles' numbers.

    Raises:
        PositionError: A malformed option, an unknown seat, a seat given twice, a
            hand of other than 7 tiles, a tile held twice.

    >>> parse_hands(["N=63,62,60,54,53,52,22"])
    {'N': [24, 23, 21, 19, 18, 17, 5]}
    """
    hands: dict[str, list[int]] = {}
    for text in values:
        seat, sep, tiles = text.partition("=")
        if not sep:
            seat, sep, tiles = text.partition(":")
        if not sep or not seat.strip():
            raise PositionError(option, f"expected SEAT=TILES (e.g. N=63,62,60,54,53,52,22), "
                                f"not {quoted(text)}", "INVALID_VALUE")
        seat = parse_seat(seat, option)
        if seat in hands:
            raise PositionError(f"{option} {seat}", "given twice", "DUPLICATE_SEAT")
        hands[seat] = parse_tile_list(tiles, f"{option} {seat}")
        if len(hands[seat]) != 7:
            n = len(hands[seat])
            raise PositionError(f"{option} {seat}", f"holds {n} tile{'s' if n != 1 else ''}, "
                                "a hand holds 7", "HAND_SIZE")
    seen: dict[int, str] = {}
    for seat, tiles in hands.items():
        for i, tile in enumerate(tiles):
            where = f"{option} {seat}[{i}]"
            if tile in seen:
                raise PositionError(where, f"tile {T.name_of(tile)} appears twice (also at "
                                    f"{seen[tile]})", "DUPLICATE_TILE")
            seen[tile] = where
    return hands


def parse_call_words(text: str, option: str) -> list[int | str]:
    """Calls separated by commas: numbers as bids, any other word as given (``pass``,
    ``plunge``); `t42 bid --auction` reads its calls with this too.

    Args:
        text: The option's text.
        option: The option named in an error.

    Raises:
        PositionError: (``BID_OUT_OF_RANGE``) a number longer than any bid.

    >>> parse_call_words("30,pass,31", "--auction")
    [30, 'pass', 31]
    """
    calls: list[int | str] = []
    for i, call in enumerate(text.split(",")):
        calls.append(_call_word(call.strip(), option, i))
    return calls


def _call_word(call: str, option: str, i: int) -> int | str:
    if call.isascii() and call.isdigit():
        if len(call.lstrip("0")) > BID_DIGITS:
            raise PositionError(option, f"call {i + 1}: bid {quoted(call)} is out of "
                                "range (30..41 points or 42*k marks; Moon 4..7 or 21)",
                                "BID_OUT_OF_RANGE")
        return int(call)
    return call


def parse_contract(text: str, option: str = "--contract") -> dict[str, Any]:
    """``DECLARER:DECLARATION:BID[:DOUBLES]`` as a JSON contract (checked with the deal).

    Args:
        text: The option's text (``W:fours:30``, ``S:sixes:plunge``).
        option: The option named in an error.

    Raises:
        PositionError: Text not in the notation, an unknown seat, declaration,
            bid or doubles.

    >>> parse_contract("E:follow-me:42:low")
    {'declarer': 'E', 'trump': 'follow-me', 'bid': 42, 'doubles': 'low'}
    """
    from .auction import SPECIAL_CALLS, read_call_value
    parts = [p.strip() for p in text.split(":")]
    example = "DECLARER:DECLARATION:BID, e.g. W:fours:30"
    if len(parts) < 2 or len(parts) > 4 or not all(parts):
        raise PositionError(option, f"expected {example}, not {quoted(text)}", "INVALID_VALUE")
    declarer = parse_seat(parts[0], option)
    name, kind = parts[1].lower(), "standard"
    for special in ("plunge", "splash"):
        if name.startswith(special + "-"):  # plunge-sixes: the kind and the trump
            name, kind = name[len(special) + 1:], special
    if name in SPECIAL_CALLS:
        raise PositionError(option, f"a {name} names the trump its partner chose: "
                            f"{declarer}:sixes:{name} (or {declarer}:{name}-sixes)",
                            "INVALID_VALUE")
    trump = parse_declaration(name, option).name
    contract: dict[str, Any] = {"declarer": declarer, "trump": trump}
    if len(parts) >= 3:
        bid = read_call_value(_call_word(parts[2], option, 0), option)
        if bid == "pass":
            raise PositionError(option, "a contract's bid is no pass", "INVALID_VALUE")
        if isinstance(bid, str):
            if kind != "standard" and kind != bid:
                raise PositionError(option, f"{kind} or {bid}?", "INVALID_VALUE")
            kind, bid = bid, SPECIAL_CALLS[bid][0]
        contract["bid"] = bid
    elif kind == "standard":
        raise PositionError(option, f"the bid is missing: {example}", "MISSING_FIELD")
    if kind != "standard":
        contract["kind"] = kind
        contract.setdefault("bid", SPECIAL_CALLS[kind][0])
    if len(parts) == 4:
        doubles = parts[3].lower()
        if doubles not in DOUBLES_OPTIONS:
            raise PositionError(option, f"unknown doubles option {quoted(parts[3])} (high, "
                                "low or suit)", "INVALID_OPTION")
        contract["doubles"] = doubles
    return contract


def parse_auction(text: str, contract: Mapping[str, Any] | None, players: int,
                  option: str = "--auction") -> list[dict[str, Any]]:
    """The calls of a hand as a view's ``auction`` (``[{"seat", "bid"}, ...]``).

    Each call may name its seat (``E:pass`` or ``E=pass``); a call without one is made by
    the seat after the previous call's. When no call names a seat, the winning call (the
    last that is no pass) is the contract's declarer's.

    Args:
        text: The option's text (``30,pass,31,pass`` or ``E:30,S:pass,...``).
        contract: The JSON contract (its declarer places unnamed calls), or None.
        players: 4, or 3 for three-player Moon.
        option: The option named in an error.

    Raises:
        PositionError: An unknown seat or call, or calls whose seats cannot be
            told.

    >>> parse_auction("30,pass,31,pass", {"declarer": "W", "trump": "fours", "bid": 31}, 4)[0]
    {'seat': 'E', 'bid': 30}
    """
    from .auction import read_call_value
    seats = SEATS[:players]
    calls: list[tuple[str | None, int | str]] = []
    for i, item in enumerate(text.split(",")):
        item = item.strip()
        seat = None
        match = re.fullmatch(r"([A-Za-z])\s*[:=]\s*(.+)", item)
        if match:
            seat, item = parse_seat(match.group(1), f"{option}[{i}]", seats), match.group(2)
        bid = read_call_value(_call_word(item.strip(), option, i), f"{option}[{i}]")
        calls.append((seat, bid))
    first = calls[0][0]
    if first is None and any(seat for seat, _ in calls):
        raise PositionError(f"{option}[0]", "name the seat of the first call (E:pass,...) "
                            "when another call names its seat", "MISSING_FIELD")
    if first is None:
        winning = max((i for i, (_, bid) in enumerate(calls) if bid != "pass"), default=None)
        if winning is None or contract is None:
            raise PositionError(option, "cannot tell who made the calls: name the seats "
                                "(e.g. E:pass,S:30,W:pass,N:31)", "MISSING_FIELD")
        first = seats[(seats.index(contract["declarer"]) - winning) % len(seats)]
    out: list[dict[str, Any]] = []
    seat = first
    for given, bid in calls:
        seat = given or seat
        out.append({"seat": seat, "bid": bid})
        seat = seats[(seats.index(seat) + 1) % len(seats)]
    return out


# ----------------------------------------------------------- option errors

_FIELD_OPTIONS = (("hands.", "--hand "), ("hands", "--hand"), ("contract", "--contract"),
                  ("plays", "--plays"), ("widow", "--widow"), ("discard", "--discard"),
                  ("seat", "--seat"), ("auction", "--auction"), ("game", "--game"),
                  ("players", "--players"))


def _option_of(field_path: str) -> str:
    for prefix, option in _FIELD_OPTIONS:
        if field_path.startswith(prefix):
            rest = field_path[len(prefix):]
            if option == "--contract" and rest:
                return f"--contract ({rest.lstrip('.')})"
            return option + rest
    return field_path


def as_option_error(exc: PositionError) -> PositionError:
    """A JSON field's error as the quick option's (``hands.N[3]`` -> ``--hand N[3]``).

    Args:
        exc: The error naming a JSON field.

    >>> str(as_option_error(PositionError("hands.N[3]", "unknown tile 7-7", "UNKNOWN_TILE")))
    '--hand N[3]: unknown tile 7-7'
    """
    reason = re.sub(r"\bhands\.([NESW])", r"--hand \1", exc.reason)
    return PositionError(_option_of(exc.field), reason, exc.code)


# --------------------------------------------------------------- positions

@dataclass
class QuickInput:
    """What the quick options gave (None: not given).

    Attributes:
        hands: The ``--hand`` options (``SEAT=TILES``).
        contract: ``--contract``: the notation, or a JSON contract.
        plays: ``--plays``: the tiles played so far.
        game: ``--game``: ``42`` or ``moon``.
        players: ``--players``: 4, or 3 for three-player Moon.
        widow: ``--widow``: the three-player Moon widow.
        discard: ``--discard``: the tile the Moon declarer laid away.
        seat: ``--seat``: whose view.
        auction: ``--auction``: the calls.
        diagram: The text of a position diagram.

    >>> QuickInput(hands=["E=66,65,64,50,41,32,00"], contract="W:fours:30").given
    True
    """

    hands: Sequence[str] = ()
    contract: str | Mapping[str, Any] | None = None  # the notation, or JSON
    plays: str | None = None
    game: str | None = None
    players: int | None = None
    widow: str | None = None
    discard: str | None = None
    seat: str | None = None
    auction: str | None = None
    diagram: str | None = None  # the text of a diagram

    @property
    def given(self) -> bool:
        """Whether any option that describes a position or a view was given."""
        return bool(self.hands) or any(v is not None for v in (
            self.contract, self.plays, self.widow, self.discard, self.auction, self.diagram))


def _contract(value: str | Mapping[str, Any]) -> dict[str, Any]:
    """A contract given as JSON (a mapping, or its text) or in the notation."""
    if isinstance(value, str) and value.lstrip().startswith("{"):
        from .jsondoc import parse_json
        value = parse_json(value, "--contract")
        if not isinstance(value, Mapping):
            raise PositionError("--contract", "must be an object", "INVALID_TYPE")
    return dict(value) if isinstance(value, Mapping) else parse_contract(value)


def _tile_set(game: str, players: int) -> list[int]:
    return sorted(MOON3_SET) if game == "moon" and players == 3 else list(range(T.N_TILES))


def fill_hands(data: Mapping[str, Any], where: str = "") -> dict[str, Any]:
    """A position (or hand record) whose ``hands`` are missing or partial, completed from
    its plays (`complete_deal`); one with every hand is returned as it is.

    Args:
        data: The JSON position or hand record.
        where: Prefixed to the fields named in errors (a record's place in a file).

    Raises:
        PositionError: When the plays and the hands given leave the deal unknown
            or contradict each other.

    >>> import json
    >>> d = json.load(open("examples/deal.json"))
    >>> del d["hands"]["W"]                      # three hands tell the fourth
    >>> fill_hands(d)["hands"]["W"]
    ['5-5', '5-1', '4-3', '4-0', '3-3', '2-0', '1-1']
    """
    hands = data.get("hands")
    if hands is None:
        hands = {}
    plays = data.get("plays") or []
    if not isinstance(hands, Mapping) or not isinstance(data.get("contract"), Mapping) \
            or not isinstance(plays, list):
        return dict(data)  # nothing to fill in from: the position's reader names the fault
    game = parse_game(data.get("game", "42"), f"{where}game")
    # Three-player Moon: 21 plays and no West.
    players = 4 if game == "42" or "W" in hands or len(plays) > 21 else 3
    seats = SEATS[:players]
    if all(s in hands for s in seats):
        return dict(data)
    known = {}
    for seat, tiles in hands.items():
        if seat not in seats:
            continue  # the position's reader names it
        if not isinstance(tiles, list):
            raise PositionError(f"{where}hands.{seat}", "must be a list of tiles",
                                "INVALID_TYPE")
        known[seat] = T.parse_tiles(tiles, f"{where}hands.{seat}")
    from .game_record import complete_deal, hands_from_plays
    played = hands_from_plays(game, players, data["contract"], plays, where)
    out = dict(data)
    full = complete_deal(known, played, seats, _tile_set(game, players), where)
    out["hands"] = {s: [T.name_of(t) for t in full[s]] for s in seats}
    return out


def quick_position(q: QuickInput, need_contract: bool = True) -> dict[str, Any]:
    """The JSON position the quick options describe (checked; errors name the options).
    Without ``need_contract``, hands alone are a deal (``{"hands": ...}``, for a table).

    Args:
        q: The options given.
        need_contract: False where four hands alone will do (a table).

    Raises:
        PositionError: Naming the option at fault (``--hand N[3]``, ``--contract``).

    >>> q = QuickInput(hands=["N=63,62,60,54,53,52,22", "E=66,65,64,50,41,32,00",
    ...                       "S=61,44,42,31,30,21,10"], contract="W:fours:30", plays="11")
    >>> quick_position(q)["hands"]["W"]           # West's from the three others
    ['5-5', '5-1', '4-3', '4-0', '3-3', '2-0', '1-1']
    """
    if q.diagram is not None:
        positions = parse_diagrams(q.diagram, q.plays)
        if len(positions) != 1:
            raise PositionError("--diagram", f"holds {len(positions)} diagrams; give one",
                                "INVALID_VALUE")
        return positions[0]
    try:
        game = parse_game(q.game or "42", "--game")
        hands = parse_hands(q.hands)
        if q.contract is None and not need_contract and q.plays is None:
            for seat in SEATS:
                if seat not in hands:
                    raise PositionError(f"--hand {seat}", "missing hand", "MISSING_FIELD")
            return {"hands": {s: [T.name_of(t) for t in hands[s]] for s in SEATS}}
        if q.contract is None:
            raise PositionError("--contract", "required with --hand (e.g. --contract W:fours:30)",
                                "MISSING_FIELD")
        data: dict[str, Any] = {}
        if game == "moon":
            data["game"] = "moon"
        data["contract"] = _contract(q.contract)
        data["plays"] = [T.name_of(t) for t in parse_tile_list(q.plays or "", "--plays")]
        for name in ("widow", "discard"):
            value = getattr(q, name)
            if value is not None:
                data[name] = T.name_of(T.parse_tile(value.strip(), f"--{name}"))
        data["hands"] = {s: [T.name_of(t) for t in tiles] for s, tiles in hands.items()}
        data = fill_hands(data)
        Position(data)
    except PositionError as exc:
        raise as_option_error(exc) from None
    return _ordered(data)


def _ordered(data: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON order of a position's fields (game, hands, contract, plays, widow, discard)."""
    return {k: data[k] for k in POSITION_FIELDS if k in data}


def view_of(position: Mapping[str, Any], seat: str | None,
            auction: list | None = None) -> dict[str, Any]:
    """The JSON view of ``seat`` (default: the seat to move) in a full position: its hand,
    the contract, the plays, the auction when given; the three-player Moon declarer's
    widow and discard.

    Args:
        position: The JSON position.
        seat: Whose view (``"E"``); None: the seat to move.
        auction: The auction's calls (JSON objects), or None.

    Raises:
        PositionError: The hand is over and no seat named, or the seat has no hand.

    >>> import json
    >>> view_of(json.load(open("examples/deal.json")), "E")["hands"]
    {'E': ['6-6', '6-5', '6-4', '5-0', '4-1', '3-2', '0-0']}
    """
    p = Position(position)
    if seat is None:
        seat = p.to_move
        if seat is None:
            raise PositionError("plays", "every trick has been played: no seat is to move "
                                "(a view needs a seat named)", "HAND_OVER")
    index = SEAT_INDEX[seat]
    if index not in p.hands:
        raise PositionError("seat", f"{seat} has no hand in this position", "UNKNOWN_SEAT")
    data: dict[str, Any] = {}
    if p.game == "moon":
        data["game"] = "moon"
        data["players"] = len(p.hands)
    data["seat"] = seat
    data["hands"] = {seat: [T.name_of(t) for t in p.hands[index]]}
    data["contract"] = p.contract.to_json()
    data["plays"] = [T.name_of(t) for t in p.plays]
    if p.widow is not None and p.discard is not None and index == p.contract.declarer:
        data["widow"], data["discard"] = T.name_of(p.widow), T.name_of(p.discard)
    if auction is not None:
        data["auction"] = [dict(c) for c in auction]
    return data


def quick_view(q: QuickInput) -> dict[str, Any]:
    """The JSON view the quick options describe: ``--seat`` (default: the seat to move when
    every hand is given) sees ``--hand`` of its own; the other hands, when given, are left
    out of the view.

    Args:
        q: The options given.

    Raises:
        PositionError: Naming the option at fault.

    >>> quick_view(QuickInput(hands=["E=66,65,64,50,41,32,00"], contract="W:fours:30",
    ...                       plays="11,22"))["plays"]
    ['1-1', '2-2']
    """
    from .view import View
    try:
        game = parse_game(q.game or "42", "--game")
        hands = parse_hands(q.hands)
        seat = parse_seat(q.seat, "--seat") if q.seat is not None else None
        players = q.players
        contract = _contract(q.contract) if q.contract is not None else None
        full = q.diagram is not None or len(hands) > 1
        if full:
            position = quick_position(q)
            players = len(position["hands"])
            view = view_of(position, seat)
        else:
            if seat is None:
                if len(hands) != 1:
                    raise PositionError("--seat", "required: the seat whose view this is "
                                        "(e.g. --seat E --hand E=66,65,64,50,41,32,00)",
                                        "MISSING_FIELD")
                seat = next(iter(hands))
            if seat not in hands:
                raise PositionError(f"--hand {seat}", f"missing: the hand of --seat {seat}",
                                    "MISSING_FIELD")
            if contract is None:
                raise PositionError("--contract", "required (e.g. --contract W:fours:30)",
                                    "MISSING_FIELD")
            view = {}
            if game == "moon":
                view["game"] = "moon"
                if players is None:
                    players = 4 if seat == "W" else 3
                view["players"] = players
            view["seat"] = seat
            view["hands"] = {seat: [T.name_of(t) for t in hands[seat]]}
            view["contract"] = contract
            view["plays"] = [T.name_of(t) for t in parse_tile_list(q.plays or "", "--plays")]
            for name in ("widow", "discard"):
                value = getattr(q, name)
                if value is not None:
                    view[name] = T.name_of(T.parse_tile(value.strip(), f"--{name}"))
        if q.auction is not None:
            view["auction"] = parse_auction(q.auction, view["contract"],
                                            players or (3 if game == "moon" else 4))
        View(view)
    except PositionError as exc:
        raise as_option_error(exc) from None
    return view


# ----------------------------------------------------------------- records

@dataclass
class Subject:
    """One input document read as what a command works on.

    ``position``: the full position (None for a view); ``view``: the view given as such;
    ``auction``: the calls that went with the position (a game record's hand, a hand
    record's ``meta.auction``); ``extras``: the record's ``id`` and ``meta`` as given, for
    the answer; ``hand``: the index of a game record's hand.

    >>> import json
    >>> s = read_subject({**json.load(open("examples/view.json")), "id": "h1"})
    >>> s.position, s.extras
    (None, {'id': 'h1'})
    """

    position: dict[str, Any] | None = None
    view: dict[str, Any] | None = None
    auction: list | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    hand: int | None = None

    def with_extras(self, answer: dict[str, Any]) -> dict[str, Any]:
        """An answer with the record's ``id`` and ``meta`` (and game hand) after its own."""
        if self.hand is not None:
            answer = {**answer, "hand": self.hand}
        return {**answer, **self.extras} if self.extras else answer

    def at(self, plays: int | None, option: str = "--at") -> "Subject":
        """The same input cut after its first ``plays`` plays (None: as it is)."""
        if plays is None:
            return self
        data = self.position if self.position is not None else self.view
        given = data.get("plays") if isinstance(data, Mapping) else None
        given = given if isinstance(given, list) else []
        if plays < 0 or plays > len(given):
            raise PositionError(option, f"{plays} is out of range: the input has "
                                f"{len(given)} plays", "INVALID_VALUE")
        cut = {**data, "plays": given[:plays]}  # type: ignore[dict-item]
        if self.position is not None:
            return Subject(position=cut, auction=self.auction, extras=self.extras,
                           hand=self.hand)
        return Subject(view=cut, extras=self.extras, hand=self.hand)

    def view_json(self, seat: str | None = None) -> dict[str, Any]:
        """The view of ``seat`` (default: the view given, else the seat to move)."""
        if self.view is not None:
            if seat is not None and self.view.get("seat") != seat:
                raise PositionError("seat", f"the view is {quoted(self.view.get('seat'))}'s; "
                                    f"--seat {seat} names another", "INVALID_VALUE")
            return self.view
        assert self.position is not None
        return view_of(self.position, seat, self.auction)


def is_game_record(data: object) -> bool:
    """A game record lists its hands; a position or hand record maps seats to tiles (and a
    view names its seat).

    Args:
        data: A JSON document, of any shape.

    >>> import json
    >>> is_game_record(json.load(open("examples/game.json")))
    True
    """
    return isinstance(data, Mapping) and isinstance(data.get("hands"), list) \
        and not any(key in data for key in ("seat", "contract", "plays"))


def _extras(data: Mapping[str, Any]) -> dict[str, Any]:
    extras = {k: data[k] for k in RECORD_EXTRAS if k in data}
    if "meta" in extras and not isinstance(extras["meta"], Mapping):
        raise PositionError("meta", "must be an object", "INVALID_TYPE")
    return extras


def read_subject(data: Any) -> Subject:
    """A position, a view, a hand record (a position with ``id`` and ``meta``, whose
    hands may be left out when its plays are complete) or a game record (its last hand
    that has a contract), as a `Subject`.

    Args:
        data: The JSON document as read (a value that is no object is passed on as
            the position, for the command's reader to refuse).

    Raises:
        PositionError: A bad game record or ``meta``, or hands that cannot be
            completed.

    >>> import json
    >>> read_subject(json.load(open("examples/game.json"))).hand   # its last hand bid
    2
    """
    if not isinstance(data, Mapping):
        return Subject(position=data)  # the command's own reader gives the error
    if is_game_record(data):
        from .game_record import GameRecord
        record = GameRecord(data)
        extras = {k: data[k] for k in RECORD_EXTRAS if k in data}
        for hand in reversed(record.hands):
            if hand.position is not None:
                return Subject(position=hand.position.to_json(), auction=hand.auction.to_json(),
                               extras=extras, hand=hand.index)
        raise PositionError("hands", "no hand of this game record has a contract yet: no "
                            "position to work on", "NO_CONTRACT")
    extras = _extras(data)
    body = {k: v for k, v in data.items() if k not in RECORD_EXTRAS}
    if "seat" in body:
        return Subject(view=body, extras=extras)
    meta = extras.get("meta")
    auction = meta.get("auction") if isinstance(meta, Mapping) else None
    return Subject(position=fill_hands(body), extras=extras,
                   auction=auction if isinstance(auction, list) else None)


# ---------------------------------------------------------------- diagrams

_TILE = r"[0-6]-[0-6]"


@functools.lru_cache(maxsize=None)
def _patterns() -> dict[str, re.Pattern]:
    """The diagram's lines, compiled when first read (not at every start)."""
    return {
        "header": re.compile(r"^(42|Moon)(?:, ([34]) players)?: ([NESW]) bids (\d+)"
                             r"(?: (plunge|splash))?, ([a-z-]+)(?:, doubles (high|low|suit))?\s*$"),
        "hand": re.compile(rf"(?:^|\s)([NESW]): ((?:\(sits out\) )?(?:\(empty\)|-|"
                           rf"{_TILE}(?: {_TILE})*))(?=\s|$)"),
        "widow": re.compile(rf"^Widow ({_TILE}), discarded ({_TILE})\s*$"),
        "trick": re.compile(r"^Trick (\d) of 7;"),
        "table": re.compile(r"^On the table: (.*)$"),
    }


def looks_like_diagram(text: str) -> bool:
    """Whether ``text`` holds a position diagram as `t42 solve` prints it.

    >>> looks_like_diagram("42: W bids 30, fours")
    True
    """
    header = _patterns()["header"]
    return any(header.match(line) for line in text.splitlines())


def parse_diagrams(text: str, plays: str | None = None) -> list[dict[str, Any]]:
    """Each position diagram in ``text`` (`solver.show.diagram.render`, as `t42 solve`
    prints it, the lines around it ignored) as JSON position JSON.

    A diagram shows the tiles still held and the trick on the table, not the tricks
    already played: during trick 1 it reads back to its position exactly; later, the
    plays so far must be given (``plays``, quick notation) to tell what each seat held.

    Args:
        text: The text holding one or more diagrams.
        plays: The plays so far (quick notation), for one diagram past trick 1.

    Raises:
        PositionError: No diagram, or one that does not read back to a position.

    >>> import json
    >>> from solver import Position
    >>> from solver.show.diagram import render
    >>> deal = json.load(open("examples/deal.json"))
    >>> parse_diagrams(render(Position(deal)))[0]["hands"] == deal["hands"]
    True
    """
    blocks: list[list[str]] = []
    header = _patterns()["header"]
    for line in text.splitlines():
        if header.match(line):
            blocks.append([])
        if blocks:
            blocks[-1].append(line)
    if not blocks:
        raise PositionError("diagram", "no diagram: its first line is the contract, e.g. "
                            "'42: W bids 30, fours'", "INVALID_VALUE")
    if plays is not None and len(blocks) > 1:
        raise PositionError("--plays", "goes with one diagram, not several", "INVALID_VALUE")
    return [_read_diagram(block, plays, i if len(blocks) > 1 else None)
            for i, block in enumerate(blocks)]


def _read_diagram(lines: list[str], plays_text: str | None, number: int | None
                  ) -> dict[str, Any]:
    where = "diagram" if number is None else f"diagram {number + 1}"
    pattern = _patterns()
    head = pattern["header"].match(lines[0])
    assert head is not None
    game, players, declarer, bid, kind, trump, doubles = head.groups()
    data: dict[str, Any] = {}
    if game == "Moon":
        data["game"] = "moon"
    contract: dict[str, Any] = {"declarer": declarer, "trump": trump, "bid": int(bid)}
    if kind:
        contract["kind"] = kind
    if doubles:
        contract["doubles"] = doubles
    held: dict[str, list[int]] = {}
    out_seat: str | None = None
    table: list[tuple[str, int]] = []
    trick = None
    for line in lines[1:]:
        if pattern["header"].match(line):
            break
        if trick is None:
            for seat, tiles in pattern["hand"].findall(line):
                if tiles.startswith("(sits out) "):
                    out_seat, tiles = seat, tiles[len("(sits out) "):]
                held[seat] = [] if tiles in ("(empty)", "-") else \
                    [T.parse_tile(t, f"{where}: {seat}") for t in tiles.split()]
                if tiles == "-":
                    del held[seat]
        if m := pattern["widow"].match(line):
            data["widow"], data["discard"] = m.group(1), m.group(2)
        if m := pattern["trick"].match(line):
            trick = int(m.group(1))
        if (m := pattern["table"].match(line)) and trick is not None:
            for i, item in enumerate(m.group(1).split(",")):
                seat, _, tile = item.strip().partition(" ")
                if seat not in SEATS:
                    raise PositionError(f"{where}: On the table", f"unknown seat {quoted(seat)}",
                                        "UNKNOWN_SEAT")
                table.append((seat, T.parse_tile(tile, f"{where}: On the table[{i}]")))
            break
    seats = SEATS[:int(players)] if players else SEATS
    for seat in seats:
        if seat not in held:
            raise PositionError(f"{where}: {seat}", "no hand line for this seat (e.g. "
                                f"'{seat}: 6-4 5-5 ...')", "MISSING_FIELD")
    if trick is None:
        raise PositionError(where, "no 'Trick k of 7' line", "MISSING_FIELD")
    if plays_text is None and trick > 1:
        raise PositionError(where, f"at trick {trick} the diagram no longer shows the tricks "
                            "already played, so what each seat held is unknown: give the "
                            "plays so far with it (t42 ... --diagram FILE --plays ...), or the "
                            "position as JSON", "AMBIGUOUS_DIAGRAM")
    if plays_text is None:
        plays = [t for _, t in table]
        for seat, tile in table:
            held[seat].append(tile)
    else:
        from .game_record import hands_from_plays
        plays = parse_tile_list(plays_text, "--plays")
        game_name = "moon" if game == "Moon" else "42"
        played = hands_from_plays(game_name, len(seats), contract,
                                  [T.name_of(t) for t in plays], "--")
        for seat, tiles in played.items():
            if out_seat != seat:
                held[seat] += tiles
    data["hands"] = {s: [T.name_of(t) for t in sorted(held[s], reverse=True)] for s in seats}
    data["contract"] = contract
    data["plays"] = [T.name_of(t) for t in plays]
    try:
        Position(data)
    except PositionError as exc:
        raise PositionError(f"{where}: {exc.field}", exc.reason, exc.code) from None
    return _ordered(data)


__all__ = ["QuickInput", "Subject", "as_option_error", "fill_hands", "is_game_record",
           "looks_like_diagram", "parse_auction", "parse_call_words", "parse_contract",
           "parse_diagrams", "parse_hands", "parse_tile_list", "quick_position", "quick_view",
           "read_subject", "view_of"]
