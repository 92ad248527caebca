"""Coaching benchmark: a whole game of ten hands graded from every seat's view at the default
settings, on one core (target: at most 3 minutes a game).

The game: rule bots against each other, seed 1 (`play_game("rule", "rule", seed=1)`,
ten hands to 7 marks): every call by bid advice (100 deals a call), each declaration, and
every play that had a choice by the hint's deals (100 drawn, or every consistent deal
when at most 1,000), double dummy; what `t42 batch grade` does for one record. It is
graded once with ``threads=1``; the benchmark reports the CPU and wall time, the time
of each hand, the decisions, and the load average (the machine may be shared).

    python -m pytest bench/test_coaching_game_bench.py --benchmark-enable -s
"""

from __future__ import annotations

import os
import time

from solver import GameRecord, play_game
from solver.hidden.coaching import grade_game

TARGET_SECONDS = 180.0
HANDS = 10


def ten_hand_game() -> GameRecord:
    record = play_game("rule", "rule", seed=1).to_json()
    assert len(record["hands"]) == HANDS
    return GameRecord(record)


def measure(game: GameRecord) -> dict:
    marks: list[float] = []

    def progress(done: int, planned: int) -> None:
        marks.append(time.process_time())

    load = os.getloadavg()[0]
    start, clock = time.process_time(), time.perf_counter()
    graded = grade_game(game, threads=1, progress=progress)
    cpu, wall = time.process_time() - start, time.perf_counter() - clock
    decisions = [len(h.decisions) for h in graded.hands]
    # CPU per hand: the progress marks at each hand's last decision.
    ends = [marks[sum(decisions[:i + 1]) - 1] for i in range(len(decisions))]
    per_hand = [b - a for a, b in zip([start] + ends[:-1], ends)]
    return {"cpu_s": cpu, "wall_s": wall, "hands": len(graded.hands),
            "decisions": sum(decisions), "max_hand_cpu_s": max(per_hand),
            "hand_cpu_s": [round(x, 2) for x in per_hand],
            "load": (load + os.getloadavg()[0]) / 2}


def test_grade_a_ten_hand_game(benchmark):
    game = ten_hand_game()
    figures = benchmark.pedantic(measure, args=(game,), rounds=1, iterations=1)
    benchmark.extra_info.update(figures)
    print(f"\ngrading a game of {figures['hands']} hands ({figures['decisions']} decisions): "
          f"{figures['cpu_s']:.1f} s CPU, {figures['wall_s']:.1f} s wall; per hand "
          f"{figures['hand_cpu_s']} s CPU; load {figures['load']:.2f}")
    assert figures["hands"] == HANDS
    assert figures["cpu_s"] <= TARGET_SECONDS
