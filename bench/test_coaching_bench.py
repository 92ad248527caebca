"""Coaching benchmark: one 42 hand graded from every seat's view at the default settings,
on one core (target: at most 20 s a hand).

A hand's grading is every call by bid advice (100 deals a call), the declaration (the
winning call's advice), and every play that had a choice by the hint's deals (100 drawn,
or every consistent deal when at most 1,000), double dummy. The hands: the first of
`examples/game.json` and the first with a contract of three games between rule bots
(seeds 1, 2, 3), each as a one-hand game record. Each is graded once, with
``threads=1``; the benchmark reports the CPU time (median and slowest), the wall time,
the decisions and deals, and the load average (the machine may be shared).

    python -m pytest bench/test_coaching_bench.py --benchmark-enable -s
"""

from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path

from solver import GameRecord, play_game
from solver.hidden.coaching import grade_game

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 20.0


def one_hand_records() -> list[dict]:
    example = json.loads((ROOT / "examples" / "game.json").read_text())
    records = [{**example, "hands": example["hands"][:1]}]
    for seed in (1, 2, 3):
        game = play_game("rule", "rule", seed=seed).to_json()
        hand = next(h for h in game["hands"] if "contract" in h)
        records.append({"game": "42", "first_shaker": game["first_shaker"], "hands": [hand]})
    return records


RECORDS = one_hand_records()


def measure(records: list[dict]) -> dict:
    cpu, wall, decisions, play_deals, advice_deals = [], [], [], [], []
    for record in records:
        game = GameRecord(record)
        start, clock = time.process_time(), time.perf_counter()
        graded = grade_game(game, threads=1)
        cpu.append(time.process_time() - start)
        wall.append(time.perf_counter() - clock)
        hand = graded.hands[0]
        decisions.append(len(hand.decisions))
        play_deals.append(sum(d.deals for d in hand.decisions if d.kind == "play"))
        advice_deals.append(sum(d.deals for d in hand.decisions if d.kind == "call"))
    return {"median_cpu_s": statistics.median(cpu), "max_cpu_s": max(cpu),
            "median_wall_s": statistics.median(wall), "decisions": decisions,
            "play_deals": play_deals, "advice_deals": advice_deals,
            "load": os.getloadavg()[0]}


def test_grade_one_hand_from_every_seat(benchmark):
    figures = benchmark.pedantic(measure, args=(RECORDS,), rounds=1, iterations=1)
    benchmark.extra_info.update(figures)
    print(f"\ngrading one 42 hand: median {figures['median_cpu_s']:.2f} s CPU "
          f"(slowest {figures['max_cpu_s']:.2f}; wall {figures['median_wall_s']:.2f}), "
          f"decisions {figures['decisions']}, play deals {figures['play_deals']}, "
          f"advice deals {figures['advice_deals']}, load {figures['load']:.2f}")
    assert figures["max_cpu_s"] <= TARGET_SECONDS
