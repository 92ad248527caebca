"""One engine across many deals of the same contract (`load_deal`, `Engine.clear`), and
one table across the engines of a split search (`Engine.share_table`)."""

from __future__ import annotations

import random
import sys

import pytest

from solver import DealSolver, Position, make_or_set
from solver.game.tiles import NAMES

SEATS = ("N", "E", "S", "W")


def deal(seed: int, trump: str = "fives", declarer: str = "E") -> Position:
    rng = random.Random(seed)
    pool = list(NAMES)
    rng.shuffle(pool)
    hands = {s: pool[7 * i:7 * i + 7] for i, s in enumerate(SEATS)}
    bid = 42 if trump in ("nello", "sevens") else 30
    return Position({"hands": hands, "plays": [],
                     "contract": {"declarer": declarer, "trump": trump, "bid": bid}})


@pytest.mark.parametrize("trump", ["fives", "nello", "follow-me"])
def test_reused_engine_answers_like_fresh_solvers(trump):
    deals = [deal(seed, trump) for seed in range(12)]
    reused = DealSolver(deals[0])
    for i, p in enumerate(deals):
        if i:
            reused.load_deal(p)
        assert reused.child_values() == DealSolver(p).child_values()


def test_clear_forgets_everything_the_table_learned():
    p = deal(7)
    fresh = DealSolver(p)
    value = fresh.value()
    cold = fresh.nodes
    fresh.value()
    warm = fresh.nodes - cold
    assert warm < cold   # the table answered most of the second search
    # Past the generation counter's wrap-around (32 generations) too.
    for clears in (1, 40):
        before = fresh.nodes
        for _ in range(clears):
            fresh.engine.clear()
        fresh.load(p)
        assert fresh.value() == value
        assert fresh.nodes - before == cold   # exactly the work of an empty table


def test_load_deal_needs_the_same_contract():
    solver = DealSolver(deal(1, "fives", "E"))
    with pytest.raises(ValueError):
        solver.load_deal(deal(2, "sixes", "E"))
    with pytest.raises(ValueError):
        solver.load_deal(deal(2, "fives", "N"))
    solver.load_deal(deal(2, "fives", "W"))  # same declaring side: E-W
    assert solver.value() == DealSolver(deal(2, "fives", "W")).value()



def layouts_42() -> list[tuple[str, str, str]]:
    """(trump, doubles, declarer) of every contract layout of 42: 36 of them."""
    pips = ["blanks", "ones", "deuces", "treys", "fours", "fives", "sixes", "doubles", "sevens"]
    out = [(trump, "high", declarer) for trump in pips for declarer in "NE"]
    out += [("follow-me", doubles, declarer) for doubles in DOUBLES for declarer in "NE"]
    return out + [("nello", doubles, declarer) for doubles in DOUBLES for declarer in SEATS]


DOUBLES = ("high", "low", "suit")


def test_one_shot_queries_keep_few_engines_with_large_tables():
    solve_module = sys.modules["solver.search.solve"]
    kept = solve_module._kept
    kept.__dict__.clear()  # this thread's kept engines
    rng = random.Random(4)
    late = []
    for seed, (trump, doubles, declarer) in enumerate(layouts_42()):
        data = deal(seed, trump, declarer).to_json()
        data["contract"]["doubles"] = doubles
        opening = Position(data)
        make_or_set(opening)  # from the opening lead: a large table
        p = opening
        while p.tricks_left > 2:
            p = p.with_plays(list(p.plays) + [rng.choice(p.legal_tiles())])
        late.append(p)
    assert len(kept.solvers) == len(kept.solvers.large) == solve_module.LARGE_TABLES_KEPT_PER_THREAD
    for p in late:  # the 4 layouts whose engines went get small ones, kept beside
        assert make_or_set(p).to_json() == DealSolver(p).make_or_set().to_json()
    assert len(kept.solvers) == 36 and len(kept.solvers.large) == 32


def test_a_shared_table_is_the_owners_until_given_back():
    """`Engine.share_table`: a helper of a split search finds what the owner stored,
    follows the owner's clear, and searches alone again after share_table(None)."""
    p = deal(3)
    owner, helper = DealSolver(p).engine, DealSolver(p).engine
    value = owner.exact()
    cold = owner.nodes
    helper.share_table(owner)
    assert helper.exact() == value
    assert helper.nodes < cold / 10  # the owner's entries answered it
    # Then the whole work again (the helper's own history of leads may order a few
    # ties differently): after the owner's clear, a new generation for both, and
    # with a table of the helper's own, empty.
    owner.clear()
    before = helper.nodes
    assert helper.exact() == value
    assert helper.nodes - before > 0.9 * cold
    helper.share_table(None)
    before = helper.nodes
    assert helper.exact() == value
    assert helper.nodes - before > 0.9 * cold
    with pytest.raises(ValueError):
        owner.share_table(owner)
    helper.share_table(owner)
    with pytest.raises(ValueError):
        DealSolver(p).engine.share_table(helper)  # only the owner's table is shared
