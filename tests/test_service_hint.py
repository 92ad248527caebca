"""The Hint RPC on a real `t42 serve` process: the same numbers as the Python API for a
seed, bad views and options as INVALID_ARGUMENT, a deadline that stops the hint."""

from __future__ import annotations

import grpc
import pytest

from grpc_helpers import assert_invalid, scrape, wait_for
from server.convert import view_from_json
from solver.hidden.hint import hint
from texas42.v1 import hint_pb2
from texas42.v1 import position_pb2 as pb
from view_cases import read_cases

SEAT_ENUM = {"N": pb.SEAT_NORTH, "E": pb.SEAT_EAST, "S": pb.SEAT_SOUTH, "W": pb.SEAT_WEST}
HAND_FIELD = {"N": "north", "E": "east", "S": "south", "W": "west"}
TIMEOUT = 60  # a guard against a hung server, not a speed check
CASES = {c["id"]: c for c in read_cases("views.jsonl")}
BIG = CASES["views-2026-follow-me-high-5"]["view"]          # 34,650 deals: sampled
SMALL = CASES["views-2026-nello-high-0"]["view"]            # 756 deals: enumerated
OPENING = {"seat": "N", "hands": {"N": ["6-6", "6-5", "6-4", "6-1", "5-5", "4-4", "2-0"]},
           "contract": {"declarer": "N", "trump": "sixes", "bid": 30}, "plays": []}


def call(stub, view: dict, timeout: float = TIMEOUT, **options) -> hint_pb2.HintResponse:
    return stub.Hint(hint_pb2.HintRequest(view=view_from_json(view), **options), timeout=timeout)


def assert_same_as_api(response: hint_pb2.HintResponse, expected) -> None:
    assert response.count == expected.count and response.deals == expected.deals
    assert response.method == {"enumerated": hint_pb2.HINT_METHOD_ENUMERATED,
                               "sampled": hint_pb2.HINT_METHOD_SAMPLED}[expected.method]
    assert (response.seed if response.HasField("seed") else None) == expected.seed
    assert list(response.best) == expected.best
    assert response.declaring == (expected.side == "declaring")
    assert [m.tile for m in response.moves] == list(expected.moves)
    for m in response.moves:
        want = expected.moves[m.tile]
        assert (m.mean, m.p_make, m.p_best) == (want.mean, want.p_make, want.p_best)
        assert m.best == (m.tile in expected.best)
        if want.mean_ci is None:
            assert not m.HasField("mean_interval") and not m.HasField("p_make_interval")
        else:
            assert (m.mean_interval.low, m.mean_interval.high) == want.mean_ci
            assert (m.p_make_interval.low, m.p_make_interval.high) == want.p_make_ci


def test_sampled_hint_equals_the_python_api_for_a_seed(stub):
    response = call(stub, BIG, deals=40, seed=9)
    assert_same_as_api(response, hint(BIG, deals=40, seed=9))
    assert response.to_move == SEAT_ENUM[BIG["seat"]]


def test_enumerated_hint_equals_the_python_api_and_the_case(stub):
    response = call(stub, SMALL, objective=hint_pb2.HINT_OBJECTIVE_POINTS)
    expected = hint(SMALL, objective="points")
    assert_same_as_api(response, expected)
    want = CASES["views-2026-nello-high-0"]["expect"]["best_points"]
    assert sorted(response.best) == sorted(want)
    assert response.unit  # tricks for nello
    assert not response.HasField("seed")


def test_options_adaptive_and_examples(stub):
    response = call(stub, BIG, deals=20, seed=4, adaptive=True, max_deals=60, examples=2,
                    enumerate_limit=0)
    expected = hint(BIG, deals=20, seed=4, adaptive=True, max_deals=60, examples=2)
    assert_same_as_api(response, expected)
    assert response.stopped == expected.stopped
    assert len(response.examples) == len(expected.examples)
    for got, want in zip(response.examples, expected.examples):
        assert [(v.tile, v.value) for v in got.values] == list(want.values.items())
        assert list(got.position.plays) == want.position.to_json()["plays"]


@pytest.mark.parametrize("case", [c for c in read_cases("views_bad.jsonl")
                                  if c["expect"]["applies_to"] == "hint"], ids=lambda c: c["id"])
def test_views_a_hint_refuses_are_invalid_argument(stub, case):
    field, code = {"not-to-move": ("view.seat", "NOT_TO_MOVE"),
                   "hand-over": ("view.plays", "HAND_OVER")}[case["expect"]["error"]]
    assert_invalid(lambda: call(stub, case["view"]), field, code)


def test_bad_view_and_bad_option_name_the_request_field(stub):
    seat = SMALL["seat"]
    bad = dict(SMALL, hands={seat: SMALL["hands"][seat][:6]})
    assert_invalid(lambda: call(stub, bad), f"view.hands.{HAND_FIELD[seat]}", "HAND_SIZE")
    assert_invalid(lambda: call(stub, SMALL, objective=7), "objective", "INVALID_OPTION")


def test_a_deadline_stops_the_hint_and_the_server_goes_on(server, stub):
    before = scrape(server.metrics_port).get('t42_solver_jobs_total{outcome="cancelled"}', 0.0)
    with pytest.raises(grpc.RpcError) as err:
        # A twentieth of a second, against the seconds 400 opening-lead deals take.
        call(stub, OPENING, timeout=0.05, deals=400, seed=1)
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    wait_for(lambda: scrape(server.metrics_port).get(
        't42_solver_jobs_total{outcome="cancelled"}', 0.0) == before + 1)
    assert_same_as_api(call(stub, SMALL), hint(SMALL))


@pytest.mark.parametrize("search,depth", [("postponed", 1), ("postponed", 2), ("playout", 0)])
def test_a_seat_view_hint_is_the_python_api_s(stub, search, depth):
    """search names the seat-view search; the answer is `seat_view_hint`'s for the seed,
    and names it."""
    from solver.hidden.seat_view import seat_view_hint
    options = {"depth": depth} if search == "postponed" else {"inner_deals": 2}
    deals = 6 if search == "playout" else 20
    response = call(stub, BIG, deals=deals, seed=5, search=search, **options)
    expected = seat_view_hint(BIG, method=search, deals=deals, seed=5, **options)
    assert (response.search, response.depth, response.inner_deals) == \
        (search, expected.depth, expected.inner_deals)
    assert [m.tile for m in response.moves] == list(expected.moves)
    for m in response.moves:
        want = expected.moves[m.tile]
        assert (m.mean, m.p_make, m.p_best) == (want.mean, want.p_make, want.p_best)
    assert list(response.best) == expected.best and response.count == expected.count
    plain = call(stub, BIG, deals=20, seed=5)
    assert plain.search == "double-dummy" and plain.depth == 0


def test_a_seat_view_hint_refuses_what_it_does_not_take(stub):
    assert_invalid(lambda: call(stub, BIG, search="alpha"), "search", "INVALID_OPTION")
    assert_invalid(lambda: call(stub, BIG, search="postponed", adaptive=True), "adaptive",
                   "INVALID_OPTION")
    assert_invalid(lambda: call(stub, BIG, search="postponed", depth=9), "depth",
                   "INVALID_VALUE")
