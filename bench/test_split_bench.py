"""One search on two threads against one, on the same deals back to back.

The categories of bench/test_speed_bench.py (200 seeded opening-lead deals
each), every deal solved by a fresh `DealSolver` with ``threads=1`` and then
with ``threads=2`` (root splitting, solver.split), one right after the
other, so that both see the same load on a shared machine. Records for each
thread count the per-deal wall time (median, p99, max), the CPU time of all
threads and the nodes (summed over the threads' engines), and the speed-up
of two threads over one: the ratio of those medians, p99s and maxima and the
median of the per-deal ratios.

    python -m pytest bench/test_split_bench.py --benchmark-enable -s
    python bench/test_split_bench.py [CATEGORY ...]
"""

from __future__ import annotations

import statistics
import time

import pytest

from solver.solve import DealSolver
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


@pytest.mark.parametrize("name", list(QUERIES))
def test_two_threads_against_one(benchmark, name):
    stats = benchmark.pedantic(back_to_back, args=(name,), rounds=1, iterations=1)
    benchmark.extra_info.update(stats)
    print("\n" + describe(name, stats))


if __name__ == "__main__":
    import sys
    for category in sys.argv[1:] or QUERIES:
        print(describe(category, back_to_back(category)), flush=True)
