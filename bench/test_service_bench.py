"""gRPC service load on loopback: SolvePosition on full deals from the opening lead.

A real `t42 serve --workers 2` process and a bounded client (fixed number of
calls, concurrency 8 over 2 client processes, a time cap; see service_load.py). Targets of the service: at least
150 calls/s, p99 latency at most 100 ms, and server RSS flat within 10% over
20,000 calls. Figures go to the benchmark's extra_info (``-s`` prints them).

    python -m pytest bench/test_service_bench.py --benchmark-enable -s
"""

from __future__ import annotations

from dataclasses import asdict

import pytest
from service_load import LoadReport, opening_lead_deals, run_load

from server.launcher import ServerProcess

WORKERS = 2
CONCURRENCY = 8
WARMUP = 300
TARGET_CALLS_PER_S = 150
TARGET_P99_MS = 100
TARGET_RSS_GROWTH = 0.10


def load(benchmark, calls: int, time_cap: float, best_only: bool = False) -> LoadReport:
    positions = opening_lead_deals(calls + WARMUP)  # every call a distinct deal
    with ServerProcess("--workers", str(WORKERS), "--max-queue", "64") as server:
        assert server.process is not None
        run_load(server.address, positions[calls:], calls=WARMUP, concurrency=CONCURRENCY,
                 time_cap=time_cap)
        report = benchmark.pedantic(
            run_load, args=(server.address, positions[:calls]),
            kwargs=dict(calls=calls, concurrency=CONCURRENCY, time_cap=time_cap,
                        best_only=best_only, server_pid=server.process.pid),
            rounds=1, iterations=1)
    benchmark.extra_info.update({k: v for k, v in asdict(report).items() if k != "rss_mib"})
    print(f"\n{calls} calls (best_only={best_only}): {report.calls_per_s} calls/s, "
          f"p50 {report.p50_ms} ms, p99 {report.p99_ms} ms, max {report.max_ms} ms, "
          f"CPU per call: server {report.server_cpu_ms_per_call} ms, client "
          f"{report.client_cpu_ms_per_call} ms ({report.processes} processes), codes {report.codes}")
    assert report.codes == {"OK": calls}, "every call answered, none refused or late"
    return report


@pytest.mark.parametrize("best_only", [False, True], ids=["all-moves", "best-only"])
def test_solve_position_throughput(benchmark, best_only):
    report = load(benchmark, calls=3000, time_cap=120, best_only=best_only)
    assert report.calls_per_s >= TARGET_CALLS_PER_S
    assert report.p99_ms <= TARGET_P99_MS


def test_server_rss_flat_over_20000_calls(benchmark):
    report = load(benchmark, calls=20_000, time_cap=600)
    growth = report.rss_growth(after_calls=1000)
    benchmark.extra_info["rss_mib"] = report.rss_mib
    benchmark.extra_info["rss_growth"] = growth
    print(f"server RSS (MiB) by calls done: {report.rss_mib}; growth after 1,000 calls: "
          f"{growth:.1%}")
    assert growth is not None and abs(growth) <= TARGET_RSS_GROWTH


def test_grpc_floor_per_call(benchmark):
    """The same client against a grpc.aio server that answers without doing anything: what
    gRPC itself costs per call here, server and client (no target; the service's CPU per
    call over `solve()` is compared with it in bench/README.md)."""
    from service_load import echo_floor
    report = benchmark.pedantic(echo_floor, args=(opening_lead_deals(100), 4000), rounds=1,
                                iterations=1)
    benchmark.extra_info.update({k: v for k, v in asdict(report).items() if k != "rss_mib"})
    print(f"\nempty grpc.aio handler: {report.calls_per_s} calls/s, CPU per call: server "
          f"{report.server_cpu_ms_per_call} ms, client {report.client_cpu_ms_per_call} ms")
    assert report.codes == {"OK": 4000}
