"""Game records (docs/formats.md, "Game record"): a game's hands, read, checked and scored.

`GameRecord` reads a record with the strictness of a position: unknown keys,
wrong types, an illegal call, a contract the auction did not produce, a
declaration the bid does not allow, an illegal play, a hand that is not over
before the next one, a hand after the game is won: each a `PositionError`
naming the field (``hands[2].auction[1].bid``). Each hand's deal, contract and
plays are checked as a `Position` is (its errors keep their codes, their
fields prefixed with the hand's).

From a record: each hand's shaker, auction, contract, result (made, set, or
None while it is played) and the score after it, the winner, what is next
(``{"seat", "action": "call" | "declare" | "discard" | "play"}``) and the legal
calls, declarations and plays there. A 42 hand may stop once its outcome is
decided (docs/rules/texas42.md: the contract has made, or cannot make whatever is played),
when another hand follows it; the last hand of a record is the hand in play
until every trick is played, so its result stays None until then.
`to_json` writes the record back (canonical: tiles ``H-L``, calls in lower
case, a contract's default kind and doubles left out); reading it gives an
equal record.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Iterator, Mapping, Sequence

from . import tiles as T
from .auction import (SEATS, Auction, GameRules, declaration_marks_needed, legal_declarations,
                      read_auction, read_rules)
from .contract_layout import CONTRACT_FIELDS, KINDS, MOON3_SET, Contract, _layout
from .errors import PositionError, key_text, quoted
from .jsondoc import check_keys, json_object
from .position import Position, parse_game
from .rules import DOUBLES_OPTIONS, build_rules, parse_declaration
from .score import HandScore, add, awards, outcome, winner, zero

#: The fields of a game record and of one hand of it (docs/formats.md); any other is an
#: error.
RECORD_FIELDS = ("game", "players", "rules", "first_shaker", "hands", "id", "meta")
HAND_FIELDS = ("hands", "widow", "auction", "contract", "plays")
#: Moon's lowest bid as a position takes it (a record's ``min_bid`` may go lower).
_POSITION_MOON_LOW = 4


@contextmanager
def _within(prefix: str, rename: Mapping[str, str] | None = None) -> Iterator[None]:
    """Re-raise a `PositionError` of a part (a position) with the record's field path."""
    try:
        yield
    except PositionError as exc:
        name = (rename or {}).get(exc.field, exc.field)
        raise PositionError(f"{prefix}.{name}", exc.reason, exc.code) from None


