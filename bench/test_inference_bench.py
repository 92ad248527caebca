"""Inference benchmarks: what a hint with inference costs against the plain hint.

The views are those of the hint benchmark (test_hint_bench.py: 100 seeded deals of
every declaration, played by the rule bot to the opening lead, trick 3 and trick 5,
seen by the seat to move), the first `VIEWS` of them, each given an auction: the
declarer bid the contract and the three others passed after it. Per point and mode
the benchmark reports, per view (medians over the views): the plain hint's time
(100 deals), the inference hint's time for the same 100 deals asked, the deals it
searched and their effective number per 100 asked, its effective deals per 100
drawn, and the time of an inference hint asked for enough deals to be worth 100
(100 scaled by 100 / its effective deals), against the plain hint's: the "same
effective number of deals" ratio. One thread, so that the times are CPU.

    python -m pytest bench/test_inference_bench.py --benchmark-enable -s
"""

from __future__ import annotations

import math
import statistics
import time
from typing import Any

import pytest

from solver.hidden.hint import hint

from test_hint_bench import views_at

VIEWS = 30
SEATS = "NESW"


def with_auction(view: dict) -> dict:
    """The view with an auction: the declarer bid the contract, the others passed."""
    declarer = view["contract"]["declarer"]
    bid = view["contract"].get("bid", 30)
    start = SEATS.index(declarer)
    calls = [{"seat": declarer, "bid": bid}] + \
        [{"seat": SEATS[(start + k) % 4], "bid": "pass"} for k in (1, 2, 3)]
    return {**view, "auction": calls}


def timed(view: dict, deals: int, seed: int, inference: str) -> tuple[float, Any]:
    start = time.process_time()
    h = hint(view, deals=deals, enumerate_limit=0, seed=seed, threads=1, inference=inference)
    return time.process_time() - start, h


def per_mode(views: list[dict], mode: str) -> dict:
    plain, same_deals, same_ess, ess_asked, searched, ess_drawn = [], [], [], [], [], []
    nodes_plain, nodes_same_ess = [], []
    for i, view in enumerate(views):
        t0, h0 = timed(view, 100, i, "off")
        t1, h = timed(view, 100, i, mode)
        report = h.inference
        # The plain hint's 100 deals are worth 100: ask for enough deals that the
        # inference hint's are worth as much (its effective deals scale with the asked).
        deals = min(100_000, math.ceil(100 * 100 / max(report.effective_deals, 1e-9)))
        t2, h2 = (t1, h) if deals <= 100 else timed(view, deals, i, mode)
        plain.append(t0)
        nodes_plain.append(h0.nodes)
        nodes_same_ess.append(h2.nodes)
        same_deals.append(t1 / t0)
        same_ess.append(t2 / t0)
        ess_asked.append(report.effective_deals)
        searched.append(report.kept)
        ess_drawn.append(100 * report.effective_deals / max(1, report.drawn))
    return {"plain_ms": 1000 * statistics.median(plain),
            "ratio_same_deals": statistics.median(same_deals),
            "ratio_same_effective": statistics.median(same_ess),
            "ratio_same_effective_max": max(same_ess),
            "effective_per_100_asked": statistics.median(ess_asked),
            "searched_per_100_asked": statistics.median(searched),
            "effective_per_100_drawn": statistics.median(ess_drawn),
            # Nodes do not depend on the machine's load: the work behind the times.
            "plain_nodes": statistics.median(nodes_plain),
            "nodes_same_effective": statistics.median(nodes_same_ess),
            "nodes_ratio_same_effective": sum(nodes_same_ess) / max(1, sum(nodes_plain))}


@pytest.mark.parametrize("mode", ["auction", "plays", "both"])
@pytest.mark.parametrize("trick", [1, 3, 5])
def test_inference_cost(benchmark, trick, mode):
    views = [with_auction(v) for v in views_at(trick)[:VIEWS]]
    stats = benchmark.pedantic(per_mode, args=(views, mode), rounds=1, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\ntrick {trick}, {mode}: plain hint {stats['plain_ms']:.1f} ms CPU (median); "
          f"with inference x{stats['ratio_same_deals']:.2f} at the same deals, "
          f"x{stats['ratio_same_effective']:.2f} at the same effective deals "
          f"(slowest view x{stats['ratio_same_effective_max']:.2f}); per 100 deals asked "
          f"{stats['searched_per_100_asked']:.0f} searched, worth "
          f"{stats['effective_per_100_asked']:.1f}; effective deals per 100 drawn "
          f"{stats['effective_per_100_drawn']:.1f}; nodes (median) {stats['plain_nodes']:,.0f} "
          f"plain, {stats['nodes_same_effective']:,.0f} at the same effective deals (all views "
          f"x{stats['nodes_ratio_same_effective']:.2f})")
