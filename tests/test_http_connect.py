"""The HTTP/JSON (Connect) face of HintService against a real `t42 serve --http-port 0`.

Every RPC is sent twice to the same server process, once over gRPC and once
as Connect JSON over HTTP, and the answers must be the same message; bad
input must carry the same field violation and reason code in the Connect
error model. About 3 s (one server process, small searches).
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from google.protobuf.message_factory import GetMessageClass
from google.rpc import error_details_pb2

from grpc_helpers import (Metric, bad_request, connect_json, connect_post, connect_violations,
                          scrape, wait_for)
from server.convert import deal_from_json, hand_record_from_json, position_from_json
from server.launcher import ServerProcess
from texas42.v1 import hint_service_connect
from texas42.v1 import hint_service_pb2 as hs
from texas42.v1 import hint_service_pb2_grpc as hs_grpc

ROOT = Path(__file__).resolve().parent.parent
DEAL = json.loads((ROOT / "examples" / "deal.json").read_text())
MOON = json.loads((ROOT / "examples" / "moon.json").read_text())
RECORDS = [json.loads(line) for line in (ROOT / "examples" / "hands.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def web_server():
    with ServerProcess("--workers", "2", "--http-port", "0", "--metrics-port", "0") as proc:
        assert proc.http_port
        yield proc


@pytest.fixture(scope="module")
def grpc_stub(web_server):
    with grpc.insecure_channel(web_server.address) as channel:
        yield hs_grpc.HintServiceStub(channel)


def _requests() -> list[tuple[str, Any]]:
    deal = position_from_json(DEAL)
    played = position_from_json({**DEAL, "plays": ["1-1", "2-2", "3-2"]})
    return [
        ("SolvePosition", hs.SolvePositionRequest(position=deal)),
        ("SolvePosition", hs.SolvePositionRequest(position=played, best_only=True)),
        ("SolvePosition", hs.SolvePositionRequest(position=position_from_json(MOON))),
        ("MakeOrSet", hs.MakeOrSetRequest(position=deal, bid=84)),
        ("MakeOrSet", hs.MakeOrSetRequest(position=deal, exact=True)),
        ("SolvePositions", hs.SolvePositionsRequest(positions=[
            played, position_from_json({**DEAL, "plays": ["6-6"]})])),
        ("AnalyzeHand", hand_record_from_json(RECORDS[0])),
        ("AnalyzeHand", hand_record_from_json(RECORDS[5])),  # stopped early
        ("SolveDeal", deal_from_json({**DEAL, "doubles": "high"})),
    ]


@pytest.mark.parametrize("method,request_message", _requests(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_every_rpc_answers_over_connect_json_as_over_grpc(web_server, grpc_stub, method,
                                                         request_message):
    expected = getattr(grpc_stub, method)(request_message, timeout=60)
    status, answer = connect_json(web_server, method, request_message)
    assert status == 200
    assert answer == json_format.MessageToDict(expected)
    assert answer  # a real answer, not an empty message


def test_binary_protobuf_through_the_generated_connect_client(web_server, grpc_stub):
    request = hs.SolvePositionRequest(position=position_from_json(DEAL))
    client = hint_service_connect.HintServiceClientSync(f"http://127.0.0.1:{web_server.http_port}")
    try:
        answer = client.solve_position(request)
    finally:
        client.close()
    assert answer == grpc_stub.SolvePosition(request, timeout=60)
    assert answer.solution.value == 31


def _bad_requests() -> list[tuple[str, Any]]:
    twice = position_from_json(DEAL)
    twice.hands.north[3] = "6-6"  # E holds 6-6 too
    illegal = position_from_json({**DEAL, "plays": ["1-1", "6-6"]})
    record = hand_record_from_json(RECORDS[0])
    record.meta.auction.add(seat=9, bid=30)  # a seat number outside the API
    deal = deal_from_json(DEAL)
    deal.hands.east[0] = "9-9"
    return [
        ("SolvePosition", hs.SolvePositionRequest(position=twice)),
        ("MakeOrSet", hs.MakeOrSetRequest(position=illegal)),
        ("MakeOrSet", hs.MakeOrSetRequest(position=position_from_json(DEAL), bid=29)),
        ("AnalyzeHand", hand_record_from_json({**RECORDS[0], "plays": ["0-0", "6-6"]})),
        ("AnalyzeHand", record),
        ("SolveDeal", deal),
        ("SolvePositions", hs.SolvePositionsRequest(
            positions=[position_from_json(DEAL)] * 1001)),
    ]


@pytest.mark.parametrize("method,request_message", _bad_requests(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_bad_input_gives_the_same_field_violation_in_the_connect_error(
        web_server, grpc_stub, method, request_message):
    with pytest.raises(grpc.RpcError) as err:
        getattr(grpc_stub, method)(request_message, timeout=60)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    expected = bad_request(err.value)

    status, error = connect_json(web_server, method, request_message)
    assert status == 400
    assert error["code"] == "invalid_argument"
    assert error["message"] == err.value.details()
    assert connect_violations(error) == expected
    assert expected[0] and expected[1]


def test_malformed_json_is_a_connect_invalid_argument(web_server):
    status, body, content_type = connect_post(web_server, "SolvePosition", b'{"position": {"hands": 7}}')
    assert status == 400
    assert content_type == "application/json"
    assert json.loads(body)["code"] == "invalid_argument"


def test_unknown_method_and_page_files(web_server):
    status, _, _ = connect_post(web_server, "NoSuchMethod", b"{}")
    assert status == 404
    base = f"http://127.0.0.1:{web_server.http_port}"
    with urllib.request.urlopen(base + "/", timeout=10) as page:
        assert page.headers["Content-Type"].startswith("text/html")
        assert b"<html" in page.read()
    with urllib.request.urlopen(base + "/healthz", timeout=10) as health:
        assert json.loads(health.read()) == {"status": "SERVING"}
    for path in ("/../setup.py", "/nope.js", "/__init__.py"):
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(base + path, timeout=10)
        assert err.value.code == 404


def test_connect_calls_are_logged_and_counted_like_grpc_calls(web_server):
    request = hs.SolvePositionRequest(position=position_from_json(DEAL), best_only=True)
    assert connect_json(web_server, "SolvePosition", request)[0] == 200
    method = "/texas42.v1.HintService/SolvePosition"
    wait_for(lambda: [e for e in web_server.log("rpc")
                      if e.get("transport") == "connect" and e["method"] == method
                      and e["code"] == "OK"])
    bad = hs.SolvePositionRequest(position=position_from_json({**DEAL, "plays": ["6-6"]}))
    assert connect_json(web_server, "SolvePosition", bad)[0] == 400
    samples = wait_for(lambda: (s := scrape(web_server.metrics_port)).get(
        f't42_rpc_calls_total{{code="INVALID_ARGUMENT",method="{method}"}}') and s)
    assert samples[f't42_rpc_calls_total{{code="OK",method="{method}"}}'] >= 1


def test_sigterm_stops_both_listeners():
    with ServerProcess("--workers", "1", "--http-port", "0", "--grace", "5") as proc:
        base = f"http://127.0.0.1:{proc.http_port}"
        with urllib.request.urlopen(base + "/healthz", timeout=10) as health:
            assert health.status == 200
        assert proc.stop() == 0
        assert proc.log("stopped")
        with pytest.raises(OSError):
            urllib.request.urlopen(base + "/healthz", timeout=5)


def test_http_port_in_use_is_one_error_line(web_server):
    import subprocess

    from server.launcher import t42_command
    run = subprocess.run(t42_command() + ["serve", "--port", "0", "--http-port",
                                          str(web_server.http_port)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2  # a busy port, like bad options
    assert run.stderr.startswith("t42: error: cannot listen on")
    assert "Traceback" not in run.stderr


def test_connect_timeout_header_is_the_call_deadline(web_server):
    """A 1 ms deadline on a full-deal search (about 250,000 nodes): deadline_exceeded."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{web_server.http_port}/texas42.v1.HintService/SolvePosition",
        data=json_format.MessageToJson(
            hs.SolvePositionRequest(position=position_from_json(DEAL))).encode(),
        headers={"Content-Type": "application/json", "Connect-Timeout-Ms": "1"}, method="POST")
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(request, timeout=60)
    assert err.value.code == 504
    assert json.loads(err.value.read())["code"] == "deadline_exceeded"
    wait_for(lambda: [e for e in web_server.log("rpc") if e["code"] == "DEADLINE_EXCEEDED"])


