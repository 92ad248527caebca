"""Search-core benchmarks on 100 seeded deals from the opening lead (single thread).

Each benchmark solves every deal once per round with a fresh solver (no table
shared between deals) and records the per-deal median, slowest and node
counts in the benchmark's extra_info; the targets of the project are checked
here, never in the test suite.

    python -m pytest bench/test_core_bench.py --benchmark-enable -s
"""

from __future__ import annotations

import resource
import statistics
import time
from typing import Callable

from solver import Position
from solver.search.solve import DealSolver

from deals import deals_42

POSITIONS = [Position(d) for d in deals_42(100, seed=42)]


def per_deal(query: Callable[[DealSolver], object]) -> dict:
    times, nodes = [], []
    for position in POSITIONS:
        start = time.perf_counter()
        solver = DealSolver(position)
        query(solver)
        times.append((time.perf_counter() - start) * 1000)
        nodes.append(solver.nodes)
    return {"median_ms": statistics.median(times), "max_ms": max(times),
            "median_nodes": statistics.median(nodes), "max_nodes": max(nodes)}


def run(benchmark, query, median_ms: float, max_ms: float | None = None) -> dict:
    stats = benchmark.pedantic(per_deal, args=(query,), rounds=3, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\n{benchmark.name}: median {stats['median_ms']:.2f} ms, slowest "
          f"{stats['max_ms']:.2f} ms, nodes median {stats['median_nodes']:.0f} "
          f"max {stats['max_nodes']}")
    assert stats["median_ms"] <= median_ms
    if max_ms is not None:
        assert stats["max_ms"] <= max_ms
    return stats


def test_exact_value(benchmark):
    run(benchmark, lambda s: s.value(), median_ms=5, max_ms=100)


def _mark_or(points: int) -> Callable[[DealSolver], object]:
    # nello and sevens take mark bids only: they are tested at one mark.
    def query(solver: DealSolver) -> object:
        marks_only = solver.position.contract.declaration.name in ("nello", "sevens")
        return solver.make_or_set(42 if marks_only else points)
    return query


def test_make_or_set_30(benchmark):
    run(benchmark, _mark_or(30), median_ms=2)


def test_make_or_set_one_mark(benchmark):
    run(benchmark, _mark_or(42), median_ms=2)


def test_all_opening_leads(benchmark):
    run(benchmark, lambda s: s.child_values(), median_ms=15)


def test_peak_memory():
    """Peak RSS of the process after all the solves above: at most 200 MB."""
    for position in POSITIONS:
        DealSolver(position).solve()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS {peak_mb:.1f} MB")
    assert peak_mb <= 200
