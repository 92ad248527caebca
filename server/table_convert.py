"""The table RPCs' conversions: requests into `solver.play.table.Tables` calls, and the
table's answers (legal actions, the hand's progress, the revealed deal, where a table
is) into messages.

The rules of the table (what a person may see and do, the deal, the bots) are
`solver.play.table`'s; this module converts.
"""

from __future__ import annotations

from typing import Any

from solver.game.auction import SEATS
from solver.game.errors import PositionError
from solver.game.game_record import GameRecord
from solver.game.progress import hand_may_stop, hand_progress, legal_actions
from solver.play.table import TableRefused, Tables, check_bot
from texas42.v1 import hint_service_pb2 as service_pb
from texas42.v1 import table_pb2 as table_pb

from .convert import (
    GAMES,
    ENUM_OF_DECLARATION,
    ENUM_OF_DOUBLES,
    ENUM_OF_SEAT,
    HAND_FIELD,
    SEAT_OF_ENUM,
)
from .game_convert import fill_call, next_action_to_proto, record_from_json, record_to_json

#: A table request at the wrong moment (FAILED_PRECONDITION): the reason in words.
Refused = TableRefused


def _seat_letter(seat: int, players: int, field: str = "seat") -> str:
    letter = SEAT_OF_ENUM.get(seat)
    if letter is None:
        raise PositionError(field, "the person's seat is required" if not seat
                            else f"unknown seat value {seat}",
                            "MISSING_FIELD" if not seat else "UNKNOWN_SEAT")
    if letter not in SEATS[:players]:
        raise PositionError(field, f"{letter} is not a seat of a {players}-player game",
                            "UNKNOWN_SEAT")
    return letter


def _bots(request: table_pb.DealHandRequest, person: str, players: int,
          game: str) -> dict[str, Any]:
    """The table's bots from the request: every other seat, advice where none is named."""
    bots: dict[str, Any] = {}
    for i, bot in enumerate(request.bots):
        field = f"bots[{i}]"
        seat = _seat_letter(bot.seat, players, f"{field}.seat")
        if seat == person or seat in bots:
            raise PositionError(f"{field}.seat", f"{seat} is the person's seat" if seat == person
                                else f"{seat} is named twice", "INVALID_VALUE")
        bots[seat] = check_bot(bot.bot or "advice",
                               bot.advice_deals if bot.HasField("advice_deals") else None,
                               bot.hint_deals if bot.HasField("hint_deals") else None, field,
                               game)
    for seat in SEATS[:players]:
        if seat != person and seat not in bots:
            bots[seat] = check_bot("advice")
    return bots


def _bot_messages(bots: dict[str, Any]) -> list[table_pb.TableBot]:
    return [table_pb.TableBot(seat=ENUM_OF_SEAT[seat], bot=bot["name"],
                              advice_deals=bot["advice_deals"], hint_deals=bot["hint_deals"])
            for seat, bot in bots.items()]


# ---------------------------------------------------------------------- DealHand


def deal_hand(tables: Tables, request: table_pb.DealHandRequest) -> table_pb.DealHandResponse:
    """A new table and its first hand, or (with a token) the table's next hand, from the
    DealHand ``request``, at ``tables``."""
    data = record_to_json(request.record)
    seed = request.seed if request.HasField("seed") else None
    if request.sealed:
        if request.bots or request.practice:
            raise PositionError("bots" if request.bots else "practice", "a table's bots and "
                                "kind are set with the table: leave them out with a token",
                                "INVALID_VALUE")
        dealt = tables.deal_next(request.sealed, data, seed)
    else:
        header = {k: v for k, v in data.items() if k != "hands"}
        players = 3 if data.get("players") == 3 else 4
        letter = _seat_letter(request.seat, players)
        dealt = tables.open(header, letter, _bots(request, letter, players,
                                                  data.get("game", "42")),
                            practice=request.practice, seed=seed,
                            carried=data.get("hands") or None)
    return table_pb.DealHandResponse(sealed=dealt["token"], hand=dealt["hand"],
                                     practice=dealt["practice"], carried=dealt["carried"])


