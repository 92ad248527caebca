"""Seeded random views for the benchmarks: a deal played to a given trick, seen by the seat to move.

Deals come from `deals.deals_42` (every 42 declaration); the plays up to
the trick are random legal tiles, so the views show the voids (and sevens
constraints) that random play reveals.
"""

from __future__ import annotations

import random

from solver import Position
from solver.game.tiles import NAMES

from deals import deals_42


def views_at_trick(trick: int, count: int = 100, seed: int = 8) -> list[dict]:
    """``count`` views of the seat to move at the start of trick ``trick`` (1..7)."""
    rng = random.Random(seed)
    out = []
    for deal in deals_42(count, seed):
        position = Position(deal)
        plays: list[int] = []
        per_trick = len(position.active_seats)
        while len(plays) < (trick - 1) * per_trick:
            plays.append(rng.choice(position.legal_ids()))
            position = position.with_plays(plays)
        seat = position.to_move
        out.append({"seat": seat, "hands": {seat: deal["hands"][seat]},
                    "contract": deal["contract"], "plays": [NAMES[t] for t in plays]})
    return out
