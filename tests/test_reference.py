"""The solver against the plain minimax of `reference` on random late positions.

Every declaration and option gets its own seeded batch: a random deal (one
that lets the declarer plunge or splash when the contract needs it), a random
contract, then random legal plays (legality decided by the reference) until
2 to 4 tricks are left, often stopping mid-trick. The solver must agree with
the reference on the value, makes, the seat to move and every move's value.
The reference is itself held to the late positions of the shared check cases.
"""

from __future__ import annotations

import json
import random
from functools import lru_cache
from pathlib import Path

import pytest

import reference as R
from solver import DealSolver, Position, make_or_set, solve

PIP_NAMES = R.PIP_NAMES
DOUBLES = [(p, p) for p in range(7)]


def _shuffled(rng: random.Random, tiles) -> list:
    tiles = list(tiles)
    rng.shuffle(tiles)
    return tiles


def _deal_42(rng: random.Random, declarer: str, doubles_needed: int = 0) -> dict:
    """Four random hands; the declarer holds at least ``doubles_needed`` doubles."""
    own = rng.sample(DOUBLES, rng.randint(doubles_needed, 7)) if doubles_needed else []
    rest = _shuffled(rng, [t for t in R.ALL_TILES if t not in own])
    hands = {}
    for seat in R.SEATS:
        take = 7 - len(own) if seat == declarer else 7
        hands[seat] = (own if seat == declarer else []) + rest[:take]
        rest = rest[take:]
    return {s: [R.name(t) for t in _shuffled(rng, h)] for s, h in hands.items()}


def _contract_42(rng: random.Random, kind: str, declaration: str, doubles: str) -> dict:
    contract = {"declarer": rng.choice(R.SEATS), "trump": declaration}
    marks_only = declaration in ("nello", "sevens")
    if kind == "plunge":
        contract["bid"] = rng.choice([None, 168, 210])
    elif kind == "splash":
        contract["bid"] = rng.choice([None, 84, 126])
    elif marks_only or rng.random() < 0.3:
        contract["bid"] = 42 * rng.randint(1, 7)
    else:
        contract["bid"] = rng.randint(30, 41)
    if contract["bid"] is None:
        del contract["bid"]        # plunge and splash have default bids
    if kind != "standard":
        contract["kind"] = kind
    if doubles != "high" or rng.random() < 0.2:
        contract["doubles"] = doubles
    return contract


def _play_to(rng: random.Random, position: dict, tricks_left: int, mid_trick: bool) -> dict:
    """Random legal plays until ``tricks_left`` tricks remain (plus part of a trick)."""
    game, state = R.start(position)
    seats = len(game.order)
    target = (7 - tricks_left) * seats + (rng.randint(1, seats - 1) if mid_trick else 0)
    plays = list(position.get("plays", []))
    while len(plays) < target:
        t = rng.choice(state.legal(game))
        plays.append(R.name(t))
        state = state.play(game, t)
    return dict(position, plays=plays)


def _late(rng: random.Random) -> tuple[int, bool]:
    return rng.choice((2, 3, 3, 4, 4)), rng.random() < 0.5


def make_42(seed: str, kind: str, declaration: str, doubles: str = "high") -> dict:
    rng = random.Random(seed)
    contract = _contract_42(rng, kind, declaration, doubles)
    need = {"plunge": 4, "splash": 3}.get(kind, 0)
    position = {"hands": _deal_42(rng, contract["declarer"], need), "contract": contract}
    return _play_to(rng, position, *_late(rng))


def make_moon(seed: str, players: int, declaration: str) -> dict:
    rng = random.Random(seed)
    contract = {"declarer": rng.choice(R.SEATS[:players]), "trump": declaration,
                "bid": rng.choice([4, 5, 6, 7, 21])}
    position = {"game": "moon", "contract": contract}
    if players == 4:
        tiles = _shuffled(rng, R.ALL_TILES)
        position["hands"] = {s: [R.name(t) for t in tiles[7 * i:7 * i + 7]]
                             for i, s in enumerate(R.SEATS)}
    else:
        tiles = _shuffled(rng, R.MOON3_TILES)
        hands = {s: tiles[7 * i:7 * i + 7] for i, s in enumerate("NES")}
        widow = tiles[21]
        # The declarer takes the widow and discards one of the eight tiles.
        eight = hands[contract["declarer"]] + [widow]
        discard = rng.choice(eight)
        hands[contract["declarer"]] = [t for t in eight if t != discard]
        position["hands"] = {s: [R.name(t) for t in h] for s, h in hands.items()}
        if rng.random() < 0.5:
            position["widow"], position["discard"] = R.name(widow), R.name(discard)
    return _play_to(rng, position, *_late(rng))


def _batch(label: str, n: int, make, *args) -> list:
    return [pytest.param(make(f"{label}-{i}", *args), id=f"{label}-{i}") for i in range(n)]


CASES = []
for _pip in PIP_NAMES:
    CASES += _batch(_pip, 20, make_42, "standard", _pip)
CASES += _batch("doubles", 35, make_42, "standard", "doubles")
for _opt in ("high", "low", "suit"):
    CASES += _batch(f"follow-me-{_opt}", 30, make_42, "standard", "follow-me", _opt)
    CASES += _batch(f"nello-{_opt}", 30, make_42, "standard", "nello", _opt)
