"""The compiled pool of a hint's auction inference (`solver.hidden._pool.DealPool`).

* Its draws are uniform over the consistent deals (chi-square against the enumeration
  of small views).
* Its log-weights are the call model's (`AuctionWeigher.log_weight` in Python), for
  views whose auctions hold passes, bids, mark bids and every kind of declaration.
* Its picks follow the exact weights of the enumerated deals (chi-square).
* A seed gives the same deals and picks; a model it does not hold is asked from Python.

Everything is seeded: nothing depends on the machine's speed.
"""

from __future__ import annotations

import math
from collections import Counter

import pytest

from solver.game import tiles as T
from solver.game.view import View
from solver.hidden._pool import DealPool
from solver.hidden.inference import dealt_masks, read_inference, view_weigher

from test_inference import FIVES_VIEW, ONES_VIEW, SIXES_VIEW, FiveSixesCalls

MODEL = read_inference("auction").calls
BIG = 10 ** 9


def _chi_square_bound(df: int) -> float:
    """The chi-square statistic with ``df`` degrees of freedom exceeded with probability
    0.001 (Wilson-Hilferty; within 1% for df >= 20)."""
    z = 3.0902
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def _chi_square(observed: Counter, expected: dict) -> float:
    assert set(observed) <= set(expected)
    return sum((observed[k] - e) ** 2 / e for k, e in expected.items())


def _key(places) -> tuple:
    return tuple(tuple(sorted(p)) for p in places)


def _held(view: View, places) -> list[int]:
    """Each seat's tiles still held in the deal with these places."""
    held = [0, 0, 0, 0]
    held[view.seat] = T.mask_of(view.remaining)
    for p, seat in enumerate(view.place_seats):
        if seat is not None and seat in view.active_seats:
            held[seat] = T.mask_of(places[p])
    return held


def _dealt(view: View, places) -> tuple[int, ...]:
    """Each seat's tiles as dealt in the deal with these places."""
    return dealt_masks(_held(view, places), view.played_by)


def _pool(view: View, seed: int, model=MODEL) -> DealPool:
    return DealPool(view, view_weigher(view, model), seed)


def _view(declarer: str, trump: str, bid: int, calls: list) -> dict:
    """N's view at the opening lead (21 hidden tiles: hands of every kind are drawn)."""
    seats = "ESWN"
    return {"seat": "N", "hands": {"N": ["5-4", "5-2", "4-3", "3-1", "2-2", "1-0", "0-0"]},
            "plays": [], "contract": {"declarer": declarer, "trump": trump, "bid": bid},
            "auction": [{"seat": s, "bid": b} for s, b in zip(seats, calls)]}


@pytest.mark.parametrize("view_json", [FIVES_VIEW, ONES_VIEW], ids=["fives", "ones"])
def test_draws_are_uniform_over_the_consistent_deals(view_json):
    view = View(view_json)
    deals = {_key(places) for places in view.completions.enumerate()}
    assert len(deals) == view.completions.count() >= 40
    pool = _pool(view, 5)
    draws = 200 * len(deals)
    assert pool.draw(BIG, BIG, draws) == draws == pool.drawn
    seen = Counter(_key(places) for places, _ in pool.contents())
    assert set(seen) == deals
    chi2 = _chi_square(seen, {d: draws / len(deals) for d in deals})
    assert chi2 < _chi_square_bound(len(deals) - 1)


@pytest.mark.parametrize("view_json", [
    FIVES_VIEW, ONES_VIEW, SIXES_VIEW,
    _view("W", "sevens", 42, [30, 31, 42, "pass"]),
    _view("W", "nello", 84, ["pass", 30, 84, "pass"]),
    _view("E", "nello", 42, [42, "pass", "pass", "pass"]),     # below the default rules
    _view("S", "doubles", 35, [30, "pass", "pass", 35]),
    _view("E", "follow-me", 126, [126, "pass", "pass", "pass"]),
    _view("S", "blanks", 41, ["pass", 41, "pass", "pass"]),
], ids=["fives", "ones", "sixes", "sevens", "nello", "nello-42", "doubles", "follow-me",
        "blanks"])
def test_log_weights_are_the_call_models(view_json):
    view = View(view_json)
    pool = _pool(view, 3)
    assert pool.draw(BIG, BIG, 2000) == 2000
    weigher = view_weigher(view, MODEL)   # a fresh one: every weight from the model
    for places, lw in pool.contents():
        assert lw == weigher.log_weight(_dealt(view, places))
    assert len({lw for _, lw in pool.contents()}) > 20      # the weights differ


