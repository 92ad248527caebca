"""The cost around the search: late positions whole-call, the CLI, the service per call.

Targets (issue 12, items 5 and 6); each figure is CPU time as well as wall time,
since the machine is shared (see bench/README.md):

- `solve()` of a late position (<= 2 tricks left), SPEC dict to result: <= 30 us;
- `t42 solve --json` on 10,000 late positions: >= 20,000 lines/s;
- `t42 make-or-set --json` on a 100,000-line input: peak RSS <= 60 MB;
- gRPC SolvePosition, late positions, concurrency 8: >= 4,000 calls/s, and server
  CPU per call over the in-process `solve()` of the same positions: <= 0.15 ms.

    python -m pytest bench/test_percall_bench.py --benchmark-enable -s
"""

from __future__ import annotations

import pytest
from percall import (cli_lines_per_s, cli_peak_memory, late_positions, server_cpu_per_call,
                     solve_whole_call)

LATE = 2000  # distinct seeded late positions


@pytest.fixture(scope="module")
def positions() -> list[dict]:
    return late_positions(LATE)


def report(benchmark, figures: dict) -> None:
    benchmark.extra_info.update(figures)
    print(f"\n{figures}")


def test_solve_late_position_whole_call(benchmark, positions):
    figures = benchmark.pedantic(solve_whole_call, args=(positions,), rounds=1, iterations=1)
    report(benchmark, figures)
    assert figures["nodes_total"] > 0


def test_cli_solve_json_lines_per_s(benchmark, positions, tmp_path):
    figures = benchmark.pedantic(cli_lines_per_s, args=(positions, str(tmp_path), 10_000),
                                 rounds=1, iterations=1)
    report(benchmark, figures)


def test_cli_peak_memory_100000_lines(benchmark, positions, tmp_path):
    figures = benchmark.pedantic(cli_peak_memory, args=(positions, str(tmp_path), 100_000),
                                 rounds=1, iterations=1)
    report(benchmark, figures)
    assert figures["peak_rss_mb"] <= 60


def test_server_cpu_per_call_late_positions(benchmark, positions):
    figures = benchmark.pedantic(server_cpu_per_call, args=(positions, LATE), rounds=1,
                                 iterations=1)
    report(benchmark, figures)
    assert figures["codes"] == {"OK": LATE}
