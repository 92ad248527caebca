"""Every check position of tests/cases/*.jsonl, reproduced exactly.

The case files are a byte-identical copy of the project's shared check
positions (SPEC.md's ``cases/``); each line holds a position and its exact
double-dummy value, makes, seat to move and usually every move's value.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import reference as R
from solver import Position, legal_moves, make_or_set, solve

CASES_DIR = Path(__file__).parent / "cases"
SHARED_CASES_DIR = Path(__file__).resolve().parents[2] / "shared" / "cases"
CASE_FILES = ("texas42.jsonl", "moon.jsonl")


def load_cases() -> list:
    params = []
    for filename in CASE_FILES:
        with open(CASES_DIR / filename, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    case = json.loads(line)
                    params.append(pytest.param(case, id=case["id"]))
    return params


CASES = load_cases()


def test_case_files_hold_both_games():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)) == 310
    games = {c.values[0]["position"].get("game", "42") for c in CASES}
    assert games == {"42", "moon"}


@pytest.mark.parametrize("case", CASES)
def test_case_solved_exactly(case):
    position, expect = case["position"], case["expect"]
    got = solve(position)
    assert (got.value, got.makes, got.to_move) == \
        (expect["value"], expect["makes"], expect["to_move"])
    if "moves" in expect:
        assert got.moves == expect["moves"]
    else:
        assert sorted(got.moves) == sorted(legal_moves(position))
    assert got.moves[next(iter(got.moves))] == got.value, "best move first"


@pytest.mark.parametrize("case", CASES)
def test_case_line_is_legal_and_scores_the_value(case):
    position, value = case["position"], case["expect"]["value"]
    line = solve(position).line
    after = dict(position, plays=position["plays"] + line)
    # Replayed by the solver's own validation ...
    final = Position(after)
    assert final.is_complete and final.to_move is None
    assert final.points == value
    # ... and, independently, by the plain rules of the reference.
    game, state = R.start(after)
    assert state.over() and state.points == value


def _bids_to_try(position: dict, value: int) -> list[int]:
    """The contract's bid and bids either side of where the value makes or fails."""
    game = R.game_of(position)
    if game.moon:
        return [4, 5, 6, 7, 21]
    marks_only = game.rules.declaration in ("nello", "sevens") or \
        position["contract"].get("kind", "standard") != "standard"
    if marks_only:
        return [42, 84, 294]
    near = [b for b in (value, value + 1) if 30 <= b <= 41]
    return sorted({30, 41, 42, 126, *near})


@pytest.mark.parametrize("case", CASES)
def test_case_make_or_set(case):
    position, expect = case["position"], case["expect"]
    assert make_or_set(position).makes == expect["makes"]
    game = R.game_of(position)
    for bid in _bids_to_try(position, expect["value"]):
        result = make_or_set(position, bid)
        assert (result.bid, result.makes) == (bid, game.makes(expect["value"], bid)), bid


def test_make_or_set_bids_cover_both_outcomes():
    # The bids tried above must sometimes make and sometimes fail in each game.
    seen = set()
    for case in CASES:
        position, value = case.values[0]["position"], case.values[0]["expect"]["value"]
        game = R.game_of(position)
        for bid in _bids_to_try(position, value):
            seen.add((game.moon, game.makes(value, bid)))
    assert seen == {(False, True), (False, False), (True, True), (True, False)}


@pytest.mark.skipif(not SHARED_CASES_DIR.is_dir(), reason="no shared cases beside this clone")
def test_cases_are_a_byte_identical_copy_of_the_shared_cases():
    ours = sorted(p.name for p in CASES_DIR.glob("*.jsonl"))
    shared = sorted(p.name for p in SHARED_CASES_DIR.glob("*.jsonl"))
    assert ours == shared
    for filename in ours:
        assert (CASES_DIR / filename).read_bytes() == (SHARED_CASES_DIR / filename).read_bytes(), \
            filename
