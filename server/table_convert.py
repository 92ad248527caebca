"""The table RPCs' conversions: a client's record of a sealed hand filled in from its
token, and the table's answers (legal actions, the hand's progress, the revealed deal).

The client's record of the sealed hand (its last) holds what its person may see: the
auction, the contract and the plays, the person's tiles (or none), and a three-player
Moon widow or discard only when the person is the declarer. `open_sealed` checks the
token against the game and hand, checks that the bots' calls, declaration and plays in
the record are exactly those the token records (NextAction's answers: a guessed tile or
call of a bot's is refused alike whatever the bot holds, so that the server cannot be
used to try guesses out), puts the sealed deal (and a bot's discard) in, and reads the
record as strictly as CheckGame does; an error that would name a tile the
person has not seen is given without it. The game logic is `solver.game`'s
(`GameRecord`, `solver.game.progress`); this module converts.
"""

from __future__ import annotations

import copy
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from solver.game import tiles as T
from solver.game.auction import SEATS
from solver.game.errors import PositionError
from solver.game.game_record import GameRecord, read_game
from solver.game.jsondoc import CheckedObject
from solver.game.progress import hand_may_stop, hand_progress, legal_actions
from solver.hidden.dealer import Dealer
from texas42.v1 import game_pb2 as game_pb
from texas42.v1 import table_pb2 as table_pb

from .convert import (
    ENUM_OF_DECLARATION,
    ENUM_OF_DOUBLES,
    ENUM_OF_SEAT,
    HAND_FIELD,
    SEAT_OF_ENUM,
)
from .game_convert import fill_call, record_to_json
from .sealed import Sealer, record_digest


class Refused(Exception):
    """A table request at the wrong moment (FAILED_PRECONDITION): the reason in words."""


_TILE_TEXT = re.compile(r"\b[0-6]-[0-6]\b")


def _read(data: Mapping[str, Any]) -> GameRecord:
    return read_game(CheckedObject(data))


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


# ---------------------------------------------------------------------- DealHand


def deal_hand(sealer: Sealer, record: game_pb.GameRecord, seat: int,
              seed: int | None) -> table_pb.DealHandResponse:
    """Deal the next hand of ``record`` and seal it for the person at ``seat``: the
    ``sealer`` seals it, ``seed`` (None: a fresh one) deals it."""
    data = record_to_json(record)
    earlier = _read(data)
    rules = earlier.rules
    letter = _seat_letter(seat, rules.players)
    if seed is None:
        seed = secrets.randbits(63)
    deal = Dealer(rules.game, rules.players).deal(seed=seed)
    dealt = deal.hands
    hand: dict[str, Any] = {"hands": dealt, "auction": []}
    if deal.widow is not None:
        hand["widow"] = deal.widow
    k = len(earlier.hands)
    try:  # the earlier hands over, the game not won
        _read({**data, "players": rules.players, "hands": data["hands"] + [hand]})
    except PositionError as exc:
        if exc.field.startswith(f"hands[{k}]"):
            raise PositionError("record", "the game is over: no hand to deal"
                                if exc.code == "GAME_OVER" else exc.reason, exc.code) from None
        raise
    content = {"game": rules.game, "players": rules.players, "seat": letter, "index": k,
               "digest": record_digest(earlier), "seed": seed, "hands": dealt,
               "widow": hand.get("widow")}
    return table_pb.DealHandResponse(sealed=sealer.seal(content), hand=dealt[letter])


# --------------------------------------------------------------- a sealed record