CASES += _batch("sevens", 40, make_42, "standard", "sevens")
for _kind in ("plunge", "splash"):
    for _decl in PIP_NAMES + ("doubles",):
        CASES += _batch(f"{_kind}-{_decl}", 3, make_42, _kind, _decl)
    for _opt in ("high", "low", "suit"):
        CASES += _batch(f"{_kind}-follow-me-{_opt}", 3, make_42, _kind, "follow-me", _opt)
for _decl in PIP_NAMES + ("doubles", "follow-me"):
    CASES += _batch(f"moon3-{_decl}", 10, make_moon, 3, _decl)
    CASES += _batch(f"moon4-{_decl}", 7, make_moon, 4, _decl)


def _late_check_cases() -> list:
    params = []
    for name in ("texas42.jsonl", "moon.jsonl"):      # positions; views.jsonl holds views
        path = Path(__file__).parent / "cases" / name
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            if case["position"]["plays"]:        # full deals are too big for plain minimax
                params.append(pytest.param(case, id=case["id"]))
    return params


@pytest.mark.parametrize("case", _late_check_cases())
def test_reference_reproduces_the_late_check_positions(case):
    """The reference itself is held to the shared check values."""
    got, expect = R.solve(case["position"]), case["expect"]
    assert (got.value, got.makes, got.to_move) == \
        (expect["value"], expect["makes"], expect["to_move"])
    assert got.moves == expect.get("moves", got.moves)


@lru_cache(maxsize=None)
def _reference(text: str) -> R.Answer:
    return R.solve(json.loads(text))


def reference(position: dict) -> R.Answer:
    return _reference(json.dumps(position, sort_keys=True))


def test_batches_are_large_and_late():
    assert len(CASES) >= 600
    positions = [Position(c.values[0]) for c in CASES]
    assert {p.tricks_left for p in positions} == {2, 3, 4}
    assert sum(1 for p in positions if p.trick) > len(positions) // 3


@pytest.mark.parametrize("position", CASES)
def test_solve_matches_reference(position):
    where = json.dumps(position)
    expected = reference(position)
    got = solve(position)
    assert (got.value, got.makes, got.to_move) == \
        (expected.value, expected.makes, expected.to_move), where
    assert got.moves == expected.moves, where
    # Best first, from the point of view of the seat to move.
    values = list(got.moves.values())
    assert values == sorted(values, reverse=expected.maximising), where
    # The line is legal, ends the hand, and scores the value.
    game, state = R.start(dict(position, plays=position["plays"] + got.line))
    assert state.over() and state.points == expected.value, where


@pytest.mark.parametrize("position", CASES[::3])
def test_best_only_and_make_or_set_match_reference(position):
    where = json.dumps(position)
    expected = reference(position)
    best = {t for t, v in expected.moves.items() if v == expected.value}
    got = solve(position, best_only=True, with_line=False)
    assert got.value == expected.value and got.moves == {t: expected.value for t in best}, where
    game = R.game_of(position)
    if game.moon:
        bids = [4, 5, 6, 7, 21]
    elif game.rules.declaration in ("nello", "sevens") or "kind" in position["contract"]:
        bids = [42, 84]
    else:
        bids = [30, 35, 41, 42, 126]
    for bid in bids:
        assert make_or_set(position, bid).makes == game.makes(expected.value, bid), (bid, where)


@pytest.mark.parametrize("seed", range(12))
def test_one_deal_solver_reused_along_a_line(seed):
    """One transposition table answers every position of a deal, in any order."""
    rng = random.Random(f"reuse-{seed}")
    declaration = rng.choice(PIP_NAMES + ("doubles", "follow-me", "nello", "sevens"))
    doubles = rng.choice(("high", "low", "suit")) if declaration in ("follow-me", "nello") \
        else "high"
    late = make_42(f"reuse-{seed}", "standard", declaration, doubles)
    end = _play_to(rng, late, 0, False)
    first = len(late["plays"])
    positions = [dict(late, plays=end["plays"][:cut]) for cut in range(first, first + 7)]
    dealer = DealSolver(Position(positions[0]))
    for position in positions + positions[::-1]:
        dealer.load(Position(position))
        expected = reference(position)
        got = dealer.solve()
        assert (got.value, got.to_move, got.moves) == \
            (expected.value, expected.to_move, expected.moves), json.dumps(position)


FINISHED = [
    pytest.param(_play_to(random.Random(i), make_42(f"finished-{i}", "standard", decl), 0, False),
                 id=f"finished-{decl}")
    for i, decl in enumerate(("fives", "doubles", "nello", "sevens", "follow-me"))
] + [pytest.param(_play_to(random.Random(9), make_moon("finished-moon", 3, "sixes"), 0, False),
                  id="finished-moon3")]


@pytest.mark.parametrize("position", FINISHED)
def test_finished_hand_has_no_seat_to_move(position):
    expected = reference(position)
    got = solve(position)
    assert (got.value, got.makes, got.to_move, got.moves, got.line) == \
        (expected.value, expected.makes, None, {}, [])
