"""Search-core speed on 200 seeded opening-lead deals per category.

Every deal is solved by a fresh `DealSolver` with ``threads=None``, the
threads `solve()` uses by default (every core for every lead scored, one
thread for the rest; the pip-trump node target is one thread's); each benchmark records the per-deal median, p99 and
slowest time, the CPU time of all threads, the threads used and the node
counts (deterministic with one thread, unlike the times on a shared machine)
in the benchmark's extra_info. bench/test_split_bench.py compares one thread
with two on the same deals.

    python -m pytest bench/test_speed_bench.py --benchmark-enable -s
    python bench/test_speed_bench.py          # node counts only, no timing rounds

Categories:

* nello: 200 nello deals (doubles high, low, suit in turn), make-or-set at one mark;
* every lead scored: `solve()` of 200 deals of every declaration (`deals_42`);
* exact value: `DealSolver.value()` of the same 200 deals;
* pip trumps: every opening lead scored (`child_values`) on 200 pip-trump deals.

`test_every_lead_scored_api` times the same 200 `solve()`s through the
`solver.search.solve` function, which reuses the engines it keeps per contract
layout (their tables cleared) instead of making a fresh solver per deal.
"""

from __future__ import annotations

import functools
import random
import statistics
import time
from typing import Callable

from solver import Position, solve
from solver.search.solve import DealSolver

from deals import DECLARATIONS, SEATS, deals_42, random_deal

COUNT = 200


def _deals(trumps: list[tuple[str, str]], seed: int, bid: int) -> list[Position]:
    rng = random.Random(seed)
    out = []
    for i in range(COUNT):
        trump, doubles = trumps[i % len(trumps)]
        out.append(Position({"hands": random_deal(rng), "plays": [],
                             "contract": {"declarer": rng.choice(SEATS), "trump": trump,
                                          "bid": bid, "doubles": doubles}}))
    return out


NELLO = _deals([d for d in DECLARATIONS if d[0] == "nello"], seed=12, bid=42)
MIXED = [Position(d) for d in deals_42(COUNT, seed=42)]
PIPS = _deals([d for d in DECLARATIONS if d[0] not in ("doubles", "follow-me", "nello", "sevens")],
              seed=7, bid=30)

QUERIES: dict[str, tuple[list[Position], Callable[[DealSolver], object]]] = {
    "nello_make_or_set": (NELLO, lambda s: s.make_or_set(42)),
    "every_lead_scored_solve": (MIXED, lambda s: s.solve()),
    "exact_value": (MIXED, lambda s: s.value()),
    "pip_trumps_every_lead_scored": (PIPS, lambda s: s.child_values()),
}


def per_deal(name: str, threads: int | None = None) -> dict:
    positions, query = QUERIES[name]
    times, cpu, nodes, used = [], [], [], []
    for position in positions:
        start, start_cpu = time.perf_counter(), time.process_time()
        solver = DealSolver(position, threads=threads)
        query(solver)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        nodes.append(solver.nodes)
        used.append(1 + sum(1 for helper in solver.helpers if helper.nodes))
    return summary(threads, times, cpu, nodes, used)


def per_api_call(threads: int | None = None) -> dict:
    """`solve()` of the every-lead deals through the API function (kept engines)."""
    times, cpu, nodes = [], [], []
    for position in MIXED:
        start, start_cpu = time.perf_counter(), time.process_time()
        result = solve(position, threads=threads)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        nodes.append(result.nodes)
    return summary(threads, times, cpu, nodes, [])  # the threads used are not reported


def summary(threads: int | None, times: list[float], cpu: list[float], nodes: list[int],
            used: list[int]) -> dict:
    return {"threads": "auto" if threads is None else threads,
            "threads_used": max(used) if used else "?",
            "median_ms": statistics.median(times),
            "p99_ms": statistics.quantiles(times, n=100)[98], "max_ms": max(times),
            "median_cpu_ms": statistics.median(cpu),
            "p99_cpu_ms": statistics.quantiles(cpu, n=100)[98], "max_cpu_ms": max(cpu),
            "median_nodes": statistics.median(nodes),
            "p99_nodes": statistics.quantiles(nodes, n=100)[98], "max_nodes": max(nodes),
            "total_nodes": sum(nodes)}


def run(benchmark, name: str, threads: int | None = None, **targets: float) -> None:
    measure = per_api_call if name == "api" else functools.partial(per_deal, name)
    stats = benchmark.pedantic(measure, args=(threads,), rounds=3, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\n{name} (threads {stats['threads']}, up to {stats['threads_used']} used): "
          f"median {stats['median_ms']:.2f} ms, p99 {stats['p99_ms']:.2f} ms, "
          f"max {stats['max_ms']:.2f} ms; CPU median {stats['median_cpu_ms']:.2f} ms; "
          f"nodes median {stats['median_nodes']:.0f}, "
          f"p99 {stats['p99_nodes']:.0f}, max {stats['max_nodes']}")
    for key, limit in targets.items():
        assert stats[key] <= limit, f"{key} {stats[key]} > {limit}"


def test_nello_make_or_set(benchmark):
    run(benchmark, "nello_make_or_set", median_nodes=100)


def test_every_lead_scored(benchmark):
    run(benchmark, "every_lead_scored_solve", median_ms=1.1, p99_ms=8, max_ms=25)


def test_every_lead_scored_api(benchmark):
    run(benchmark, "api", median_ms=1.1, p99_ms=8, max_ms=25)


def test_exact_value(benchmark):
    run(benchmark, "exact_value", median_ms=0.3)


def test_pip_trumps_every_lead_scored(benchmark):
    # One thread: the target is the search's own node count, which two threads add to.
    run(benchmark, "pip_trumps_every_lead_scored", threads=1, median_nodes=55_000)


if __name__ == "__main__":
    for query in QUERIES:
        s = per_deal(query)
        print(f"{query:30s} threads {s['threads_used']} nodes median {s['median_nodes']:>9.0f} "
              f"p99 {s['p99_nodes']:>9.0f} "
              f"max {s['max_nodes']:>9} total {s['total_nodes']:>11}   time median "
              f"{s['median_ms']:.2f} p99 {s['p99_ms']:.2f} max {s['max_ms']:.2f} ms")
