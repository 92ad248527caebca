"""The search's closed routine for the last two tricks, against the plain minimax.

With two tricks left the search stops ordering moves and copying its state:
a small alpha-beta on local variables plays out the trick under way and the
last one (see `two_left` in solver/search/_core.pyx). What it could get wrong:

* the value, from any point of the last-but-one trick (0 to 3 tiles played),
  for every declaration, plunge and splash, and Moon with three players;
* the bound it returns when a null-window probe cuts it short (fail-soft):
  every make-or-set threshold around the value, asked of one engine in turn,
  so that a wrong bound stored in the table would spoil a later answer;
* answers of an engine whose table was filled from earlier in the hand,
  also with three tricks left and the last seat of the trick to move, where
  the search first looks up the table entries of the positions after each
  of its moves (enhanced transposition cutoffs).

About 320 positions; the module takes about 4 s on the 2-core machine.
"""

from __future__ import annotations

import json
import random

import pytest

import reference as R
from solver import DealSolver, Position, solve
from test_reference import _play_to, make_42, make_moon, reference

KINDS = [("standard", d, "high") for d in R.PIP_NAMES + ("doubles", "follow-me", "sevens")] + [
    ("standard", "nello", "high"), ("standard", "nello", "low"), ("standard", "nello", "suit"),
    ("standard", "follow-me", "low"), ("standard", "follow-me", "suit"),
    ("plunge", "sixes", "high"), ("splash", "doubles", "high")]


def _two_left(label: str) -> list[dict]:
    """One deal's positions with two tricks left, one per point of the trick, and
    the same deal four tricks from the end (to fill a table from)."""
    rng = random.Random(label)
    if label.startswith("moon"):
        late = make_moon(label, 3, rng.choice(R.PIP_NAMES + ("doubles", "follow-me")))
    else:
        kind, decl, doubles = KINDS[int(label.split("-")[1]) % len(KINDS)]
        late = make_42(label, kind, decl, doubles)
    opening = dict(late, plays=[])
    end = _play_to(rng, opening, 0, False)
    seats = len(Position(opening).active_seats)
    first = len(end["plays"]) - 2 * seats
    # Three tricks left with the last seat to move: its children's table
    # entries are probed before it searches (enhanced transposition cutoffs).
    return [dict(opening, plays=end["plays"][:first - 2 * seats])] + \
        [dict(opening, plays=end["plays"][:first + k]) for k in range(-1, seats)]


DEALS = [_two_left(f"last-{i}") for i in range(48)] + [_two_left(f"moon-{i}") for i in range(12)]


@pytest.mark.parametrize("deal", DEALS, ids=[f"deal-{i}" for i in range(len(DEALS))])
def test_last_two_tricks_match_reference(deal):
    early, *positions = deal
    warm = DealSolver(Position(early))
    warm.value()        # a table filled from four tricks left
    for position in positions:
        where = json.dumps(position)
        p = Position(position)
        assert p.tricks_left == (3 if position is positions[0] else 2)
        expected = reference(position)
        got = solve(position)
        assert (got.value, got.moves) == (expected.value, expected.moves), where
        warm.load(p)
        assert (warm.value(), warm.solve().moves) == (expected.value, expected.moves), where
        # Every threshold around the value, on one engine: the bounds cut-off
        # searches leave in its table must not spoil the next answer.
        probe = DealSolver(p)
        for target in range(expected.value - 12, expected.value + 13):
            assert probe.at_least(target) == (expected.value >= target), (target, where)
        assert probe.value() == expected.value, where
