"""The gRPC hint service, driven as a real `t42 serve` process on 127.0.0.1.

Every RPC, every check position through SolvePosition, bad input of each kind
(INVALID_ARGUMENT with its field violation and reason code), health checking,
reflection, the per-call log line and the Prometheus metrics, and requests that
cannot be decoded or are too large (logged and counted like any call).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import grpc
import pytest
from google.protobuf import descriptor_pool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from google.rpc import error_details_pb2
from grpc_helpers import Metric, assert_invalid, bad_request, scrape, wait_for
from grpc_status import rpc_status
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from server.convert import position_from_json
from texas42.v1 import hint_service_pb2 as service_pb
from texas42.v1 import position_pb2 as pb

CASES_DIR = Path(__file__).parent / "cases"
CASES = [json.loads(line) for path in (CASES_DIR / "texas42.jsonl", CASES_DIR / "moon.jsonl")
         for line in path.read_text().splitlines() if line.strip()]
DEAL = json.loads((Path(__file__).parent.parent / "examples" / "deal.json").read_text())
SERVICE = "/texas42.v1.HintService/"
TIMEOUT = 60  # generous: a guard against a hung server, not a speed check


def deal_position(**contract) -> pb.Position:
    data = copy.deepcopy(DEAL)
    data["contract"].update(contract)
    return position_from_json(data)


# ------------------------------------------------------------------- the RPCs


def test_solve_position_example_deal(stub):
    response = stub.SolvePosition(service_pb.SolvePositionRequest(position=deal_position()),
                                  timeout=TIMEOUT)
    s = response.solution
    assert (s.value, s.makes, s.to_move) == (31, True, pb.SEAT_WEST)
    moves = {m.tile: m.value for m in s.moves}
    assert moves == {"1-1": 31, "3-3": 31, "4-0": 29, "4-3": 29, "2-0": 25, "5-1": 19, "5-5": 14}
    assert [m.value for m in s.moves] == sorted(moves.values(), reverse=True)  # best first
    assert len(s.line) == 28 and s.line[0] in ("1-1", "3-3")
    assert s.nodes > 0


def test_solve_position_best_only(stub):
    response = stub.SolvePosition(service_pb.SolvePositionRequest(
        position=deal_position(), best_only=True), timeout=TIMEOUT)
    assert {m.tile: m.value for m in response.solution.moves} == {"1-1": 31, "3-3": 31}


def test_solve_position_of_a_finished_hand(stub):
    line = stub.SolvePosition(service_pb.SolvePositionRequest(position=deal_position()),
                              timeout=TIMEOUT).solution.line
    position = deal_position()
    position.plays.extend(line)
    s = stub.SolvePosition(service_pb.SolvePositionRequest(position=position),
                           timeout=TIMEOUT).solution
    assert (s.value, s.to_move, list(s.moves), list(s.line)) == (31, pb.SEAT_UNSPECIFIED, [], [])


def test_the_solution_names_the_taker_of_every_trick(stub):
    # A trick's taker leads the next one; the last trick's taker is the one no lead names.
    from solver import Position
    line = stub.SolvePosition(service_pb.SolvePositionRequest(position=deal_position()),
                              timeout=TIMEOUT).solution.line
    owner = {t: seat for seat, tiles in DEAL["hands"].items() for t in tiles}
    enum = {"N": pb.SEAT_NORTH, "E": pb.SEAT_EAST, "S": pb.SEAT_SOUTH, "W": pb.SEAT_WEST}
    for played in (0, 3, 4, 9, 27, 28):
        position = deal_position()
        position.plays.extend(line[:played])
        takers = list(stub.SolvePosition(service_pb.SolvePositionRequest(position=position),
                                         timeout=TIMEOUT).solution.trick_winners)
        assert len(takers) == played // 4
        assert takers[:6] == [enum[owner[line[4 * (k + 1)]]] for k in range(min(6, played // 4))]
        if played == 28:
            data = copy.deepcopy(DEAL)
            data["plays"] = list(line)
            last = Position(data).completed_tricks[-1][0]
            assert takers[6] == enum["NESW"[last]]
            batch = stub.SolvePositions(service_pb.SolvePositionsRequest(positions=[position]),
                                        timeout=TIMEOUT)
            assert list(batch.results[0].solution.trick_winners) == takers


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_every_check_position(stub, case):
    response = stub.SolvePosition(service_pb.SolvePositionRequest(
        position=position_from_json(case["position"])), timeout=TIMEOUT)
    s, expect = response.solution, case["expect"]
    assert s.value == expect["value"]
    assert s.makes == expect["makes"]
    assert s.to_move == {"N": pb.SEAT_NORTH, "E": pb.SEAT_EAST, "S": pb.SEAT_SOUTH,
                         "W": pb.SEAT_WEST, None: pb.SEAT_UNSPECIFIED}[expect["to_move"]]
    if "moves" in expect:
        assert {m.tile: m.value for m in s.moves} == expect["moves"]


def test_make_or_set(stub):
    position = deal_position()  # W, fours, value 31
    for bid, makes in ((30, True), (31, True), (32, False), (84, False)):
        response = stub.MakeOrSet(service_pb.MakeOrSetRequest(position=position, bid=bid),
                                  timeout=TIMEOUT)
        assert (response.makes, response.bid, response.HasField("value")) == (makes, bid, False)
    own = stub.MakeOrSet(service_pb.MakeOrSetRequest(position=position, exact=True),
                         timeout=TIMEOUT)
    assert (own.makes, own.bid, own.value) == (True, 30, 31)


def test_make_or_set_after_some_plays(stub):
    case = next(c for c in CASES if c["position"]["plays"] and c["expect"]["makes"] is False)
    response = stub.MakeOrSet(service_pb.MakeOrSetRequest(
        position=position_from_json(case["position"]), exact=True), timeout=TIMEOUT)
    assert (response.makes, response.value) == (False, case["expect"]["value"])


def test_solve_positions_batch_keeps_slots_and_errors(stub):
    cases = CASES[:40]
    positions = [position_from_json(c["position"]) for c in cases]
    positions[7].hands.east[0] = positions[7].hands.north[3]  # a duplicate tile
    positions[20].plays.append("9-9")
    response = stub.SolvePositions(service_pb.SolvePositionsRequest(positions=positions),
                                   timeout=TIMEOUT)
    assert len(response.results) == len(cases)
    for i, (case, result) in enumerate(zip(cases, response.results)):
        if i == 7:
            assert result.WhichOneof("result") == "error"
            assert (result.error.field, result.error.code) == (
                "positions[7].hands.east[0]", "DUPLICATE_TILE")
            assert "hands.north[3]" in result.error.reason
        elif i == 20:
            assert (result.error.field, result.error.code) == (
                f"positions[20].plays[{len(positions[20].plays) - 1}]", "UNKNOWN_TILE")
        else:
            assert result.WhichOneof("result") == "solution"
            assert result.solution.value == case["expect"]["value"]
            if "moves" in case["expect"]:
                assert {m.tile: m.value for m in result.solution.moves} == case["expect"]["moves"]


def test_solve_positions_best_only_and_empty(stub):
    response = stub.SolvePositions(service_pb.SolvePositionsRequest(
        positions=[deal_position()] * 3, best_only=True), timeout=TIMEOUT)
    assert [{m.tile for m in r.solution.moves} for r in response.results] == [{"1-1", "3-3"}] * 3
    empty = stub.SolvePositions(service_pb.SolvePositionsRequest(), timeout=TIMEOUT)
    assert list(empty.results) == []


def test_solve_positions_rejects_more_than_1000(stub):
    request = service_pb.SolvePositionsRequest(positions=[deal_position()] * 1001)
    with pytest.raises(grpc.RpcError) as err:
        stub.SolvePositions(request, timeout=TIMEOUT)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    violations, reason = bad_request(err.value)
    assert violations[0][0] == "positions" and reason == "TOO_MANY_POSITIONS"


# ------------------------------------------------------------------ bad input

MOON3 = next(c["position"] for c in CASES if c["position"].get("widow"))


def moon3(**changes) -> pb.Position:
    data = copy.deepcopy(MOON3)
    data.update(changes)
    return position_from_json(data)


def _edit(fn):
    """A bad position: the example deal edited by ``fn``."""
    def build() -> pb.Position:
        position = deal_position()
        fn(position)
        return position
    return build


def _set(path: str, value):
    def fn(position):
        *parents, name = path.split(".")
        target = position
        for parent in parents:
            target = getattr(target, parent)
        setattr(target, name, value)
    return fn


def _plunge_deal() -> pb.Position:
    # N holds four doubles, so a plunge is possible; with nello it is not.
    data = copy.deepcopy(DEAL)
    swap = dict(zip(["6-3", "6-2", "6-0", "5-5", "3-3", "1-1"],
                    ["5-5", "3-3", "1-1", "6-3", "6-2", "6-0"]))
    for seat in ("N", "W"):
        data["hands"][seat] = [swap.get(t, t) for t in data["hands"][seat]]
    data["contract"] = {"declarer": "N", "trump": "nello", "bid": 84, "kind": "plunge"}
    return position_from_json(data)


W_HAND = DEAL["hands"]["W"]  # W leads: 5-5 5-1 4-3 4-0 3-3 2-0 1-1; fours are trumps
BAD_POSITIONS = {
    "unknown tile": (_edit(lambda p: p.hands.north.__setitem__(2, "7-1")),
                     "position.hands.north[2]", "UNKNOWN_TILE"),
    "duplicate tile": (_edit(lambda p: p.hands.south.__setitem__(6, p.hands.west[0])),
                       "position.hands.west[0]", "DUPLICATE_TILE"),  # reported at its second place
    "hand size": (_edit(lambda p: p.hands.east.pop()), "position.hands.east", "HAND_SIZE"),
    "missing hand": (_edit(lambda p: p.hands.ClearField("west")), "position.hands.west",
                     "MISSING_FIELD"),
    "missing hands": (_edit(lambda p: p.ClearField("hands")), "position.hands", "MISSING_FIELD"),
    "missing contract": (_edit(lambda p: p.ClearField("contract")), "position.contract",
                         "MISSING_FIELD"),
    "missing declarer": (_edit(_set("contract.declarer", pb.SEAT_UNSPECIFIED)),
                         "position.contract.declarer", "MISSING_FIELD"),
    "unknown declarer": (_edit(_set("contract.declarer", 9)), "position.contract.declarer",
                         "UNKNOWN_SEAT"),
    "declarer W in three-player Moon": (lambda: moon3(contract={
        "declarer": "W", "trump": "sixes", "bid": 4}), "position.contract.declarer",
        "UNKNOWN_SEAT"),
    "missing declaration": (_edit(_set("contract.declaration", pb.DECLARATION_UNSPECIFIED)),
                            "position.contract.declaration", "MISSING_FIELD"),
    "unknown declaration": (_edit(_set("contract.declaration", 42)),
                            "position.contract.declaration", "UNKNOWN_DECLARATION"),
    "nello in Moon": (lambda: moon3(contract={"declarer": "N", "trump": "nello", "bid": 4}),
                      "position.contract.declaration", "UNKNOWN_DECLARATION"),
    "bid out of range": (_edit(_set("contract.bid", 43)), "position.contract.bid",
                         "BID_OUT_OF_RANGE"),
    "point bid with nello": (_edit(lambda p: (_set("contract.declaration", pb.DECLARATION_NELLO)(p),
                                              _set("contract.bid", 30)(p))),
                             "position.contract.bid", "BID_OUT_OF_RANGE"),
    "missing bid": (_edit(_set("contract.bid", 0)), "position.contract.bid", "MISSING_FIELD"),
    "plunge without four doubles": (_edit(_set("contract.kind", pb.CONTRACT_KIND_PLUNGE)),
                                    "position.contract.kind", "PLUNGE_NEEDS_FOUR_DOUBLES"),
    "splash without three doubles": (  # N holds one double
        _edit(lambda p: (_set("contract.kind", pb.CONTRACT_KIND_SPLASH)(p),
                         _set("contract.declarer", pb.SEAT_NORTH)(p))),
        "position.contract.kind", "SPLASH_NEEDS_THREE_DOUBLES"),
    "plunge as nello": (_plunge_deal, "position.contract.kind", "INVALID_CONTRACT"),
    "unknown kind": (_edit(_set("contract.kind", 7)), "position.contract.kind", "UNKNOWN_KIND"),
    "doubles low with a pip trump": (_edit(_set("contract.doubles", pb.DOUBLES_OPTION_LOW)),
                                     "position.contract.doubles", "INVALID_OPTION"),
    "unknown game": (_edit(_set("game", 5)), "position.game", "UNKNOWN_GAME"),
    "tile not in hand": (_edit(lambda p: p.plays.append(DEAL["hands"]["N"][0])),
                         "position.plays[0]", "TILE_NOT_IN_HAND"),
    "illegal play": (_edit(lambda p: p.plays.extend(["4-3", DEAL["hands"]["N"][0]])),
                     "position.plays[1]", "ILLEGAL_PLAY"),
    "unknown tile played": (_edit(lambda p: p.plays.append("x")), "position.plays[0]",
                            "UNKNOWN_TILE"),
    "widow in 42": (_edit(_set("widow", "6-6")), "position.widow", "UNEXPECTED_FIELD"),
    "widow without discard": (lambda: moon3(discard=None), "position.discard", "MISSING_FIELD"),
    "blank tile in three-player Moon": (
        lambda: moon3(hands={**MOON3["hands"], "N": ["6-0"] + MOON3["hands"]["N"][1:]}),
        "position.hands.north[0]", "NOT_IN_TILE_SET"),
}


@pytest.mark.parametrize("name", list(BAD_POSITIONS))
def test_bad_input_is_invalid_argument_with_field_violation(stub, name):
    build, field, code = BAD_POSITIONS[name]
    assert_invalid(lambda: stub.SolvePosition(service_pb.SolvePositionRequest(
        position=build()), timeout=TIMEOUT), field, code)
    assert_invalid(lambda: stub.MakeOrSet(service_pb.MakeOrSetRequest(
        position=build()), timeout=TIMEOUT), field, code)
    batch = stub.SolvePositions(service_pb.SolvePositionsRequest(
        positions=[deal_position(), build()], best_only=True), timeout=TIMEOUT)
    assert batch.results[0].solution.value == 31
    assert (batch.results[1].error.field, batch.results[1].error.code) == (
        field.replace("position.", "positions[1].", 1), code)


def test_too_many_plays(stub):
    line = stub.SolvePosition(service_pb.SolvePositionRequest(position=deal_position()),
                              timeout=TIMEOUT).solution.line
    position = deal_position()
    position.plays.extend(list(line) + [line[0]])
    assert_invalid(lambda: stub.SolvePosition(service_pb.SolvePositionRequest(
        position=position), timeout=TIMEOUT), "position.plays[28]", "TOO_MANY_PLAYS")


def test_make_or_set_bad_bid_names_the_request_field(stub):
    assert_invalid(lambda: stub.MakeOrSet(service_pb.MakeOrSetRequest(
        position=deal_position(), bid=50), timeout=TIMEOUT), "bid", "BID_OUT_OF_RANGE")


# --------------------------------------------------- health, reflection, logs


def test_health(channel):
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "texas42.v1.HintService"):
        response = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=TIMEOUT)
        assert response.status == health_pb2.HealthCheckResponse.SERVING
    with pytest.raises(grpc.RpcError) as err:
        health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=TIMEOUT)
    assert err.value.code() == grpc.StatusCode.NOT_FOUND


def test_reflection(channel):
    database = ProtoReflectionDescriptorDatabase(channel)
    services = database.get_services()
    assert {"texas42.v1.HintService", "grpc.health.v1.Health"} <= set(services)
    service = descriptor_pool.DescriptorPool(database).FindServiceByName("texas42.v1.HintService")
    assert {m.name for m in service.methods} >= {"SolvePosition", "MakeOrSet", "SolvePositions"}
    assert service.methods_by_name["SolvePosition"].input_type.full_name == \
        "texas42.v1.SolvePositionRequest"


def test_one_log_line_per_call(server, stub):
    def lines() -> list[dict]:
        return [e for e in server.log("rpc") if e["method"] == SERVICE + "MakeOrSet"]

    before = len(lines())
    stub.MakeOrSet(service_pb.MakeOrSetRequest(position=deal_position()), timeout=TIMEOUT)
    with pytest.raises(grpc.RpcError):
        stub.MakeOrSet(service_pb.MakeOrSetRequest(position=deal_position(), bid=1),
                       timeout=TIMEOUT)
    # The line is written when the call ends, just after the response is sent.
    new = wait_for(lambda: lines()[before:] if len(lines()) >= before + 2 else None)
    assert [e["code"] for e in new] == ["OK", "INVALID_ARGUMENT"]
    assert all(e["latency_ms"] >= 0 and e["peer"] for e in new)


@pytest.mark.parametrize("method,peer,extra", [
    (SERVICE + "SolvePosition", "ipv4:127.0.0.1:50000", {}),
    ("/odd\"name\\é\n", "ipv6:[::1]:1", {"rejected": "undecodable"}),
    ("/x", "", {"rejected": "too_large", "transport": "connect"}),
])
def test_rpc_log_line_is_the_json_of_its_fields(method, peer, extra):
    """The per-call line is formatted by hand (it is on every call's path): it must read
    back as the JSON object of its fields, whatever the method and peer strings hold."""
    import io

    from server import telemetry
    out = io.StringIO()
    telemetry.write_lines_to(out)
    try:
        telemetry.log_rpc(method, "INVALID_ARGUMENT", 0.0123456, peer, **extra)
    finally:
        telemetry.write_lines_to(None)
    line = out.getvalue()
    assert line.endswith("\n") and line.count("\n") == 1
    record = json.loads(line)
    assert isinstance(record.pop("ts"), float)
    assert record == {"event": "rpc", "method": method, "code": "INVALID_ARGUMENT",
                      "latency_ms": 12.346, "peer": peer, **extra}


def test_prometheus_metrics(server, stub):
    assert server.metrics_port
    method = f'method="{SERVICE}SolvePosition"'
    ok = f't42_rpc_calls_total{{code="OK",{method}}}'
    bad = f't42_rpc_calls_total{{code="INVALID_ARGUMENT",{method}}}'
    metric = Metric(server.metrics_port)
    stub.SolvePosition(service_pb.SolvePositionRequest(position=deal_position()),
                       timeout=TIMEOUT)
    with pytest.raises(grpc.RpcError):
        stub.SolvePosition(service_pb.SolvePositionRequest(position=pb.Position()),
                           timeout=TIMEOUT)
    # Both calls counted (each when it ends, just after its response is sent).
    samples = wait_for(lambda: (lambda s: s if metric.delta(ok, s) == 1
                                and metric.delta(bad, s) == 1 else None)(
        scrape(server.metrics_port)))
    assert metric.delta(f"t42_rpc_latency_seconds_count{{{method}}}", samples) == 2
    assert samples[f"t42_rpc_in_flight{{{method}}}"] == 0
    assert metric.delta('t42_solver_jobs_total{outcome="ok"}', samples) == 1
    assert metric.delta('t42_solver_jobs_total{outcome="bad_input"}', samples) == 1
    assert samples["t42_solver_busy_workers"] == 0


# ------------------------------------------- requests that cannot be decoded

def _raw_solve(channel):
    """SolvePosition taking and returning raw bytes: the client sends whatever it is given."""
    return channel.unary_unary(SERVICE + "SolvePosition", request_serializer=None,
                               response_deserializer=None)


GOOD_REQUEST = service_pb.SolvePositionRequest(
    position=position_from_json(DEAL), best_only=True).SerializeToString()
UNDECODABLE = {
    "garbage": b"\xff\xff\xff\xff",
    "truncated": GOOD_REQUEST[:-5],
    # position (1) -> plays (4): a string whose bytes are not UTF-8
    "invalid UTF-8": bytes([0x0A, 0x04, 0x22, 0x02, 0xFF, 0xFE]),
}


@pytest.mark.parametrize("name", list(UNDECODABLE))
def test_undecodable_request_is_invalid_argument_logged_and_counted(server, channel, name):
    method = f'method="{SERVICE}SolvePosition"'
    metric = Metric(server.metrics_port)
    lines = len([e for e in server.log("rpc") if e.get("rejected") == "undecodable"])
    with pytest.raises(grpc.RpcError) as err:
        _raw_solve(channel)(UNDECODABLE[name], timeout=TIMEOUT)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.value.details().startswith("request cannot be decoded: ")
    status = rpc_status.from_call(err.value)
    assert [d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR) for d in status.details] == [True]
    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    assert (info.reason, info.domain) == ("UNDECODABLE_REQUEST", "texas42.v1")
    new = wait_for(lambda: [e for e in server.log("rpc") if e.get("rejected") == "undecodable"]
                   [lines:])
    assert [(e["method"], e["code"]) for e in new] == [(SERVICE + "SolvePosition",
                                                        "INVALID_ARGUMENT")]
    samples = wait_for(lambda: (lambda s: s if metric.delta(
        f't42_rpc_calls_total{{code="INVALID_ARGUMENT",{method}}}', s) == 1 else None)(
        scrape(server.metrics_port)))
    assert metric.delta(f't42_rpc_rejected_requests_total{{{method},reason="undecodable"}}',
                        samples) == 1
    assert metric.delta('t42_solver_jobs_total{outcome="bad_input"}', samples) == 0  # no job
    # The same bytes, whole, are answered.
    answer = service_pb.SolvePositionResponse.FromString(
        _raw_solve(channel)(GOOD_REQUEST, timeout=TIMEOUT))
    assert answer.solution.value == 31


def _padded(size: int) -> bytes:
    """GOOD_REQUEST grown to ``size`` bytes by an unknown field (which decoding skips)."""
    def varint(n: int) -> bytes:
        out = b""
        while n >= 0x80:
            out += bytes([n & 0x7F | 0x80])
            n >>= 7
        return out + bytes([n])
    payload = size - len(GOOD_REQUEST) - 1 - len(varint(size))  # the length is a byte shorter
    data = GOOD_REQUEST + bytes([15 << 3 | 2]) + varint(payload) + b"x" * payload
    assert abs(len(data) - size) <= 1
    return data


def test_request_over_4_mib_is_resource_exhausted_logged_and_counted(server, channel):
    method = f'method="{SERVICE}SolvePosition"'
    metric = Metric(server.metrics_port)
    lines = len([e for e in server.log("rpc") if e.get("rejected") == "too_large"])
    with pytest.raises(grpc.RpcError) as err:
        _raw_solve(channel)(_padded(4 * 1024 * 1024 + 100), timeout=TIMEOUT)
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    new = wait_for(lambda: [e for e in server.log("rpc") if e.get("rejected") == "too_large"]
                   [lines:])
    assert [(e["method"], e["code"]) for e in new] == [(SERVICE + "SolvePosition",
                                                        "RESOURCE_EXHAUSTED")]
    samples = wait_for(lambda: (lambda s: s if metric.delta(
        f't42_rpc_calls_total{{code="RESOURCE_EXHAUSTED",{method}}}', s) == 1 else None)(
        scrape(server.metrics_port)))
    assert metric.delta(f't42_rpc_rejected_requests_total{{{method},reason="too_large"}}',
                        samples) == 1
    # Just under the limit, the same request is answered.
    answer = service_pb.SolvePositionResponse.FromString(
        _raw_solve(channel)(_padded(4 * 1024 * 1024 - 100), timeout=TIMEOUT))
    assert answer.solution.value == 31


def test_undecodable_streaming_requests_are_refused_too(server, channel):
    """Health.Watch (one request, streamed answers) and reflection (a request stream)."""
    watch = channel.unary_stream("/grpc.health.v1.Health/Watch", request_serializer=None,
                                 response_deserializer=None)
    with pytest.raises(grpc.RpcError) as err:
        list(watch(b"\xff\xff", timeout=TIMEOUT))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    reflect = channel.stream_stream(
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
        request_serializer=None, response_deserializer=None)
    with pytest.raises(grpc.RpcError) as err:
        list(reflect(iter([b"\xff\xff"]), timeout=TIMEOUT))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    codes = wait_for(lambda: (lambda lines: lines if len(lines) == 2 else None)(
        [e["code"] for e in server.log("rpc") if e.get("rejected") == "undecodable"
         and not e["method"].startswith(SERVICE)]))
    assert codes == ["INVALID_ARGUMENT"] * 2
