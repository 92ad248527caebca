"""Seeded random deals for the benchmarks: reproducible, spread over the declarations."""

from __future__ import annotations

import random

from solver.game.tiles import NAMES

SEATS = ("N", "E", "S", "W")
#: (trump, doubles option) pairs the 42 benchmarks cycle through.
DECLARATIONS = [(t, "high") for t in ("blanks", "ones", "deuces", "treys", "fours", "fives",
                                      "sixes", "doubles")] + [
    ("follow-me", "high"), ("follow-me", "low"), ("follow-me", "suit"),
    ("nello", "high"), ("nello", "low"), ("nello", "suit"), ("sevens", "high")]


def random_deal(rng: random.Random, tiles: list[str] | None = None,
                seats: tuple[str, ...] = SEATS) -> dict[str, list[str]]:
    pool = list(NAMES if tiles is None else tiles)
    rng.shuffle(pool)
    return {seat: sorted(pool[7 * i:7 * i + 7], reverse=True) for i, seat in enumerate(seats)}


def bid_hands(count: int, seed: int = 17) -> list[list[str]]:
    """``count`` seeded seven-tile hands, as bid advice's benchmarks ask about them."""
    rng = random.Random(seed)
    return [rng.sample(NAMES, 7) for _ in range(count)]


def deals_42(count: int = 100, seed: int = 42) -> list[dict]:
    """``count`` opening-lead positions; declaration i cycles through DECLARATIONS."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        trump, doubles = DECLARATIONS[i % len(DECLARATIONS)]
        marks = trump in ("nello", "sevens")
        out.append({
            "hands": random_deal(rng),
            "contract": {"declarer": rng.choice(SEATS), "trump": trump,
                         "bid": 42 if marks else 30, "doubles": doubles},
            "plays": [],
        })
    return out
