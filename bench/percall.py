"""Per-call cost around the search: late positions, the CLI, the server's CPU per call.

Helpers for bench/test_percall_bench.py; also runs alone and prints JSON:

    python bench/percall.py solve|cli|cli-memory|server|server-python [--count N]

Every figure is given as CPU time (process_time, getrusage, /proc/PID/stat) as
well as wall time: the machine is shared, so CPU time is the steadier measure.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).parent))
from deals import DECLARATIONS, random_deal  # noqa: E402

from solver import solve  # noqa: E402
from solver.game.position import Position  # noqa: E402
from solver.game.tiles import name_of  # noqa: E402


def late_positions(count: int, seed: int = 12, tricks_left: int = 2) -> list[dict]:
    """``count`` seeded 42 positions with at most ``tricks_left`` tricks left, reached by
    random legal play (some mid-trick), over every declaration."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        trump, doubles = DECLARATIONS[i % len(DECLARATIONS)]
        marks = trump in ("nello", "sevens")
        data = {"hands": random_deal(rng),
                "contract": {"declarer": rng.choice("NESW"), "trump": trump,
                             "bid": 42 if marks else 30, "doubles": doubles},
                "plays": []}
        position = Position(data)
        per_trick = len(position.active_seats)
        stop = (7 - tricks_left) * per_trick + rng.randrange(per_trick)
        plays: list[str] = []
        while len(plays) < stop:
            plays.append(name_of(rng.choice(position.legal_ids())))
            position = Position({**data, "plays": plays})
        out.append(position.to_json())
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a live process (Linux /proc/PID/stat), seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def solve_whole_call(positions: list[dict], repeat: int = 3) -> dict:
    """``solve()`` from the SPEC dict to the result, per call: best of ``repeat`` passes."""
    for p in positions[:50]:
        solve(p)  # warm caches and imports
    best_cpu = best_wall = float("inf")
    nodes = 0
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        nodes = 0
        for p in positions:
            nodes += solve(p).nodes
        best_cpu = min(best_cpu, time.process_time() - c0)
        best_wall = min(best_wall, time.perf_counter() - w0)
    n = len(positions)
    return {"calls": n, "cpu_us_per_call": round(best_cpu / n * 1e6, 1),
            "wall_us_per_call": round(best_wall / n * 1e6, 1), "nodes_total": nodes}


def _cli(args: list[str], stdin_path: str) -> tuple[float, float, int, str]:
    """Run ``t42 ARGS < stdin_path``: (wall s, child CPU s, child peak RSS KiB, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    with open(stdin_path, "rb") as stdin:
        proc = subprocess.run([sys.executable, "-m", "solver", *args], stdin=stdin,
                              capture_output=True, check=False)
    wall = time.perf_counter() - w0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.decode()[-500:])
    return wall, cpu, after.ru_maxrss, proc.stdout.decode()


def write_lines(positions: list[dict], path: str, total: int) -> None:
    with open(path, "w") as f:
        for i in range(total):
            f.write(json.dumps(positions[i % len(positions)]) + "\n")


def cli_lines_per_s(positions: list[dict], workdir: str, total: int = 10_000) -> dict:
    """``t42 solve --json`` on ``total`` late positions: lines/s by wall and by child CPU."""
    path = os.path.join(workdir, f"late-{total}.jsonl")
    write_lines(positions, path, total)
    wall, cpu, _, out = _cli(["solve", "--json"], path)
    assert out.count("\n") == total
    return {"lines": total, "lines_per_s_wall": round(total / wall),
            "lines_per_s_cpu": round(total / cpu)}


def cli_peak_memory(positions: list[dict], workdir: str, total: int = 100_000) -> dict:
    """Peak RSS of ``t42 make-or-set --json`` over a ``total``-line input (child ru_maxrss).

    make-or-set is the cheapest command on the shared input path, so the input and output
    handling dominate. Run in a fresh interpreter so that RUSAGE_CHILDREN holds this child only.
    """
    path = os.path.join(workdir, f"late-{total}.jsonl")
    write_lines(positions, path, total)
    code = ("import resource,subprocess,sys;"
            "subprocess.run([sys.executable,'-m','solver','make-or-set','--json'],"
            "stdin=open(sys.argv[1],'rb'),stdout=subprocess.DEVNULL,check=True);"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True,
                         check=True).stdout
    return {"lines": total, "peak_rss_mb": round(int(out) / 1024, 1)}


def server_cpu_per_call(positions: list[dict], calls: int, concurrency: int = 8,
                        workers: int = 2, processes: int = 2) -> dict:
    """Server CPU per SolvePosition call (from /proc/PID/stat) minus in-process solve(), and
    the load generator's own CPU per call (``processes`` client processes)."""
    from server.convert import position_from_json
    from server.launcher import ServerProcess
    from service_load import run_load

    messages = [position_from_json(p) for p in positions]
    inproc = solve_whole_call(positions[:calls], repeat=1)["cpu_us_per_call"] \
        if calls <= len(positions) else None
    with ServerProcess("--workers", str(workers), "--max-queue", "64") as server:
        assert server.process is not None
        pid = server.process.pid
        run_load(server.address, messages, calls=300, concurrency=concurrency, time_cap=60,
                 processes=processes)
        report = run_load(server.address, messages, calls=calls, concurrency=concurrency,
                          time_cap=300, server_pid=pid, processes=processes)
    per_call_ms = report.server_cpu_ms_per_call
    assert per_call_ms is not None
    out = {"calls": report.calls, "calls_per_s_wall": report.calls_per_s,
           "server_cpu_ms_per_call": per_call_ms,
           "client_cpu_ms_per_call": report.client_cpu_ms_per_call,
           "client_processes": report.processes, "codes": report.codes,
           "load_average": os.getloadavg()[0]}
    if inproc is not None:
        out["inprocess_solve_ms"] = round(inproc / 1000, 3)
        out["server_cpu_over_solve_ms"] = round(per_call_ms - inproc / 1000, 3)
    return out


