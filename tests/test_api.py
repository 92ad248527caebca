"""The Python API beyond the check cases: round trips, diagram, threads, cancellation."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from solver import (CancelToken, DealSolver, Position, PositionError, SearchCancelled,
                    legal_moves, make_or_set, solve)

ROOT = Path(__file__).resolve().parent.parent
CASES = [json.loads(line) for line in (ROOT / "tests/cases/texas42.jsonl").read_text().splitlines()]
FULL_DEALS = [c for c in CASES if not c["position"]["plays"]]
EXAMPLE = json.loads((ROOT / "examples/deal.json").read_text())


def test_position_round_trip_and_notations():
    p = Position(EXAMPLE)
    assert Position(p.to_json()) == p
    assert Position(p.to_json_str()) == p
    # L-H, HL and H:L notations read as the same tiles; output is always H-L.
    other = json.loads(json.dumps(EXAMPLE))
    other["hands"]["N"] = ["3-6", "62", "6:0", "4-5", "5-3", "5-2", "2-2"]
    assert Position(other).to_json()["hands"]["N"] == ["6-3", "6-2", "6-0", "5-4", "5-3",
                                                        "5-2", "2-2"]
    assert Position(other).to_json()["contract"] == {
        "declarer": "W", "trump": "fours", "bid": 30, "kind": "standard", "doubles": "high"}


def test_declaration_aliases_give_the_same_values():
    base = CASES[1]["position"]
    assert base["contract"]["trump"] == "blanks"
    values = set()
    for alias in ("blanks", "BLANKS", "0", 0):
        data = json.loads(json.dumps(base))
        data["contract"]["trump"] = alias
        values.add(solve(data).value)
    assert values == {CASES[1]["expect"]["value"]}


def test_diagram_shows_hands_contract_and_trick():
    deal = FULL_DEALS[0]["position"]
    p = Position(dict(deal, plays=solve(deal).line[:6]))
    text = str(p)
    for seat in "NESW":
        assert f"{seat}: " in text
    assert f"bids {p.contract.bid}" in text and p.contract.declaration.name in text
    first, second = p.trick
    assert "On the table:" in text and f"{'NESW'[first[0]]} " in text
    assert f"{p.to_move} to play" in text


def test_best_only_gives_exactly_the_optimal_moves():
    for case in CASES[:20]:
        full = solve(case["position"])
        best = solve(case["position"], best_only=True)
        assert best.value == full.value
        assert set(best.moves) == {t for t, v in full.moves.items() if v == full.value}


def test_moves_are_sorted_best_first_for_the_side_to_move():
    for case in CASES[:40]:
        p = Position(case["position"])
        values = list(solve(p).moves.values())
        maximizing = p.maximizer[p.to_move_index]
        assert values == sorted(values, reverse=bool(maximizing))


def test_legal_moves_match_the_scored_moves():
    for case in CASES[:40]:
        assert sorted(legal_moves(case["position"])) == sorted(solve(case["position"]).moves)


def test_make_or_set_defaults_to_the_contract_bid():
    case = FULL_DEALS[0]
    r = make_or_set(case["position"])
    assert r.bid == case["position"]["contract"]["bid"]
    assert r.makes == case["expect"]["makes"]
    assert r.value is None
    exact = make_or_set(case["position"], exact=True)
    assert exact.value == case["expect"]["value"]


def test_finished_hand_has_no_move():
    case = FULL_DEALS[0]
    line = solve(case["position"]).line
    done = dict(case["position"], plays=line)
    r = solve(done)
    assert (r.value, r.to_move, r.moves, r.line) == (case["expect"]["value"], None, {}, [])


def test_deal_solver_reuses_its_table_across_positions():
    case = FULL_DEALS[0]
    p = Position(case["position"])
    ds = DealSolver(p)
    value = ds.value()
    first_nodes = ds.nodes
    again = ds.value()
    assert again == value
    # the second query is answered mostly from the transposition table
    assert ds.nodes - first_nodes < first_nodes
    # and positions further on in the same deal load into the same engine
    line = ds.solve().line
    later = p.with_plays(Position(case["position"]).plays + tuple(
        Position(dict(case["position"], plays=line[:5])).plays))
    ds.load(later)
    assert ds.value() == solve(later).value


def test_parallel_threads_agree_with_sequential():
    positions = [c["position"] for c in FULL_DEALS[:12]]
    expected = [solve(p).value for p in positions]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda p: solve(p).value, positions))
    assert got == expected


def test_node_budget_stops_the_search():
    hard = max(FULL_DEALS, key=lambda c: len(c["expect"].get("moves", {})))
    with pytest.raises(SearchCancelled):
        solve(hard["position"], token=CancelToken(node_budget=2000))


def test_deadline_in_the_past_stops_the_search():
    with pytest.raises(SearchCancelled):
        solve(FULL_DEALS[0]["position"], token=CancelToken(deadline=time.monotonic() - 1))


def test_cancel_from_another_thread():
    token = CancelToken()
    token.cancel()
    assert token.cancelled
    with pytest.raises(SearchCancelled):
        solve(FULL_DEALS[1]["position"], token=token)
    # a fresh token lets the same position solve
    assert solve(FULL_DEALS[1]["position"], token=CancelToken()).value == \
        FULL_DEALS[1]["expect"]["value"]


def test_cancel_while_searching_in_a_thread():
    token = CancelToken()
    errors: list[BaseException] = []
    positions = [c["position"] for c in FULL_DEALS]

    def work() -> None:
        try:
            for _ in range(50):
                for p in positions:
                    solve(p, token=token)
        except SearchCancelled as exc:
            errors.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    time.sleep(0.05)
    token.cancel()
    thread.join(timeout=10)
    assert not thread.is_alive()
    assert len(errors) == 1


def test_position_error_is_a_value_error_with_field_and_code():
    with pytest.raises(ValueError) as info:
        Position({"hands": {"N": []}})
    err = info.value
    assert isinstance(err, PositionError)
    assert err.to_json() == {"field": err.field, "reason": err.reason, "code": err.code}
