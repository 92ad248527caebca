"""One search on two threads against one, on the same deals back to back.

The categories of bench/test_speed_bench.py (200 seeded opening-lead deals
each), every deal solved by a fresh `DealSolver` with ``threads=1`` and then
with ``threads=2`` (root splitting, solver.search.split), one right after the
other, so that both see the same load on a shared machine. Records for each
thread count the per-deal wall time (median, p99, max), the CPU time of all
threads and the nodes (summed over the threads' engines), and the speed-up
of two threads over one: the ratio of those medians, p99s and maxima and the
median of the per-deal ratios.

On a machine loaded by others the second thread waits for a core and the
wall times say little; `idle_model` then tells what two idle cores would
give, deterministically: the same split searches run one after the other on
the threads' engines, the next move going to the engine with the fewest
nodes searched so far (the first free thread; the helper takes the least
promising move left when scoring) and starting from what the moves finished
by then had found. Its critical path (the most
nodes any engine searched, plus the line walked after) against the one
thread's nodes is the speed-up two idle cores would give at a constant
node rate, the hand-over between threads (a few tens of microseconds) aside.

    python -m pytest bench/test_split_bench.py --benchmark-enable -s
    python bench/test_split_bench.py [CATEGORY ...]    # back to back, and the model
"""

from __future__ import annotations

import statistics
import time

import pytest

from solver.search.solve import DealSolver
from test_speed_bench import QUERIES

THREADS = (1, 2)
FIGURES = ("ms", "cpu_ms", "nodes")


def _spread(values: list[float], unit: str) -> dict:
    return {f"median_{unit}": statistics.median(values),
            f"p99_{unit}": statistics.quantiles(values, n=100)[98], f"max_{unit}": max(values)}


def back_to_back(name: str) -> dict:
    """Per-thread-count figures and the speed-ups, over every deal of ``name``."""
    positions, query = QUERIES[name]
    seen: dict[int, dict[str, list[float]]] = {t: {f: [] for f in FIGURES} for t in THREADS}
    for position in positions:
        for threads in THREADS:
            start, start_cpu = time.perf_counter(), time.process_time()
            solver = DealSolver(position, threads=threads)
            query(solver)
            seen[threads]["ms"].append((time.perf_counter() - start) * 1000)
            seen[threads]["cpu_ms"].append((time.process_time() - start_cpu) * 1000)
            seen[threads]["nodes"].append(solver.nodes)
    out: dict = {}
    for threads in THREADS:
        for figure in FIGURES:
            out.update({f"t{threads}_{k}": v
                        for k, v in _spread(seen[threads][figure], figure).items()})
    one, two = seen[1]["ms"], seen[2]["ms"]
    for stat in ("median", "p99", "max"):
        out[f"speedup_{stat}"] = out[f"t1_{stat}_ms"] / out[f"t2_{stat}_ms"]
    out["speedup_per_deal_median"] = statistics.median(a / b for a, b in zip(one, two))
    out["cpu_ratio_total"] = sum(seen[2]["cpu_ms"]) / sum(seen[1]["cpu_ms"])
    out["nodes_ratio_total"] = sum(seen[2]["nodes"]) / sum(seen[1]["nodes"])
    return out


def describe(name: str, s: dict) -> str:
    lines = [f"{name}:"]
    for t in THREADS:
        lines.append(f"  threads {t}: wall median {s[f't{t}_median_ms']:.2f} p99 "
                     f"{s[f't{t}_p99_ms']:.2f} max {s[f't{t}_max_ms']:.2f} ms; CPU median "
                     f"{s[f't{t}_median_cpu_ms']:.2f} p99 {s[f't{t}_p99_cpu_ms']:.2f} max "
                     f"{s[f't{t}_max_cpu_ms']:.2f} ms; nodes median {s[f't{t}_median_nodes']:.0f}"
                     f" p99 {s[f't{t}_p99_nodes']:.0f} max {s[f't{t}_max_nodes']:.0f}")
    lines.append(f"  speed-up (1 -> 2 threads, wall): median {s['speedup_median']:.2f}, p99 "
                 f"{s['speedup_p99']:.2f}, max {s['speedup_max']:.2f}, per deal "
                 f"{s['speedup_per_deal_median']:.2f}; CPU x{s['cpu_ratio_total']:.2f}, "
                 f"nodes x{s['nodes_ratio_total']:.2f}")
    return "\n".join(lines)


def _beats(value: int, best: int, is_max: bool) -> bool:
    return best < 0 or (value > best if is_max else value < best)


