"""The hint service under stress and at its edges, each on its own `t42 serve` process.

Deadlines and cancellation stop the search (the worker's job ends "cancelled"
and the worker is free for the next call); a burst beyond the queue bound is
refused with RESOURCE_EXHAUSTED; SIGTERM drains calls in flight; the command
line refuses bad options and a busy port without a traceback.
"""

from __future__ import annotations

import socket
import subprocess

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_helpers import full_deals, scrape, wait_for

from server.convert import position_from_json
from server.launcher import ServerProcess, t42_command
from texas42.v1 import hint_service_pb2 as service_pb
from texas42.v1 import hint_service_pb2_grpc as service_grpc

SERVICE = "/texas42.v1.HintService/"
TIMEOUT = 60  # a guard against a hung server, not a speed check
#: A deal that takes the search a while (hundreds of thousands of nodes).
HARD_DEAL = {"hands": {"N": ["3-1", "4-3", "2-0", "0-0", "4-1", "6-3", "4-4"],
                       "E": ["4-2", "6-1", "6-6", "6-2", "5-4", "4-0", "6-4"],
                       "S": ["2-1", "6-5", "5-2", "3-2", "6-0", "3-3", "1-1"],
                       "W": ["5-1", "5-0", "3-0", "1-0", "2-2", "5-3", "5-5"]},
             "contract": {"declarer": "E", "trump": "doubles", "bid": 30}}
LATE = {"hands": HARD_DEAL["hands"], "contract": HARD_DEAL["contract"],
        "plays": ["6-6", "3-3", "2-2", "0-0", "6-1", "6-5", "5-0", "6-3"]}


def jobs(port: int, outcome: str) -> float:
    return scrape(port).get(f't42_solver_jobs_total{{outcome="{outcome}"}}', 0.0)


def idle(port: int) -> bool:
    return scrape(port).get("t42_solver_busy_workers") == 0


def solve_late(stub, timeout: float = TIMEOUT) -> int:
    request = service_pb.SolvePositionRequest(position=position_from_json(LATE))
    return stub.SolvePosition(request, timeout=timeout).solution.value


@pytest.fixture
def one_worker():
    with ServerProcess("--workers", "1", "--max-queue", "2", "--metrics-port", "0") as proc:
        with grpc.insecure_channel(proc.address) as channel:
            yield proc, service_grpc.HintServiceStub(channel), channel


def test_deadline_stops_the_search_and_frees_the_worker(one_worker):
    server, stub, _ = one_worker
    request = service_pb.SolvePositionRequest(position=position_from_json(HARD_DEAL))
    stub.SolvePosition(request, timeout=TIMEOUT)  # once in full, to learn how long it takes
    full = wait_for(lambda: [e for e in server.log("rpc") if e["code"] == "OK"])[-1]
    assert full["latency_ms"] >= 40, "pick a harder deal: the search is too quick to cut"
    with pytest.raises(grpc.RpcError) as err:
        stub.SolvePosition(request, timeout=full["latency_ms"] / 1000 / 5)
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    # The worker's job ended early (the search saw the deadline), not by finishing.
    wait_for(lambda: jobs(server.metrics_port, "cancelled") == 1 and idle(server.metrics_port))
    assert jobs(server.metrics_port, "ok") == 1
    assert wait_for(lambda: [e for e in server.log("rpc") if e["code"] == "DEADLINE_EXCEEDED"])
    assert solve_late(stub) == solve_late(stub)  # and the next calls are answered


def _assert_batch_stopped(server, stub, code: str) -> None:
    """The call ended with ``code`` and its batch went no further: once the worker is
    idle, only the next call's job runs."""
    wait_for(lambda: [e for e in server.log("rpc") if e["code"] == code])
    wait_for(lambda: idle(server.metrics_port))
    done = jobs(server.metrics_port, "ok")
    assert done < 1000
    solve_late(stub)
    wait_for(lambda: idle(server.metrics_port) and jobs(server.metrics_port, "ok") > done)
    assert jobs(server.metrics_port, "ok") == done + 1


def test_deadline_on_a_batch_stops_every_lane(one_worker):
    server, stub, _ = one_worker
    batch = service_pb.SolvePositionsRequest(positions=full_deals(1000, seed=3))
    with pytest.raises(grpc.RpcError) as err:
        stub.SolvePositions(batch, timeout=0.3)
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    _assert_batch_stopped(server, stub, "DEADLINE_EXCEEDED")