@dataclass
class SealedHand:
    """A record whose last hand was filled in from its token, read and checked.

    Attributes:
        content: The token's content (the whole deal and its binding).
        game: The record read, its last hand dealt.
        seat: The person's seat.
        given: The client's JSON of the sealed hand.
    """

    content: dict[str, Any]
    game: GameRecord
    seat: str  # the person's seat
    given: dict[str, Any]  # the client's JSON of the sealed hand

    @property
    def hand(self):
        """The sealed hand (the record's last)."""
        return self.game.hands[-1]

    @property
    def person_declares(self) -> bool:
        winner = self.hand.auction.winner if self.hand.auction.is_over else None
        return winner is not None and SEATS[winner] == self.seat

    def seal(self, sealer: Sealer, **more: Any) -> str:
        return sealer.seal({k: v for k, v in {**self.content, **more}.items() if k != "v"})

    def seal_bot_action(self, sealer: Sealer, found: Mapping[str, Any]) -> str:
        """A new token that records a bot's action (`next_action_figures`'s answer): the
        record must then hold it as given, and holds no bot action the server did not
        give (so that no guessed tile or call of a bot's can be tried on the server)."""
        action, answer, seat = found["action"], found["answer"], found["seat"]
        more: dict[str, Any] = {}
        if action == "call":
            auction = self.given.get("auction") or []
            more["calls"] = self.content.get("calls", []) + [
                [len(auction), {"seat": seat, "bid": answer}]]
        elif action == "play":
            plays = self.given.get("plays") or []
            more["plays"] = self.content.get("plays", []) + [[len(plays), T.name_of(answer)]]
        else:
            declaration = answer if action == "declare" else found["declaration"]
            more["declaration"] = [declaration.trump, declaration.doubles]
            if action == "discard":
                more["discard"] = T.name_of(answer)
        return self.seal(sealer, **more)


def open_sealed(sealer: Sealer, record: game_pb.GameRecord, token: str) -> SealedHand:
    """The record with its sealed last hand filled in from ``token``, opened by
    ``sealer``, checked."""
    content = sealer.open(token)
    data = record_to_json(record)
    hands = data["hands"]
    k = len(hands) - 1
    if k < 0:
        sealer.check_binding(content, -1, "", "", 0)   # refused: no hand to fill
    earlier = _read({**data, "hands": hands[:k]})
    sealer.check_binding(content, k, record_digest(earlier), earlier.rules.game,
                         earlier.rules.players)
    person = content["seat"]
    where = f"hands[{k}]"
    given = hands[k]
    for seat, tiles in (given.get("hands") or {}).items():
        field = f"{where}.hands.{seat}"
        if seat != person:
            raise PositionError(field, "leave the other seats' tiles out: the server puts in "
                                "the sealed deal", "HIDDEN_HAND_GIVEN")
        parsed = sorted(T.parse_tile(t, f"{field}[{i}]") for i, t in enumerate(tiles))
        if parsed != sorted(T.parse_tile(t, field) for t in content["hands"][person]):
            raise PositionError(field, f"does not agree with the hand dealt to {person}: "
                                "send the tiles DealHand gave (or start a new hand)",
                                "SEALED_HAND_MISMATCH")
    page_widow = given.get("widow")
    contract = given.get("contract")
    page_discard = contract.get("discard") if isinstance(contract, dict) else None
    bot_discard = content.get("discard")
    if page_discard is not None and (bot_discard is not None
                                     or contract.get("declarer") != person):  # type: ignore[union-attr]
        raise PositionError(f"{where}.contract.discard", "leave it empty: a bot's discard is "
                            "the server's (in the token)", "HIDDEN_TILE_GIVEN")
    _check_bot_actions(given, content, where)
    filled = copy.deepcopy(data)
    hand = filled["hands"][k]
    hand["hands"] = copy.deepcopy(content["hands"])
    if content.get("widow") is not None:
        hand["widow"] = content["widow"]
    else:
        hand.pop("widow", None)
    if bot_discard is not None and isinstance(hand.get("contract"), dict):
        hand["contract"]["discard"] = bot_discard
    try:
        game = _read(filled)
    except PositionError as exc:
        raise _scrubbed(exc, content, given) from None
    sealed = SealedHand(content, game, person, given)
    names = sealed.hand.auction.declarer_names_trump if sealed.hand.auction.is_over else None
    if sealed.hand.contract is not None and names is not None and SEATS[names] != person:
        c = sealed.hand.contract
        if content.get("declaration") != [c.declaration.name, c.doubles]:
            raise PositionError(f"{where}.contract.declaration", f"not the declaration of the "
                                f"bot at {SEATS[names]}: declare what NextAction answers",
                                "NOT_THE_BOTS_ACTION")
    if page_widow is not None and (not sealed.person_declares
                                   or T.parse_tile(page_widow, f"{where}.widow")
                                   != T.parse_tile(content["widow"], "widow")):
        raise PositionError(f"{where}.widow", "leave it empty: the server puts in the sealed "
                            "widow", "HIDDEN_TILE_GIVEN")
    return sealed