def test_a_model_of_ones_own_is_asked_from_python():
    view = View(SIXES_VIEW)
    pool = _pool(view, 2, FiveSixesCalls())
    assert pool.draw(BIG, BIG, 1000) == 1000
    weigher = view_weigher(view, FiveSixesCalls())
    weights = [lw for _, lw in pool.contents()]
    assert weights == [weigher.log_weight(_dealt(view, places))
                       for places, _ in pool.contents()]
    assert max(weights) == 0.0 and min(weights) == pytest.approx(math.log(1e-9))


@pytest.mark.parametrize("view_json", [FIVES_VIEW, ONES_VIEW], ids=["fives", "ones"])
def test_picks_follow_the_exact_weights(view_json):
    view = View(view_json)
    weigher = view_weigher(view, MODEL)
    exact = {}
    for places in view.completions.enumerate():
        exact[_key(places)] = math.exp(weigher.log_weight(_dealt(view, places)))
    assert max(exact.values()) > 3 * min(exact.values())
    pool = _pool(view, 8)
    picked: Counter = Counter()
    n, rounds = 30, 300
    for _ in range(rounds):
        pool.draw(n, 1000, 3000)    # enough, or 3,000 draws as a hint's budget stops it
        for places, times in pool.pick(n):
            picked[_key(places)] += times
        assert pool.drawn == 0
    total = math.fsum(exact.values())
    expected = {d: n * rounds * w / total for d, w in exact.items()}
    assert sum(picked.values()) == n * rounds
    assert _chi_square(picked, expected) < _chi_square_bound(len(exact) - 1)


def test_a_seed_gives_the_same_deals_and_picks():
    view = View(FIVES_VIEW)

    def run(seed):
        pool = _pool(view, seed)
        pool.draw(20, 200, 5000)
        contents = pool.contents()
        return contents, pool.effective, pool.pick(20)

    first = run(11)
    assert run(11) == first
    assert run(12)[0] != first[0]
    contents, effective, picks = first
    assert len(contents) >= 200 and effective >= 20
    assert sum(times for _, times in picks) == 20


#: E opened 35 in fives and the others passed: a pool at the opening lead whose weights
#: range widely (the hands that open 35 in fives are few among those drawn).
FIVES_35_VIEW = _view("E", "fives", 35, [35, "pass", "pass", "pass"])


@pytest.mark.parametrize("seed", range(4))
def test_a_pool_that_is_enough_gives_every_pick_its_own_draw(seed):
    """Drawn until `enough` (not stopped by the budget), the pool's weights sum to the
    picks asked for times its largest or more, so that systematic picks take no draw
    twice: the 30 picks are 30 draws, worth 30. The pool's effective number of deals
    reached 30 hundreds of draws earlier, where the largest weight's share of 30 picks
    was over 2: stopped there, a draw would have been picked two or three times (searched
    once, worth less)."""
    pool = _pool(View(FIVES_35_VIEW), seed)
    n = 30
    drawn = pool.draw(n, 1, BIG)
    weights = [math.exp(lw) for _, lw in pool.contents()]     # each at most 1
    assert drawn < BIG and math.fsum(weights) >= n * max(weights)
    assert [times for _, times in pool.pick(n)] == [1] * n
    total = squares = top = 0.0
    for w in weights:
        total, squares, top = total + w, squares + w * w, max(top, w)
        if total * total / squares >= n:
            break
    assert n * top / total > 2


def test_the_python_pool_is_enough_at_the_same_draw():
    """`Resampler.enough` (bid advice's pool, in Python) is `DealPool`'s rule: fed the
    compiled pool's deals in order, it is enough at the same draw."""
    from solver.hidden.inference import Resampler
    view = View(FIVES_35_VIEW)
    weigher = view_weigher(view, MODEL)
    n, min_pool = 30, 50
    pool = _pool(view, 3)
    drawn = pool.draw(n, min_pool, BIG)
    python = Resampler(weigher, view.played_by, 3)
    enough_at = None
    for i, (places, _) in enumerate(pool.contents()):
        python.add(places, _held(view, places))
        if enough_at is None and python.enough(n, min_pool):
            enough_at = i + 1
    assert enough_at == drawn
