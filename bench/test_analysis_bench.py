"""Hand analysis and double-dummy table benchmarks (single thread).

Targets (issue 5): a 28-play hand analysed in at most 150 ms median; the
table of a deal in at most 100 ms median.

* analysis: 50 seeded deals (`deals_42`, seed 5: every declaration, nello
  and sevens included), each played out by a simple policy: the search
  core's move-ordering favourite (cash sure winners, win cheaply, feed count
  to a partner who wins, else shed the least) and, one play in five, a
  random legal tile instead, so that every hand has costly plays to explain;
* tables: the hands of 100 seeded deals (`deals_42`, seed 9), with the
  doubles option cycling through high, low and suit.

Each round analyses every hand (or tables every deal) once, with fresh
solvers, and records the per-item median, slowest and node counts in the
benchmark's extra_info.

    python -m pytest bench/test_analysis_bench.py --benchmark-enable -s
"""

from __future__ import annotations

import random
import statistics
import time
from functools import partial
from typing import Callable

from solver import Position
from solver.game.tiles import name_of
from solver.search.analysis import analyze_hand
from solver.search.solve import DealSolver
from solver.search.table import solve_deal

from deals import deals_42

MISTAKE_RATE = 0.2


def play_out(deal: dict, rng: random.Random) -> dict:
    """The deal played to the end by the simple policy (see the module docstring)."""
    start = Position(deal)
    engine = DealSolver(start).engine
    plays = []
    while not engine.finished:
        legal = engine.legal()  # the core's most promising move first
        tile = rng.choice(legal) if rng.random() < MISTAKE_RATE else legal[0]
        engine.play(tile)
        plays.append(name_of(tile))
    return dict(deal, plays=plays)


def hands(count: int = 50, seed: int = 5) -> list[dict]:
    rng = random.Random(seed)
    return [play_out(deal, rng) for deal in deals_42(count, seed)]


def table_deals(count: int = 100, seed: int = 9) -> list[dict]:
    options = ("high", "low", "suit")
    return [{"hands": deal["hands"], "doubles": options[i % 3]}
            for i, deal in enumerate(deals_42(count, seed))]


HANDS = hands()
DEALS = table_deals()


def per_item(items: list, query: Callable[[object], object]) -> dict:
    times, nodes, extra = [], [], []
    for item in items:
        start = time.perf_counter()
        result = query(item)
        times.append((time.perf_counter() - start) * 1000)
        nodes.append(result.nodes)
        extra.append(result)
    stats = {"median_ms": statistics.median(times), "max_ms": max(times),
             "median_nodes": statistics.median(nodes), "max_nodes": max(nodes)}
    if hasattr(extra[0], "plays"):
        stats["costly_plays"] = sum(len(a.costly_plays) for a in extra)
    return stats


def run(benchmark, items: list, query, median_ms: float) -> dict:
    stats = benchmark.pedantic(per_item, args=(items, query), rounds=3, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\n{benchmark.name}: median {stats['median_ms']:.2f} ms, slowest "
          f"{stats['max_ms']:.2f} ms, nodes median {stats['median_nodes']:.0f} "
          f"max {stats['max_nodes']}"
          + (f", {stats['costly_plays']} costly plays" if "costly_plays" in stats else ""))
    assert stats["median_ms"] <= median_ms
    return stats


def test_analyse_hand(benchmark):
    assert all(len(h["plays"]) in (21, 28) for h in HANDS)  # nello: three seats play
    run(benchmark, HANDS, analyze_hand, median_ms=150)


def test_deal_table(benchmark):
    """The table with its default of one thread per core (2 here): the 100 ms target."""
    run(benchmark, DEALS, solve_deal, median_ms=100)


def test_deal_table_single_thread(benchmark):
    """For reference: the same tables with every search on one thread."""
    run(benchmark, DEALS, partial(solve_deal, threads=1), median_ms=200)