@dataclass
class HandRecord:
    """One hand of a game: its deal, auction, contract and plays, and what they scored
    (`GameRecord.hands`).

    Its tiles speak as the record's JSON does, as names ("6-4"): `deal`, `widow`,
    `discard` and `plays`. The fields ``deal_ids``, ``widow_id`` and ``discard_id`` (and
    `play_ids`) are the same tiles as numbers, for code that works on numbers.

    Attributes:
        index: The hand's place in the game (0 first).
        shaker: The shaker's seat index.
        rules: The game and its house options.
        deal_ids: Seat index -> its seven tiles as dealt, as tile numbers (0..27);
            `deal` gives the names.
        widow_id: Three-player Moon: the widow's tile number, else None (`widow`).
        auction: The hand's `Auction`.
        contract: The contract, once declared (None before, or thrown in).
        discard_id: Three-player Moon: the declarer's discard as a tile number
            (`discard`).
        position: The hand's `Position` with its plays, once declared.
        made: True made, False set, None not over (or thrown in).
        finished: Played out, decided and followed by another hand, or thrown
            in.
        awarded: The marks (or Moon points) the hand gave, by score key.
        score: The game's score after this hand, by score key.

    >>> from solver import read_game
    >>> hand = read_game(open("examples/game.json").read()).hands[0]
    >>> hand.contract_json(), hand.made, hand.score
    ({'declarer': 'N', 'trump': 'follow-me', 'bid': 38}, False, {'NS': 0, 'EW': 1})
    >>> hand.deal[0][:2], hand.deal_ids[0][:2]
    (['6-4', '5-3'], (25, 18))
    """

    index: int
    shaker: int
    rules: GameRules
    deal_ids: dict[int, tuple[int, ...]]
    widow_id: int | None
    auction: Auction
    contract: Contract | None = None
    discard_id: int | None = None
    position: Position | None = None
    #: True made, False set, None not over (or thrown in).
    made: bool | None = None
    #: Played out, decided and followed by another hand, or thrown in.
    finished: bool = False
    awarded: dict[str, int] = field(default_factory=dict)
    #: The game's score after this hand.
    score: dict[str, int] = field(default_factory=dict)

    @property
    def thrown_in(self) -> bool:
        """Every seat passed and the hand was thrown in (``all_pass: "reshake"``)."""
        return self.auction.thrown_in

    @property
    def deal(self) -> dict[int, list[str]]:
        """The hands as dealt.

        Returns:
            dict[int, list[str]]: Seat index (0..3 for N, E, S, W) -> its seven tile
                names, in the record's order; ``deal_ids`` holds the same as numbers.

        >>> from solver import read_game
        >>> read_game(open("examples/game.json").read()).hands[0].deal[1]
        ['6-6', '6-1', '4-1', '3-3', '2-1', '1-0', '0-0']
        """
        return {s: [T.NAMES[t] for t in tiles] for s, tiles in self.deal_ids.items()}

    @property
    def widow(self) -> str | None:
        """The widow, dealt to no one (three-player Moon).

        Returns:
            str | None: Its tile name, else None; ``widow_id`` is its number.

        >>> from solver import read_game
        >>> read_game(open("examples/game.json").read()).hands[0].widow is None
        True
        """
        return None if self.widow_id is None else T.NAMES[self.widow_id]

    @property
    def discard(self) -> str | None:
        """The tile the three-player Moon declarer laid away.

        Returns:
            str | None: Its tile name, else None (another game, or no contract yet);
                ``discard_id`` is its number.

        >>> from solver import read_game
        >>> read_game(open("examples/game.json").read()).hands[0].discard is None
        True
        """
        return None if self.discard_id is None else T.NAMES[self.discard_id]

    @property
    def plays(self) -> list[str]:
        """The tiles played so far, in order.

        Returns:
            list[str]: Tile names ("6-4"); [] before the contract. `play_ids` gives
                the numbers.

        >>> from solver import read_game
        >>> read_game(open("examples/game.json").read()).hands[0].plays[:3]
        ['4-2', '4-1', '4-4']
        """
        return [T.NAMES[t] for t in self.play_ids]

    @property
    def play_ids(self) -> tuple[int, ...]:
        """`plays` as tile numbers, for code that works on numbers.

        Returns:
            tuple[int, ...]: Tile numbers (0..27), in order; () before the contract.

        >>> from solver import read_game
        >>> read_game(open("examples/game.json").read()).hands[0].play_ids[:3]
        (12, 11, 14)
        """
        return self.position.plays if self.position is not None else ()

    def decided(self) -> bool | None:
        """The contract's outcome from the tricks so far (None: open, or no contract)."""
        pos, c = self.position, self.contract
        if pos is None or c is None:
            return None
        return outcome(self.rules.game, c.declaration.name, c.bid, pos.points, pos.available)

    def next_action(self) -> dict | None:
        """What this hand waits for, or None when it is over."""
        if self.finished:
            return None
        auction = self.auction
        if not auction.is_over:
            return {"seat": SEATS[auction.next_seat], "action": "call"}  # type: ignore[index]
        if self.contract is None:
            if self.rules.three_handed:
                return {"seat": SEATS[auction.winner], "action": "discard"}  # type: ignore[index]
            return {"seat": SEATS[auction.declarer_names_trump],  # type: ignore[index]
                    "action": "declare"}
        assert self.position is not None
        seat = self.position.to_move
        return None if seat is None else {"seat": seat, "action": "play"}

    def contract_json(self) -> dict | None:
        """The contract JSON as a record writes it (defaults left out), or None."""
        c = self.contract
        if c is None:
            return None
        out: dict[str, Any] = {"declarer": SEATS[c.declarer], "trump": c.declaration.name,
                               "bid": c.bid}
        if c.kind != "standard":
            out["kind"] = c.kind
        if c.doubles != "high":
            out["doubles"] = c.doubles
        if self.discard_id is not None:
            out["discard"] = T.name_of(self.discard_id)
        return out

    def to_json(self) -> dict:
        """The hand record JSON, canonical (tiles ``H-L``)."""
        out: dict[str, Any] = {"hands": {SEATS[s]: [T.name_of(t) for t in tiles]
                                         for s, tiles in self.deal_ids.items()}}
        if self.widow_id is not None:
            out["widow"] = T.name_of(self.widow_id)
        out["auction"] = self.auction.to_json()
        if self.contract is not None:
            out["contract"] = self.contract_json()
            out["plays"] = self.plays
        return out

    def summary_json(self) -> dict:
        """The hand on a score pad: shaker, contract (None: none yet, or thrown in), made
        (None: not over) and the score after it."""
        return {"shaker": SEATS[self.shaker], "contract": self.contract_json(),
                "made": self.made, "score": dict(self.score)}