def _modelled(position, kind: str) -> tuple[int, int]:
    """(critical path, nodes in all) of one two-thread split search, run sequentially."""
    solver = DealSolver(position, threads=2)
    engines = [solver.engine] + solver._helpers(1)
    moves, is_max = solver.engine.legal(), solver._is_max()
    clock, done, scored = [0, 0], [], []
    target = position.make_target(42)[0] if kind == "make_or_set" else 0
    bounds = solver.engine.sure_bounds()
    if len(moves) < 2 or (kind == "make_or_set" and bounds is not None
                          and (bounds[0] >= target or bounds[1] < target)):
        # One thread: what DealSolver does for a single move or a test settled at once.
        one = DealSolver(position)
        {"score": one.child_values, "solve": one.solve, "value": one.value,
         "make_or_set": lambda: one.make_or_set(42)}[kind]()
        return one.nodes, one.nodes
    first_done, front, back, own = 0, 0, len(moves), -1
    for i in range(len(moves)):
        w = 0 if clock[0] <= clock[1] else 1
        if kind == "value" and i == 1:
            clock[1] = max(clock[1], first_done)  # the young brothers wait for the first
            w = 0 if clock[0] <= clock[1] else 1
        scoring = kind in ("score", "solve")
        if scoring and w == 1:  # the helper scores the least promising moves first
            back -= 1
            tile = moves[back]
        else:
            tile = moves[front]
            front += 1
        best = -1
        for finish, v in done:
            if finish <= clock[w] and _beats(v, best, is_max):
                best = v
        if scoring and w == 1:
            best = own
        engine = engines[w]
        before = engine.nodes
        engine.play(tile)
        if kind in ("score", "solve") or (kind == "value" and i == 0):
            v = engine.exact(best)
        elif kind == "value":
            if is_max:
                v = engine.exact(best + 1) if engine.at_least(best + 1) else None
            else:
                v = None if engine.at_least(best) else engine.exact(best - 1)
        else:
            v = engine.at_least(target)
        engine.undo()
        clock[w] += engine.nodes - before
        if i == 0:
            first_done = clock[w]
        if kind == "make_or_set":
            if v == is_max:  # decided: the other thread is stopped here
                return clock[w], sum(e.nodes for e in engines)
            continue
        if v is not None:
            done.append((clock[w], v))
            scored.append((tile, v, w))
            if w == 1 and _beats(v, own, is_max):
                own = v
    critical = max(clock)
    if kind == "solve":  # the line, on the engine that scored its first play
        sign = -1 if is_max else 1
        tile, value, w = min(scored, key=lambda s: (sign * s[1], s[0]))
        before = engines[w].nodes
        solver._line(engines[w], value, tile)
        critical += engines[w].nodes - before
    return critical, sum(e.nodes for e in engines)


KINDS = {"nello_make_or_set": "make_or_set", "every_lead_scored_solve": "solve",
         "exact_value": "value", "pip_trumps_every_lead_scored": "score"}


def idle_model(name: str) -> dict:
    """Two idle cores, modelled in nodes: one thread's nodes against the critical path."""
    positions, query = QUERIES[name]
    one, critical, total = [], [], []
    for position in positions:
        solver = DealSolver(position)
        query(solver)
        path, nodes = _modelled(position, KINDS[name])
        one.append(solver.nodes)
        critical.append(path)
        total.append(nodes)
    out = {**_spread(one, "t1_nodes"), **_spread(critical, "t2_critical_nodes")}
    for stat in ("median", "p99", "max"):
        out[f"model_speedup_{stat}"] = out[f"{stat}_t1_nodes"] / out[f"{stat}_t2_critical_nodes"]
    out["model_speedup_per_deal_median"] = statistics.median(a / b for a, b in zip(one, critical))
    out["model_nodes_ratio_total"] = sum(total) / sum(one)
    return out


def describe_model(name: str, s: dict) -> str:
    return (f"  idle model: one thread nodes median {s['median_t1_nodes']:.0f} p99 "
            f"{s['p99_t1_nodes']:.0f} max {s['max_t1_nodes']:.0f}; two threads' critical path "
            f"median {s['median_t2_critical_nodes']:.0f} p99 {s['p99_t2_critical_nodes']:.0f} "
            f"max {s['max_t2_critical_nodes']:.0f}; speed-up median {s['model_speedup_median']:.2f}"
            f", p99 {s['model_speedup_p99']:.2f}, max {s['model_speedup_max']:.2f}, per deal "
            f"{s['model_speedup_per_deal_median']:.2f}; nodes x{s['model_nodes_ratio_total']:.2f}")


@pytest.mark.parametrize("name", list(QUERIES))
def test_two_threads_against_one(benchmark, name):
    stats = benchmark.pedantic(back_to_back, args=(name,), rounds=1, iterations=1)
    model = idle_model(name)
    benchmark.extra_info.update({**stats, **model})
    print("\n" + describe(name, stats) + "\n" + describe_model(name, model))


if __name__ == "__main__":
    import sys
    for category in sys.argv[1:] or QUERIES:
        print(describe(category, back_to_back(category)), flush=True)
        print(describe_model(category, idle_model(category)), flush=True)
