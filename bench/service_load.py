"""A bounded gRPC load generator for the hint service (loopback).

A fixed number of calls at a fixed concurrency, stopped early by a time cap;
reports throughput, latency percentiles, status codes, and the server's RSS
sampled along the way. Used by bench/test_service_bench.py; also runs alone:

    python bench/service_load.py --calls 2000 --concurrency 8 --workers 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional, Sequence

import grpc

sys.path.insert(0, str(Path(__file__).parent))
from deals import random_deal  # noqa: E402

from server.convert import position_from_json  # noqa: E402
from server.launcher import ServerProcess  # noqa: E402
from texas42.v1 import hint_service_pb2 as service_pb  # noqa: E402
from texas42.v1 import hint_service_pb2_grpc as service_grpc  # noqa: E402
from texas42.v1 import position_pb2 as pb  # noqa: E402

PIPS = ("blanks", "ones", "deuces", "treys", "fours", "fives", "sixes")


def opening_lead_deals(count: int, seed: int = 2024) -> list[pb.Position]:
    """``count`` distinct seeded deals from the opening lead, as a bidder would declare them:
    a random declarer names the suit they hold most of (bid 30)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        hands = random_deal(rng)
        declarer = rng.choice("NESW")
        length = [sum(str(p) in t for t in hands[declarer]) for p in range(7)]
        trump = max(range(7), key=lambda p: (length[p], p))
        out.append(position_from_json({"hands": hands, "contract": {
            "declarer": declarer, "trump": PIPS[trump], "bid": 30}}))
    return out


def rss_mib(pid: int) -> float:
    """Resident set size of a process, MiB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


@dataclass
class LoadReport:
    """What one load run measured."""

    calls: int
    concurrency: int
    elapsed_s: float
    calls_per_s: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    codes: dict[str, int]
    capped: bool
    rss_mib: list[tuple[int, float]] = field(default_factory=list)  # (calls done, RSS)

    def rss_growth(self, after_calls: int) -> Optional[float]:
        """Relative RSS change from the first sample at or after ``after_calls`` to the last."""
        later = [r for n, r in self.rss_mib if n >= after_calls]
        return (later[-1] - later[0]) / later[0] if len(later) >= 2 else None


def _percentile(sorted_ms: Sequence[float], q: float) -> float:
    if not sorted_ms:
        return float("nan")
    return sorted_ms[min(len(sorted_ms) - 1, int(q * len(sorted_ms)))]


async def _load(address: str, positions: Sequence[pb.Position], calls: int, concurrency: int,
                time_cap: float, best_only: bool, server_pid: Optional[int],
                rss_every: int) -> LoadReport:
    latencies: list[float] = []
    codes: dict[str, int] = {}
    rss: list[tuple[int, float]] = []
    next_call = 0
    start = time.perf_counter()
    stop_at = start + time_cap
    if server_pid:
        rss.append((0, rss_mib(server_pid)))

    async with grpc.aio.insecure_channel(address) as channel:
        stub = service_grpc.HintServiceStub(channel)

        async def client() -> None:
            nonlocal next_call
            while next_call < calls and time.perf_counter() < stop_at:
                i = next_call
                next_call += 1
                request = service_pb.SolvePositionRequest(
                    position=positions[i % len(positions)], best_only=best_only)
                t0 = time.perf_counter()
                try:
                    await stub.SolvePosition(request, timeout=30)
                    code = "OK"
                except grpc.aio.AioRpcError as exc:
                    code = exc.code().name
                latencies.append((time.perf_counter() - t0) * 1000)
                codes[code] = codes.get(code, 0) + 1
                done = len(latencies)
                if server_pid and done % rss_every == 0:
                    rss.append((done, rss_mib(server_pid)))

        await asyncio.gather(*(client() for _ in range(concurrency)))
    elapsed = time.perf_counter() - start
    ordered = sorted(latencies)
    return LoadReport(
        calls=len(latencies), concurrency=concurrency, elapsed_s=round(elapsed, 3),
        calls_per_s=round(len(latencies) / elapsed, 1),
        p50_ms=round(_percentile(ordered, 0.50), 2), p90_ms=round(_percentile(ordered, 0.90), 2),
        p99_ms=round(_percentile(ordered, 0.99), 2), max_ms=round(ordered[-1], 2) if ordered
        else float("nan"), codes=codes, capped=len(latencies) < calls, rss_mib=rss)


def run_load(address: str, positions: Sequence[pb.Position], *, calls: int, concurrency: int,
             time_cap: float, best_only: bool = False, server_pid: Optional[int] = None,
             rss_every: int = 1000) -> LoadReport:
    """Send ``calls`` SolvePosition calls (cycling through ``positions``), ``concurrency``
    at a time, stopping early at ``time_cap`` seconds; sample the server's RSS."""
    return asyncio.run(_load(address, positions, calls, concurrency, time_cap, best_only,
                             server_pid, rss_every))


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--time-cap", type=float, default=300.0)
    parser.add_argument("--best-only", action="store_true")
    parser.add_argument("--warmup", type=int, default=200, help="calls before measuring")
    args = parser.parse_args(argv)
    positions = opening_lead_deals(args.calls + args.warmup)
    with ServerProcess("--workers", str(args.workers), "--max-queue", "64") as server:
        assert server.process is not None
        run_load(server.address, positions[args.calls:], calls=args.warmup,
                 concurrency=args.concurrency, time_cap=args.time_cap, best_only=args.best_only)
        report = run_load(server.address, positions[:args.calls], calls=args.calls,
                          concurrency=args.concurrency, time_cap=args.time_cap,
                          best_only=args.best_only, server_pid=server.process.pid)
    print(json.dumps(asdict(report), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
