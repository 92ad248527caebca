"""AnalyzeHand and SolveDeal through a real `t42 serve` process on 127.0.0.1.

Each answer is checked field by field against the Python API
(`analyze_hand(...).to_json()`, `solve_deal(...).to_json()`); bad hand records
and deals get INVALID_ARGUMENT naming the request field and the reason code;
a deadline shorter than a table stops its search and the server goes on
serving.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import grpc
import pytest
from google.protobuf import descriptor_pool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_helpers import Metric, assert_invalid, scrape, wait_for
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from server.convert import deal_from_json, hand_record_from_json
from solver.game.tiles import NAMES
from solver.search.analysis import analyze_hand
from solver.search.table import solve_deal
from texas42.v1 import deal_table_pb2 as table_pb
from texas42.v1 import hand_analysis_pb2 as hand_pb
from texas42.v1 import hint_service_pb2 as service_pb
from texas42.v1 import position_pb2 as pb

EXAMPLES = Path(__file__).parent.parent / "examples"
RECORDS = [json.loads(line) for line in (EXAMPLES / "hands.jsonl").read_text().splitlines()
           if line.strip()]
DEAL = json.loads((EXAMPLES / "deal.json").read_text())
SERVICE = "/texas42.v1.HintService/"
TIMEOUT = 60  # a guard against a hung server, not a speed check
SEAT_LETTER = {pb.SEAT_NORTH: "N", pb.SEAT_EAST: "E", pb.SEAT_SOUTH: "S", pb.SEAT_WEST: "W"}
#: A deal whose table takes the search a while (millions of nodes).
HARD_HANDS = {"N": ["3-1", "4-3", "2-0", "0-0", "4-1", "6-3", "4-4"],
              "E": ["4-2", "6-1", "6-6", "6-2", "5-4", "4-0", "6-4"],
              "S": ["2-1", "6-5", "5-2", "3-2", "6-0", "3-3", "1-1"],
              "W": ["5-1", "5-0", "3-0", "1-0", "2-2", "5-3", "5-5"]}


def record(hand_id: str, plays: int | None = None) -> dict:
    """A hand record of examples/hands.jsonl, optionally cut after ``plays`` plays."""
    data = copy.deepcopy(next(r for r in RECORDS if r["id"] == hand_id))
    if plays is not None:
        data["plays"] = data["plays"][:plays]
        data["id"] = f"{hand_id}-first-{plays}"
    return data


def seeded_hands(seed: int) -> dict[str, list[str]]:
    tiles = list(NAMES)
    random.Random(seed).shuffle(tiles)
    return {seat: tiles[7 * i:7 * i + 7] for i, seat in enumerate("NESW")}


def enum_name(value: int, enum, prefix: str) -> str:
    """A proto enum value by its SPEC name (DECLARATION_FOLLOW_ME -> follow-me)."""
    return enum.Name(value)[len(prefix):].lower().replace("_", "-")


def analysis_as_json(a: hand_pb.HandAnalysis) -> dict:
    """The analysis fields of a HandAnalysis message in the shape of `HandAnalysis.to_json`."""
    return {
        "id": a.id,
        "unit": enum_name(a.unit, hand_pb.ValueUnit, "VALUE_UNIT_"),
        "value": a.value, "makes": a.makes, "result": a.result, "complete": a.complete,
        "final_value": a.final_value, "made": a.made if a.HasField("made") else None,
        "plays": [{"index": p.index, "trick": p.trick, "seat": SEAT_LETTER[p.seat],
                   "tile": p.tile, "value_before": p.value_before,
                   "value_after": p.value_after, "cost": p.cost, "optimal": p.optimal,
                   "alternatives": list(p.alternatives)} for p in a.plays],
        "seats": {SEAT_LETTER[s.seat]: {"plays": s.plays, "costly_plays": s.costly_plays,
                                        "total_cost": s.total_cost} for s in a.seats},
    }


def table_as_json(t: table_pb.DealTable) -> dict:
    """A DealTable message in the shape of `DealTable.to_json`."""
    def by_seat(row) -> dict:
        return {"N": row.north, "E": row.east, "S": row.south, "W": row.west}

    out: dict = {"id": t.id} if t.id else {}
    out["doubles"] = enum_name(t.doubles, pb.DoublesOption, "DOUBLES_OPTION_")
    out["rows"] = [{"trump": enum_name(r.declaration, pb.Declaration, "DECLARATION_"),
                    "points": by_seat(r)} for r in t.points]
    out["rows"] += [{"trump": enum_name(r.declaration, pb.Declaration, "DECLARATION_"),
                     "makes": by_seat(r)} for r in t.makes]
    out["best"] = {SEAT_LETTER[b.seat]: {
        "trump": enum_name(b.declaration, pb.Declaration, "DECLARATION_"),
        "points": b.points if b.HasField("points") else None,
        "bid": b.bid if b.HasField("bid") else None} for b in t.best}
    return out


def expected_analysis(data: dict) -> dict:
    expect = analyze_hand(data).to_json()
    expect.pop("meta", None)
    for key in ("game", "contract"):  # the request's own position, not repeated back
        expect.pop(key)
    return expect


# ---------------------------------------------------------------- AnalyzeHand

HANDS = [(r["id"], None) for r in RECORDS] + [
    ("club-1", 9),    # stopped mid-trick, contract not decided yet
    ("club-4", 12),   # nello stopped early
    ("club-5", 14),   # sevens stopped early
    ("club-1", 0),    # no play yet
]


@pytest.mark.parametrize("hand_id, plays", HANDS,
                         ids=[f"{h}-{'all' if n is None else n}" for h, n in HANDS])
def test_analyze_hand_matches_the_python_api(stub, hand_id, plays):
    data = record(hand_id, plays)
    response = stub.AnalyzeHand(hand_record_from_json(data), timeout=TIMEOUT)
    assert analysis_as_json(response.analysis) == expected_analysis(data)
    assert response.analysis.nodes > 0


def test_analyze_hand_covers_stopped_nello_and_sevens_hands(stub):
    """The recorded hands include each kind the analysis must get right."""
    got = {}
    for hand_id, plays in HANDS:
        data = record(hand_id, plays)
        got[data["id"]] = (data["contract"]["trump"], stub.AnalyzeHand(
            hand_record_from_json(data), timeout=TIMEOUT).analysis)
    trumps = {trump for trump, _ in got.values()}
    assert {"nello", "sevens"} <= trumps
    undecided = [a for _, a in got.values() if not a.HasField("made")]
    assert undecided and all(not a.complete for a in undecided)
    assert any(not a.complete and a.HasField("made") for _, a in got.values())
    assert any(a.unit == hand_pb.VALUE_UNIT_TRICKS for _, a in got.values())
    costly = [p for _, a in got.values() for p in a.plays if p.cost]
    assert costly and all(not p.optimal and p.alternatives for p in costly)
    nello = got["club-4"][1]
    assert {SEAT_LETTER[s.seat] for s in nello.seats} == {"E", "S", "W"}  # N sits out


def test_analyze_hand_accepts_metadata_and_returns_the_id(stub):
    data = record("club-1")
    request = hand_record_from_json(data)
    assert request.meta.players.west == "Dee" and len(request.meta.auction) == 4
    assert request.meta.auction[0].bid == 0 and request.meta.auction[3].bid == 32
    analysis = stub.AnalyzeHand(request, timeout=TIMEOUT).analysis
    assert analysis.id == "club-1"
    request.ClearField("meta")
    request.ClearField("id")
    bare = stub.AnalyzeHand(request, timeout=TIMEOUT).analysis
    assert bare.id == "" and analysis_as_json(bare) == {**analysis_as_json(analysis), "id": ""}


BAD_RECORDS = {
    "bad tile in a hand": (
        lambda r: r.position.hands.north.__setitem__(2, "7-1"),
        "position.hands.north[2]", "UNKNOWN_TILE"),
    "bad tile played": (lambda r: r.position.plays.__setitem__(5, "9-9"),
                        "position.plays[5]", "UNKNOWN_TILE"),
    "illegal play": (  # N led 0-0 (blanks); E holds 2-0 and 1-0, so must follow
        lambda r: r.position.plays.__setitem__(1, "6-5"), "position.plays[1]", "ILLEGAL_PLAY"),
    "tile not in the hand": (lambda r: r.position.plays.__setitem__(1, "6-6"),
                             "position.plays[1]", "TILE_NOT_IN_HAND"),
    "duplicate tile": (  # reported at its second place
        lambda r: r.position.hands.south.__setitem__(0, r.position.hands.east[3]),
        "position.hands.south[0]", "DUPLICATE_TILE"),
    "missing contract": (lambda r: r.position.ClearField("contract"), "position.contract",
                         "MISSING_FIELD"),
    "unknown declaration": (lambda r: setattr(r.position.contract, "declaration", 99),
                            "position.contract.declaration", "UNKNOWN_DECLARATION"),
    "unknown seat in the auction": (lambda r: setattr(r.meta.auction[1], "seat", 9),
                                    "meta.auction[1].seat", "UNKNOWN_SEAT"),
}


@pytest.mark.parametrize("name", list(BAD_RECORDS))
def test_analyze_hand_bad_record(stub, name):
    edit, field, code = BAD_RECORDS[name]
    request = hand_record_from_json(record("club-1"))
    edit(request)
    assert_invalid(lambda: stub.AnalyzeHand(request, timeout=TIMEOUT), field, code)


def test_analyze_hand_player_of_a_seat_not_in_the_game(stub):
    request = hand_record_from_json(record("moon-1"))  # three-player Moon: no west
    request.meta.players.north = "Ann"
    stub.AnalyzeHand(request, timeout=TIMEOUT)
    request.meta.players.west = "Dee"
    assert_invalid(lambda: stub.AnalyzeHand(request, timeout=TIMEOUT),
                   "meta.players.west", "UNKNOWN_SEAT")


# ------------------------------------------------------------------ SolveDeal

#: Seeded deals: 8 has west's best declaration nello, 11 a seat with no bid
#: and one whose best is sevens, 34 a side with no bid.
SEEDS = (8, 11, 34)


@pytest.mark.parametrize("doubles", [None, "high", "low", "suit"])
def test_solve_deal_matches_the_python_api(stub, doubles):
    tables = []
    for seed in SEEDS:
        deal = {"hands": seeded_hands(seed), "id": f"seed-{seed}"}
        if doubles:
            deal["doubles"] = doubles
        table = stub.SolveDeal(deal_from_json(deal), timeout=TIMEOUT).table
        assert table_as_json(table) == solve_deal(deal).to_json()
        assert table.nodes > 0
        tables.append(table)
    if doubles in (None, "high"):  # the cases these deals were picked for
        best = [b for t in tables for b in t.best]
        assert any(not b.HasField("bid") for b in best)
        assert any(b.declaration == pb.DECLARATION_NELLO and not b.HasField("points")
                   for b in best)
        assert any(b.declaration == pb.DECLARATION_SEVENS for b in best)


def test_solve_deal_of_a_position_file_and_the_doubles_options(stub):
    tables = {}
    for doubles in ("high", "low", "suit"):
        deal = {**DEAL, "doubles": doubles}  # a position file: its contract is not sent
        response = stub.SolveDeal(deal_from_json(deal), timeout=TIMEOUT)
        expect = solve_deal({"hands": DEAL["hands"], "doubles": doubles}).to_json()
        assert table_as_json(response.table) == expect
        tables[doubles] = response.table
    assert tables["high"].doubles == pb.DOUBLES_OPTION_HIGH
    assert tables["suit"].doubles == pb.DOUBLES_OPTION_SUIT
    # Only follow-me and nello depend on the option; blanks ... doubles do not.
    assert [r for r in tables["high"].points[:8]] == [r for r in tables["suit"].points[:8]]
    assert [r.declaration for r in tables["high"].makes] == [pb.DECLARATION_SEVENS,
                                                             pb.DECLARATION_NELLO]


def _deal_request(**changes) -> service_pb.SolveDealRequest:
    request = deal_from_json({"hands": DEAL["hands"]})
    for name, value in changes.items():
        setattr(request, name, value)
    return request


def _edit_hands(fn):
    def build() -> service_pb.SolveDealRequest:
        request = _deal_request()
        fn(request.hands)
        return request
    return build


BAD_DEALS = {
    "duplicated tile": (_edit_hands(lambda h: h.south.__setitem__(6, h.west[0])),
                        "hands.west[0]", "DUPLICATE_TILE"),
    "unknown tile": (_edit_hands(lambda h: h.north.__setitem__(0, "7-7")), "hands.north[0]",
                     "UNKNOWN_TILE"),
    "short hand": (_edit_hands(lambda h: h.east.pop()), "hands.east", "HAND_SIZE"),
    "three hands": (_edit_hands(lambda h: h.ClearField("west")), "hands.west", "MISSING_FIELD"),
    "no hands": (lambda: service_pb.SolveDealRequest(), "hands", "MISSING_FIELD"),
    "unknown doubles option": (lambda: _deal_request(doubles=7), "doubles", "INVALID_OPTION"),
}


@pytest.mark.parametrize("name", list(BAD_DEALS))
def test_solve_deal_bad_deal(stub, name):
    build, field, code = BAD_DEALS[name]
    assert_invalid(lambda: stub.SolveDeal(build(), timeout=TIMEOUT), field, code)


# ------------------------------------------------- deadline, cancel, health, API


def _jobs(server, outcome: str) -> float:
    return scrape(server.metrics_port).get(f't42_solver_jobs_total{{outcome="{outcome}"}}', 0.0)


def _idle(server) -> bool:
    return scrape(server.metrics_port).get("t42_solver_busy_workers") == 0


def test_solve_deal_deadline_stops_the_search(server, stub, channel, hold):
    cancelled = _jobs(server, "cancelled")
    with hold:  # the table cannot be finished before the deadline, however fast it is
        with pytest.raises(grpc.RpcError) as err:
            stub.SolveDeal(deal_from_json({"hands": HARD_HANDS}), timeout=0.5)
        assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        # The worker's job ended early (the search saw the deadline), not by finishing.
        wait_for(lambda: _jobs(server, "cancelled") == cancelled + 1 and _idle(server))
    assert wait_for(lambda: [e for e in server.log("rpc") if e["method"] == SERVICE + "SolveDeal"
                             and e["code"] == "DEADLINE_EXCEEDED"])
    # The next call is answered, and right.
    table = stub.SolveDeal(deal_from_json(DEAL), timeout=TIMEOUT).table
    assert table_as_json(table) == solve_deal(DEAL).to_json()
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "texas42.v1.HintService"):
        assert health.Check(health_pb2.HealthCheckRequest(service=service),
                            timeout=TIMEOUT).status == health_pb2.HealthCheckResponse.SERVING


def test_solve_deal_client_cancel_stops_the_search(server, stub, hold):
    cancelled = _jobs(server, "cancelled")
    lines = len([e for e in server.log("rpc") if e["method"] == SERVICE + "SolveDeal"])
    with hold:
        future = stub.SolveDeal.future(deal_from_json({"hands": HARD_HANDS}), timeout=TIMEOUT)
        wait_for(lambda: scrape(server.metrics_port).get("t42_solver_busy_workers", 0) == 1)
        future.cancel()
        assert future.cancelled()
        wait_for(lambda: _jobs(server, "cancelled") == cancelled + 1 and _idle(server))
    new = wait_for(lambda: [e for e in server.log("rpc") if e["method"] == SERVICE + "SolveDeal"]
                   [lines:])
    assert [e["code"] for e in new] == ["CANCELLED"]


def test_calls_are_logged_and_counted(server, stub):
    metric = Metric(server.metrics_port)
    stub.AnalyzeHand(hand_record_from_json(record("club-2")), timeout=TIMEOUT)
    stub.SolveDeal(deal_from_json({"hands": seeded_hands(1)}), timeout=TIMEOUT)
    for bad in (lambda: stub.AnalyzeHand(service_pb.AnalyzeHandRequest(), timeout=TIMEOUT),
                lambda: stub.SolveDeal(service_pb.SolveDealRequest(), timeout=TIMEOUT)):
        with pytest.raises(grpc.RpcError):
            bad()
    for method in ("AnalyzeHand", "SolveDeal"):
        label = f'method="{SERVICE}{method}"'
        ok = f't42_rpc_calls_total{{code="OK",{label}}}'
        bad = f't42_rpc_calls_total{{code="INVALID_ARGUMENT",{label}}}'
        # Each call is counted when it ends, just after its response is sent.
        samples = wait_for(lambda: (lambda s: s if metric.delta(ok, s) == 1
                                    and metric.delta(bad, s) == 1 else None)(
            scrape(server.metrics_port)))
        assert samples[f"t42_rpc_in_flight{{{label}}}"] == 0
    codes = {e["code"] for e in server.log("rpc") if e["method"].startswith(SERVICE)}
    assert "UNKNOWN" not in codes and "INTERNAL" not in codes


def test_reflection_lists_the_new_rpcs(channel):
    database = ProtoReflectionDescriptorDatabase(channel)
    service = descriptor_pool.DescriptorPool(database).FindServiceByName("texas42.v1.HintService")
    assert service.methods_by_name["AnalyzeHand"].input_type.full_name == \
        "texas42.v1.AnalyzeHandRequest"
    assert service.methods_by_name["SolveDeal"].output_type.full_name == \
        "texas42.v1.SolveDealResponse"


def test_new_enums_have_an_unspecified_zero():
    for module in (hand_pb, table_pb, service_pb):
        for enum in module.DESCRIPTOR.enum_types_by_name.values():
            assert enum.values_by_number[0].name.endswith("_UNSPECIFIED"), enum.name