class GameRecord:
    """A game of 42 or Moon, read from its game record JSON (docs/formats.md) and
    checked, with each hand scored.

    Every bad field is a `PositionError` naming it (``hands[2].auction[1].bid``):
    unknown keys, an illegal call, a contract the auction did not produce, an
    illegal play, a hand after the game is won.

    Args:
        data: The game record: a dict, JSON text or bytes.

    Attributes:
        rules: The game and its house options.
        first_shaker: The seat index of the first hand's shaker.
        hands: Every hand (`HandRecord`), in order.
        score: The score after the last hand, by score key (``NS``/``EW``, or
            the three Moon players).
        winner: The score key that won, or None while the game goes on.

    >>> from solver import GameRecord
    >>> record = GameRecord(open("examples/game.json").read())
    >>> record.winner, record.score, len(record.hands)
    ('EW', {'NS': 2, 'EW': 7}, 3)
    """

    rules: GameRules
    first_shaker: int
    hands: list[HandRecord]
    score: dict[str, int]
    winner: str | None

    def __init__(self, data: Mapping[str, Any] | str | bytes) -> None:
        data = json_object(data, "record", "a game record")
        check_keys(data, RECORD_FIELDS, "", "a game record")
        game = parse_game(data.get("game", "42"))
        raw_hands = data.get("hands", [])
        if raw_hands is None:
            raw_hands = []
        if not isinstance(raw_hands, list):
            raise PositionError("hands", "must be a list of hand records", "INVALID_TYPE")
        players = _read_players(data.get("players"), game, raw_hands)
        self.rules = read_rules(data.get("rules"), game, players)
        seats = SEATS[:players]
        shaker = data.get("first_shaker")
        if shaker is None:
            raise PositionError("first_shaker", "required: the seat that shakes the first hand",
                                "MISSING_FIELD")
        if shaker not in seats:
            raise PositionError("first_shaker", f"unknown seat {quoted(shaker)} (one of "
                                f"{', '.join(seats)})", "UNKNOWN_SEAT")
        self.first_shaker = seats.index(shaker)
        self.id = data.get("id")
        self.meta = data.get("meta")
        self.has_id, self.has_meta = "id" in data, "meta" in data
        self.hands = []
        self.score = zero(self.rules)
        self.winner = None
        seat = self.first_shaker
        for i, raw in enumerate(raw_hands):
            if self.winner is not None:
                raise PositionError(f"hands[{i}]", f"the game is over: {self.winner} won it in "
                                    f"hands[{i - 1}]", "GAME_OVER")
            hand = self._read_hand(raw, i, seat, last=i == len(raw_hands) - 1)
            self.hands.append(hand)
            seat = self.rules.next_seat(seat)

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str | bytes) -> "GameRecord":
        """The same as ``GameRecord(data)``."""
        return cls(data)

    # ---------------------------------------------------------------- reading

    def _read_hand(self, raw: object, i: int, shaker: int, last: bool) -> HandRecord:
        rules, where = self.rules, f"hands[{i}]"
        if not isinstance(raw, Mapping):
            raise PositionError(where, "a hand record must be a JSON object", "INVALID_TYPE")
        check_keys(raw, HAND_FIELDS, where, "a hand record")
        if raw.get("hands") is None and raw.get("contract") is not None:
            # A hand played out may leave out the deal: it is the tiles each seat played.
            raw = {**raw, "hands": _deal_of_plays(raw, where, rules)}
        deal = _read_deal(raw.get("hands"), where, rules)
        widow = _read_widow(raw, where, rules, deal)
        no_shoot = [s for s in rules.seats if self.score[rules.key_of(s)] < 0] \
            if rules.game == "moon" else []
        auction = read_auction(raw.get("auction"), rules, shaker, f"{where}.auction", deal,
                               no_shoot)
        hand = HandRecord(i, shaker, rules, deal, widow, auction)
        contract, plays = raw.get("contract"), raw.get("plays")
        if contract is not None:
            self._read_contract(hand, contract, plays, where)
        elif plays:
            raise PositionError(f"{where}.plays", "no play before the contract",
                                "PLAYS_BEFORE_CONTRACT")
        self._close(hand, where, last)
        return hand

    def _read_contract(self, hand: HandRecord, raw: object, plays: object, where: str) -> None:
        rules, auction = self.rules, hand.auction
        if not auction.is_over:
            raise PositionError(f"{where}.contract", f"the auction is not over "
                                f"({SEATS[auction.next_seat]} to call): no contract yet",  # type: ignore[index]
                                "AUCTION_NOT_OVER")
        if auction.thrown_in:
            raise PositionError(f"{where}.contract", "every seat passed: the hand is thrown "
                                "in and has no contract", "THROWN_IN")
        if not isinstance(raw, Mapping):
            raise PositionError(f"{where}.contract", "must be an object", "INVALID_TYPE")
        known = CONTRACT_FIELDS + (("discard",) if rules.three_handed else ())
        check_keys(raw, known, f"{where}.contract", "a contract")
        contract = dict(raw)
        _precheck_against_auction(contract, auction, rules, where)
        hands = {SEATS[s]: [T.name_of(t) for t in tiles] for s, tiles in hand.deal_ids.items()}
        position: dict[str, Any] = {"game": rules.game, "hands": hands, "contract": contract}
        if rules.three_handed:
            if "discard" not in contract:
                raise PositionError(f"{where}.contract.discard", "required: the tile the "
                                    "declarer laid away", "MISSING_FIELD")
            discard = T.parse_tile(contract.pop("discard"), f"{where}.contract.discard")
            seat = auction.winner
            assert seat is not None and hand.widow_id is not None
            if discard != hand.widow_id and discard not in hand.deal_ids[seat]:
                raise PositionError(f"{where}.contract.discard", f"{T.name_of(discard)} is "
                                    f"neither in {SEATS[seat]}'s hand nor the widow",
                                    "DISCARD_NOT_HELD")
            held = [hand.widow_id if t == discard else t for t in hand.deal_ids[seat]]
            hands[SEATS[seat]] = [T.name_of(t) for t in held]
            position["widow"], position["discard"] = T.name_of(hand.widow_id), T.name_of(discard)
            hand.discard_id = discard
        bid = contract.get("bid")
        low_moon_bid = rules.game == "moon" and isinstance(bid, int) \
            and not isinstance(bid, bool) and rules.min_bid <= bid < _POSITION_MOON_LOW
        if low_moon_bid:  # a house minimum under 4: the position is checked at 4
            contract["bid"] = _POSITION_MOON_LOW
        rename = {"discard": "contract.discard"}
        with _within(where, rename):
            checked = Position(position).contract
        if low_moon_bid:
            checked = replace(checked, bid=bid)
        _check_against_auction(checked, auction, rules, where)
        hand.contract = checked
        if plays is None:
            plays = []
        position["plays"] = plays
        with _within(where, rename):
            hand.position = Position(position)
        hand.contract = replace(hand.position.contract, bid=checked.bid)

    def _close(self, hand: HandRecord, where: str, last: bool) -> None:
        """The hand's result and the score after it; refuse a hand that is not over when
        another follows."""
        rules = self.rules
        pos = hand.position
        if hand.thrown_in:
            hand.finished = True
        elif pos is not None and pos.is_complete:
            hand.made, hand.finished = hand.decided(), True
        elif not last:
            self._refuse_unfinished(hand, where)
            hand.made, hand.finished = hand.decided(), True
        if hand.finished and hand.made is not None:
            assert pos is not None and hand.contract is not None
            result = HandScore(hand.contract.declarer, hand.contract.bid, hand.made,
                               pos.tricks_won)
            hand.awarded = awards(rules, result)
            self.score = add(self.score, hand.awarded)
            self.winner = winner(rules, self.score, rules.key_of(hand.contract.declarer))
        hand.score = dict(self.score)

    def _refuse_unfinished(self, hand: HandRecord, where: str) -> None:
        after = f"yet hands[{hand.index + 1}] follows"
        auction = hand.auction
        if not auction.is_over:
            raise PositionError(f"{where}.auction", f"the auction is not over ("
                                f"{SEATS[auction.next_seat]} to call), {after}",  # type: ignore[index]
                                "HAND_NOT_FINISHED")
        if hand.contract is None:
            raise PositionError(f"{where}.contract", f"missing: the auction is over, {after}",
                                "HAND_NOT_FINISHED")
        if self.rules.game != "42":
            raise PositionError(f"{where}.plays", f"a Moon hand is played out (every trick "
                                f"counts), {after}", "HAND_NOT_FINISHED")
        if hand.decided() is None:
            raise PositionError(f"{where}.plays", f"the hand stops before its outcome is "
                                f"decided, {after}", "HAND_NOT_FINISHED")

    # ------------------------------------------------------------------ state

    @property
    def game(self) -> str:
        """``"42"`` or ``"moon"``."""
        return self.rules.game

    @property
    def players(self) -> int:
        """4, or 3 for three-player Moon."""
        return self.rules.players

    @property
    def is_over(self) -> bool:
        """Whether the game is won."""
        return self.winner is not None

    def shaker_of_next_hand(self) -> int:
        """The seat index that shakes the next hand (the shakes go round)."""
        if not self.hands:
            return self.first_shaker
        return self.rules.next_seat(self.hands[-1].shaker)

    def _new_auction(self) -> Auction:
        rules = self.rules
        no_shoot = [s for s in rules.seats if self.score[rules.key_of(s)] < 0] \
            if rules.game == "moon" else []
        return Auction(rules, self.shaker_of_next_hand(), None, no_shoot)

    def next_action(self) -> dict | None:
        """``{"seat": "E", "action": "call" | "declare" | "discard" | "play"}``, or None
        when the game is won. After a finished hand, the next hand's first call."""
        if self.winner is not None:
            return None
        if self.hands and not self.hands[-1].finished:
            return self.hands[-1].next_action()
        return {"seat": SEATS[self._new_auction().next_seat], "action": "call"}  # type: ignore[index]

    def legal_calls(self) -> tuple[int | str, ...]:
        """The calls open to the seat to call (empty unless a call is next). In a hand not
        yet dealt, plunge and splash are listed for a hand with the doubles they need."""
        action = self.next_action()
        if action is None or action["action"] != "call":
            return ()
        if self.hands and not self.hands[-1].finished:
            return self.hands[-1].auction.legal_calls()
        return self._new_auction().legal_calls()

    def legal_declarations(self) -> tuple[str, ...]:
        """What the seat to declare may name (empty unless a declaration is next; in
        three-player Moon the declaration comes with the discard)."""
        action = self.next_action()
        if action is None or action["action"] not in ("declare", "discard"):
            return ()
        auction = self.hands[-1].auction
        return legal_declarations(self.rules, auction.bid, auction.kind)  # type: ignore[arg-type]

    def legal_plays(self) -> tuple[str, ...]:
        """The tiles the seat to play may play (empty unless a play is next)."""
        action = self.next_action()
        if action is None or action["action"] != "play":
            return ()
        pos = self.hands[-1].position
        assert pos is not None
        return tuple(pos.legal_tiles())

    # ----------------------------------------------------------------- output

    def to_json(self) -> dict:
        """The record JSON, canonical; reading it gives an equal record."""
        out: dict[str, Any] = {}
        if self.has_id:
            out["id"] = self.id
        out["game"] = self.rules.game
        if self.rules.game == "moon":
            out["players"] = self.rules.players
        if self.rules.given:
            out["rules"] = self.rules.to_json()
        out["first_shaker"] = SEATS[self.first_shaker]
        out["hands"] = [hand.to_json() for hand in self.hands]
        if self.has_meta:
            out["meta"] = self.meta
        return out

    def summary_json(self) -> dict:
        """The score pad as `t42 game --json` prints it."""
        return {"hands": [hand.summary_json() for hand in self.hands],
                "score": dict(self.score), "winner": self.winner, "next": self.next_action()}

    def to_json_str(self) -> str:
        """`to_json` as JSON text."""
        return json.dumps(self.to_json())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameRecord) and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(self.to_json_str())

    def __repr__(self) -> str:
        return f"GameRecord({len(self.hands)} hands, score {self.score}, winner {self.winner})"


