"""Moon benchmarks on 100 seeded deals from the opening lead (single thread).

Targets (issue 3): three-player exact value at most 2 ms median; the full
discard table (eight discards) for one declaration at most 20 ms median.
Each round solves every deal once with fresh solvers and records the
per-deal median, slowest and node counts in the benchmark's extra_info.

    python -m pytest bench/test_moon_bench.py --benchmark-enable -s
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Callable

from solver import Position
from solver.game.position import MOON3_SET
from solver.game.tiles import NAMES
from solver.search.discard import MOON_DECLARATIONS, best_discards
from solver.search.solve import DealSolver

from deals import random_deal

MOON3_TILES = [NAMES[t] for t in sorted(MOON3_SET)]


def moon3_deals(count: int = 100, seed: int = 3) -> list[dict]:
    """Three-player deals in the discard input form; deal i is declared in declaration i % 9."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        hands = random_deal(rng, MOON3_TILES, ("N", "E", "S"))
        held = {t for tiles in hands.values() for t in tiles}
        widow = next(t for t in MOON3_TILES if t not in held)
        out.append({"game": "moon", "hands": hands, "widow": widow,
                    "contract": {"declarer": rng.choice("NES"),
                                 "trump": MOON_DECLARATIONS[i % len(MOON_DECLARATIONS)],
                                 "bid": 4}})
    return out


def as_position(deal: dict) -> Position:
    """The deal from the opening lead with the declarer laying the widow away."""
    return Position(dict(deal, discard=deal["widow"]))


DEALS = moon3_deals()
POSITIONS = [as_position(d) for d in DEALS]
POSITIONS_4 = [Position({"game": "moon", "hands": random_deal(rng),
                         "contract": {"declarer": rng.choice("NESW"),
                                      "trump": MOON_DECLARATIONS[i % 9], "bid": 4}})
               for rng in [random.Random(4)] for i in range(100)]


def per_item(items: list, work: Callable[[object], int]) -> dict:
    """Time ``work`` (which returns its node count) on every item."""
    times, nodes = [], []
    for item in items:
        start = time.perf_counter()
        nodes.append(work(item))
        times.append((time.perf_counter() - start) * 1000)
    return {"median_ms": statistics.median(times), "max_ms": max(times),
            "median_nodes": statistics.median(nodes), "max_nodes": max(nodes)}


def run(benchmark, items: list, work: Callable[[object], int],
        median_ms: float | None = None) -> dict:
    stats = benchmark.pedantic(per_item, args=(items, work), rounds=3, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\n{benchmark.name}: median {stats['median_ms']:.2f} ms, slowest "
          f"{stats['max_ms']:.2f} ms, nodes median {stats['median_nodes']:.0f} "
          f"max {stats['max_nodes']}")
    if median_ms is not None:
        assert stats["median_ms"] <= median_ms
    return stats


def _exact(position: Position) -> int:
    solver = DealSolver(position)
    solver.value()
    return solver.nodes


def test_moon3_exact_value(benchmark):
    run(benchmark, POSITIONS, _exact, median_ms=2)


def test_moon3_discard_table_one_declaration(benchmark):
    run(benchmark, DEALS, lambda deal: best_discards(deal).nodes, median_ms=20)


def test_moon3_discard_table_all_declarations(benchmark):
    """Every declaration's table (72 rows) per deal: recorded, no target."""
    def all_declarations(deal: dict) -> int:
        contract = {k: v for k, v in deal["contract"].items() if k != "trump"}
        return best_discards(dict(deal, contract=contract)).nodes

    run(benchmark, DEALS[:30], all_declarations)


def test_moon4_exact_value(benchmark):
    """Four-player Moon (28 tiles, partnerships): recorded, no target."""
    run(benchmark, POSITIONS_4, _exact)
