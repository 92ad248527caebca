"""Consistent-deal benchmarks: counting, tile probabilities and sampling (single thread).

Targets (issue 8): count_deals and tile_probabilities at most 2 ms for any
view; 1,000 deals drawn by sample_deals in at most 20 ms.

Views: 100 seeded views at tricks 1, 3 and 5 (`views.views_at_trick`, the
seat to move, every 42 declaration, random legal plays before) and the 136
shared view cases (tests/cases/views.jsonl, every declaration and Moon).
Each round parses every view from its JSON and computes its count and
every tile's place probabilities (a fresh table each time); sampling draws
1,000 deals (as `Position`s) from each of 30 views per trick point. The
work measure is the size of the counting table (states of the dynamic
program), printed with the times (`-s`).

    python -m pytest bench/test_sampler_bench.py --benchmark-enable -s
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import pytest

from solver.game.view import View
from solver.hidden.deals import count_deals, sample_deals, tile_probabilities

from views import views_at_trick

CASES = Path(__file__).resolve().parents[1] / "tests" / "cases" / "views.jsonl"


def case_views() -> list[dict]:
    with open(CASES, encoding="utf-8") as f:
        return [json.loads(line)["view"] for line in f if line.strip()]


VIEW_SETS = {"trick 1": lambda: views_at_trick(1), "trick 3": lambda: views_at_trick(3),
             "trick 5": lambda: views_at_trick(5), "cases": case_views}


def table_states(view: View) -> int:
    return sum(len(memo) for memo in view.completions._ways)


def report(benchmark, label: str, times: list[float], cpu: list[float], states: list[int]) -> None:
    median, slowest = statistics.median(times), max(times)
    benchmark.extra_info.update(median_ms=median, slowest_ms=slowest,
                                cpu_median_ms=statistics.median(cpu), cpu_slowest_ms=max(cpu),
                                states_median=statistics.median(states),
                                states_max=max(states))
    print(f"\n{label}: median {median:.3f} ms, slowest {slowest:.3f} ms (CPU time: median "
          f"{statistics.median(cpu):.3f} ms, slowest {max(cpu):.3f} ms), "
          f"table states median {statistics.median(states)} max {max(states)}")


@pytest.mark.parametrize("name", list(VIEW_SETS))
def test_count_and_probabilities(benchmark, name):
    views = VIEW_SETS[name]()
    times: list[float] = []
    cpu: list[float] = []
    states: list[int] = []

    def run() -> None:
        times.clear()
        cpu.clear()
        states.clear()
        for data in views:
            start, start_cpu = time.perf_counter(), time.process_time()
            view = View(data)
            count_deals(view)
            tile_probabilities(view)
            times.append((time.perf_counter() - start) * 1e3)
            cpu.append((time.process_time() - start_cpu) * 1e3)
            states.append(table_states(view))

    benchmark.pedantic(run, rounds=3, iterations=1)
    report(benchmark, f"count + probabilities, {name}", times, cpu, states)


@pytest.mark.parametrize("name", list(VIEW_SETS))
def test_sample_1000_deals(benchmark, name):
    views = [View(v) for v in VIEW_SETS[name]()[:30]]
    times: list[float] = []
    cpu: list[float] = []

    def run() -> None:
        times.clear()
        cpu.clear()
        for seed, view in enumerate(views):
            start, start_cpu = time.perf_counter(), time.process_time()
            deals = sample_deals(view, 1000, seed)
            times.append((time.perf_counter() - start) * 1e3)
            cpu.append((time.process_time() - start_cpu) * 1e3)
            assert len(deals) == 1000

    benchmark.pedantic(run, rounds=3, iterations=1)
    report(benchmark, f"sample 1,000 deals, {name}", times, cpu,
           [table_states(v) for v in views])


def test_dealer_stream(benchmark):
    """Uniform full 42 deals as JSON text, as `t42 deal --count` writes them (per deal)."""
    from solver.hidden.dealer import Dealer

    dealer = Dealer()
    n = 20_000

    def run() -> float:
        start = time.process_time()
        for deal in dealer.deals(n, 1):
            deal.to_json_str()
        return (time.process_time() - start) / n * 1e6

    per_deal = benchmark.pedantic(run, rounds=3, iterations=1)
    benchmark.extra_info.update(cpu_us_per_deal=per_deal)
    print(f"\ndealer: {per_deal:.1f} us CPU per deal with its JSON")
