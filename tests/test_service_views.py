"""The CountDeals RPC on a real `t42 serve` process: the shared view cases, bad views."""

from __future__ import annotations

import urllib.request

import grpc
import pytest
from google.protobuf import json_format

from grpc_helpers import assert_invalid, bad_request
from server.convert import ENUM_OF_PLACE, view_from_json, view_to_json
from server.launcher import ServerProcess
from solver import PositionError
from solver.hidden.deals import count_deals, tile_probabilities
from texas42.v1 import position_pb2 as pb
from texas42.v1 import view_pb2 as view_pb
from view_cases import assert_probabilities_match, bad_view_cases, read_cases

PLACE_NAME = {value: name for name, value in ENUM_OF_PLACE.items()}
SEAT_ENUM = {"N": pb.SEAT_NORTH, "E": pb.SEAT_EAST, "S": pb.SEAT_SOUTH, "W": pb.SEAT_WEST}


def count(stub, view: dict) -> view_pb.CountDealsResponse:
    return stub.CountDeals(view_pb.CountDealsRequest(view=view_from_json(view)), timeout=60)


def as_probabilities(response: view_pb.CountDealsResponse) -> dict:
    return {t.tile: {PLACE_NAME[p.place]: p.probability for p in t.places}
            for t in response.tiles}


def test_every_case_view_counts_as_the_api_and_the_case(stub):
    for case in read_cases("views.jsonl"):
        view, expect = case["view"], case["expect"]
        response = count(stub, view)
        assert response.count == expect["count"] == count_deals(view), case["id"]
        assert response.to_move == SEAT_ENUM[expect["to_move"]]
        assert response.declaring == (expect["side"] == "declaring")
        got = as_probabilities(response)
        assert_probabilities_match(got, expect["tile_probabilities"])
        assert got == tile_probabilities(view)
        assert [t.tile for t in response.tiles] == list(tile_probabilities(view))


def test_view_json_round_trips_through_the_message():
    for case in read_cases("views.jsonl")[::9]:
        view = case["view"]
        back = view_to_json(view_from_json(view))
        assert back["seat"] == view["seat"] and back["plays"] == view.get("plays", [])
        assert back.get("players") == view.get("players")
        assert back.get("widow") == view.get("widow")
        assert back.get("auction", []) == [{"seat": c["seat"], "bid": c["bid"]}
                                           for c in view.get("auction", [])]


@pytest.mark.parametrize("case", bad_view_cases("view"))
def test_bad_views_are_invalid_argument(stub, case):
    try:
        message = view_from_json(case["view"])
    except (PositionError, TypeError, ValueError):
        # Not expressible in the message (seat "X", plays not a list): the
        # client conversion refuses it; send the nearest message instead.
        message = view_pb.View(seat=9) if case["view"].get("seat") else view_pb.View()
    with pytest.raises(grpc.RpcError) as err:
        stub.CountDeals(view_pb.CountDealsRequest(view=message), timeout=60)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    violations, reason = bad_request(err.value)
    assert len(violations) == 1 and violations[0][0].startswith("view")
    assert reason.isupper()


def test_bad_view_field_paths_are_proto_paths(stub):
    cases = {c["id"]: c["view"] for c in read_cases("views_bad.jsonl")}
    assert_invalid(lambda: count(stub, cases["views-bad-2026-hand-6"]),
                   "view.hands.east", "HAND_SIZE")
    assert_invalid(lambda: stub.CountDeals(view_pb.CountDealsRequest(view=view_pb.View(
        seat=pb.SEAT_EAST, hands=pb.Hands(east=["6-6"] * 7))), timeout=30),
        "view.hands.east[1]", "DUPLICATE_TILE")
    assert_invalid(lambda: count(stub, cases["views-bad-2026-capacity"]),
                   "view.plays", "NO_CONSISTENT_DEAL")
    assert_invalid(lambda: count(stub, cases["views-bad-2026-nello-partner"]),
                   "view.seat", "NELLO_PARTNER_VIEW")
    assert_invalid(lambda: stub.CountDeals(view_pb.CountDealsRequest(), timeout=30),
                   "view.seat", "MISSING_FIELD")
    assert_invalid(lambda: stub.CountDeals(view_pb.CountDealsRequest(view=view_pb.View(
        seat=9)), timeout=30), "view.seat", "UNKNOWN_SEAT")


def test_count_deals_over_connect_http_json():
    """The same RPC through the server's Connect HTTP/JSON face (POST, JSON body)."""
    case = read_cases("views.jsonl")[0]
    body = json_format.MessageToJson(view_pb.CountDealsRequest(view=view_from_json(case["view"])))
    with ServerProcess("--workers", "1", "--http-port", "0") as proc:
        request = urllib.request.Request(
            f"http://127.0.0.1:{proc.http_port}/texas42.v1.HintService/CountDeals",
            data=body.encode(), headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            answer = json_format.Parse(response.read(), view_pb.CountDealsResponse())
    assert answer.count == case["expect"]["count"]
    assert_probabilities_match(as_probabilities(answer), case["expect"]["tile_probabilities"])