def _read_players(players: object, game: str, hands: list) -> int:
    if players is not None and (isinstance(players, bool) or not isinstance(players, int)):
        raise PositionError("players", f"must be a whole number, not {quoted(players)}",
                            "INVALID_TYPE")
    if game == "42":
        if players not in (None, 4):
            raise PositionError("players", "42 is played by 4 players", "INVALID_VALUE")
        return 4
    if players is None:  # as the first hand shows it
        first = hands[0] if hands else None
        deal = first.get("hands") if isinstance(first, Mapping) else None
        return 4 if isinstance(deal, Mapping) and "W" in deal else 3
    if players not in (3, 4):
        raise PositionError("players", f"Moon is played by 3 or 4 players, not "
                            f"{quoted(players)}", "INVALID_VALUE")
    return players  # type: ignore[return-value]


def _read_deal(raw: object, where: str, rules: GameRules) -> dict[int, tuple[int, ...]]:
    """A hand's deal, checked as a position's hands are (a dummy contract)."""
    if raw is None:
        raise PositionError(f"{where}.hands", "required: the deal", "MISSING_FIELD")
    if not isinstance(raw, Mapping):
        raise PositionError(f"{where}.hands", "must be an object of seat -> list of tiles",
                            "INVALID_TYPE")
    seats = SEATS[:rules.players]
    for key in raw:
        if key not in seats:
            raise PositionError(f"{where}.hands.{key_text(key)}", f"unknown seat {quoted(key)} "
                                f"(one of {', '.join(seats)})", "UNKNOWN_SEAT")
    for seat in seats:
        if seat not in raw:
            raise PositionError(f"{where}.hands.{seat}", "missing hand", "MISSING_FIELD")
    dummy = {"game": rules.game, "hands": raw,
             "contract": {"declarer": "N", "trump": "follow-me",
                          "bid": 30 if rules.game == "42" else _POSITION_MOON_LOW}}
    with _within(where):
        return dict(Position(dummy).hands)