def _check_bot_actions(given: Mapping[str, Any], content: Mapping[str, Any],
                       where: str) -> None:
    """The client's record holds exactly the bots' calls and plays the token records
    (NextAction's answers), before anything is read with the sealed deal: a call or a
    tile of a bot's that the server did not give is refused alike whatever the bot
    holds, so that the record cannot be used to try out guesses."""
    person = content["seat"]
    calls = {i: call for i, call in content.get("calls", [])}
    auction = given.get("auction") or []
    for i, call in enumerate(auction):
        seat = call.get("seat") if isinstance(call, dict) else None
        bots = i in calls or (seat is not None and seat != person)
        if bots and call != calls.get(i):
            raise PositionError(f"{where}.auction[{i}]", "not a call the server gave the bot: "
                                "call what NextAction answers", "NOT_THE_BOTS_ACTION")
    if any(i >= len(auction) for i in calls):
        raise PositionError(f"{where}.auction", "the bots' calls the token records are "
                            "missing: add each NextAction answer", "NOT_THE_BOTS_ACTION")
    owner = {t: s for s, tiles in content["hands"].items() for t in tiles}
    contract = given.get("contract")
    if content.get("widow"):
        owner[content["widow"]] = contract.get("declarer") if isinstance(contract, dict) \
            else None
    logged = {i: tile for i, tile in content.get("plays", [])}
    plays = given.get("plays") or []
    for i, tile in enumerate(plays):
        try:
            name = T.name_of(T.parse_tile(tile, f"{where}.plays[{i}]"))
        except PositionError:
            name = None
        bots = i in logged or owner.get(name) != person  # type: ignore[arg-type]
        if bots and name != logged.get(i):
            raise PositionError(f"{where}.plays[{i}]", "not a play the server gave a bot (nor a "
                                "tile of the person's): play what NextAction answers",
                                "NOT_THE_BOTS_ACTION")
    if any(i >= len(plays) for i in logged):
        raise PositionError(f"{where}.plays", "the bots' plays the token records are "
                            "missing: add each NextAction answer", "NOT_THE_BOTS_ACTION")


def _scrubbed(exc: PositionError, content: Mapping[str, Any],
              given: Mapping[str, Any]) -> PositionError:
    """``exc`` without the names of tiles the person has not seen (the other hands, the
    widow, a bot's discard), unless the client itself named them (its plays)."""
    seen = set(content["hands"][content["seat"]])
    for tile in given.get("plays") or []:
        try:
            seen.add(T.name_of(T.parse_tile(tile, "plays")))
        except PositionError:
            pass
    hidden = {t for seat, tiles in content["hands"].items() for t in tiles} - seen
    hidden |= {t for t in (content.get("widow"), content.get("discard")) if t} - seen
    if not any(text in hidden for text in _TILE_TEXT.findall(exc.reason)):
        return exc
    return PositionError(exc.field, "does not agree with the sealed hand (a tile not held, "
                         "or not a legal play there)", exc.code)


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


def reveal_to_proto(sealed: SealedHand) -> table_pb.RevealHandResponse:
    """The whole deal of a sealed hand that is over; `Refused` before."""
    hand = sealed.hand
    if not hand_may_stop(hand):
        raise Refused("the hand is not over: RevealHand answers once it is thrown in, "
                      "every trick is played, or (42) its outcome is decided")
    out = table_pb.RevealHandResponse(seed=sealed.content["seed"],
                                      widow=sealed.content.get("widow") or "")
    for seat, tiles in sealed.content["hands"].items():
        getattr(out.hands, HAND_FIELD[seat]).extend(tiles)
    if hand.discard is not None:
        out.discard = hand.discard
    return out


def widow_to_proto(sealed: SealedHand) -> table_pb.TakeWidowResponse:
    """The widow of the ``sealed`` hand for the person who won a three-player Moon
    auction; `Refused` else."""
    hand = sealed.hand
    if not hand.rules.three_handed:
        raise Refused("only three-player Moon has a widow")
    if not hand.auction.is_over:
        raise Refused("the auction is not over: the widow goes to its winner")
    if hand.thrown_in:
        raise Refused("every seat passed: the hand is thrown in")
    if not sealed.person_declares:
        raise Refused(f"{SEATS[hand.auction.winner]} won the auction, not {sealed.seat}: "  # type: ignore[index]
                      "the widow is the winner's")
    return table_pb.TakeWidowResponse(widow=sealed.content["widow"])


__all__ = ["Refused", "SealedHand", "deal_hand", "legal_to_proto", "open_sealed",
           "progress_to_proto", "reveal_to_proto", "widow_to_proto"]
