"""Hint benchmarks: 100 deals sampled per hint, 100 seeded views per point in the hand.

The views come from the 100 seeded deals of deals.py (every declaration):
the hand is played by the rule bot up to the point measured, and the view is
that of the seat to move (at the opening lead, the declarer). Each view's
hint is timed once with a fixed seed, on every core (the default); the
benchmark reports the median and slowest hint (wall clock), the median CPU
time (all threads), the median critical path (CPU outside the threads plus
the busiest thread's: about the wall time on an idle machine, see
thread_cpu.py) and the search nodes.

    python -m pytest bench/test_hint_bench.py --benchmark-enable -s
"""

from __future__ import annotations

import statistics
import time

import pytest

from solver import Position
from solver.hidden.hint import hint
from solver.play.bots import RuleBot, seat_view

from deals import deals_42
from thread_cpu import ThreadCpu

DEALS = [Position(d) for d in deals_42(100, seed=42)]


def views_at(trick: int) -> list[dict]:
    """The view of the seat to move at the start of ``trick`` (1-based) of each deal."""
    out = []
    bot = RuleBot()
    for p in DEALS:
        per_trick = len(p.active_seats)
        while len(p.plays) < per_trick * (trick - 1):
            p = p.with_plays(list(p.plays) + [bot.choose(seat_view(p))])
        out.append(seat_view(p).to_json())
    return out


def per_view(views: list[dict], deals: int = 100) -> dict:
    times, cpu, path, nodes = [], [], [], []
    with ThreadCpu() as threads:
        for i, view in enumerate(views):
            threads.reset()
            start, start_cpu = time.perf_counter(), time.process_time()
            h = hint(view, deals=deals, enumerate_limit=0, seed=i)
            times.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
            path.append(threads.critical_path(cpu[-1] / 1000) * 1000)
            nodes.append(h.nodes)
    return {"median_ms": statistics.median(times), "max_ms": max(times),
            "median_cpu_ms": statistics.median(cpu), "median_path_ms": statistics.median(path),
            "median_nodes": statistics.median(nodes), "max_nodes": max(nodes)}


def run(benchmark, trick: int, median_ms: float) -> None:
    views = views_at(trick)
    stats = benchmark.pedantic(per_view, args=(views,), rounds=1, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\n{benchmark.name}: median {stats['median_ms']:.1f} ms, slowest "
          f"{stats['max_ms']:.1f} ms, CPU median {stats['median_cpu_ms']:.1f} ms, critical "
          f"path median {stats['median_path_ms']:.1f} ms, "
          f"nodes median {stats['median_nodes']:.0f} "
          f"max {stats['max_nodes']}")
    assert stats["median_ms"] <= median_ms


def test_hint_opening_lead(benchmark):
    run(benchmark, 1, median_ms=250)


def test_hint_trick_3(benchmark):
    run(benchmark, 3, median_ms=60)


@pytest.mark.parametrize("trick", [5, 6])
def test_hint_trick_5_and_later(benchmark, trick):
    run(benchmark, trick, median_ms=15)