def hands_from_plays(game: str, players: int, contract: Mapping[str, Any], plays: list[str],
                     where: str = "") -> dict[str, list[int]]:
    """Seat -> the tiles it played, in order, for the ``plays`` of a hand under
    ``contract``: who played each tile follows from the tiles alone (the leader, then
    the order of play; each trick's winner leads the next). A seat that played all its
    tiles is its hand; `complete_deal` fills in the rest when it can.

    The plays' legality is not judged here (the position built from the deal is).

    Args:
        game: ``"42"`` or ``"moon"``.
        players: 4, or 3 for three-player Moon.
        contract: The hand's contract JSON (docs/formats.md).
        plays: The tiles played, in order (a list of tile names).
        where: Prefixes the fields of errors (``hands[2].``).

    Raises:
        PositionError: A contract or plays that cannot be read.
    """
    if not isinstance(contract, Mapping):
        raise PositionError(f"{where}contract", "must be an object", "INVALID_TYPE")
    if not isinstance(plays, list):
        raise PositionError(f"{where}plays", "must be a list of tiles", "INVALID_TYPE")
    decl = parse_declaration(contract.get("trump"), f"{where}contract.trump")
    doubles = contract.get("doubles", "high")
    kind = contract.get("kind", "standard")
    if not isinstance(doubles, str) or doubles.lower() not in DOUBLES_OPTIONS:
        raise PositionError(f"{where}contract.doubles", f"unknown option {quoted(doubles)} "
                            "(high, low or suit)", "INVALID_OPTION")
    if not isinstance(kind, str) or kind.lower() not in KINDS:
        raise PositionError(f"{where}contract.kind", f"unknown kind {quoted(kind)} (standard, "
                            "plunge or splash)", "UNKNOWN_KIND")
    seats = SEATS[:players]
    declarer = contract.get("declarer")
    if declarer not in seats:
        raise PositionError(f"{where}contract.declarer", f"unknown seat {quoted(declarer)} "
                            f"(one of {', '.join(seats)})", "UNKNOWN_SEAT")
    rules = build_rules(decl, doubles.lower())
    active, _, _, leader, next_of = _layout(players == 3, decl.name == "nello",
                                            SEATS.index(declarer), kind.lower())
    played: dict[str, list[int]] = {SEATS[s]: [] for s in active}
    seen: dict[int, int] = {}
    trick: list[tuple[int, int]] = []
    for i, raw in enumerate(plays):
        tile = T.parse_tile(raw, f"{where}plays[{i}]")
        if tile in seen:
            raise PositionError(f"{where}plays[{i}]", f"{T.name_of(tile)} was already played "
                                f"(plays[{seen[tile]}])", "DUPLICATE_TILE")
        seen[tile] = i
        if i >= 7 * len(active):
            raise PositionError(f"{where}plays[{i}]", f"the hand is over after "
                                f"{7 * len(active)} plays", "TOO_MANY_PLAYS")
        seat = leader if not trick else next_of[trick[-1][0]]
        trick.append((seat, tile))
        played[SEATS[seat]].append(tile)
        if len(trick) == len(active):
            leader = trick[rules.winner_index([t for _, t in trick])][0]
            trick = []
    return played


