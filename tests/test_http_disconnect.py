"""An HTTP (Connect) client that hangs up cancels its call, as a gRPC cancel does.

Against a real `t42 serve --http-port 0`, its searches held open by the test hold
(`grpc_helpers.Hold`): a call is sent on a plain HTTP/1.1 connection, the test waits
until a worker has taken its job, closes the connection and waits for the job to end
cancelled and the worker to be idle, with the call logged and counted CANCELLED.
The server speaks HTTP/1.1 only (uvicorn: no HTTP/2, no TLS), so that is the one
transport to hang up on. A few seconds each.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
from google.protobuf import json_format
from grpc_helpers import Hold, busy_workers, connect_json, full_deals, scrape, wait_for

from server.convert import ENUM_OF_SEAT, position_from_json
from server.game_convert import record_from_json
from server.launcher import ServerProcess
from solver.game.game_record import read_game
from texas42.v1 import hint_service_pb2 as hs

SERVICE = "/texas42.v1.HintService/"
#: Polls of `wait_for` (0.05 s apart): a guard against a hung server, not a speed check.
PATIENCE = 1200
CASES = Path(__file__).parent / "cases" / "games.jsonl"
#: A deal that takes the search a while (as in test_service_lifecycle.py).
HARD_DEAL = {"hands": {"N": ["3-1", "4-3", "2-0", "0-0", "4-1", "6-3", "4-4"],
                       "E": ["4-2", "6-1", "6-6", "6-2", "5-4", "4-0", "6-4"],
                       "S": ["2-1", "6-5", "5-2", "3-2", "6-0", "3-3", "1-1"],
                       "W": ["5-1", "5-0", "3-0", "1-0", "2-2", "5-3", "5-5"]},
             "contract": {"declarer": "E", "trump": "doubles", "bid": 30}}


def next_action_request(hint_deals: int) -> hs.NextActionRequest:
    """NextAction for the hint bot, five plays into the first hand of a recorded game."""
    with open(CASES, encoding="utf-8") as cases:
        record = next(c for c in map(json.loads, cases) if c["id"] == "game-2026-0")["record"]
    hand = record["hands"][0]
    data = {**record, "hands": [{**hand, "plays": hand["plays"][:5]}]}
    seat = read_game(data).next_action()["seat"]
    return hs.NextActionRequest(record=record_from_json(data), bot="hint", seed=7,
                                seat=ENUM_OF_SEAT[seat], hint_deals=hint_deals)


def open_call(server: ServerProcess, method: str, request) -> socket.socket:
    """A Connect JSON call sent whole on its own HTTP/1.1 connection, its answer unread."""
    body = json_format.MessageToJson(request).encode()
    sock = socket.create_connection(("127.0.0.1", server.http_port), timeout=60)
    sock.sendall(f"POST {SERVICE}{method} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
                 .encode() + body)
    return sock


def samples(server: ServerProcess) -> dict[str, float]:
    return scrape(server.metrics_port)


def jobs(server: ServerProcess, outcome: str) -> float:
    return samples(server).get(f't42_solver_jobs_total{{outcome="{outcome}"}}', 0.0)


def calls(server: ServerProcess, method: str, code: str) -> float:
    return samples(server).get(
        f't42_rpc_calls_total{{code="{code}",method="{SERVICE}{method}"}}', 0.0)


def rpc_lines(server: ServerProcess, method: str) -> list[dict]:
    return [e for e in server.log("rpc") if e["method"] == SERVICE + method]


@pytest.fixture
def held_server(request):
    """A server with ``request.param`` workers whose searches wait while the hold is on."""
    hold = Hold()
    with ServerProcess("--workers", str(request.param), "--http-port", "0",
                       "--metrics-port", "0", env=hold.env) as proc:
        yield proc, hold
    hold.off()


@pytest.mark.parametrize("held_server", [2], indirect=True)
def test_clients_that_hang_up_free_both_workers(held_server):
    """Two NextAction calls of 100,000 hint deals take both workers; their clients hang up:
    both searches stop, both calls are logged and counted CANCELLED, none OK."""
    server, hold = held_server
    request = next_action_request(hint_deals=100_000)
    hold.on()  # neither search can finish, however fast the machine
    sockets = [open_call(server, "NextAction", request) for _ in range(2)]
    wait_for(lambda: busy_workers(server.metrics_port) == 2, PATIENCE)
    start = time.monotonic()
    for sock in sockets:
        sock.close()
    wait_for(lambda: jobs(server, "cancelled") == 2 and
             busy_workers(server.metrics_port) == 0, PATIENCE)
    print(f"\nboth workers free {time.monotonic() - start:.3f} s after the hang-ups")
    assert jobs(server, "ok") == 0
    lines = wait_for(lambda: len(rpc_lines(server, "NextAction")) == 2
                     and rpc_lines(server, "NextAction"))
    assert [(e["code"], e.get("transport")) for e in lines] == [("CANCELLED", "connect")] * 2
    assert calls(server, "NextAction", "CANCELLED") == 2
    assert calls(server, "NextAction", "OK") == 0
    hold.off()  # and the next call is answered
    status, answer = connect_json(server, "NextAction", next_action_request(hint_deals=5))
    assert status == 200 and answer["action"], answer


@pytest.mark.parametrize("held_server", [1], indirect=True)
def test_a_client_that_hangs_up_on_a_batch_stops_every_lane(held_server):
    server, hold = held_server
    batch = hs.SolvePositionsRequest(positions=full_deals(1000, seed=4))
    sock = open_call(server, "SolvePositions", batch)
    wait_for(lambda: jobs(server, "ok") >= 2, PATIENCE)  # the batch is under way
    hold.on()  # its next job waits
    # Held, not merely running: a job in flight when the hold came on may still finish OK.
    wait_for(lambda: hold.held == 1 and busy_workers(server.metrics_port) == 1, PATIENCE)
    sock.close()
    wait_for(lambda: busy_workers(server.metrics_port) == 0 and
             [e for e in rpc_lines(server, "SolvePositions") if e["code"] == "CANCELLED"],
             PATIENCE)
    assert jobs(server, "cancelled") == 1  # the held job
    hold.off()
    done = jobs(server, "ok")
    assert done < 1000
    # One more call: only its own job runs; the batch took no other.
    status, _ = connect_json(server, "SolvePosition", hs.SolvePositionRequest(
        position=position_from_json({**HARD_DEAL, "plays": ["6-6", "3-3", "2-2", "0-0",
                                                             "6-1", "6-5", "5-0", "6-3"]})))
    assert status == 200
    wait_for(lambda: busy_workers(server.metrics_port) == 0 and jobs(server, "ok") > done)
    assert jobs(server, "ok") == done + 1
    assert [e["code"] for e in rpc_lines(server, "SolvePositions")] == ["CANCELLED"]


@pytest.mark.parametrize("held_server", [1], indirect=True)
def test_a_request_cut_short_by_a_hang_up_runs_nothing(held_server):
    """A binary request whose client hangs up before the Content-Length it announced:
    the bytes that came are a whole message, but not the request; no search runs."""
    server, hold = held_server
    body = hs.SolvePositionRequest(position=position_from_json(HARD_DEAL)).SerializeToString()
    hold.on()  # were it run, its job would stay on the worker
    sock = socket.create_connection(("127.0.0.1", server.http_port), timeout=60)
    sock.sendall(f"POST {SERVICE}SolvePosition HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 f"Content-Type: application/proto\r\nContent-Length: {len(body) + 100}\r\n\r\n"
                 .encode() + body)
    sock.close()
    [line] = wait_for(lambda: rpc_lines(server, "SolvePosition"), PATIENCE)
    assert (line["code"], line.get("rejected")) == ("CANCELLED", "disconnected")
    assert calls(server, "SolvePosition", "CANCELLED") == 1
    for outcome in ("ok", "cancelled", "bad_input", "error"):
        assert jobs(server, outcome) == 0, outcome
    assert busy_workers(server.metrics_port) == 0
