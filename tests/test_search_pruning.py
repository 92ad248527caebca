"""What the search's pruning could get wrong, against the plain minimax of `reference`.

* the sure-trick bounds: never cross the true value, and positions where a
  bound is exactly the value are still solved right; nello's bounds (a
  declarer who can duck every trick left, a trick forced on the declarer);
* tile equivalence: two tiles of a seat stop being one move while another
  hand still holds a tile between them;
* canonical table keys: an engine that knows the whole deal (so swaps
  tiles for ones already played) answers late positions like the reference;
* nello, sevens and Moon, whose move ordering differs from the point games.

Positions come from the seeded generators of test_reference (2 to 4 tricks
left). The whole module takes about 15 s on the 2-core machine.
"""

from __future__ import annotations

import json
import random

import pytest

import reference as R
from solver import DealSolver, Position, solve
from solver.game.tiles import name_of
from test_reference import _play_to, make_42, make_moon, reference

DECLARATIONS = R.PIP_NAMES + ("doubles", "follow-me", "sevens")


def at_boundary(position: dict) -> dict:
    """The position cut back to the start of its trick."""
    seats = len(Position(position).active_seats)
    plays = position["plays"]
    return dict(position, plays=plays[:len(plays) - len(plays) % seats])


def _boundary_batch() -> list[dict]:
    out = [at_boundary(make_42(f"tight-{i}", "standard", DECLARATIONS[i % len(DECLARATIONS)]))
           for i in range(120)]
    out += [at_boundary(make_moon(f"tight-moon-{i}", 3 + i % 2, DECLARATIONS[i % 9]))
            for i in range(30)]
    out += [at_boundary(make_42(f"tight-nello-{i}", "standard", "nello", "high"))
            for i in range(10)]
    return out


BOUNDARY = _boundary_batch()


def sure_bounds(position: dict) -> tuple[int, int]:
    return DealSolver(Position(position)).engine.sure_bounds()


def test_sure_bounds_never_cross_the_value_and_exact_ones_solve_right():
    tight = 0
    for position in BOUNDARY:
        p = Position(position)
        lower, upper = sure_bounds(position)
        expected = reference(position)
        assert lower <= expected.value <= upper, json.dumps(position)
        if (lower == expected.value and lower > p.points) or \
                (upper == expected.value and upper < p.points + p.available):
            tight += 1
            got = solve(position)
            assert (got.value, got.moves) == (expected.value, expected.moves), \
                json.dumps(position)
    # The batch must exercise the bound where it is exactly tight.
    assert tight >= 10


NELLO = [at_boundary(make_42(f"duck-{i}", "standard", "nello", ("high", "low", "suit")[i % 3]))
         for i in range(180)]


def test_nello_bounds_never_cross_the_value_and_tight_ones_solve_right():
    """Nello's own bounds at a trick boundary, the others on lead: the declarer
    takes no more tricks when every tile it may play is weaker than every lead the
    others could make in its suit (upper bound: the tricks taken); it takes the next
    trick when the leader has a lead under which it cannot play (lower bound). Neither
    cuts a position it should not."""
    ducks = forced = 0
    for position in NELLO:
        p = Position(position)
        lower, upper = sure_bounds(position)
        expected = reference(position)
        assert lower <= expected.value <= upper, json.dumps(position)
        if upper == p.points < p.points + p.available or lower > p.points:
            ducks += upper == p.points
            forced += lower > p.points
            got = solve(position)
            assert (got.value, got.moves) == (expected.value, expected.moves), \
                json.dumps(position)
    # Both bounds fire in the batch, and it also holds positions with a trick still
    # forced on the declarer (value above the tricks taken) left to the search.
    assert ducks >= 10 and forced >= 10
    assert sum(reference(q).value > Position(q).points for q in NELLO) >= 10


#: Seeds of make_42 positions in which the seat to move holds two tiles of
#: the same count and lead suit with a tile of another hand between them,
#: and the two moves have different values.
APART = [(8, "follow-me"), (78, "ones"), (85, "follow-me"), (110, "blanks"), (124, "treys"),
         (162, "follow-me"), (178, "deuces"), (184, "follow-me"), (210, "ones"), (221, "ones"),
         (244, "deuces"), (247, "fives"), (258, "fives")]


@pytest.mark.parametrize("seed,declaration", APART)
def test_tiles_with_a_held_tile_between_them_are_two_moves(seed, declaration):
    position = make_42(f"apart-{seed}", "standard", declaration, "high")
    p = Position(position)
    rules = p.rules
    seat = "NESW".index(p.to_move)
    others = 0
    for o in range(4):
        if o != seat:
            others |= p.remaining[o]
    ctx = rules.lead_suit[p.trick[0][1]] if p.trick else None
    expected = reference(position)
    apart = []
    legal = p.legal_ids()
    for a in legal:
        for b in legal:
            if a < b and rules.count[a] == rules.count[b] and \
                    rules.lead_suit[a] == rules.lead_suit[b]:
                c = rules.lead_suit[a] if ctx is None else ctx
                low, high = sorted((rules.power[c][a], rules.power[c][b]))
                if any(others >> t & 1 and low < rules.power[c][t] < high for t in range(28)):
                    apart.append((a, b))
    assert any(expected.moves[name_of(a)] != expected.moves[name_of(b)] for a, b in apart)
    assert solve(position).moves == expected.moves, json.dumps(position)


def _whole_deal_cases() -> list:
    cases = []
    kinds = [("standard", d, "high") for d in DECLARATIONS] + [
        ("standard", "nello", "low"), ("standard", "follow-me", "suit"),
        ("plunge", "fours", "high"), ("splash", "doubles", "high")]
    for i, (kind, decl, doubles) in enumerate(kinds):
        for j in range(3):
            cases.append(pytest.param(("42", kind, decl, doubles, f"deal-{i}-{j}"),
                                      id=f"{kind}-{decl}-{doubles}-{j}"))
    for players in (3, 4):
        for decl in ("sixes", "doubles", "follow-me", "blanks"):
            cases.append(pytest.param(("moon", players, decl, None, f"moon-{players}-{decl}"),
                                      id=f"moon{players}-{decl}"))
    return cases


@pytest.mark.parametrize("case", _whole_deal_cases())
def test_engine_that_knows_the_whole_deal_matches_reference(case):
    """Canonical keys swap held tiles for played ones only when the engine
    knows their owner: load the opening position first, then late ones."""
    game, a, decl, doubles, seed = case
    late = make_42(seed, a, decl, doubles) if game == "42" else make_moon(seed, a, decl)
    opening = dict(late, plays=[])
    end = _play_to(random.Random(seed), late, 0, False)
    dealer = DealSolver(Position(opening))
    dealer.value()       # fill the table from the opening lead
    first = len(late["plays"])
    for cut in range(first, min(first + 6, len(end["plays"]))):
        position = dict(late, plays=end["plays"][:cut])
        dealer.load(Position(position))
        expected = reference(position)
        got = dealer.solve()
        assert (got.value, got.moves) == (expected.value, expected.moves), json.dumps(position)
