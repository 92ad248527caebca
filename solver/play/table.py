"""A table where a person plays one seat of a game against bots, and the table is the
authority: it deals, it holds the hidden hands, it makes the bots' moves, and it
remembers every action, so that the person learns only what its seat may know and
changes nothing but its own next action.

What the table decides (docs/guides/apps.md, The table):

- **The deal** comes from the table's secret (32 random bytes the client never sees):
  hand k of a table is dealt with a seed derived from the secret and k, once. Only a
  *practice* table deals from the client's seed; its hands can then be computed by
  the client, and every answer says so.
- **The bots** and their options are fixed when the table is set; each bot decision
  is seeded from the secret and its place in the hand, and recorded: asking again for
  a bot's turn gives the recorded answer.
- **The record.** A client passes its record of the game (as its person sees it) with
  each request; the table compares it with its own, action by action. The client may
  be behind the table (it gets the table's recorded answers again) or ahead by the
  person's own new actions, which the table checks and records. Anything else is
  refused: a bot's action the table did not make (``NOT_THE_BOTS_ACTION``, the same
  answer whatever the bot holds), a change to the person's recorded action
  (``TAKEN_BACK``), an earlier hand that is not the one played here
  (``RECORD_MISMATCH``), another hand's token (``HAND_OVER``).
- **The next hand** is dealt only once the table's own hand may stop (thrown in,
  played out, or a 42 hand decided); asking again for it gives the same hand.

`TableStore` (`solver.play.table_store`) keeps the tables; `Tables` is the room that
loads one, applies a request to it and saves it over the version it loaded. The
tokens a client holds name a table and a hand of it, signed with the table key: one
canonical form, checked exactly (`Tables.token`).
"""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..game import tiles as T
from ..game.auction import SEATS
from ..game.errors import PositionError
from ..game.game_record import GameRecord, HandRecord, read_game
from ..game.progress import hand_may_stop
from ..hidden.dealer import Dealer
from .bots import GAME_BOT_NAMES, make_bot
from .game_play import next_action_figures
from .program_bot import table_programs
from .table_store import TableStore

#: The bots a table seats (``hint``: the advice bot playing the full hint).
TABLE_BOTS = GAME_BOT_NAMES[:3] + ("hint",) + GAME_BOT_NAMES[3:]
#: A bot's deals (advice and hint deals): the range a table takes, and the default.
MAX_BOT_DEALS = 100_000
DEFAULT_BOT_DEALS = 100
#: The state's format version.
STATE_VERSION = 1
#: The keys of a stored state, and their JSON types.
_STATE_KEYS = {"seat": str, "practice": bool, "secret": str, "record": dict, "carried": int,
               "seeds": list, "decisions": list, "bots": dict}
#: How often a request is tried again when another request changed the table first.
_RETRIES = 8

# A token: the table's id (22 url-safe characters), the hand's index, and the first
# 16 bytes of the HMAC-SHA256 of both under the table key (22 characters).
_TOKEN = re.compile(r"([A-Za-z0-9_-]{22})\.(0|[1-9][0-9]{0,3})\.([A-Za-z0-9_-]{22})")
_TILE_TEXT = re.compile(r"\b[0-6]-[0-6]\b")


class TableRefused(Exception):
    """A request the table refuses at this moment (the hand is over, the deal not yet
    shown, ...): the service answers FAILED_PRECONDITION.

    Args:
        reason: What is refused and what to do, in words (the message).
        code: A stable upper-case code (``HAND_OVER``, ``HAND_NOT_OVER``, ...).
    """

    def __init__(self, reason: str, code: str = "REFUSED") -> None:
        super().__init__(reason)
        self.code = code