def test_sigterm_lets_an_http_call_in_flight_finish():
    import threading

    from grpc_helpers import full_deals
    with ServerProcess("--workers", "1", "--http-port", "0", "--grace", "60",
                       "--metrics-port", "0") as proc:
        request = hs.SolvePositionsRequest(positions=full_deals(20, seed=6))
        answer: dict = {}
        call = threading.Thread(target=lambda: answer.update(
            zip(("status", "body"), connect_json(proc, "SolvePositions", request))))
        call.start()
        wait_for(lambda: scrape(proc.metrics_port).get(
            't42_solver_jobs_total{outcome="ok"}', 0) >= 1)  # the call is running
        proc.terminate()
        call.join(60)
        assert answer["status"] == 200
        assert len(answer["body"]["results"]) == 20
        assert all("solution" in r for r in answer["body"]["results"])
        assert proc.wait(60) == 0
    assert [e["event"] for e in proc.log() if e["event"] != "rpc"] == [
        "listening", "draining", "stopped"]


def test_every_rpc_of_the_service_is_served_over_connect(web_server, grpc_stub):
    """Each RPC in the .proto (new ones too) answers an empty request as gRPC does."""
    service = hs.DESCRIPTOR.services_by_name["HintService"]
    for method in service.methods:
        status, body, _ = connect_post(web_server, method.name, b"{}")
        try:
            getattr(grpc_stub, method.name)(GetMessageClass(method.input_type)(), timeout=60)
            expected = 200
        except grpc.RpcError as err:
            assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
            expected = 400
        assert status == expected, (method.name, body)