def complete_deal(hands: Mapping[str, Sequence[int]], played: Mapping[str, Sequence[int]],
                  seats: Sequence[str], tile_set: Iterable[int], where: str = ""
                  ) -> dict[str, list[int]]:
    """Every seat's 7 tiles from the hands known and the tiles each seat played: a seat
    that played 7 tiles held those; when one seat is still unknown and exactly 7 tiles
    of ``tile_set`` are left, it held them (the nello partner, a hand of 28 plays given
    three hands).

    Args:
        hands: The hands known, seat -> tile numbers.
        played: The tiles each seat played (`hands_from_plays`).
        seats: The seats of the game.
        tile_set: The game's tiles (28, or 21 in three-player Moon).
        where: Prefixes the fields of errors.

    Raises:
        PositionError: A seat whose hand cannot be known (``MISSING_FIELD``).
    """
    out = {s: list(hands[s]) for s in seats if s in hands}
    for seat in seats:
        if seat not in out and len(played.get(seat, ())) == 7:
            out[seat] = sorted(played[seat], reverse=True)
    missing = [s for s in seats if s not in out]
    if len(missing) == 1:
        used = {t for tiles in out.values() for t in tiles}
        left = [t for t in tile_set if t not in used]
        if len(left) == 7:
            out[missing[0]] = sorted(left, reverse=True)
            missing = []
    if missing:
        total = 7 * len(played)
        raise PositionError(f"{where}hands.{missing[0]}", f"missing hand (give it, or all "
                            f"{total} plays: the tiles each seat played are its hand)",
                            "MISSING_FIELD")
    return out