def _derived(secret: bytes, label: str) -> int:
    """A 63-bit seed for ``label`` from the table's secret (HMAC-SHA256)."""
    digest = hmac.new(secret, label.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def check_bot(name: str, advice_deals: int | None = None, hint_deals: int | None = None,
              field: str = "bots", game: str = "42") -> dict[str, Any]:
    """A bot of a table, checked.

    Args:
        name: One of `TABLE_BOTS`, or a program bot this process was configured with
            that calls and plays every declaration of ``game``
            (`solver.play.program_bot.table_programs`).
        advice_deals: The deals of its bid advice, 1..`MAX_BOT_DEALS` (None: 100).
        hint_deals: The deals of its hints, likewise.
        field: Where the bot is in the request (the field a `PositionError` names).
        game: ``"42"`` or ``"moon"``: the table's game.

    Returns:
        ``{"name", "advice_deals", "hint_deals"}``.

    >>> check_bot("rule")
    {'name': 'rule', 'advice_deals': 100, 'hint_deals': 100}
    """
    known = TABLE_BOTS + table_programs(game)
    if name not in known:
        raise PositionError(f"{field}.bot", f"unknown bot {str(name)[:20]!r} (one of "
                            f"{', '.join(known)})", "UNKNOWN_BOT")
    out: dict[str, Any] = {"name": name}
    for key, value in (("advice_deals", advice_deals), ("hint_deals", hint_deals)):
        value = DEFAULT_BOT_DEALS if value is None else value
        if not isinstance(value, int) or isinstance(value, bool) \
                or not 1 <= value <= MAX_BOT_DEALS:
            raise PositionError(f"{field}.{key}", f"must be 1..{MAX_BOT_DEALS}, not "
                                f"{str(value)[:20]}", "OUT_OF_RANGE")
        out[key] = value
    return out


# ---------------------------------------------------------------- a hand's actions

# An action of a hand, as the table compares them: ("call", seat, bid),
# ("declare", trump, doubles, discard or None) or ("play", tile name).
Action = tuple


def _table_actions(hand: HandRecord) -> list[tuple[Action, str]]:
    """The table's actions of ``hand`` in order, each with the seat that made it."""
    out: list[tuple[Action, str]] = [(("call", c["seat"], c["bid"]), c["seat"])
                                     for c in hand.auction.to_json()]
    contract = hand.contract_json()
    if contract is None:
        return out
    namer = SEATS[hand.auction.declarer_names_trump]  # type: ignore[index]
    out.append((("declare", contract["trump"], contract.get("doubles", "high"),
                 contract.get("discard")), namer))
    owner = {T.name_of(t): SEATS[s] for s, tiles in hand.deal_ids.items() for t in tiles}
    if hand.widow is not None:
        owner[hand.widow] = contract["declarer"]
    out.extend((("play", tile), owner[tile]) for tile in hand.plays)
    return out


def _client_actions(given: Mapping[str, Any], where: str) -> list[tuple[Action, str]]:
    """The client's actions of its last hand, read without the hidden deal, each with
    its field."""
    out: list[tuple[Action, str]] = []
    auction = given.get("auction") or []
    if not isinstance(auction, list):
        raise PositionError(f"{where}.auction", "must be a list of calls", "BAD_TYPE")
    for i, call in enumerate(auction):
        if not isinstance(call, Mapping):
            raise PositionError(f"{where}.auction[{i}]", "must be a call object", "BAD_TYPE")
        out.append((("call", call.get("seat"), call.get("bid")), f"{where}.auction[{i}]"))
    contract = given.get("contract")
    plays = given.get("plays") or []
    if contract is None:
        if plays:
            raise PositionError(f"{where}.plays", "no play before the contract is declared",
                                "MISSING_FIELD")
        return out
    if not isinstance(contract, Mapping):
        raise PositionError(f"{where}.contract", "must be an object", "BAD_TYPE")
    discard = contract.get("discard")
    if discard is not None:
        discard = T.name_of(T.parse_tile(discard, f"{where}.contract.discard"))
    out.append((("declare", contract.get("trump"), contract.get("doubles") or "high",
                 discard), f"{where}.contract"))
    if not isinstance(plays, list):
        raise PositionError(f"{where}.plays", "must be a list of tiles", "BAD_TYPE")
    out.extend((("play", T.name_of(T.parse_tile(tile, f"{where}.plays[{i}]"))),
                f"{where}.plays[{i}]") for i, tile in enumerate(plays))
    return out


def _header(data: Mapping[str, Any]) -> dict[str, Any]:
    """A record's header (game, players, rules, first shaker) as read, for comparing."""
    read = read_game({k: v for k, v in data.items() if k not in ("hands", "id", "meta")}
                     | {"hands": []})
    out = read.to_json()
    out.pop("hands", None)
    return out


@dataclass
class Seated:
    """A request applied to a table: the game as far as the client's record goes, with
    the whole deal filled in (for the server's own use: never sent as it is).

    Attributes:
        game: The record read, its last hand dealt in full.
        seat: The person's seat.
        behind: The client's record stops before the table's last action.
    """

    game: GameRecord
    seat: str
    behind: bool

    @property
    def hand(self) -> HandRecord:
        return self.game.hands[-1]

    @property
    def person_declares(self) -> bool:
        auction = self.hand.auction
        return auction.is_over and auction.winner is not None \
            and SEATS[auction.winner] == self.seat


class Table:
    """One table's state and the rules of what its person may see and do.

    Args:
        state: The stored state (`Table.new` makes one).
    """

    def __init__(self, state: dict[str, Any]) -> None:
        if not isinstance(state, dict) or state.get("v") != STATE_VERSION:
            raise ValueError("not a table state of this version")
        for key, kind in _STATE_KEYS.items():
            if not isinstance(state.get(key), kind):
                raise ValueError(f"the table state's {key} is missing or not a {kind}")
        self.state = state
        self._game: GameRecord | None = None
        #: Whether this object changed the state (it is then saved).
        self.changed = False

    @classmethod
    def new(cls, header: Mapping[str, Any], seat: str, bots: Mapping[str, Mapping[str, Any]],
            *, practice: bool = False, carried: list[Any] | None = None) -> "Table":
        """A table for ``seat`` with the ``bots`` at the other seats, before its first
        deal. ``carried``: earlier hands taken on the client's word (a game continued
        at a new table), which the table marks as such."""
        data = {k: v for k, v in header.items() if k not in ("hands", "id", "meta")}
        data["hands"] = list(carried or [])
        game = read_game(data)   # the carried hands: every one finished, the game not won
        if game.hands and not hand_may_stop(game.hands[-1]):
            raise PositionError(f"hands[{len(game.hands) - 1}]", "a game continued at "
                                "a new table holds finished hands only", "HAND_NOT_OVER")
        if seat not in SEATS[:game.rules.players]:
            raise PositionError("seat", f"{seat} is not a seat of a "
                                f"{game.rules.players}-player game", "UNKNOWN_SEAT")
        table = cls({"v": STATE_VERSION, "seat": seat, "practice": practice,
                     "secret": secrets.token_hex(32), "record": game.to_json(),
                     "carried": len(game.hands), "seeds": [None] * len(game.hands),
                     "decisions": [{} for _ in game.hands],
                     "bots": {s: dict(bots[s]) for s in SEATS[:game.rules.players]
                              if s != seat},
                     "finished": game.is_over})
        return table

    # -------------------------------------------------------------- reading the state

    @property
    def seat(self) -> str:
        return self.state["seat"]

    @property
    def practice(self) -> bool:
        return bool(self.state["practice"])

    @property
    def carried(self) -> int:
        return int(self.state["carried"])

    @property
    def game(self) -> GameRecord:
        """The table's own record: every hand dealt in full."""
        if self._game is None:
            self._game = read_game(self.state["record"])
        return self._game

    @property
    def index(self) -> int:
        """The current hand's index (-1 before the first deal)."""
        return len(self.state["record"]["hands"]) - 1

    def _set_record(self, game: GameRecord) -> None:
        """Make ``game`` the table's record (stored canonical, so that hands compare as
        JSON)."""
        self.state["record"], self._game = game.to_json(), game
        self.state["finished"] = game.is_over or self._ends(game)
        self.changed = True

    def _ends(self, game: GameRecord) -> bool:
        """Whether the last hand, which may stop short of trick 7, ends the game: a record
        closes that hand only when another follows, so a hand is added to see."""
        if not game.hands or not hand_may_stop(game.hands[-1]):
            return False
        try:
            self._with_hand(game.to_json(), 0)
        except TableRefused:
            return True
        return False

    def _with_hand(self, data: dict[str, Any], seed: int) -> tuple[GameRecord, list[str]]:
        """``data`` with a hand dealt from ``seed`` added; `TableRefused` when the game is
        over. Returns the game and the deal's hands and widow."""
        rules = read_game({**data, "hands": []}).rules
        deal = Dealer(rules.game, rules.players).deal(seed=seed)
        hand: dict[str, Any] = {"hands": deal.hands, "auction": []}
        if deal.widow is not None:
            hand["widow"] = deal.widow
        try:
            return read_game({**data, "hands": [*data["hands"], hand]}), deal.hands[self.seat]
        except PositionError as exc:
            if exc.code == "GAME_OVER":
                raise TableRefused("the game is over: no hand to deal", "GAME_OVER") from None
            raise

    @property
    def _secret(self) -> bytes:
        return bytes.fromhex(self.state["secret"])

    # ------------------------------------------------------------------ dealing

    def deal(self, seed: int | None = None) -> list[str]:
        """Deal the next hand (from ``seed`` at a practice table, else from the table's
        secret); returns the person's tiles."""
        k = self.index + 1
        if k > 0 and not hand_may_stop(self.game.hands[-1]):
            raise TableRefused(f"hand {k} is not over: the next hand is dealt once it is",
                               "HAND_NOT_OVER")
        if seed is None:
            seed = _derived(self._secret, f"deal {k}")
        game, tiles = self._with_hand(self.state["record"], seed)
        self._set_record(game)
        self.state["seeds"].append(seed)
        self.state["decisions"].append({})
        return list(tiles)

    # ------------------------------------------------------------- the client's record

    def sync(self, client: Mapping[str, Any], hand: int, *,
             old_ok: bool = False) -> tuple[Seated, bool]:
        """Compare the client's record (its last hand ``hand``, as the token names it)
        with the table's and record the person's new actions in it.

        Returns the `Seated` game as far as the client's record goes, and whether the
        table changed. Raises `PositionError` for a record the table refuses,
        `TableRefused` for a hand that is over (an earlier hand's token, unless
        ``old_ok``: a read-only look at that hand)."""
        hands = client.get("hands")
        if not isinstance(hands, list) or len(hands) != hand + 1:
            raise PositionError("hands", f"the token is of hand {hand + 1} of the "
                                f"game: send the record with it as the last hand",
                                "SEALED_MISMATCH")
        if _header(client) != _header(self.state["record"]):
            raise PositionError("record", "not this table's game (its game, players, rules "
                                "or first shaker differ)", "RECORD_MISMATCH")
        ours = self.state["record"]["hands"]
        if hand < len(ours) - 1:
            if not old_ok:
                self._check_finished_hands(client, hand + 1)
                raise TableRefused(f"hand {hand + 1} is over and the table is at hand "
                                   f"{len(ours)}: continue with the latest token", "HAND_OVER")
            earlier = Table(copy.deepcopy({**self.state, "record": {
                **self.state["record"], "hands": ours[:hand + 1]}}))
            return earlier.sync(client, hand)[0], False
        self._check_finished_hands(client, hand)
        given = hands[hand]
        if not isinstance(given, Mapping):
            raise PositionError(f"hands[{hand}]", "must be a hand object", "BAD_TYPE")
        where = f"hands[{hand}]"
        table_hand = self.game.hands[-1]
        over = hand_may_stop(table_hand)
        self._check_seen(given, where, table_hand, over)
        theirs = _client_actions(given, where)
        mine = _table_actions(table_hand)
        for (action, field), (recorded, seat) in zip(theirs, mine):
            if action[0] == "declare" and action[3] is None and seat != self.seat:
                recorded = recorded[:3] + (None,)   # a bot's discard is the table's
            if action != recorded:
                if seat != self.seat:
                    raise PositionError(field, "not the bot's action the table recorded: "
                                        "add each NextAction answer as given",
                                        "NOT_THE_BOTS_ACTION")
                raise PositionError(field, "the table recorded another action of yours here: "
                                    "an action made cannot be taken back", "TAKEN_BACK")
        if len(theirs) <= len(mine):
            behind = len(theirs) < len(mine)
            game = self._read_filled(given, hand) if behind else self.game
            return Seated(game, self.seat, behind), False
        data = copy.deepcopy(self.state["record"])
        game = self.game
        for action, field in theirs[len(mine):]:
            turn = game.hands[-1].next_action()
            if turn is None:
                raise TableRefused("the hand is over: no more actions", "HAND_OVER")
            if turn["seat"] != self.seat:
                raise PositionError(field, "not the person's turn: a bot's action comes from "
                                    "NextAction", "NOT_THE_BOTS_ACTION")
            kind = {"call": "call", "declare": "declare", "play": "play"}[action[0]]
            if turn["action"] == "discard" and kind == "declare":
                kind = "discard"
            if turn["action"] != kind:
                raise PositionError(field, f"it is the person's turn to {turn['action']}",
                                    "OUT_OF_TURN")
            last = data["hands"][-1]
            if action[0] == "call":
                last["auction"].append(copy.deepcopy(dict(given["auction"][len(last["auction"])])))
            elif action[0] == "declare":
                last["contract"] = copy.deepcopy(dict(given["contract"]))
                last["plays"] = []
            else:
                last.setdefault("plays", []).append(action[1])
            game = self._read_scrubbed(data, given)
        self._set_record(game)
        return Seated(game, self.seat, False), True

    def _check_finished_hands(self, client: Mapping[str, Any], upto: int) -> None:
        """The client's hands before ``upto`` are the table's, as read."""
        if upto <= 0:
            return
        theirs = read_game({**{k: v for k, v in client.items() if k != "hands"},
                            "hands": client["hands"][:upto]}).to_json()["hands"]
        for i, (a, b) in enumerate(zip(theirs, self.state["record"]["hands"][:upto])):
            if a != b:
                raise PositionError(f"hands[{i}]", "not the hand this table dealt "
                                    "and played", "RECORD_MISMATCH")

    def _check_seen(self, given: Mapping[str, Any], where: str, hand: HandRecord,
                    over: bool) -> None:
        """The client's last hand holds no hidden tile it could not have seen (any other
        hand, a widow or a bot's discard), and its own tiles as dealt."""
        dealt = {SEATS[s]: sorted(t for t in tiles) for s, tiles in hand.deal_ids.items()}
        seen = given.get("hands") or {}
        if not isinstance(seen, Mapping):
            raise PositionError(f"{where}.hands", "must be an object of hands", "BAD_TYPE")
        for seat, tiles in seen.items():
            field = f"{where}.hands.{seat}"
            if seat != self.seat and not over:
                raise PositionError(field, "leave the other seats' tiles out: the table holds "
                                    "them", "HIDDEN_HAND_GIVEN")
            if not isinstance(tiles, list):
                raise PositionError(field, "must be a list of tiles", "BAD_TYPE")
            parsed = sorted(T.parse_tile(t, f"{field}[{i}]") for i, t in enumerate(tiles))
            if seat not in dealt or parsed != dealt[seat]:
                raise PositionError(field, f"not the hand dealt to {seat}: send the tiles "
                                    "the table dealt", "SEALED_HAND_MISMATCH")
        declarer = hand.auction.winner if hand.auction.is_over else None
        mine = declarer is not None and SEATS[declarer] == self.seat
        widow = given.get("widow")
        if widow is not None and not over and (not mine or hand.widow is None
                                               or T.name_of(T.parse_tile(widow, f"{where}.widow"))
                                               != hand.widow):
            raise PositionError(f"{where}.widow", "leave it empty: the table holds the widow",
                                "HIDDEN_TILE_GIVEN")
        contract = given.get("contract")
        if isinstance(contract, Mapping) and contract.get("discard") is not None \
                and not over and hand.contract is not None and not mine:
            raise PositionError(f"{where}.contract.discard", "leave it empty: a bot's discard "
                                "is the table's", "HIDDEN_TILE_GIVEN")

    def _filled(self, given: Mapping[str, Any], hand: int) -> dict[str, Any]:
        """The table's record with the client's last hand, its deal (and a bot's discard)
        the table's."""
        data = copy.deepcopy(self.state["record"])
        ours = data["hands"][hand]
        mine = copy.deepcopy(dict(given))
        mine["hands"] = ours["hands"]
        if "widow" in ours:
            mine["widow"] = ours["widow"]
        else:
            mine.pop("widow", None)
        if isinstance(mine.get("contract"), dict) and "contract" in ours:
            if "discard" in ours["contract"]:
                mine["contract"]["discard"] = ours["contract"]["discard"]
        data["hands"][hand] = mine
        return data

    def _read_filled(self, given: Mapping[str, Any], hand: int) -> GameRecord:
        return self._read_scrubbed(self._filled(given, hand), given)

    def _read_scrubbed(self, data: Mapping[str, Any], given: Mapping[str, Any]) -> GameRecord:
        """``data`` read; an error that would name a tile the person has not seen is
        given without it."""
        try:
            return read_game(data)
        except PositionError as exc:
            seen = set(self.game.hands[-1].deal[SEATS.index(self.seat)])
            seen.update(t for t in (given.get("plays") or []) if isinstance(t, str))
            hidden = set(T.NAMES) - seen
            if any(text in hidden for text in _TILE_TEXT.findall(exc.reason)):
                raise PositionError(exc.field, "does not agree with the table's hand (a tile "
                                    "not held, or not a legal play there)", exc.code) from None
            raise

    # ------------------------------------------------------------------ the bots

    def bot_of(self, seat: str) -> dict[str, Any]:
        return self.state["bots"][seat]

    def recorded(self, seated: Seated) -> dict[str, Any] | None:
        """The bot decision the table recorded at the client's point (the client is
        behind), or None."""
        if not seated.behind:
            return None
        step = len(_table_actions(seated.hand))
        return self.state["decisions"][self.index].get(str(step))

    def decide(self, seated: Seated, cancel: Any = None) -> dict[str, Any]:
        """The bot at the seat to act decides (seeded from the secret and the step) and
        the table records it. Returns `next_action_figures`'s answer."""
        turn = seated.game.next_action()
        assert turn is not None and turn["seat"] != self.seat and not seated.behind
        options = self.bot_of(turn["seat"])
        step = len(_table_actions(seated.hand))
        bot = make_bot(options["name"], seed=_derived(self._secret, f"bot {self.index} {step}"),
                       hint_deals=options["hint_deals"], advice_deals=options["advice_deals"])
        if hasattr(bot, "token") and cancel is not None:
            bot.token = cancel   # the bot's search stops when the request is cancelled
        found = next_action_figures(seated.game, bot)
        self._record_bot(found, step)
        return found

    def _record_bot(self, found: Mapping[str, Any], step: int) -> None:
        data = copy.deepcopy(self.state["record"])
        hand = data["hands"][-1]
        action, answer = found["action"], found["answer"]
        game = self.game
        if action == "call":
            hand["auction"].append({"seat": found["seat"], "bid": answer})
        elif action == "play":
            hand.setdefault("plays", []).append(T.name_of(answer))
        else:
            declaration = answer if action == "declare" else found["declaration"]
            auction = game.hands[-1].auction
            contract: dict[str, Any] = {"declarer": SEATS[auction.winner],  # type: ignore[index]
                                        "bid": auction.bid, **declaration.contract_fields()}
            if auction.kind != "standard":
                contract["kind"] = auction.kind
            if action == "discard":
                contract["discard"] = T.name_of(answer)
            hand["contract"], hand["plays"] = contract, []
        self._set_record(read_game(data))
        self.state["decisions"][self.index][str(step)] = found_to_json(found)

    # ------------------------------------------------------------------ showing

    def widow(self, seated: Seated) -> str:
        """The three-player Moon widow, for the person who won the auction."""
        hand = seated.hand
        if not hand.rules.three_handed:
            raise TableRefused("only three-player Moon has a widow", "NO_WIDOW")
        if not hand.auction.is_over:
            raise TableRefused("the auction is not over: the widow goes to its winner",
                               "AUCTION_NOT_OVER")
        if hand.thrown_in:
            raise TableRefused("every seat passed: the hand is thrown in", "THROWN_IN")
        if not seated.person_declares:
            raise TableRefused(f"{SEATS[hand.auction.winner]} won the auction, not "  # type: ignore[index]
                               f"{self.seat}: the widow is the winner's", "NOT_THE_DECLARER")
        assert hand.widow is not None
        return hand.widow

    def reveal(self, seated: Seated) -> dict[str, Any]:
        """The whole deal of a hand that is over: hands, widow, discard, seed, and the
        bots' recorded decisions with their figures."""
        hand = seated.hand
        if not hand_may_stop(hand):
            raise TableRefused("the hand is not over: the deal is shown once it is thrown in, "
                               "every trick is played, or (42) its outcome is decided",
                               "HAND_NOT_OVER")
        k = len(seated.game.hands) - 1
        seed = self.state["seeds"][k]
        return {"hands": {SEATS[s]: [T.name_of(t) for t in tiles]
                          for s, tiles in hand.deal_ids.items()},
                "widow": hand.widow, "discard": hand.discard, "seed": seed,
                "decisions": [self.state["decisions"][k][step]
                              for step in sorted(self.state["decisions"][k], key=int)]}

    def person_record(self) -> dict[str, Any]:
        """The table's record as its person may see it: earlier hands whole; the current
        hand with the person's tiles, the calls, the contract (a bot's discard left
        out), the plays, and the widow once the person won it; all of it once the hand
        is over."""
        data = copy.deepcopy(self.state["record"])
        if not data["hands"]:
            return data
        last = data["hands"][-1]
        hand = self.game.hands[-1]
        if hand_may_stop(hand):
            return data
        last["hands"] = {self.seat: last["hands"][self.seat]}
        winner = hand.auction.winner if hand.auction.is_over else None
        if winner is None or SEATS[winner] != self.seat:
            last.pop("widow", None)
            if isinstance(last.get("contract"), dict):
                last["contract"].pop("discard", None)
        return data


def found_to_json(found: Mapping[str, Any]) -> dict[str, Any]:
    """`next_action_figures`'s answer ``found`` as JSON (to store, and to give back as it
    was by `found_from_json`)."""
    answer, declaration = found["answer"], found["declaration"]
    out: dict[str, Any] = {"seat": found["seat"], "action": found["action"],
                           "figures": found["figures"]}
    if found["action"] in ("play", "discard"):
        out["answer"] = T.name_of(answer)
    elif found["action"] == "declare":
        out["answer"] = {"trump": answer.trump, "doubles": answer.doubles}
    else:
        out["answer"] = answer
    if declaration is not None:
        out["declaration"] = {"trump": declaration.trump, "doubles": declaration.doubles}
    if isinstance(out["figures"], dict) and "declaration" in out["figures"]:
        out["figures"] = dict(out["figures"])
    return out


def found_from_json(data: Mapping[str, Any]) -> dict[str, Any]:
    """`found_to_json`'s inverse: the stored ``data`` as `next_action_figures` gives it."""
    from ..game.call_view import Declaration
    action, answer = data["action"], data["answer"]
    if action in ("play", "discard"):
        answer = T.parse_tile(answer, "answer")
    elif action == "declare":
        answer = Declaration(answer["trump"], answer["doubles"])
    declaration = data.get("declaration")
    return {"seat": data["seat"], "action": action, "answer": answer,
            "declaration": Declaration(declaration["trump"], declaration["doubles"])
            if declaration else None, "figures": data.get("figures")}


# ---------------------------------------------------------------------- the room


class Tables:
    """The tables of a store, and the tokens that name them.

    Args:
        store: Where the tables live.
        key: The key that signs the tokens; None: the store's own (kept in its database,
            so that a restart on the same file honours the tokens it gave).

    >>> tables = Tables(TableStore())
    >>> dealt = tables.open({"game": "42", "first_shaker": "N"}, "S",
    ...                     {s: {"name": "rule"} for s in "NEW"})
    >>> len(dealt["hand"]), dealt["practice"]
    (7, False)
    """

    def __init__(self, store: TableStore, key: bytes | None = None) -> None:
        self.store = store
        self._key = key if key is not None else store.key()

    # ------------------------------------------------------------------ tokens

    def token(self, table_id: str, hand: int) -> str:
        """The token of hand ``hand`` of the table: its one canonical form."""
        body = f"{table_id}.{hand}"
        mac = hmac.new(self._key, body.encode(), hashlib.sha256).digest()[:16]
        return f"{body}.{_b64(mac)}"

    def read_token(self, token: object, field: str = "sealed") -> tuple[str, int]:
        """The table id and hand a token names; `PositionError` unless it is exactly a
        token this key signed."""
        if not token:
            raise PositionError(field, "required: the token of the hand (DealHand)",
                                "MISSING_FIELD")
        match = _TOKEN.fullmatch(token) if isinstance(token, str) else None
        if match is None or not hmac.compare_digest(
                self.token(match.group(1), int(match.group(2))), token):
            raise PositionError(field, "not a token of this table server (altered, from a "
                                "server with another table key, or the server restarted "
                                "with a new one): deal the hand again", "SEALED_INVALID")
        return match.group(1), int(match.group(2))

    # ------------------------------------------------------------------ loading

    def _load(self, table_id: str, field: str = "sealed") -> tuple[Table, int]:
        found = self.store.load(table_id)
        if found is None:
            raise PositionError(field, "this server has no such table (it was restarted "
                                "without its table database?): deal the hand again",
                                "TABLE_UNKNOWN")
        state, version = found
        try:
            table = Table(state)
            table.game   # the record reads
            if len(table.state["seeds"]) != table.index + 1 or \
                    len(table.state["decisions"]) != table.index + 1:
                raise ValueError("seeds or decisions do not match the hands")
        except (KeyError, TypeError, ValueError):   # PositionError is a ValueError
            raise PositionError(field, "the table's stored state is damaged: deal the hand "
                                "again", "TABLE_UNKNOWN") from None
        return table, version

    def _apply(self, token: str, step: Callable[[Table, int], Any]) -> Any:
        """Run ``step`` on the token's table and save what it changed over the version it
        loaded, again from the start when another request saved first."""
        table_id, hand = self.read_token(token)
        for _ in range(_RETRIES):
            table, version = self._load(table_id)
            result = step(table, hand)
            if not table.changed or self.store.save(table_id, table.state, version):
                return result
        raise TableRefused("the table is busy with other requests: try again", "TABLE_BUSY")

    # ------------------------------------------------------------------ requests

    def open(self, header: Mapping[str, Any], seat: str,
             bots: Mapping[str, Mapping[str, Any]], *, practice: bool = False,
             seed: int | None = None, carried: list[Any] | None = None) -> dict[str, Any]:
        """Set a new table and deal its first hand (or the hand after the ``carried``
        ones). Returns ``{"token", "hand", "practice", "carried"}``."""
        if seed is not None and not practice:
            raise PositionError("seed", "a seed chooses the deal only at a practice table "
                                "(practice: true), whose hands are not sealed; a sealed "
                                "table deals from its own secret", "SEED_AT_SEALED_TABLE")
        table = Table.new(header, seat, bots, practice=practice, carried=carried)
        tiles = table.deal(seed if seed is not None else
                           (secrets.randbits(63) if practice else None))
        table_id = self.store.create(table.state)
        return {"token": self.token(table_id, table.index), "hand": tiles,
                "practice": table.practice, "carried": table.carried}

    def deal_next(self, token: str, record: Mapping[str, Any],
                  seed: int | None = None) -> dict[str, Any]:
        """The table's next hand, once the client's record (ending with the token's hand)
        is the table's and that hand is over; asked again, the same hand."""
        table_id, _ = self.read_token(token)

        def step(table: Table, hand: int) -> dict[str, Any]:
            if seed is not None and not table.practice:
                raise PositionError("seed", "a sealed table deals from its own secret: leave "
                                    "the seed out", "SEED_AT_SEALED_TABLE")
            if hand == table.index - 1:   # dealt already: the same hand again
                table._check_finished_hands(record, hand + 1)
                return {"token": self.token(table_id, table.index),
                        "hand": table.game.hands[-1].deal[SEATS.index(table.seat)]}
            if hand != table.index:
                raise TableRefused(f"the table is at hand {table.index + 1}: continue with "
                                   "its latest token", "HAND_OVER")
            table._check_finished_hands(record, hand)
            seated, _ = table.sync(record, hand)
            if seated.behind or not hand_may_stop(seated.hand):
                raise TableRefused(f"hand {hand + 1} is not over: the next hand is dealt "
                                   "once it is", "HAND_NOT_OVER")
            tiles = table.deal(None if seed is None else seed)
            return {"token": self.token(table_id, table.index), "hand": tiles}

        out = self._apply(token, step)
        table, _ = self._load(table_id)
        return {**out, "practice": table.practice, "carried": table.carried}

    def check(self, token: str, record: Mapping[str, Any]) -> Seated:
        """The client's record applied to its table (the person's new actions recorded):
        the `Seated` game."""
        return self._apply(token, lambda table, hand: table.sync(record, hand, old_ok=True)[0])

    def next_action(self, token: str, record: Mapping[str, Any], seat: str,
                    ask: Callable[[GameRecord], dict[str, Any]] | None = None,
                    cancel: Any = None) -> tuple[Seated, dict[str, Any], bool]:
        """What the seat to act does next: for a bot's seat the table's bot decides (or
        the recorded decision is given again); for the person's seat ``ask`` (a bot the
        client chose, from the person's view; nothing is recorded). Returns the seated
        game, `next_action_figures`'s answer, and whether it is a bot's."""
        def step(table: Table, hand: int) -> tuple[Seated, dict[str, Any], bool]:
            seated, _ = table.sync(record, hand)
            turn = seated.hand.next_action()
            if turn is None:
                raise TableRefused("the hand is over: deal the next hand (DealHand)",
                                   "HAND_OVER")
            if turn["seat"] != seat:
                raise PositionError("seat", f"it is {turn['seat']}'s turn to "
                                    f"{turn['action']}, not {seat}'s", "OUT_OF_TURN")
            if seat == table.seat:
                if ask is None:
                    raise PositionError("bot", "the person's own seat: name a bot to ask",
                                        "MISSING_FIELD")
                return seated, ask(seated.game), False
            recorded = table.recorded(seated)
            if recorded is not None:
                return seated, found_from_json(recorded), True
            return seated, table.decide(seated, cancel), True

        return self._apply(token, step)

    def widow(self, token: str, record: Mapping[str, Any]) -> str:
        return self._apply(token, lambda table, hand: table.widow(table.sync(record, hand)[0]))

    def reveal(self, token: str, record: Mapping[str, Any]) -> dict[str, Any]:
        return self._apply(token, lambda table, hand: table.reveal(
            table.sync(record, hand, old_ok=True)[0]))

    def table_of(self, token: str) -> Table:
        """The token's table as stored (for a bot's options, or to resume)."""
        table_id, _ = self.read_token(token)
        return self._load(table_id)[0]

    def finished_games(self, tokens: list[str], field: str = "sealed") -> dict[str, Any]:
        """The finished games of the tables the ``tokens`` name (a person is the tokens
        it holds: nothing else is listed). A token this key did not sign, or of a table
        this store does not have, is a `PositionError` naming it (``sealed[2]``).

        Returns:
            ``{"games": [...], "pending": [...]}``: per finished table, the latest first,
            ``{"token"`` (the first given for it), ``"record"`` (every hand whole),
            ``"game"`` (it read), ``"seat"``, ``"practice"``, ``"carried"``,
            ``"finished"`` (seconds since the epoch)``}``; and the tokens of the tables
            whose games go on (their hands stay sealed).
        """
        first: dict[str, str] = {}
        for i, token in enumerate(tokens):
            table_id, _ = self.read_token(token, f"{field}[{i}]")
            if self.store.load(table_id) is None:
                raise PositionError(f"{field}[{i}]", "this server has no such table (it was "
                                    "restarted without its table database?)", "TABLE_UNKNOWN")
            first.setdefault(table_id, token)
        games = []
        done = set()
        for table_id, state, finished in self.store.finished_of(list(first)):
            try:
                table = Table(state)
                game = table.game
            except (KeyError, TypeError, ValueError):   # a damaged state: left out
                continue
            done.add(table_id)
            games.append({"token": first[table_id], "record": state["record"], "game": game,
                          "seat": table.seat, "practice": table.practice,
                          "carried": table.carried, "finished": finished})
        return {"games": games,
                "pending": [token for table_id, token in first.items() if table_id not in done]}

    def resume(self, token: str) -> dict[str, Any]:
        """Where the token's table is: ``{"token"`` (its current hand's), ``"record"``
        (as its person may see it), ``"seat"``, ``"bots"``, ``"practice"``,
        ``"carried"}``."""
        table_id, _ = self.read_token(token)
        table, _ = self._load(table_id)
        return {"token": self.token(table_id, table.index), "record": table.person_record(),
                "seat": table.seat, "bots": table.state["bots"], "practice": table.practice,
                "carried": table.carried}


__all__ = ["DEFAULT_BOT_DEALS", "MAX_BOT_DEALS", "Seated", "TABLE_BOTS", "Table",
           "TableRefused", "Tables", "check_bot", "found_from_json", "found_to_json"]
