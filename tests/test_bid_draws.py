"""Bid advice's deals, drawn in C (`solver.hidden._pool.UniformDeals` through
`bidding._draws`): every deal of the other tiles equally likely.

* Who holds a tile: a chi-square over every (place, tile), and each frequency within
  4.5 standard errors of the exact marginal, which `Completions.marginals` computes
  (42: 1/3 in each other hand; three-player Moon: 7/15 in each other hand, 1/15 the
  widow).
* Whole deals: a chi-square over every deal of small tables laid out as bid advice's
  (the asking seat's place empty; three-player Moon's widow a place no seat holds),
  against their enumeration, for the compiled draws and for `Completions.sample`.
* Against the Python drawer (`Dealer`, which `t42 deal --hand` deals with): how a
  marked set of tiles (sixes, doubles) splits over the other places, a statistic of the
  whole deal, follows the exact hypergeometric law in both, and the two samples agree
  (two-sample chi-square).
* With the auction: the pool's log-weights are the call model's for the hands it
  deals, its picks come back as deals, and the Python pool (`Resampler`) is still
  taken.

Everything is seeded: nothing depends on the machine's speed.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from itertools import product

import pytest

from solver.game import tiles as T
from solver.game.bid_request import read_bid_request
from solver.game.completions import Completions
from solver.hidden._pool import DealPool, UniformDeals
from solver.hidden.bidding import (_dealer, _deal_batch, _draws, _HandView, advise,
                                   deal_others)
from solver.hidden.inference import (AuctionWeigher, Resampler, calls_seen, min_pool,
                                     read_inference)

from test_inference_pool import _chi_square, _chi_square_bound

FIVE_DOUBLES = ["6-6", "6-4", "5-5", "4-4", "3-3", "2-0", "1-1"]
WEAK = ["6-2", "5-3", "4-1", "3-0", "2-1", "6-0", "5-1"]
MOON_HAND = ["6-6", "6-4", "5-5", "5-3", "4-4", "3-1", "2-1"]
BIG = 10 ** 9

SETUPS = {"42-N": (FIVE_DOUBLES, "N", "42", 4), "42-W": (WEAK, "W", "42", 4),
          "moon3-E": (MOON_HAND, "E", "moon", 3)}


def _setup(name: str):
    hand, seat, game, players = SETUPS[name]
    return read_bid_request(hand, seat, game, players, None, "high", 0.75, None)


def _places_of(setup, deal) -> list[int]:
    """A deal of `deal_others` by place of `_dealer`'s table: each seat's hand as dealt
    (the asking seat's empty), then three-player Moon's widow."""
    hands, widow = deal
    out = [0 if s == setup.seat else hands[s] for s in setup.seats()]
    return out + [1 << widow] if setup.moon3 else out


def _mask_of(tiles) -> int:
    return sum(1 << t for t in tiles)


# ------------------------------------------------------------------ who holds a tile


@pytest.mark.parametrize("name", list(SETUPS))
def test_each_unseen_tile_is_equally_likely_in_each_other_place(name):
    setup = _setup(name)
    exact = _dealer(setup).completions.marginals()
    unseen = setup.unseen
    sizes = [0 if s == setup.seat else 7 for s in setup.seats()] + ([1] if setup.moon3 else [])
    assert sorted(exact) == list(unseen)
    for t in unseen:     # 1/3 a hand in 42; 7/15 a hand and 1/15 the widow in Moon
        assert exact[t] == pytest.approx([k / len(unseen) for k in sizes], abs=1e-12)
    n = 30_000
    deals = _deal_batch(_draws(setup, 2024 + list(SETUPS).index(name)), setup, n, None)[0]
    assert len(deals) == n
    counts: Counter = Counter()
    own = _mask_of(setup.hand)
    every = _mask_of(setup.tile_set())
    for deal in deals:
        hands, widow = deal
        assert hands[setup.seat] == own
        assert (widow is not None) == setup.moon3
        places = _places_of(setup, deal)
        assert sum(bin(m).count("1") for m in places) == len(unseen)
        union = own
        for m in places:
            assert union & m == 0
            union |= m
        assert union == every
        for p, m in enumerate(places):
            for t in T.tiles_of(m):
                counts[p, t] += 1
    expected = {(p, t): n * exact[t][p] for t in unseen for p in range(len(sizes))
                if exact[t][p] > 0}
    assert set(counts) <= set(expected)
    # Each tile's row sums to n: (places - 1) degrees of freedom a tile.
    df = len(unseen) * (len(expected) // len(unseen) - 1)
    assert _chi_square(counts, expected) < _chi_square_bound(df)
    for (p, t), e in expected.items():
        q = e / n
        assert abs(counts[p, t] - e) < 4.5 * math.sqrt(n * q * (1 - q)), (p, t)


# ------------------------------------------------------------------- whole deals


def _small_view(seat: int, moon3: bool) -> _HandView:
    """A table laid out as bid advice's, small enough to enumerate: the asking seat holds
    its tiles outside the places; 6 tiles into three hands of 2 (42: 90 deals), or 5 into
    two hands of 2 and a widow of 1 (Moon: 30 deals)."""
    if moon3:
        capacity = [0 if s == seat else 2 for s in range(3)] + [1]
        place_seats: tuple = (0, 1, 2, None)
        seats = (0, 1, 2)
    else:
        capacity = [0 if s == seat else 2 for s in range(4)]
        place_seats = seats = (0, 1, 2, 3)
    tiles = list(range(sum(capacity)))
    own = tuple(range(20, 27))
    everywhere = (1 << len(capacity)) - 1
    return _HandView(Completions({t: everywhere for t in tiles}, capacity), seat, own,
                     place_seats, seats)


@pytest.mark.parametrize("seat,moon3", [(0, False), (3, False), (1, True), (2, True)])
def test_whole_deals_are_uniform(seat, moon3):
    view = _small_view(seat, moon3)
    own = _mask_of(view.remaining)

    def key(places) -> tuple:
        hands = [0, 0, 0, 0]
        hands[seat] = own
        loose = 0
        for p, s in enumerate(view.place_seats):
            if s is None:
                loose |= _mask_of(places[p])
            else:
                hands[s] |= _mask_of(places[p])
        return tuple(hands), loose

    deals = {key(places) for places in view.completions.enumerate()}
    assert len(deals) == view.completions.count() == (30 if moon3 else 90)
    draws = 300 * len(deals)
    compiled = Counter((tuple(h), loose) for h, loose in UniformDeals(view, 5).deals(draws))
    rng = random.Random(5)
    python = Counter(key(view.completions.sample(rng)) for _ in range(draws))
    expected = {d: draws / len(deals) for d in deals}
    for seen in (compiled, python):
        assert set(seen) == deals
        assert _chi_square(seen, expected) < _chi_square_bound(len(deals) - 1)


# ------------------------------------------------------ against the Python drawer


def _split_law(sizes: list[int], marked: int) -> dict[tuple[int, ...], float]:
    """P(the places of these sizes get k_1, k_2, ... of ``marked`` marked tiles) when every
    deal of the tiles is equally likely (multivariate hypergeometric)."""
    total = math.comb(sum(sizes), marked)
    return {ks: math.prod(math.comb(s, k) for s, k in zip(sizes, ks)) / total
            for ks in product(*(range(min(s, marked) + 1) for s in sizes)) if sum(ks) == marked}


@pytest.mark.parametrize("name,marked", [("42-N", "sixes"), ("42-W", "doubles"),
                                         ("moon3-E", "doubles")])
def test_the_compiled_draws_deal_as_the_python_dealer(name, marked):
    setup = _setup(name)
    mark = _mask_of(t for t in setup.unseen if (6 in T.ENDS[t] if marked == "sixes"
                                                else T.ENDS[t][0] == T.ENDS[t][1]))
    sizes = [7] * len(setup.other_seats) + ([1] if setup.moon3 else [])
    law = _split_law(sizes, bin(mark).count("1"))
    assert math.fsum(law.values()) == pytest.approx(1.0)

    def split(deal) -> tuple[int, ...]:
        places = _places_of(setup, deal)
        return tuple(bin(places[p] & mark).count("1") for p in range(len(places))
                     if p != setup.seat)

    n = 20_000
    compiled = Counter(split(d) for d in _deal_batch(_draws(setup, 11), setup, n, None)[0])
    dealer, rng = _dealer(setup), random.Random(11)
    python: Counter = Counter()
    for _ in range(n):
        deal = dealer.deal(rng)
        hands = [_mask_of(deal.hand_ids.get(s, ())) for s in range(4)]
        python[split((hands, deal.widow_id))] += 1
    expected = {ks: n * p for ks, p in law.items()}
    for seen in (compiled, python):
        assert _chi_square(seen, expected) < _chi_square_bound(len(law) - 1)
    # The two samples against each other (equal sizes): sum (a - b)^2 / (a + b).
    cells = [k for k in law if compiled[k] + python[k]]
    two = sum((compiled[k] - python[k]) ** 2 / (compiled[k] + python[k]) for k in cells)
    assert two < _chi_square_bound(len(cells) - 1)


def test_deal_others_draws_in_c_from_the_generator():
    """One deal a call, seeded from the generator: the same generator state, the same
    deal; the generator moves on."""
    setup = _setup("moon3-E")
    a, b = random.Random(3), random.Random(3)
    first = deal_others(a, setup)
    assert first == deal_others(b, setup) and deal_others(a, setup) != first
    assert _places_of(setup, first)[3] == 1 << first[1]


# ----------------------------------------------------------------- with the auction


#: N bid 30, E passed, S bid 31: what W saw before its call.
AUCTION = [30, "pass", 31]


def _weigher(setup) -> AuctionWeigher:
    return AuctionWeigher(read_inference("auction").calls, calls_seen(AUCTION, setup.seat))


def test_the_auction_pool_weighs_the_hands_it_deals():
    setup = read_bid_request(WEAK, "W", "42", 4, AUCTION, "high", 0.75, None)
    pool = _draws(setup, 4, _weigher(setup))
    assert isinstance(pool, DealPool)
    assert pool.draw(BIG, BIG, 2000) == 2000
    weigher = _weigher(setup)      # a fresh one: every weight from the model, in Python
    own = _mask_of(setup.hand)
    for places, lw in pool.contents():
        hands = [_mask_of(places[s]) for s in range(4)]
        assert hands[setup.seat] == 0
        hands[setup.seat] = own
        assert lw == weigher.log_weight(hands)
    assert len({lw for _, lw in pool.contents()}) > 20

    def picked(dealt: bool):
        pool = _draws(setup, 9, _weigher(setup))
        pool.draw(30, min_pool(30), BIG)
        return pool.pick(30, dealt=dealt)

    for (places, times), ((hands, loose), again) in zip(picked(False), picked(True)):
        assert times == again and loose == 0
        assert hands == [own if s == setup.seat else _mask_of(places[s]) for s in range(4)]


@pytest.mark.parametrize("python_pool", [False, True], ids=["compiled", "python"])
def test_deal_batch_picks_from_either_pool(python_pool):
    """`_deal_batch` with the compiled pool of `_draws`, or with a `Resampler` (the pool
    in Python, weighing the deals drawn in C): ``n`` picks of deals that hold the hand,
    from a pool that is enough for them."""
    setup = read_bid_request(WEAK, "W", "42", 4, AUCTION, "high", 0.75, None)
    if python_pool:
        rng, pool = random.Random(6), Resampler(_weigher(setup), (0, 0, 0, 0), 6)
    else:
        rng = pool = _draws(setup, 6, _weigher(setup))
    deals, times, drawn, worth = _deal_batch(rng, setup, 25, None, pool)
    assert times is not None and sum(times) == 25 and len(deals) == len(times)
    assert drawn >= min_pool(25) and worth >= 25
    own = _mask_of(setup.hand)
    assert all(hands[setup.seat] == own and widow is None for hands, widow in deals)
    assert pool.drawn == 0      # emptied for the next round


def test_advice_with_the_auction_is_the_same_for_a_seed():
    kwargs = dict(auction=AUCTION, deals=12, seed=7, declarations=["sixes"], threads=1,
                  inference="auction", return_deals=True)
    one, two = advise(WEAK, "W", **kwargs), advise(WEAK, "W", **kwargs)
    assert one.dealt == two.dealt and one.inference.drawn == two.inference.drawn
    assert one.inference.drawn >= min_pool(12) and one.deals == 12
