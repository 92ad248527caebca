"""Seat-view search benchmarks: a play decision of the seat-view bot (postponed reasoning,
depth 1, 40 deals) against the double-dummy hint at 100 deals (the advice bot's, about
the same time), at the opening lead and at trick 3, on one core.

The views are those of hint's benchmark (30 of its seeded deals, played by the rule
bot up to the point measured). Each search is timed once with a fixed seed; the
benchmark reports the median and slowest CPU time, the median nodes, and the load
average (the targets: at most 1 s at the opening lead and 0.2 s from trick 3).
`test_seat_view_bid_advice` times bid advice from the seat's view for every declaration
and with the double-dummy screen (the target: at most 3 s), and what the screen costs in
recommendations.

    python -m pytest bench/test_seat_view_bench.py --benchmark-enable -s
"""

from __future__ import annotations

import os
import statistics
import time

import pytest

from solver.hidden.hint import hint
from solver.hidden.seat_view import seat_view_hint
from solver.play.bots import DEFAULT_SEAT_VIEW_DEALS

from deals import bid_hands
from test_hint_bench import views_at

VIEWS = 30


def measure(items: list, search, answers: list | None = None) -> dict:
    """``search(item, i)`` on every item, once: CPU and wall time (ms) and nodes (the
    answers appended to ``answers`` when given)."""
    cpu, wall, nodes = [], [], []
    for i, item in enumerate(items):
        start, start_cpu = time.perf_counter(), time.process_time()
        found = search(item, i)
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        nodes.append(found.nodes)
        if answers is not None:
            answers.append(found)
    return {"median_cpu_ms": statistics.median(cpu), "max_cpu_ms": max(cpu),
            "median_wall_ms": statistics.median(wall), "max_wall_ms": max(wall),
            "median_nodes": statistics.median(nodes), "load": os.getloadavg()[0]}


@pytest.mark.parametrize("trick", [1, 3])
def test_seat_view_play_decision(benchmark, trick):
    views = views_at(trick)[:VIEWS]
    searches = {
        "seat-view depth 1": lambda v, i: seat_view_hint(
            v, depth=1, deals=DEFAULT_SEAT_VIEW_DEALS, enumerate_limit=0, seed=i),
        "seat-view depth 2": lambda v, i: seat_view_hint(
            v, depth=2, deals=DEFAULT_SEAT_VIEW_DEALS, enumerate_limit=0, seed=i),
        "double-dummy hint": lambda v, i: hint(v, deals=100, enumerate_limit=0, seed=i,
                                               threads=1),
    }
    figures = benchmark.pedantic(lambda: {name: measure(views, s)
                                          for name, s in searches.items()},
                                 rounds=1, iterations=1)
    benchmark.extra_info.update({f"{name}: {k}": v for name, f in figures.items()
                                 for k, v in f.items()})
    for name, f in figures.items():
        print(f"\ntrick {trick}, {name}: median {f['median_cpu_ms']:.1f} ms CPU "
              f"(max {f['max_cpu_ms']:.1f}), median {f['median_nodes']:,.0f} nodes, "
              f"load {f['load']:.2f}")


#: Hands for seat-view bid advice's cost: seeded hands of every kind of strength (the
#: first 12 were the first measurement's).
ADVICE_HANDS = 30


def _e_marks(advice, declaration, bid) -> float:
    """E[marks] of ``bid`` in ``declaration`` by ``advice`` (0 for a pass)."""
    if declaration is None or bid is None:
        return 0.0
    return advice.declaration(declaration).chance(bid).e_marks


def test_seat_view_bid_advice(benchmark):
    """Bid advice with every deal played out by seat-view players (30 deals a declaration,
    3 deals a decision) for every declaration of a 42 hand (11, or 13 with plunge and
    splash), the same with the double-dummy screen (`DEFAULT_SCREEN` declarations played
    out), and the double-dummy advice of 200 deals: wall time on both cores (the
    playouts' searches release the GIL) and CPU time, per hand (target: at most 3 s).
    The screen's price: on how many hands its recommendation is the full playout's, and
    the E[marks] (valued by the full playout, which has the kept declarations' figures
    exactly) it gives up."""
    from solver.hidden.bidding import advise
    from solver.hidden.seat_view_bidding import DEFAULT_SCREEN, seat_view_advise

    hands = bid_hands(ADVICE_HANDS)

    answers: dict[str, list] = {"every": [], "screened": []}
    asks = {
        "seat-view playout, every declaration": (
            lambda h, i: seat_view_advise(h, "N", seed=i), answers["every"]),
        f"seat-view playout, {DEFAULT_SCREEN} declarations screened by double dummy": (
            lambda h, i: seat_view_advise(h, "N", seed=i, screen=DEFAULT_SCREEN),
            answers["screened"]),
        "double-dummy": (lambda h, i: advise(h, "N", deals=200, seed=i), None),
    }
    figures = benchmark.pedantic(lambda: {name: measure(hands, ask, kept)
                                          for name, (ask, kept) in asks.items()},
                                 rounds=1, iterations=1)
    same, loss = 0, []
    for every, screened in zip(answers["every"], answers["screened"]):
        best, chosen = every.recommendation, screened.recommendation
        same += (best.bid, best.declaration) == (chosen.bid, chosen.declaration)
        loss.append(_e_marks(every, best.declaration, best.bid)
                    - _e_marks(every, chosen.declaration, chosen.bid))
    figures["screen"] = {"hands": len(hands), "same_recommendation": same,
                         "mean_e_marks_lost": statistics.mean(loss),
                         "max_e_marks_lost": max(loss)}
    benchmark.extra_info.update({f"{name}: {k}": v for name, f in figures.items()
                                 for k, v in f.items()})
    for name, f in figures.items():
        if name == "screen":
            continue
        print(f"\nbid advice, {name}: median {f['median_wall_ms'] / 1000:.2f} s wall (max "
              f"{f['max_wall_ms'] / 1000:.2f}), {f['median_cpu_ms'] / 1000:.2f} s CPU, median "
              f"{f['median_nodes']:,.0f} nodes, load {f['load']:.2f}")
    s = figures["screen"]
    print(f"\nthe screen's recommendation is the full playout's on {s['same_recommendation']} "
          f"of {s['hands']} hands; E[marks] given up {s['mean_e_marks_lost']:.3f} a hand "
          f"(at most {s['max_e_marks_lost']:.2f})")
