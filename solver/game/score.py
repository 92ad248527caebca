"""The score of a game (docs/rules/texas42.md, docs/rules/moon.md): a hand's outcome, what it
awards, the running score and the winner.

* `outcome` says whether a hand's contract has made, is set, or is still open,
  from the tricks and points won so far alone (no search): made once the
  declaring side holds the bid, set once it cannot reach it even taking every
  point (trick) left; nello the other way round.
* `awards` is a table: one scoring rule per kind of game (42 in marks; Moon in
  points for 3 or 4 players; Moon in marks), each a function of the hand.
* `winner` applies "the first to the target wins" with Moon's "the bidder goes
  out" for several at once; a tie with no bidder among them plays on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

from .auction import ONE_MARK, SHOOT, GameRules, marks_of


@dataclass(frozen=True)
class HandScore:
    """What a finished hand tells the score.

    Attributes:
        declarer: The declarer's seat index.
        bid: The contract's bid.
        made: Whether it made.
        tricks: The tricks each seat took, by seat index.
    """

    declarer: int
    bid: int
    made: bool
    tricks: tuple[int, ...]


def make_target(game: str, declaration: str, bid: int) -> tuple[int, bool]:
    """(t, at_least): the contract makes iff the declaring side's value (points in 42,
    tricks in Moon and nello) ends >= t (at_least) or < t (nello: no trick).

    Args:
        game: ``"42"`` or ``"moon"``.
        declaration: The declaration's name.
        bid: The contract's bid.

    >>> make_target("42", "sixes", 84), make_target("42", "nello", 84)
    ((42, True), (1, False))
    """
    if declaration == "nello":
        return 1, False
    if game == "moon":
        return (7 if bid == SHOOT else bid), True
    return min(bid, ONE_MARK), True


def outcome(game: str, declaration: str, bid: int, value: int, still_to_win: int) -> bool | None:
    """True (made), False (set) or None (open) for a hand whose declaring side holds
    ``value`` (points; tricks in Moon and nello) with ``still_to_win`` more in play.

    Args:
        game: ``"42"`` or ``"moon"``.
        declaration: The declaration's name.
        bid: The contract's bid.
        value: What the declaring side has won so far.
        still_to_win: What is still in play.

    >>> outcome("42", "fours", 30, 31, 11), outcome("42", "fours", 30, 20, 11)
    (True, None)
    """
    target, at_least = make_target(game, declaration, bid)
    reach = value + still_to_win
    if at_least:
        return True if value >= target else False if reach < target else None
    return False if value >= target else True if reach < target else None


def _side_tricks(rules: GameRules, hand: HandScore, seat: int) -> int:
    if rules.partnerships:
        return hand.tricks[seat] + hand.tricks[(seat + 2) % 4]
    return hand.tricks[seat]


def _marks_42(rules: GameRules, hand: HandScore) -> dict[str, int]:
    """42: the contract's marks to the declaring side if made, else to the other side."""
    side = rules.key_of(hand.declarer if hand.made else (hand.declarer + 1) % 4)
    return {side: marks_of(hand.bid)}


def _marks_moon(rules: GameRules, hand: HandScore) -> dict[str, int]:
    """Moon in marks: 1 mark to the declarer if made, else 1 to each other player (side)."""
    mine = rules.key_of(hand.declarer)
    if hand.made:
        return {mine: 1}
    return {key: 1 for key in rules.score_keys if key != mine}


def _points_moon(rules: GameRules, hand: HandScore) -> dict[str, int]:
    """Moon in points: made, the bid (3 players; 21 for a shoot) or the side's tricks (4
    players); set, minus the bid; every other player (side) 1 point a trick it took."""
    mine = rules.key_of(hand.declarer)
    if hand.made:
        gain = hand.bid if rules.three_handed else _side_tricks(rules, hand, hand.declarer)
    else:
        gain = -hand.bid
    out = {mine: gain}
    for seat in rules.seats:
        key = rules.key_of(seat)
        if key != mine:
            out[key] = out.get(key, 0) + hand.tricks[seat]
    return out


#: The scoring rule of each kind of game: (game, scored in marks) -> awards.
SCORING: dict[tuple[str, bool], Callable[[GameRules, HandScore], dict[str, int]]] = {
    ("42", True): _marks_42,
    ("moon", True): _marks_moon,
    ("moon", False): _points_moon,
}


def awards(rules: GameRules, hand: HandScore) -> dict[str, int]:
    """What a finished hand adds to each score key (every key present, 0 for none).

    Args:
        rules: The game and its house options (which scoring rule applies).
        hand: The finished hand.
    """
    gained = SCORING[(rules.game, rules.in_marks)](rules, hand)
    return {key: gained.get(key, 0) for key in rules.score_keys}


def add(score: Mapping[str, int], gained: Mapping[str, int]) -> dict[str, int]:
    """The ``score`` with ``gained`` added, key by key (keys of ``score`` only)."""
    return {key: score[key] + gained.get(key, 0) for key in score}


def zero(rules: GameRules) -> dict[str, int]:
    """A game's score before its first hand: 0 for every score key of ``rules``."""
    return {key: 0 for key in rules.score_keys}


def winner(rules: GameRules, score: Mapping[str, int], declarer_key: str | None) -> str | None:
    """The winner after a hand, or None to play on: the one key at the target or over; of
    several, the declarer's ("the bidder goes out"), else the highest; a tie plays on.

    Args:
        rules: The game and its house options (the target).
        score: The score after the hand, by score key.
        declarer_key: The score key of the hand's declarer; None: no contract.
    """
    reached = [key for key in rules.score_keys if score[key] >= rules.target]
    if not reached:
        return None
    if len(reached) == 1:
        return reached[0]
    if declarer_key in reached:
        return declarer_key
    best = max(score[key] for key in reached)
    top = [key for key in reached if score[key] == best]
    return top[0] if len(top) == 1 else None


__all__ = ["HandScore", "SCORING", "add", "awards", "make_target", "outcome", "winner", "zero"]