def _deal_of_plays(raw: Mapping[str, Any], where: str,
                   rules: GameRules) -> dict[str, list[str]]:
    """The deal of a hand record without ``hands``: the tiles each seat played (three-player
    Moon: the declarer's, less the widow, plus the discard)."""
    contract = raw["contract"]
    played = hands_from_plays(rules.game, rules.players, contract, raw.get("plays") or [],
                              f"{where}.")
    tile_set = sorted(MOON3_SET) if rules.three_handed else range(T.N_TILES)
    hands = complete_deal({}, played, SEATS[:rules.players], tile_set, f"{where}.")
    if rules.three_handed and isinstance(contract, Mapping) and "discard" in contract \
            and raw.get("widow") is not None:
        widow = T.parse_tile(raw["widow"], f"{where}.widow")
        discard = T.parse_tile(contract["discard"], f"{where}.contract.discard")
        held = hands[contract["declarer"]]
        if widow != discard and widow in held:
            held[held.index(widow)] = discard  # as dealt: before the widow was taken
    return {s: [T.name_of(t) for t in tiles] for s, tiles in hands.items()}


def _read_widow(raw: Mapping[str, Any], where: str, rules: GameRules,
                deal: Mapping[int, tuple[int, ...]]) -> int | None:
    if not rules.three_handed:
        if "widow" in raw:
            raise PositionError(f"{where}.widow", "only three-player Moon has a widow",
                                "UNEXPECTED_FIELD")
        return None
    if raw.get("widow") is None:
        raise PositionError(f"{where}.widow", "required: the 22nd tile, dealt to no one",
                            "MISSING_FIELD")
    widow = T.parse_tile(raw["widow"], f"{where}.widow")
    if widow not in MOON3_SET:
        raise PositionError(f"{where}.widow", f"{T.name_of(widow)} is not in the 22-tile "
                            "Moon set", "NOT_IN_TILE_SET")
    for seat, tiles in deal.items():
        if widow in tiles:
            raise PositionError(f"{where}.widow", f"{T.name_of(widow)} is also in "
                                f"hands.{SEATS[seat]}[{tiles.index(widow)}]", "DUPLICATE_TILE")
    return widow


