"""The dealer: exact counts of constrained deals, uniform draws, seeding, bad constraints."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from solver import Position, PositionError
from solver.game import tiles as T
from solver.game.position import MOON3_SET
from solver.hidden.dealer import Dealer, deal, deals

DEALS_42 = math.factorial(28) // math.factorial(7) ** 4


def sixes(tiles) -> int:
    return sum(1 for t in tiles if 6 in T.ENDS[t])


def test_counts_are_exact():
    assert Dealer().count() == DEALS_42
    # N holds exactly k of the 7 sixes: C(7,k) C(21,7-k) ways, the rest dealt freely.
    rest = math.factorial(21) // math.factorial(7) ** 3
    for k in range(8):
        dealer = Dealer(trump="sixes", trumps={"N": k})
        assert dealer.count() == math.comb(7, k) * math.comb(21, 7 - k) * rest
    assert Dealer(game="moon").count() == Dealer(game="moon", players=3).count() == \
        math.factorial(22) // math.factorial(7) ** 3
    fixed = Dealer(fixed={"W": ["6-6", "5-5", "4-4", "3-3", "2-2", "1-1", "0-0"]})
    assert fixed.count() == rest


def test_a_fixed_hand_deals_the_others_as_bid_advice_needs():
    hand = ["6-6", "6-5", "5-5", "4-4", "3-3", "2-1", "0-0"]
    moon = Dealer(game="moon", players=3, fixed={"E": hand})
    assert moon.count() == math.factorial(15) // math.factorial(7) ** 2
    seen = Counter()
    for d in moon.deals(3000, 4):
        assert sorted(d.hands["E"]) == sorted(hand)
        seen[d.widow] += 1
    # The widow is each of the 15 other tiles with probability 1/15.
    assert len(seen) == 15 and max(abs(k - 200) for k in seen.values()) < 4.5 * math.sqrt(200)


def test_deals_are_valid_and_seeded():
    got = [d.to_json() for d in deals(20, 3)]
    assert got == [d.to_json() for d in Dealer().deals(20, 3)]
    assert got[0] == deal(3).to_json()
    for data in got:
        Position({**data, "contract": {"declarer": "N", "trump": "sixes", "bid": 30}})
    moon = Dealer(game="moon", players=3).deal(1)
    tiles = [t for hand in moon.hand_ids.values() for t in hand] + [moon.widow_id]
    assert sorted(tiles) == sorted(MOON3_SET)
    moon4 = Dealer(game="moon", players=4).deal(1)
    assert moon4.widow is None and len(moon4.hands) == 4


def test_constrained_draws_follow_the_exact_distribution():
    # N has at least 3 sixes: P(k) is proportional to C(7,k) C(21,7-k), k = 3..7.
    dealer = Dealer(trump="sixes", trumps={"N": (3, 7)}, fixed={"E": ["6-6"]})
    weights = {k: math.comb(6, k) * math.comb(21, 7 - k) for k in range(3, 7)}
    n = 6000
    seen = Counter()
    for d in dealer.deals(n, 12):
        assert "6-6" in d.hands["E"]
        seen[sixes(d.hand_ids[0])] += 1
    total = sum(weights.values())
    for k, w in weights.items():
        p = w / total
        assert abs(seen[k] - n * p) < 4.5 * math.sqrt(n * p * (1 - p)) + 1, k
    assert dealer.count() == total * math.factorial(20) // (
        math.factorial(6) * math.factorial(7) ** 2)


def test_doubles_bounds_for_plunge_hands():
    dealer = Dealer(doubles={"S": (4, 7)})
    for d in dealer.deals(200, 5):
        assert sum(1 for t in d.hand_ids[2] if T.is_double(t)) >= 4
        Position({**d.to_json(), "contract": {"declarer": "S", "trump": "fives",
                                              "kind": "plunge"}})


@pytest.mark.parametrize("kwargs, field, code", [
    ({"game": "chess"}, "game", "UNKNOWN_GAME"),
    ({"players": 3}, "players", "INVALID_VALUE"),
    ({"fixed": {"X": ["6-6"]}}, "fixed.X", "UNKNOWN_SEAT"),
    ({"fixed": {"N": ["6-6"], "S": ["6-6"]}}, "fixed.S[0]", "DUPLICATE_TILE"),
    ({"fixed": {"N": ["6-6"] * 8}}, "fixed.N", "HAND_SIZE"),
    ({"game": "moon", "players": 3, "fixed": {"N": ["6-0"]}}, "fixed.N[0]", "NOT_IN_TILE_SET"),
    ({"trumps": {"N": 3}}, "trump", "MISSING_FIELD"),
    ({"trump": "follow-me", "trumps": {"N": 3}}, "trump", "INVALID_VALUE"),
    ({"trump": "sixes", "trumps": {"N": (5, 2)}}, "trumps.N", "INVALID_VALUE"),
    ({"trump": "sixes", "trumps": {"N": 5, "S": 5}}, "trumps", "NO_DEAL"),
    ({"doubles": {"N": "two"}}, "doubles.N", "INVALID_TYPE"),
    ({"fixed": ["6-6"]}, "fixed", "INVALID_TYPE"),
    ({"fixed": {"N": "6-6"}}, "fixed.N", "INVALID_TYPE"),
])
def test_bad_constraints_are_refused(kwargs, field, code):
    with pytest.raises(PositionError) as info:
        Dealer(**kwargs)
    assert (info.value.field, info.value.code) == (field, code)


def test_deal_speaks_as_its_json_and_keeps_the_numbers():
    """`Deal.hands` and `Deal.widow` are the JSON's seat letters and tile names; the
    ``_ids`` forms are the same deal as seat indices and tile numbers."""
    d = Dealer(game="moon", players=3).deal(seed=5)
    assert d.hands == d.to_json()["hands"] and d.widow == d.to_json()["widow"]
    assert list(d.hands) == ["N", "E", "S"]
    assert d.hands == {"NESW"[s]: [T.NAMES[t] for t in ids] for s, ids in d.hand_ids.items()}
    assert d.widow == T.NAMES[d.widow_id]
    assert all(isinstance(t, str) for hand in d.hands.values() for t in hand)
    four = Dealer().deal(seed=5)
    assert four.widow is None and four.widow_id is None and "widow" not in four.to_json()
    assert sorted(t for hand in four.hands.values() for t in hand) == sorted(T.NAMES)
    # The position of a deal holds the same hands.
    p = four.position({"declarer": "N", "trump": "sixes", "bid": 30})
    assert {s: p.hand(s) for s in "NESW"} == four.hands
