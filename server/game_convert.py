"""CheckGame messages <-> game records (`solver.game.game_record`).

A proto `GameRecord` becomes the game record's JSON (docs/formats.md), which
`solver.read_game` judges; its `PositionError` field paths (``hands[2].auction[1].bid``,
``hands[0].hands.N[3]``, ``hands[1].contract.trump``) are mapped to the request's
(``record.hands[2].auction[1].bid``, ``record.hands[0].hands.north[3]``,
``record.hands[1].contract.declaration``). The answer is the record's score pad, the
same content as `GameRecord.summary_json` (``t42 game --json``).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from solver.game import tiles as T
from solver.game.errors import PositionError
from solver.game.game_record import GameRecord
from solver.play.program_bot import configured_hellos
from solver.play.table import DEFAULT_BOT_DEALS, MAX_BOT_DEALS, TABLE_BOTS
from texas42.v1 import game_pb2 as game_pb
from texas42.v1 import hint_service_pb2 as service_pb
from texas42.v1 import position_pb2 as pb
from texas42.v1 import table_pb2 as table_pb

from .convert import (DECLARATIONS, DOUBLES, ENUM_OF_DECLARATION, ENUM_OF_DOUBLES, ENUM_OF_SEAT,
                      GAMES, HAND_FIELD, KINDS, SEAT_OF_ENUM, _contract_to_json, _enum,
                      _hands_to_json, _value_of, position_from_json)

ALL_PASS = {game_pb.ALL_PASS_RULE_FORCED: "forced", game_pb.ALL_PASS_RULE_RESHAKE: "reshake"}
MOON_SCORING = {game_pb.MOON_SCORING_POINTS: "points", game_pb.MOON_SCORING_MARKS: "marks"}
SPECIAL_KINDS = {pb.CONTRACT_KIND_PLUNGE: "plunge", pb.CONTRACT_KIND_SPLASH: "splash"}
ACTIONS = {"call": game_pb.GAME_ACTION_CALL, "declare": game_pb.GAME_ACTION_DECLARE,
           "discard": game_pb.GAME_ACTION_DISCARD, "play": game_pb.GAME_ACTION_PLAY}
ENUM_OF_KIND = {name: value for value, name in KINDS.items()}

_HAND_PATH = re.compile(r"^(hands\[\d+\])\.hands\.([NESW])(.*)$")
_CONTRACT_PATH = re.compile(r"^(hands\[\d+\])\.contract\.(trump|discard)$")


def _prefixed(prefix: str, exc: PositionError) -> PositionError:
    return PositionError(f"{prefix}.{exc.field}", exc.reason, exc.code)


def record_to_json(message: game_pb.GameRecord) -> dict[str, Any]:
    """The game record JSON of the proto `GameRecord` ``message``; unset fields are left
    out.

    Raises `PositionError` (with a JSON field path) only for what JSON cannot
    express: an enum number outside the API, a plunge call with a bid.
    """
    data: dict[str, Any] = {}
    if message.id:
        data["id"] = message.id
    data["game"] = _enum(GAMES, message.game, "game", "game", "UNKNOWN_GAME") \
        if message.game else "42"
    if message.players:
        data["players"] = message.players
    if message.HasField("rules"):
        data["rules"] = _rules_to_json(message.rules)
    if message.first_shaker:
        data["first_shaker"] = _enum(SEAT_OF_ENUM, message.first_shaker, "first_shaker", "seat",
                                     "UNKNOWN_SEAT")
    data["hands"] = [_hand_to_json(hand, f"hands[{i}]") for i, hand in enumerate(message.hands)]
    return data


def _rules_to_json(rules: game_pb.GameRules) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if rules.all_pass:
        out["all_pass"] = _enum(ALL_PASS, rules.all_pass, "rules.all_pass", "all_pass rule",
                                "INVALID_OPTION")
    for name in ("splash", "nello_min_marks", "min_bid"):
        if rules.HasField(name):
            out[name] = getattr(rules, name)
    if rules.score:
        out["score"] = _enum(MOON_SCORING, rules.score, "rules.score", "scoring",
                             "INVALID_OPTION")
    return out


def _hand_to_json(hand: game_pb.GameHand, where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if hand.HasField("hands"):
        out["hands"] = _hands_to_json(hand.hands)
    if hand.widow:
        out["widow"] = hand.widow
    out["auction"] = [_call_to_json(call, f"{where}.auction[{i}]")
                      for i, call in enumerate(hand.auction)]
    if hand.HasField("contract"):
        try:
            contract = _contract_to_json(hand.contract)
        except PositionError as exc:
            raise _prefixed(where, exc) from None
        if hand.discard:
            contract["discard"] = hand.discard
        out["contract"] = contract
        out["plays"] = list(hand.plays)
    elif hand.plays:
        out["plays"] = list(hand.plays)
    return out


def _call_to_json(call: game_pb.GameCall, where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if call.seat:
        out["seat"] = _enum(SEAT_OF_ENUM, call.seat, f"{where}.seat", "seat", "UNKNOWN_SEAT")
    if call.kind in SPECIAL_KINDS:
        if call.bid:
            raise PositionError(f"{where}.bid", f"a {SPECIAL_KINDS[call.kind]} call carries no "
                                f"bid (leave it 0), not {call.bid}", "INVALID_VALUE")
        out["bid"] = SPECIAL_KINDS[call.kind]
    elif call.kind not in (pb.CONTRACT_KIND_UNSPECIFIED, pb.CONTRACT_KIND_STANDARD):
        raise PositionError(f"{where}.kind", f"unknown kind value {call.kind}", "UNKNOWN_KIND")
    else:
        out["bid"] = call.bid or "pass"
    return out


def record_field_path(json_field: str) -> str:
    """The CheckGame request field path of a `PositionError` raised on its record at the
    JSON path ``json_field``."""
    match = _HAND_PATH.match(json_field)
    if match:
        json_field = f"{match.group(1)}.hands.{HAND_FIELD[match.group(2)]}{match.group(3)}"
    match = _CONTRACT_PATH.match(json_field)
    if match:
        json_field = f"{match.group(1)}." + ("contract.declaration" if match.group(2) == "trump"
                                             else "discard")
    return "record" if json_field in ("", "record") else f"record.{json_field}"


def _contract_to_proto(contract: Mapping[str, Any]) -> pb.Contract:
    return pb.Contract(declarer=ENUM_OF_SEAT[contract["declarer"]],
                       declaration=ENUM_OF_DECLARATION[contract["trump"]], bid=contract["bid"],
                       kind=ENUM_OF_KIND[contract.get("kind", "standard")],
                       doubles=ENUM_OF_DOUBLES[contract.get("doubles", "high")])


def summary_to_proto(game: GameRecord) -> service_pb.CheckGameResponse:
    """The score pad of the checked record ``game`` (`GameRecord.summary_json`) as the
    response."""
    summary = game.summary_json()
    response = service_pb.CheckGameResponse(score=summary["score"])
    for hand in summary["hands"]:
        result = response.hands.add(shaker=ENUM_OF_SEAT[hand["shaker"]], score=hand["score"])
        if hand["contract"] is not None:
            result.contract.CopyFrom(_contract_to_proto(hand["contract"]))
            result.discard = hand["contract"].get("discard", "")
        if hand["made"] is not None:
            result.made = hand["made"]
    if summary["winner"] is not None:
        response.winner = summary["winner"]
    turn = summary["next"]
    if turn is not None:
        response.next.seat = ENUM_OF_SEAT[turn["seat"]]
        response.next.action = ACTIONS[turn["action"]]
    return response


# ------------------------------------------------------------- client conveniences


def fill_call(message: game_pb.GameCall, bid: int | str) -> None:
    """A call (a bid, or ``pass``, ``plunge``, ``splash`` in any case) into ``message``:
    the bid, or the plunge/splash kind; a pass leaves both unset."""
    word = str(bid).lower()
    if word in ("plunge", "splash"):
        message.kind = ENUM_OF_KIND[word]
    elif word != "pass":
        message.bid = int(bid)


def record_from_json(data: Mapping[str, Any]) -> game_pb.GameRecord:
    """A proto `GameRecord` from the game record dict ``data`` (a client-side convenience;
    the server still checks everything). ``meta`` is not carried."""
    message = game_pb.GameRecord()
    if data.get("id") is not None:
        message.id = str(data["id"])
    message.game = _value_of(GAMES, str(data.get("game", "42")).lower(), "game")
    if data.get("players") is not None:
        message.players = int(data["players"])
    rules = data.get("rules")
    if rules is not None:
        message.rules.SetInParent()
        for name, value in rules.items():
            if name == "all_pass":
                message.rules.all_pass = _value_of(ALL_PASS, str(value).lower(),
                                                   "rules.all_pass")
            elif name == "score":
                message.rules.score = _value_of(MOON_SCORING, str(value).lower(), "rules.score")
            else:
                setattr(message.rules, name, value)
    if data.get("first_shaker") is not None:
        message.first_shaker = _value_of(SEAT_OF_ENUM, str(data["first_shaker"]).upper(),
                                         "first_shaker")
    for i, raw in enumerate(data.get("hands") or []):
        hand = message.hands.add()
        for seat, name in HAND_FIELD.items():
            tiles = (raw.get("hands") or {}).get(seat, [])
            getattr(hand.hands, name).extend(str(t) for t in tiles)
        if raw.get("widow") is not None:
            hand.widow = str(raw["widow"])
        for j, call in enumerate(raw.get("auction") or []):
            added = hand.auction.add()
            if call.get("seat") is not None:
                added.seat = _value_of(SEAT_OF_ENUM, str(call["seat"]).upper(),
                                       f"hands[{i}].auction[{j}].seat")
            fill_call(added, call.get("bid", "pass"))
        contract = raw.get("contract")
        if contract is not None:
            hand.contract.CopyFrom(position_from_json({"contract": contract}).contract)
            if contract.get("discard") is not None:
                hand.discard = str(contract["discard"])
        hand.plays.extend(str(t) for t in raw.get("plays") or [])
    return message


def summary_from_proto(response: service_pb.CheckGameResponse) -> dict[str, Any]:
    """A CheckGame response in the form of `GameRecord.summary_json` (``t42 game --json``)."""
    hands = []
    for hand in response.hands:
        contract = None
        if hand.HasField("contract"):
            c = hand.contract
            contract = {"declarer": SEAT_OF_ENUM[c.declarer],
                        "trump": DECLARATIONS[c.declaration],
                        "bid": c.bid}
            if c.kind not in (pb.CONTRACT_KIND_UNSPECIFIED, pb.CONTRACT_KIND_STANDARD):
                contract["kind"] = KINDS[c.kind]
            if c.doubles not in (pb.DOUBLES_OPTION_UNSPECIFIED, pb.DOUBLES_OPTION_HIGH):
                contract["doubles"] = DOUBLES[c.doubles]
            if hand.discard:
                contract["discard"] = hand.discard
        hands.append({"shaker": SEAT_OF_ENUM[hand.shaker], "contract": contract,
                      "made": hand.made if hand.HasField("made") else None,
                      "score": dict(hand.score)})
    actions = {value: name for name, value in ACTIONS.items()}
    turn = {"seat": SEAT_OF_ENUM[response.next.seat], "action": actions[response.next.action]} \
        if response.HasField("next") else None
    return {"hands": hands, "score": dict(response.score),
            "winner": response.winner if response.HasField("winner") else None, "next": turn}


# ------------------------------------------------------------------- NextAction

#: The bots NextAction asks: a table's (every bot of games, and ``hint``: ``advice``
#: under its play-only name), in the order an unknown bot's error lists them.
NEXT_ACTION_BOTS = TABLE_BOTS


def next_action_bot_options(request: service_pb.NextActionRequest) -> dict[str, Any]:
    """The `make_bot` arguments of a NextAction request, checked (a `PositionError` names
    ``bot``, ``advice_deals`` or ``hint_deals``): a bot of `NEXT_ACTION_BOTS` or a
    program bot the server was configured with."""
    # The program bots the server was started with (--bot NAME=COMMAND) are asked by
    # their names too; a client never names a command.
    programs = tuple(configured_hellos())
    if request.bot not in NEXT_ACTION_BOTS and request.bot not in programs:
        raise PositionError("bot", f"unknown bot {request.bot[:20]!r} (one of "
                            f"{', '.join(NEXT_ACTION_BOTS + programs)})", "UNKNOWN_BOT")
    options: dict[str, Any] = {"name": request.bot, "seed": request.seed}
    for name in ("advice_deals", "hint_deals"):
        value = getattr(request, name) if request.HasField(name) else DEFAULT_BOT_DEALS
        if not 1 <= value <= MAX_BOT_DEALS:
            raise PositionError(name, f"must be 1..{MAX_BOT_DEALS}, not {value}",
                                "OUT_OF_RANGE")
        options[name] = value
    return options


def check_turn(game: GameRecord, seat: int) -> None:
    """Refuse (naming ``seat``) a seat that is not the one to act, or a game that is over."""
    letter = SEAT_OF_ENUM.get(seat)
    if letter is None:
        raise PositionError("seat", "the seat to act is required" if not seat
                            else f"unknown seat value {seat}",
                            "MISSING_FIELD" if not seat else "UNKNOWN_SEAT")
    turn = game.next_action()
    if turn is None:
        raise PositionError("seat", "the game is over: no seat is to act", "GAME_OVER")
    if game.hands and game.hands[-1].finished or not game.hands:
        raise PositionError("hands", "the next hand is not dealt yet: add it to the "
                            "record (its hands and an empty auction)", "MISSING_FIELD")
    if turn["seat"] != letter:
        raise PositionError("seat", f"it is {turn['seat']}'s turn to {turn['action']}, "
                            f"not {letter}'s", "OUT_OF_TURN")


def next_action_to_proto(found: Mapping[str, Any],
                         out: service_pb.NextActionResponse | table_pb.BotDecision | None = None
                         ) -> service_pb.NextActionResponse | table_pb.BotDecision:
    """`solver.play.game_play.next_action_figures`'s answer ``found`` as the response
    (or into ``out``, a message with the same fields: a table's `BotDecision`)."""
    if out is None:
        out = service_pb.NextActionResponse()
    out.action, out.seat = ACTIONS[found["action"]], ENUM_OF_SEAT[found["seat"]]
    answer, action = found["answer"], found["action"]
    if action == "call":
        out.call.seat = out.seat
        fill_call(out.call, answer)
    elif action == "declare":
        out.declaration = ENUM_OF_DECLARATION[answer.trump]
        out.doubles = ENUM_OF_DOUBLES[answer.doubles]
    else:
        out.tile = T.name_of(answer)
        if found["declaration"] is not None:
            out.declaration = ENUM_OF_DECLARATION[found["declaration"].trump]
            out.doubles = ENUM_OF_DOUBLES[found["declaration"].doubles]
    figures = found["figures"]
    if figures is not None:
        out.figures.p_make = figures["p_make"]
        out.figures.deals = figures["deals"]
        if "declaration" in figures:
            out.figures.declaration = ENUM_OF_DECLARATION[figures["declaration"]]
            out.figures.bid = figures["bid"]
        if figures.get("mean") is not None:
            out.figures.mean = figures["mean"]
    return out


def next_action_from_proto(response: service_pb.NextActionResponse) -> Any:
    """The answer of a NextAction response in `solver.play.game_play.next_action`'s form
    (a call, a `Declaration`, or a tile number) — a client-side convenience."""
    from solver.game.call_view import Declaration
    if response.action == game_pb.GAME_ACTION_CALL:
        if response.call.kind in SPECIAL_KINDS:
            return SPECIAL_KINDS[response.call.kind]
        return response.call.bid or "pass"
    if response.action == game_pb.GAME_ACTION_DECLARE:
        return Declaration(DECLARATIONS[response.declaration], DOUBLES[response.doubles])
    return T.parse_tile(response.tile, "tile")
