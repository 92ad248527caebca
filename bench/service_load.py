"""A bounded gRPC load generator for the hint service (loopback).

A fixed number of calls at a fixed concurrency, stopped early by a time cap;
reports throughput, latency percentiles, status codes, the CPU per call of
the server and of the client, and the server's RSS sampled along the way.

The client shares the machine with the server, so it is kept lean: several
processes (each with its own channel, blocking calls on a few threads),
requests encoded before the clock starts, answers kept as bytes. Its own CPU
per call is reported beside the server's. Used by bench/test_service_bench.py
and bench/percall.py; also runs alone:

    python bench/service_load.py --calls 2000 --concurrency 8 --workers 2 [--processes 2]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import queue
import random
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

import grpc

sys.path.insert(0, str(Path(__file__).parent))
from deals import random_deal  # noqa: E402

from server.convert import position_from_json  # noqa: E402
from server.launcher import ServerProcess  # noqa: E402
from texas42.v1 import hint_service_pb2 as service_pb  # noqa: E402
from texas42.v1 import position_pb2 as pb  # noqa: E402

SERVICE = service_pb.DESCRIPTOR.services_by_name["HintService"].full_name
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


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a live process (Linux /proc/PID/stat), seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class LoadReport:
    """What one load run measured."""

    calls: int
    concurrency: int
    processes: int
    elapsed_s: float
    calls_per_s: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    codes: dict[str, int]
    capped: bool
    client_cpu_ms_per_call: float  # every client process, its gRPC threads included
    server_cpu_ms_per_call: Optional[float] = None  # with server_pid
    rss_mib: list[tuple[int, float]] = field(default_factory=list)  # (calls done, RSS)

    def rss_growth(self, after_calls: int) -> Optional[float]:
        """Relative RSS change from the first sample at or after ``after_calls`` to the last."""
        later = [r for n, r in self.rss_mib if n >= after_calls]
        return (later[-1] - later[0]) / later[0] if len(later) >= 2 else None


def _percentile(sorted_ms: Sequence[float], q: float) -> float:
    if not sorted_ms:
        return float("nan")
    return sorted_ms[min(len(sorted_ms) - 1, int(q * len(sorted_ms)))]


def _client(address: str, method: str, requests: list[bytes], calls: int, threads: int,
            time_cap: float, ready: Any, go: Any, progress: Any, slot: int,
            results: Any) -> None:
    """One client process: ``threads`` blocking callers on one channel, sending pre-encoded
    requests and keeping the answers as bytes (the client's own cost stays small)."""
    # No retry bookkeeping and no channelz counters: a load generator wants neither.
    options = [("grpc.enable_retries", 0), ("grpc.enable_channelz", 0)]
    with grpc.insecure_channel(address, options=options) as channel:
        call = channel.unary_unary(method, request_serializer=None, response_deserializer=None)
        call(requests[0], timeout=30)  # connected before the clock starts
        latencies: list[float] = []
        codes: dict[str, int] = {}
        lock = threading.Lock()
        next_call = 0

        def caller() -> None:
            nonlocal next_call
            while True:
                with lock:
                    i = next_call
                    next_call += 1
                if i >= calls or time.monotonic() >= stop_at:
                    return
                t0 = time.perf_counter()
                try:
                    call(requests[i % len(requests)], timeout=30)
                    code = "OK"
                except grpc.RpcError as exc:
                    code = exc.code().name
                elapsed = (time.perf_counter() - t0) * 1000
                with lock:
                    latencies.append(elapsed)
                    codes[code] = codes.get(code, 0) + 1
                    progress[slot] = len(latencies)

        ready.put(slot)
        go.wait()
        stop_at = time.monotonic() + time_cap
        cpu0 = time.process_time()
        workers = [threading.Thread(target=caller) for _ in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        results.put((latencies, codes, time.process_time() - cpu0, time.monotonic()))


def _drive(children: list[Any], ready: Any, go: Any, results: Any, progress: Any,
           server_pid: Optional[int], rss: list[tuple[int, float]],
           rss_every: int) -> tuple[list[Any], float, Optional[float]]:
    """Start the clients together once all are connected; collect what they measured,
    sampling the server's RSS as calls complete. (outcomes, start time, server CPU s)"""
    def check_alive() -> None:
        if any(not c.is_alive() and c.exitcode for c in children):
            raise RuntimeError("a client process died")

    waiting = len(children)
    while waiting:  # every client connected
        try:
            ready.get(timeout=0.2)
            waiting -= 1
        except queue.Empty:
            check_alive()
    server_cpu0 = cpu_seconds(server_pid) if server_pid else 0.0
    start = time.monotonic()
    go.set()
    outcomes = []
    next_rss = rss_every
    while len(outcomes) < len(children):
        try:
            outcomes.append(results.get(timeout=0.1))
        except queue.Empty:
            check_alive()
        if server_pid:
            done = sum(progress)
            while done >= next_rss:
                rss.append((next_rss, rss_mib(server_pid)))
                next_rss += rss_every
    server_cpu = cpu_seconds(server_pid) - server_cpu0 if server_pid else None
    return outcomes, start, server_cpu


def run_load(address: str, positions: Sequence[pb.Position], *, calls: int, concurrency: int,
             time_cap: float, best_only: bool = False, server_pid: Optional[int] = None,
             rss_every: int = 1000, processes: int = 2,
             method: str = f"/{SERVICE}/SolvePosition") -> LoadReport:
    """Send ``calls`` SolvePosition calls (cycling through ``positions``), ``concurrency``
    at a time from ``processes`` client processes (each with its own channel), stopping
    early at ``time_cap`` seconds; measure the client's and the server's CPU, sample the
    server's RSS. The clients are spawned processes: a script calling this needs an
    ``if __name__ == "__main__":`` guard."""
    processes = max(1, min(processes, concurrency))
    encoded = [service_pb.SolvePositionRequest(position=p, best_only=best_only)
               .SerializeToString() for p in positions]
    context = multiprocessing.get_context("spawn")  # no gRPC state inherited through fork
    ready, go, results = context.Queue(), context.Event(), context.Queue()
    progress = context.Array("l", processes, lock=False)
    rss: list[tuple[int, float]] = []
    if server_pid:
        rss.append((0, rss_mib(server_pid)))
    children = []
    for k in range(processes):
        share = calls // processes + (k < calls % processes)
        threads = concurrency // processes + (k < concurrency % processes)
        # Each process cycles through its own part of the positions.
        part = encoded[k::processes] or encoded
        children.append(context.Process(target=_client, args=(
            address, method, part, share, threads, time_cap, ready, go, progress, k, results),
            daemon=True))
    for child in children:
        child.start()
    try:
        outcomes, start, server_cpu = _drive(children, ready, go, results, progress,
                                             server_pid, rss, rss_every)
    finally:
        for child in children:
            if child.is_alive():
                child.terminate()
            child.join()
    latencies = sorted(ms for o in outcomes for ms in o[0])
    codes: dict[str, int] = {}
    for o in outcomes:
        for code, n in o[1].items():
            codes[code] = codes.get(code, 0) + n
    elapsed = max(o[3] for o in outcomes) - start
    done = len(latencies)
    return LoadReport(
        calls=done, concurrency=concurrency, processes=processes, elapsed_s=round(elapsed, 3),
        calls_per_s=round(done / elapsed, 1),
        p50_ms=round(_percentile(latencies, 0.50), 2), p90_ms=round(_percentile(latencies, 0.90), 2),
        p99_ms=round(_percentile(latencies, 0.99), 2),
        max_ms=round(latencies[-1], 2) if latencies else float("nan"), codes=codes,
        capped=done < calls,
        client_cpu_ms_per_call=round(sum(o[2] for o in outcomes) / max(done, 1) * 1000, 3),
        server_cpu_ms_per_call=round(server_cpu / max(done, 1) * 1000, 3)
        if server_cpu is not None else None, rss_mib=rss)


#: A grpc.aio server whose one method answers 40 fixed bytes: the floor of a call's cost.
_ECHO_SERVER = """
import asyncio, grpc
async def echo(request, context):
    return b"x" * 40
async def main():
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        "t42.bench.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(echo)}),))
    print(server.add_insecure_port("127.0.0.1:0"), flush=True)
    await server.start()
    await server.wait_for_termination()
asyncio.run(main())
"""


def echo_floor(positions: Sequence[pb.Position], calls: int, concurrency: int = 8,
               processes: int = 2) -> LoadReport:
    """The same load against a grpc.aio server that does nothing (fixed answer): the
    server's and the client's CPU per call that gRPC itself costs here."""
    import subprocess
    server = subprocess.Popen([sys.executable, "-c", _ECHO_SERVER], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert server.stdout is not None
        address = f"127.0.0.1:{int(server.stdout.readline())}"
        method = "/t42.bench.Echo/Echo"
        run_load(address, positions, calls=300, concurrency=concurrency, time_cap=60,
                 processes=processes, method=method)
        return run_load(address, positions, calls=calls, concurrency=concurrency, time_cap=300,
                        server_pid=server.pid, processes=processes, method=method)
    finally:
        server.kill()
        server.wait()


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--time-cap", type=float, default=300.0)
    parser.add_argument("--best-only", action="store_true")
    parser.add_argument("--warmup", type=int, default=200, help="calls before measuring")
    parser.add_argument("--processes", type=int, default=2, help="client processes")
    parser.add_argument("--echo", action="store_true",
                        help="against a server that answers without doing anything: the "
                             "floor of gRPC's own cost per call")
    args = parser.parse_args(argv)
    positions = opening_lead_deals(args.calls + args.warmup)
    if args.echo:
        report = echo_floor(positions, args.calls, args.concurrency, args.processes)
        print(json.dumps({k: v for k, v in asdict(report).items() if k != "rss_mib"}, indent=1))
        return 0
    with ServerProcess("--workers", str(args.workers), "--max-queue", "64") as server:
        assert server.process is not None
        run_load(server.address, positions[args.calls:], calls=args.warmup,
                 concurrency=args.concurrency, time_cap=args.time_cap, best_only=args.best_only,
                 processes=args.processes)
        report = run_load(server.address, positions[:args.calls], calls=args.calls,
                          concurrency=args.concurrency, time_cap=args.time_cap,
                          best_only=args.best_only, server_pid=server.process.pid,
                          processes=args.processes)
    print(json.dumps(asdict(report), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