def service_python_per_call(positions: list[dict], repeat: int = 3) -> dict:
    """The service's own Python per SolvePosition call, without gRPC: the interceptor-wrapped
    handler, given the request's bytes and a stand-in for the call's context, on one thread
    (best of ``repeat`` passes; CPU per call, and the same positions' in-process `solve()`)."""
    import asyncio

    from server import telemetry
    from server.convert import position_from_json
    from server.pool import SolverPool
    from server.servicer import SERVICE_NAME, HintServicer
    from server.telemetry import TelemetryInterceptor
    from texas42.v1 import hint_service_pb2 as service_pb
    from texas42.v1 import hint_service_pb2_grpc as service_grpc

    class Context:  # what the handlers read of a grpc.aio context
        def peer(self) -> str:
            return "ipv4:127.0.0.1:50000"

        def time_remaining(self) -> float:
            return 30.0

        def add_done_callback(self, callback) -> None:
            self.callback = callback

        def code(self) -> None:
            return None

        def cancelled(self) -> bool:
            return False

    class Details:
        method = f"/{SERVICE_NAME}/SolvePosition"
        invocation_metadata = ()

    class Registry:  # receives the generated handlers
        handlers: dict = {}

        def add_generic_rpc_handlers(self, handlers) -> None:
            pass

        def add_registered_method_handlers(self, name, handlers) -> None:
            self.handlers.update(handlers)

    encoded = [service_pb.SolvePositionRequest(position=position_from_json(p))
               .SerializeToString() for p in positions]
    pool = SolverPool(2, 64)
    registry = Registry()
    service_grpc.add_HintServiceServicer_to_server(HintServicer(pool), registry)
    handler = registry.handlers["SolvePosition"]
    interceptor = TelemetryInterceptor(None)

    async def continuation(_details):
        return handler

    async def one(raw: bytes) -> None:
        served = await interceptor.intercept_service(continuation, Details())
        context = Context()
        if served.unary_unary is not None:
            answer = await served.unary_unary(served.request_deserializer(raw), context)
        else:  # a stream-request wrapper
            async def requests():
                yield raw
            answer = await served.stream_unary(requests(), context)
        served.response_serializer(answer)
        getattr(context, "callback", lambda _c: None)(context)

    async def passes() -> float:
        best = float("inf")
        for raw in encoded[:50]:
            await asyncio.create_task(one(raw))
        for _ in range(repeat):
            c0 = time.process_time()
            for raw in encoded:
                await asyncio.create_task(one(raw))  # each call in a task, as in grpc.aio
            best = min(best, time.process_time() - c0)
        return best

    import logging
    logger = logging.getLogger("t42.server")
    with open(os.devnull, "w") as devnull:
        # Log lines are written as `t42 serve` writes them, to /dev/null.
        log_handler = logging.StreamHandler(devnull)
        logger.addHandler(log_handler)
        logger.setLevel(logging.INFO)
        direct = getattr(telemetry, "write_lines_to", None)  # absent before this round
        if direct:
            direct(devnull)
        try:
            used = asyncio.run(passes())
        finally:
            if direct:
                direct(None)
            logger.removeHandler(log_handler)
            pool.shutdown()
    n = len(positions)
    inproc = solve_whole_call(positions, repeat)["cpu_us_per_call"]
    return {"calls": n, "service_python_us_per_call": round(used / n * 1e6, 1),
            "inprocess_solve_us": inproc,
            "over_solve_us": round(used / n * 1e6 - inproc, 1)}


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["solve", "cli", "cli-memory", "server",
                                         "server-python"])
    parser.add_argument("--count", type=int, default=2000)
    args = parser.parse_args(argv)
    import tempfile
    positions = late_positions(min(args.count, 2000))
    with tempfile.TemporaryDirectory() as tmp:
        if args.what == "solve":
            result = solve_whole_call(positions)
        elif args.what == "cli":
            result = cli_lines_per_s(positions, tmp, args.count)
        elif args.what == "cli-memory":
            result = cli_peak_memory(positions, tmp, args.count)
        elif args.what == "server-python":
            result = service_python_per_call(positions)
        else:
            result = server_cpu_per_call(positions, args.count)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