def bot_request_fits(tables: Tables, token: str, seat: str,
                     request: service_pb.NextActionRequest) -> bool:
    """Whether a NextAction ``request`` for ``seat`` at the ``token``'s table (one of
    ``tables``) is for one of the table's bots; a request that names another bot, a seed
    or other deals for it is refused (a table's bots are fixed when it is set)."""
    table = tables.table_of(token)
    if seat == table.seat:
        return False
    if seat not in table.state["bots"]:
        return True   # not a seat of the game: the table's turn check names it
    bot = table.bot_of(seat)
    for field, mine in (("bot", request.bot), ("seed", request.seed)):
        if mine and (field == "seed" or mine != bot["name"]):
            raise PositionError(field, f"the bots of a table are fixed when it is set ({seat}: "
                                f"{bot['name']}, seeded by the table): leave {field} out",
                                "TABLE_BOT_FIXED")
    for field in ("advice_deals", "hint_deals"):
        if request.HasField(field) and getattr(request, field) != bot[field]:
            raise PositionError(field, f"the bots of a table are fixed when it is set ({seat}: "
                                f"{field} {bot[field]}): leave it out", "TABLE_BOT_FIXED")
    return True


# --------------------------------------------------------------- answers


def legal_to_proto(game: GameRecord) -> table_pb.GameLegal:
    """`solver.game.progress.legal_actions` of the ``game`` as a `GameLegal` message."""
    legal = legal_actions(game)
    out = table_pb.GameLegal(tiles=legal["tiles"])
    seat = ENUM_OF_SEAT[legal["seat"]] if legal["seat"] else 0
    for call in legal["calls"]:
        fill_call(out.calls.add(seat=seat), call)
    out.declarations.extend(ENUM_OF_DECLARATION[name] for name in legal["declarations"])
    out.doubles.extend(ENUM_OF_DOUBLES[name] for name in legal["doubles"])
    return out


def progress_to_proto(game: GameRecord) -> table_pb.HandProgress:
    """`solver.game.progress.hand_progress` of the last hand as a `HandProgress`."""
    progress = hand_progress(game)
    out = table_pb.HandProgress(taken=progress["taken"])
    for trick in progress["tricks"]:
        added = out.tricks.add(leader=ENUM_OF_SEAT[trick["leader"]],
                               tiles=[t for _, t in trick["plays"]],
                               seats=[ENUM_OF_SEAT[s] for s, _ in trick["plays"]],
                               points=trick["points"])
        if trick["winner"] is not None:
            added.winner = ENUM_OF_SEAT[trick["winner"]]
            added.taken_by = game.rules.key_of(SEATS.index(trick["winner"]))
    if progress["made"] is not None:
        out.made = progress["made"]
    out.over = bool(game.hands) and hand_may_stop(game.hands[-1])
    return out


def reveal_to_proto(revealed: dict[str, Any]) -> table_pb.RevealHandResponse:
    """`Tables.reveal`'s answer ``revealed`` as the response."""
    from solver.play.table import found_from_json
    out = table_pb.RevealHandResponse(seed=revealed["seed"] or 0,
                                      widow=revealed["widow"] or "",
                                      discard=revealed["discard"] or "")
    for seat, tiles in revealed["hands"].items():
        getattr(out.hands, HAND_FIELD[seat]).extend(tiles)
    for decision in revealed["decisions"]:
        next_action_to_proto(found_from_json(decision), out.decisions.add())
    return out


def bots_to_proto(request: table_pb.ListBotsRequest) -> table_pb.ListBotsResponse:
    """The bots a table of the ``request``'s game may seat: `TABLE_BOTS`, then the
    configured program bots that call and play its every declaration."""
    from solver.play.program_bot import table_programs
    from solver.play.table import TABLE_BOTS
    game = GAMES.get(request.game, "42") if request.game else "42"
    out = table_pb.ListBotsResponse()
    out.bots.extend(table_pb.TableBotInfo(name=name) for name in TABLE_BOTS)
    out.bots.extend(table_pb.TableBotInfo(name=name, program=True)
                    for name in table_programs(game))
    return out


def resume_to_proto(where: dict[str, Any]) -> table_pb.ResumeTableResponse:
    """`Tables.resume`'s answer ``where`` as the response."""
    return table_pb.ResumeTableResponse(
        record=record_from_json(where["record"]), sealed=where["token"],
        seat=ENUM_OF_SEAT[where["seat"]], bots=_bot_messages(where["bots"]),
        practice=where["practice"], carried=where["carried"])


__all__ = ["Refused", "bot_request_fits", "bots_to_proto", "deal_hand", "legal_to_proto", "progress_to_proto",
           "resume_to_proto", "reveal_to_proto"]