def _precheck_against_auction(contract: Mapping[str, Any], auction: Auction, rules: GameRules,
                              where: str) -> None:
    """The contract's declarer, kind, bid and declaration against the auction, before the
    contract is read as a position's (whose errors would hide the mismatch: a point bid
    with sevens, say). Values of a wrong type are left to that reader."""
    declarer = contract.get("declarer")
    if declarer in SEATS[:rules.players] and SEATS.index(declarer) != auction.winner:
        raise PositionError(f"{where}.contract.declarer", f"{declarer} did not win the "
                            f"auction ({SEATS[auction.winner]} did)",  # type: ignore[index]
                            "CONTRACT_MISMATCH")
    kind = contract.get("kind", "standard")
    if isinstance(kind, str) and kind.lower() in KINDS and kind.lower() != auction.kind:
        raise PositionError(f"{where}.contract.kind", f"the auction makes a {auction.kind} "
                            f"contract, not {kind.lower()}", "CONTRACT_MISMATCH")
    bid = contract.get("bid")
    if isinstance(bid, int) and not isinstance(bid, bool) and bid != auction.bid:
        raise PositionError(f"{where}.contract.bid", f"the auction's bid is {auction.bid}, "
                            f"not {bid}", "CONTRACT_MISMATCH")
    if rules.game == "42" and auction.kind == "standard":
        try:
            name = parse_declaration(contract.get("trump")).name
        except PositionError:
            return  # the position reader names it
        if name not in legal_declarations(rules, auction.bid, auction.kind):  # type: ignore[arg-type]
            _refuse_declaration(name, auction.bid, rules, where)  # type: ignore[arg-type]


def _refuse_declaration(name: str, bid: int, rules: GameRules, where: str) -> None:
    need = declaration_marks_needed(rules, name)
    raise PositionError(f"{where}.contract.trump", f"{name} needs a bid of at least "
                        f"{need} mark{'s' if need > 1 else ''} ({need * 42}); the bid is "
                        f"{bid}", "DECLARATION_NOT_ALLOWED")


def _check_against_auction(contract: Contract, auction: Auction, rules: GameRules,
                           where: str) -> None:
    """The contract must be the one the auction produced, with a declaration its bid
    allows."""
    if contract.declarer != auction.winner:
        raise PositionError(f"{where}.contract.declarer", f"{SEATS[contract.declarer]} did not "
                            f"win the auction ({SEATS[auction.winner]} did)",  # type: ignore[index]
                            "CONTRACT_MISMATCH")
    if contract.kind != auction.kind:
        raise PositionError(f"{where}.contract.kind", f"the auction was won by a "
                            f"{auction.top.bid if auction.kind != 'standard' else 'bid'}"  # type: ignore[union-attr]
                            f", so the kind is {auction.kind}, not {contract.kind}",
                            "CONTRACT_MISMATCH")
    if contract.bid != auction.bid:
        raise PositionError(f"{where}.contract.bid", f"the auction's bid is {auction.bid}, "
                            f"not {contract.bid}", "CONTRACT_MISMATCH")
    allowed = legal_declarations(rules, contract.bid, contract.kind)
    name = contract.declaration.name
    if name not in allowed:
        _refuse_declaration(name, contract.bid, rules, where)


def read_game(data: Mapping[str, Any] | str | bytes) -> GameRecord:
    """A game record, read and checked: the same as ``GameRecord(data)``.

    Args:
        data: The game record (docs/formats.md): a dict, JSON text or bytes.

    Returns:
        The `GameRecord`.

    Raises:
        PositionError: A bad record, naming the field at fault.

    >>> from solver import read_game
    >>> record = read_game(open("examples/game.json").read())
    >>> record.is_over, [hand.made for hand in record.hands]
    (True, [False, False, False])
    """
    return GameRecord(data)


__all__ = ["GameRecord", "HandRecord", "complete_deal", "hands_from_plays", "read_game"]