def test_client_cancel_stops_the_search(one_worker):
    server, stub, _ = one_worker
    single = stub.SolvePosition.future(service_pb.SolvePositionRequest(
        position=position_from_json(HARD_DEAL)), timeout=TIMEOUT)
    wait_for(lambda: scrape(server.metrics_port).get("t42_solver_busy_workers") == 1)
    single.cancel()
    # The search saw the cancellation: its job ended "cancelled", not "ok".
    wait_for(lambda: jobs(server.metrics_port, "cancelled") == 1 and idle(server.metrics_port))
    assert jobs(server.metrics_port, "ok") == 0

    batch = service_pb.SolvePositionsRequest(positions=full_deals(1000, seed=4))
    future = stub.SolvePositions.future(batch, timeout=TIMEOUT)
    wait_for(lambda: jobs(server.metrics_port, "ok") >= 2)
    future.cancel()
    _assert_batch_stopped(server, stub, "CANCELLED")


def test_burst_beyond_the_queue_gets_resource_exhausted(one_worker):
    server, stub, channel = one_worker
    batch = service_pb.SolvePositionsRequest(positions=full_deals(20, seed=5))
    futures = [stub.SolvePositions.future(batch, timeout=TIMEOUT) for _ in range(12)]
    codes = []
    for future in futures:
        try:
            future.result()
            codes.append(grpc.StatusCode.OK)
        except grpc.RpcError as exc:
            codes.append(exc.code())
    assert set(codes) <= {grpc.StatusCode.OK, grpc.StatusCode.RESOURCE_EXHAUSTED}
    # One worker plus two waiting: at least three are served, the rest refused.
    assert codes.count(grpc.StatusCode.OK) >= 3
    assert codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) >= 1
    health = health_pb2_grpc.HealthStub(channel)
    assert health.Check(health_pb2.HealthCheckRequest(), timeout=TIMEOUT).status == \
        health_pb2.HealthCheckResponse.SERVING
    solve_late(stub)
    assert server.process.poll() is None


def test_sigterm_drains_calls_in_flight_then_exits():
    with ServerProcess("--workers", "1", "--grace", "60", "--metrics-port", "0") as server:
        with grpc.insecure_channel(server.address) as channel:
            stub = service_grpc.HintServiceStub(channel)
            positions = full_deals(40, seed=6)
            future = stub.SolvePositions.future(
                service_pb.SolvePositionsRequest(positions=positions), timeout=TIMEOUT)
            watch = health_pb2_grpc.HealthStub(channel).Watch(
                health_pb2.HealthCheckRequest(service="texas42.v1.HintService"), timeout=TIMEOUT)
            assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
            wait_for(lambda: jobs(server.metrics_port, "ok") >= 1)
            server.terminate()
            assert next(watch).status == health_pb2.HealthCheckResponse.NOT_SERVING
            watch.cancel()
            response = future.result()  # the call in flight still completes
            assert len(response.results) == len(positions)
            assert all(r.WhichOneof("result") == "solution" for r in response.results)
            assert server.wait(TIMEOUT) == 0
    assert [e["event"] for e in server.log() if e["event"] != "rpc"] == [
        "listening", "draining", "stopped"]


def test_sigterm_cancels_calls_that_outlast_the_grace_period():
    with ServerProcess("--workers", "1", "--grace", "0.2", "--metrics-port", "0") as server:
        with grpc.insecure_channel(server.address) as channel:
            stub = service_grpc.HintServiceStub(channel)
            future = stub.SolvePositions.future(service_pb.SolvePositionsRequest(
                positions=full_deals(1000, seed=7)), timeout=TIMEOUT)
            wait_for(lambda: jobs(server.metrics_port, "ok") >= 1)
            server.terminate()
            with pytest.raises(grpc.RpcError) as err:
                future.result()
            assert err.value.code() in (grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE)
            assert server.wait(TIMEOUT) == 0
    assert server.log("stopped")


@pytest.mark.parametrize("args, message", [
    (["--port", "70000"], "out of range"),
    (["--workers", "0"], "out of range"),
    (["--max-queue", "x"], "not a whole number"),
    (["--grace", "-1"], "must be >= 0"),
])
def test_serve_rejects_bad_options(args, message):
    done = subprocess.run(t42_command() + ["serve", *args], capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


def test_serve_reports_a_busy_port():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(t42_command() + ["serve", "--port", str(port)],
                              capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr
