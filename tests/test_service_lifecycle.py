"""The hint service under stress and at its edges, each on its own `t42 serve` process.

Deadlines and cancellation stop the search (the worker's job ends "cancelled"
and the worker is free for the next call); a burst beyond the queue bound is
refused with RESOURCE_EXHAUSTED; SIGTERM drains calls in flight, a second
signal cuts the drain short; the command line refuses bad options and a busy
port without a traceback. A `Hold` keeps searches open for as long as a test
needs, so no test depends on how fast the machine or the solver is.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_helpers import Hold, busy_workers, full_deals, scrape, wait_for

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


def held(server: ServerProcess) -> bool:
    """The call is on the worker (waiting on the hold), not queued or refused."""
    return busy_workers(server.metrics_port) == 1


def solve_late(stub, timeout: float = TIMEOUT) -> int:
    request = service_pb.SolvePositionRequest(position=position_from_json(LATE))
    return stub.SolvePosition(request, timeout=timeout).solution.value


def rpc_lines(server: ServerProcess, method: str) -> list[dict]:
    return [e for e in server.log("rpc") if e["method"] == SERVICE + method]


@pytest.fixture
def one_worker():
    hold = Hold()
    with ServerProcess("--workers", "1", "--max-queue", "2", "--metrics-port", "0",
                       env=hold.env) as proc:
        with grpc.insecure_channel(proc.address) as channel:
            yield proc, service_grpc.HintServiceStub(channel), channel, hold
    hold.off()


def test_deadline_stops_the_search_and_frees_the_worker(one_worker):
    server, stub, _, hold = one_worker
    request = service_pb.SolvePositionRequest(position=position_from_json(HARD_DEAL))
    with hold:  # the search cannot finish before the deadline, however fast it is
        with pytest.raises(grpc.RpcError) as err:
            stub.SolvePosition(request, timeout=1.0)
        assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        # The worker's job ended early (its search saw the deadline), not by finishing.
        wait_for(lambda: jobs(server.metrics_port, "cancelled") == 1
                 and idle(server.metrics_port))
    assert jobs(server.metrics_port, "ok") == 0
    assert [e["code"] for e in wait_for(lambda: rpc_lines(server, "SolvePosition"))] == [
        "DEADLINE_EXCEEDED"]
    assert solve_late(stub) == solve_late(stub)  # and the next calls are answered
    assert jobs(server.metrics_port, "ok") == 2


def test_a_cancel_that_beats_the_deadline_is_logged_as_deadline_exceeded(one_worker):
    """The client's deadline fires before the server's copy of it (which starts when the
    request arrives): its cancellation may reach the server first."""
    server, stub, _, hold = one_worker
    timeout = 2.5  # the slack is a tenth of it: 0.25 s
    with hold:
        start = time.monotonic()
        future = stub.SolvePosition.future(service_pb.SolvePositionRequest(
            position=position_from_json(HARD_DEAL)), timeout=timeout)
        wait_for(lambda: held(server))
        # Cancel just before the client's own deadline, as a client whose timer runs a
        # little ahead of the server's does.
        time.sleep(max(0.0, start + timeout - 0.1 - time.monotonic()))
        future.cancel()
        line = wait_for(lambda: rpc_lines(server, "SolvePosition"))
    assert [e["code"] for e in line] == ["DEADLINE_EXCEEDED"]
    wait_for(lambda: jobs(server.metrics_port, "cancelled") == 1)


def _assert_batch_stopped(server, stub, hold, code: str) -> None:
    """The call ended with ``code`` and its batch went no further: once the worker is
    idle, only the next call's job runs."""
    wait_for(lambda: [e for e in server.log("rpc") if e["code"] == code])
    wait_for(lambda: idle(server.metrics_port))
    hold.off()
    done = jobs(server.metrics_port, "ok")
    assert done < 1000
    solve_late(stub)
    wait_for(lambda: idle(server.metrics_port) and jobs(server.metrics_port, "ok") > done)
    assert jobs(server.metrics_port, "ok") == done + 1


def test_deadline_on_a_batch_stops_every_lane(one_worker):
    server, stub, _, hold = one_worker
    batch = service_pb.SolvePositionsRequest(positions=full_deals(1000, seed=3))
    hold.on()
    with pytest.raises(grpc.RpcError) as err:
        stub.SolvePositions(batch, timeout=1.0)
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    _assert_batch_stopped(server, stub, hold, "DEADLINE_EXCEEDED")
    assert jobs(server.metrics_port, "cancelled") == 1


def test_client_cancel_stops_the_search(one_worker):
    server, stub, _, hold = one_worker
    hold.on()
    single = stub.SolvePosition.future(service_pb.SolvePositionRequest(
        position=position_from_json(HARD_DEAL)), timeout=TIMEOUT)
    wait_for(lambda: held(server))
    single.cancel()
    # The search saw the cancellation: its job ended "cancelled", not "ok".
    wait_for(lambda: jobs(server.metrics_port, "cancelled") == 1 and idle(server.metrics_port))
    assert jobs(server.metrics_port, "ok") == 0
    assert [e["code"] for e in wait_for(lambda: rpc_lines(server, "SolvePosition"))] == [
        "CANCELLED"]

    hold.off()
    batch = service_pb.SolvePositionsRequest(positions=full_deals(1000, seed=4))
    future = stub.SolvePositions.future(batch, timeout=TIMEOUT)
    wait_for(lambda: jobs(server.metrics_port, "ok") >= 2)
    hold.on()  # the batch cannot finish now: its next job waits
    future.cancel()
    _assert_batch_stopped(server, stub, hold, "CANCELLED")
    assert jobs(server.metrics_port, "cancelled") <= 2  # the job in flight, if any


def test_burst_beyond_the_queue_gets_resource_exhausted(one_worker):
    server, stub, channel, hold = one_worker
    batch = service_pb.SolvePositionsRequest(positions=full_deals(20, seed=5))
    with hold:  # the first call holds the worker, two wait, the rest are refused
        futures = [stub.SolvePositions.future(batch, timeout=TIMEOUT) for _ in range(12)]
        wait_for(lambda: sum(f.done() for f in futures) == 9)
    codes = []
    for future in futures:
        try:
            future.result()
            codes.append(grpc.StatusCode.OK)
        except grpc.RpcError as exc:
            codes.append(exc.code())
    # One worker plus two waiting are served, the rest refused.
    assert codes.count(grpc.StatusCode.OK) == 3
    assert codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) == 9
    health = health_pb2_grpc.HealthStub(channel)
    assert health.Check(health_pb2.HealthCheckRequest(), timeout=TIMEOUT).status == \
        health_pb2.HealthCheckResponse.SERVING
    solve_late(stub)
    assert server.process.poll() is None


def test_sigterm_drains_calls_in_flight_then_exits():
    hold = Hold()
    with ServerProcess("--workers", "1", "--grace", "60", "--metrics-port", "0",
                       env=hold.env) as server:
        with grpc.insecure_channel(server.address) as channel:
            stub = service_grpc.HintServiceStub(channel)
            positions = full_deals(40, seed=6)
            hold.on()
            future = stub.SolvePositions.future(
                service_pb.SolvePositionsRequest(positions=positions), timeout=TIMEOUT)
            watch = health_pb2_grpc.HealthStub(channel).Watch(
                health_pb2.HealthCheckRequest(service="texas42.v1.HintService"), timeout=TIMEOUT)
            assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
            wait_for(lambda: held(server))
            server.terminate()
            assert next(watch).status == health_pb2.HealthCheckResponse.NOT_SERVING
            watch.cancel()
            hold.off()
            response = future.result()  # the call in flight still completes
            assert len(response.results) == len(positions)
            assert all(r.WhichOneof("result") == "solution" for r in response.results)
            assert server.wait(TIMEOUT) == 0
    assert [e["event"] for e in server.log() if e["event"] != "rpc"] == [
        "listening", "draining", "stopped"]


def test_sigterm_cancels_calls_that_outlast_the_grace_period():
    hold = Hold()
    with ServerProcess("--workers", "1", "--grace", "0.2", "--metrics-port", "0",
                       env=hold.env) as server:
        with grpc.insecure_channel(server.address) as channel:
            stub = service_grpc.HintServiceStub(channel)
            hold.on()  # the call cannot finish within the grace period
            future = stub.SolvePositions.future(service_pb.SolvePositionsRequest(
                positions=full_deals(1000, seed=7)), timeout=TIMEOUT)
            wait_for(lambda: held(server))
            server.terminate()
            with pytest.raises(grpc.RpcError) as err:
                future.result()
            assert err.value.code() in (grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE)
            assert server.wait(TIMEOUT) == 0
    hold.off()
    assert server.log("stopped")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_second_signal_during_the_drain_exits_at_once(signum):
    hold = Hold()
    with ServerProcess("--workers", "1", "--grace", "3600", "--metrics-port", "0",
                       env=hold.env) as server:
        with grpc.insecure_channel(server.address) as channel:
            stub = service_grpc.HintServiceStub(channel)
            hold.on()  # the call never finishes by itself: only the second signal ends the wait
            future = stub.SolvePosition.future(service_pb.SolvePositionRequest(
                position=position_from_json(HARD_DEAL)), timeout=TIMEOUT)
            wait_for(lambda: held(server))
            server.terminate(signum)
            wait_for(lambda: server.log("draining"))
            server.terminate(signum)
            assert server.wait(TIMEOUT) == 128 + signum
            with pytest.raises(grpc.RpcError) as err:
                future.result()
            assert err.value.code() == grpc.StatusCode.UNAVAILABLE
    hold.off()
    events = [e["event"] for e in server.log() if e["event"] != "rpc"]
    assert events == ["listening", "draining", "forced_stop"]
    assert server.log("forced_stop")[0]["signal"] == signal.Signals(signum).name


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


@pytest.mark.parametrize("option, message", [
    ("--port", "cannot listen on 127.0.0.1:{port}"),
    ("--metrics-port", "cannot serve metrics on 127.0.0.1:{port}"),
])
def test_serve_reports_a_busy_port(option, message):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(t42_command() + ["serve", "--port", "0", option, str(port)],
                              capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr  # one clean line
    assert lines[0].startswith("t42: error: " + message.format(port=port))
