"""A game's last hand as a table shows it: the tricks so far (leader, tiles with their
seats, winner and points), the points (Moon: tricks) taken per score key, whether the
outcome is decided, whether the hand may stop there, and what the seat to act may do
(calls, declarations with their doubles options, plays or the three-player Moon
declarer's eight tiles to discard from).

Everything here is derived from a checked `GameRecord`; nothing is stored.
"""

from __future__ import annotations

from typing import Any

from . import tiles as T
from .auction import DOUBLES_OPTION_DECLARATIONS, SEATS
from .game_record import GameRecord, HandRecord
from .rules import DOUBLES_OPTIONS


def hand_progress(game: GameRecord) -> dict[str, Any]:
    """The last hand's play so far::

        {"tricks": [{"leader": "E", "plays": [["E", "6-4"], ...], "winner": "S" | None,
                     "points": 11}, ...],
         "taken": {"NS": 11, "EW": 0},   # points (Moon: tricks) per score key
         "made": True | False | None}    # the outcome once decided, else None

    A trick's ``winner`` and ``points`` are set once all its tiles are played (points:
    1 plus its count in 42, 1 trick in Moon). No hand, or no contract yet: no tricks.

    Args:
        game: The game record whose last hand is shown.
    """
    rules = game.rules
    taken = {key: 0 for key in rules.score_keys}
    out: dict[str, Any] = {"tricks": [], "taken": taken, "made": None}
    hand = game.hands[-1] if game.hands else None
    if hand is None or hand.position is None:
        return out
    pos = hand.position
    for winner, trick in pos.completed_tricks:
        points = pos.rules.trick_value([t for _, t in trick])
        out["tricks"].append({"leader": SEATS[trick[0][0]],
                              "plays": [[SEATS[s], T.name_of(t)] for s, t in trick],
                              "winner": SEATS[winner], "points": points})
        taken[rules.key_of(winner)] += points
    if pos.trick:
        out["tricks"].append({"leader": SEATS[pos.trick[0][0]],
                              "plays": [[SEATS[s], T.name_of(t)] for s, t in pos.trick],
                              "winner": None, "points": 0})
    out["made"] = hand.made if hand.made is not None else hand.decided()
    return out


def hand_may_stop(hand: HandRecord) -> bool:
    """Whether the hand is over as far as its table goes: thrown in, every trick played,
    or (42) its outcome decided (docs/rules/texas42.md: a 42 hand may stop there)."""
    if hand.thrown_in or hand.finished:
        return True
    pos = hand.position
    if pos is None:
        return False
    return pos.is_complete or (hand.rules.game == "42" and hand.decided() is not None)


def legal_actions(game: GameRecord) -> dict[str, Any]:
    """What the seat to act may do: ``{"seat", "action", "calls", "declarations",
    "doubles", "tiles"}`` (``seat``/``action`` None and the rest empty when the game is
    won). ``doubles``: the doubles options of those declarations that take one (42
    follow-me and nello). ``tiles``: the legal plays, or for the three-player Moon
    declarer the eight tiles (its seven and the widow) to discard one from."""
    turn = game.next_action()
    out: dict[str, Any] = {"seat": None, "action": None, "calls": [], "declarations": [],
                           "doubles": [], "tiles": []}
    if turn is None:
        return out
    out["seat"], out["action"] = turn["seat"], turn["action"]
    if turn["action"] == "call":
        out["calls"] = list(game.legal_calls())
    elif turn["action"] in ("declare", "discard"):
        names = list(game.legal_declarations())
        out["declarations"] = names
        if game.rules.game == "42" and any(n in DOUBLES_OPTION_DECLARATIONS for n in names):
            out["doubles"] = list(DOUBLES_OPTIONS)
        if turn["action"] == "discard":
            hand = game.hands[-1]
            seat = SEATS.index(turn["seat"])
            assert hand.widow is not None
            out["tiles"] = hand.deal[seat] + [hand.widow]
    else:
        out["tiles"] = list(game.legal_plays())
    return out


__all__ = ["hand_may_stop", "hand_progress", "legal_actions"]