# ------------------------------------- bodies that are not a request message

def _undecodable_lines(server: ServerProcess, reason: str) -> list[dict]:
    return [e for e in server.log("rpc") if e.get("transport") == "connect"
            and e.get("rejected") == reason]


@pytest.mark.parametrize("body,content_type", [
    # (Valid JSON that protobuf will not take names the field: test_hostile_service.py.)
    (b'{"position": {"hands": 7}', "application/json"),
    (b"\xff\xfe not UTF-8", "application/json"),
    (b"\xff\xff\xff\xff", "application/proto"),
    # position (1) -> plays (4): a string whose bytes are not UTF-8
    (bytes([0x0A, 0x04, 0x22, 0x02, 0xFF, 0xFE]), "application/proto"),
], ids=["broken JSON", "invalid UTF-8", "garbage proto", "bad UTF-8 in proto"])
def test_undecodable_body_is_invalid_argument_logged_and_counted(web_server, body, content_type):
    method = "/texas42.v1.HintService/SolvePosition"
    metric = Metric(web_server.metrics_port)
    lines = len(_undecodable_lines(web_server, "undecodable"))
    status, answer, answer_type = connect_post(web_server, "SolvePosition", body, content_type)
    assert (status, answer_type) == (400, "application/json")
    error = json.loads(answer)
    assert error["code"] == "invalid_argument"
    assert error["message"].startswith("request cannot be decoded: ")
    [detail] = error["details"]
    assert detail["type"] == "google.rpc.ErrorInfo"
    info = error_details_pb2.ErrorInfo.FromString(
        base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4)))
    assert (info.reason, info.domain) == ("UNDECODABLE_REQUEST", "texas42.v1")
    # Counted and logged before the answer is sent: no waiting.
    assert [(e["method"], e["code"]) for e in _undecodable_lines(web_server, "undecodable")
            [lines:]] == [(method, "INVALID_ARGUMENT")]
    labels = f'method="{method}",reason="undecodable"'
    assert metric.delta(f"t42_rpc_rejected_requests_total{{{labels}}}") == 1
    assert metric.delta(f't42_rpc_calls_total{{code="INVALID_ARGUMENT",method="{method}"}}') == 1
    assert metric.delta('t42_solver_jobs_total{outcome="bad_input"}') == 0  # no job ran


def test_undecodable_body_message_quotes_a_short_prefix(web_server):
    """Protobuf's parse message names the bad field in full; the answer quotes a prefix."""
    long_name = "x" * 100_000
    status, answer, _ = connect_post(web_server, "SolvePosition",
                             json.dumps({long_name: 1}).encode())
    assert status == 400
    message = json.loads(answer)["message"]
    # The unknown field is named (test_hostile_service.py), its name quoted short.
    assert message.startswith("'xxx") and "unknown field of SolvePositionRequest" in message
    assert len(message) < 300
    assert "x" * 500 not in message


def test_body_over_4_mib_is_resource_exhausted_logged_and_counted(web_server):
    method = "/texas42.v1.HintService/SolvePosition"
    metric = Metric(web_server.metrics_port)
    lines = len(_undecodable_lines(web_server, "too_large"))
    body = b'{"position": {"plays": ["' + b"x" * (4 * 1024 * 1024) + b'"]}}'
    status, answer, _ = connect_post(web_server, "SolvePosition", body)
    assert status == 413  # too large, not "retry later" (429, Connect's usual status for it)
    assert json.loads(answer) == {"code": "resource_exhausted",
                                  "message": "request over the 4194304 byte limit"}
    assert [(e["method"], e["code"]) for e in _undecodable_lines(web_server, "too_large")
            [lines:]] == [(method, "RESOURCE_EXHAUSTED")]
    labels = f'method="{method}",reason="too_large"'
    assert metric.delta(f"t42_rpc_rejected_requests_total{{{labels}}}") == 1
    # Just under the limit, a request is read and answered.
    request = hs.SolvePositionRequest(position=position_from_json(DEAL), best_only=True)
    padded = json_format.MessageToJson(request).encode()
    padded += b" " * (4 * 1024 * 1024 - 100 - len(padded))
    status, answer, _ = connect_post(web_server, "SolvePosition", padded)
    assert status == 200
    assert json.loads(answer)["solution"]["value"] == 31
