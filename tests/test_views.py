"""Views and their consistent deals: parsing, exact counts and probabilities, draws.

The counts and probabilities are checked three ways: against the shared
cases (an independent reference, tests/cases/views.jsonl), against a brute
force in this file that tries every assignment of the unseen tiles and
asks `Position` whether the plays were legal on it, and, for draws, with
chi-square and per-(tile, place) frequency tests on seeded samples.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter

import pytest

from solver import Position, PositionError
from solver.game import tiles as T
from solver.game.position import MOON3_SET, SEATS, partner
from solver.game.rules import build_rules, parse_declaration
from solver.game.view import View
from solver.hidden.dealer import Dealer
from solver.hidden.deals import (count_deals, enumerate_deals, iter_deals, sample_deals,
                                 sample_hands, sample_remaining, tile_probabilities)
from view_cases import assert_probabilities_match, bad_view_cases, read_cases, view_cases

CASES = view_cases()


# ------------------------------------------------------------ shared cases


def test_case_file_holds_every_category():
    cases = read_cases("views.jsonl")
    assert len(cases) == 136
    assert len({c["category"] for c in cases}) == 21


@pytest.mark.parametrize("case", CASES)
def test_case_count_and_probabilities(case):
    view, expect = View(case["view"]), case["expect"]
    assert count_deals(view) == expect["count"]
    assert (view.to_move, view.side) == (expect["to_move"], expect["side"])
    assert_probabilities_match(tile_probabilities(view), expect["tile_probabilities"])


@pytest.mark.parametrize("case", bad_view_cases("view"))
def test_bad_view_is_refused(case):
    with pytest.raises(PositionError) as info:
        count_deals(case["view"])
    assert info.value.field and info.value.reason and info.value.code.isupper()


@pytest.mark.parametrize("case", bad_view_cases("hint"))
def test_view_that_only_a_hint_refuses(case):
    view = View(case["view"])
    assert count_deals(view) > 0
    with pytest.raises(PositionError) as info:
        view.check_can_hint()
    assert info.value.code in ("NOT_TO_MOVE", "HAND_OVER")


@pytest.mark.parametrize("case", view_cases("hint"))
def test_hint_views_can_be_hinted(case):
    view = View(case["view"])
    view.check_can_hint()
    assert sorted(view.legal_tiles()) == sorted(case["expect"]["moves"])


def test_bad_view_errors_name_the_field():
    cases = {c["id"]: c["view"] for c in read_cases("views_bad.jsonl")}
    expected = {
        "views-bad-2026-nello-partner": ("seat", "NELLO_PARTNER_VIEW"),
        "views-bad-2026-hand-6": ("hands.E", "HAND_SIZE"),
        "views-bad-2026-two-hands": ("hands.N", "UNEXPECTED_HAND"),
        "views-bad-2026-seat-not-hand": ("hands.N", "MISSING_FIELD"),
        "views-bad-2026-play-twice": ("plays[18]", "DUPLICATE_PLAY"),
        "views-bad-2026-sevens-closer-later": ("plays[2]", "NO_CONSISTENT_DEAL"),
        "views-bad-2026-capacity": ("plays", "NO_CONSISTENT_DEAL"),
        "views-bad-2026-moon3-defender-widow": ("widow", "UNEXPECTED_FIELD"),
        "views-bad-2026-plunge-two-doubles": ("contract.kind", "PLUNGE_NEEDS_FOUR_DOUBLES"),
    }
    for case_id, (field, code) in expected.items():
        with pytest.raises(PositionError) as info:
            View(cases[case_id])
        assert (info.value.field, info.value.code) == (field, code), case_id


def test_view_accepts_json_text_and_round_trips():
    case = CASES[0].values[0]
    text = json.dumps(case["view"])
    view = View.from_json(text)
    assert View(view.to_json()).to_json() == view.to_json()
    assert view.seat == 1 and view.players == 4 and len(view.hand) == 7
    assert set(view.unseen).isdisjoint(view.hand_ids) and set(view.unseen).isdisjoint(view.plays)
    assert len(view.unseen) == sum(view.capacity)
    with pytest.raises(PositionError) as info:
        View("{not json")
    assert info.value.code == "INVALID_JSON"


@pytest.mark.parametrize("auction, field", [
    ("N 30", "auction"),
    ([{"seat": "X", "bid": 30}], "auction[0].seat"),
    ([{"seat": "N", "bid": 30}, {"seat": "E", "bid": "double"}], "auction[1].bid"),
])
def test_bad_auction_is_refused(auction, field):
    data = {**CASES[0].values[0]["view"], "auction": auction}
    with pytest.raises(PositionError) as info:
        View(data)
    assert info.value.field == field


def test_moon_players_inferred_from_what_the_view_shows():
    base = {"game": "moon", "seat": "E", "contract": {"declarer": "N", "trump": "sixes", "bid": 4},
            "hands": {"E": ["6-6", "6-5", "5-5", "4-4", "3-3", "2-2", "1-1"]}}
    assert View(base).players == 3
    assert View({**base, "hands": {"E": ["6-6", "6-5", "5-5", "4-4", "3-3", "2-2", "1-0"]}}
                ).players == 4
    assert View({**base, "seat": "W", "hands": {"W": base["hands"]["E"]}}).players == 4
    with pytest.raises(PositionError) as info:
        View({**base, "players": 5})
    assert info.value.field == "players"


# ----------------------------------------------------------- brute force


def _replay_seats(view_json: dict) -> tuple[list[int], list[int]]:
    """(active seats, seat of each play): the order of play, from the rules alone."""
    c = view_json["contract"]
    decl = parse_declaration(c["trump"])
    rules = build_rules(decl, c.get("doubles", "high"))
    declarer = SEATS.index(c["declarer"])
    if view_json.get("players") == 3:
        active = [0, 1, 2]
    elif decl.name == "nello":
        active = [s for s in range(4) if s != partner(declarer)]
    else:
        active = [0, 1, 2, 3]
    leader = partner(declarer) if c.get("kind", "standard") != "standard" else declarer
    seats, trick = [], []
    for name in view_json.get("plays", []):
        tile = T.parse_tile(name, "plays")
        seat = leader if not trick else active[(active.index(trick[-1][0]) + 1) % len(active)]
        seats.append(seat)
        trick.append((seat, tile))
        if len(trick) == len(active):
            leader = trick[rules.winner_index([t for _, t in trick])][0]
            trick = []
    return active, seats


def brute_force(view_json: dict) -> tuple[int, dict[str, dict[str, float]]]:
    """Count consistent deals by trying every assignment of the unseen tiles.

    A deal is consistent when `Position` accepts it: every seat's hand as
    dealt, the plays legal, a plunge declarer's doubles.
    """
    seat = SEATS.index(view_json["seat"])
    c = view_json["contract"]
    three = view_json.get("players") == 3
    active, play_seats = _replay_seats(view_json)
    hand = [T.parse_tile(t, "hand") for t in view_json["hands"][SEATS[seat]]]
    plays = [T.parse_tile(t, "plays") for t in view_json.get("plays", [])]
    known = set(hand) | set(plays)
    widow = view_json.get("widow")
    if widow is not None:
        known |= {T.parse_tile(widow, "widow"), T.parse_tile(view_json["discard"], "discard")}
    tile_set = MOON3_SET if three else set(range(T.N_TILES))
    unseen = sorted(tile_set - known, reverse=True)
    places: list[int | None] = [s for s in active if s != seat]
    room = [7 - play_seats.count(s) for s in places]
    if parse_declaration(c["trump"]).name == "nello" and view_json.get("game") != "moon":
        places.append(partner(SEATS.index(c["declarer"])))
        room.append(7)
    if three and widow is None:
        places.append(None)
        room.append(1)
    names = ["discard" if s is None else SEATS[s] for s in places]
    found = Counter()
    count = 0

    def assign(i: int, held: list[list[int]]) -> None:
        nonlocal count
        if i == len(unseen):
            hands = {SEATS[seat]: [T.NAMES[t] for t in hand]}
            for p, s in enumerate(places):
                if s is not None:
                    own = [t for t, by in zip(plays, play_seats) if by == s]
                    hands[SEATS[s]] = [T.NAMES[t] for t in own + held[p]]
            data = {k: v for k, v in view_json.items() if k not in ("seat", "players", "auction")}
            data["hands"] = hands
            try:
                Position(data)
            except PositionError:
                return
            count += 1
            for p, tiles in enumerate(held):
                for t in tiles:
                    found[(T.NAMES[t], names[p])] += 1
            return
        for p in range(len(places)):
            if len(held[p]) < room[p]:
                held[p].append(unseen[i])
                assign(i + 1, held)
                held[p].pop()

    assign(0, [[] for _ in places])
    probabilities = {T.NAMES[t]: {n: found[(T.NAMES[t], n)] / count if count else 0.0
                                  for n in names} for t in unseen}
    return count, probabilities


def raw_assignments(view: View) -> int:
    """Assignments of the unseen tiles to places of the right sizes (the brute force's work)."""
    n = math.factorial(len(view.unseen))
    for k in view.capacity:
        n //= math.factorial(k)
    return n


#: contract (JSON), dealer constraints for its declarer, game, players.
CATEGORIES = {
    "pip": ({"trump": "fives", "bid": 30}, {}, "42", 4),
    "doubles": ({"trump": "doubles", "bid": 30}, {}, "42", 4),
    "follow-me-high": ({"trump": "follow-me", "bid": 30}, {}, "42", 4),
    "follow-me-low": ({"trump": "follow-me", "bid": 30, "doubles": "low"}, {}, "42", 4),
    "follow-me-suit": ({"trump": "follow-me", "bid": 30, "doubles": "suit"}, {}, "42", 4),
    "nello-high": ({"trump": "nello", "bid": 42}, {}, "42", 4),
    "nello-low": ({"trump": "nello", "bid": 42, "doubles": "low"}, {}, "42", 4),
    "nello-suit": ({"trump": "nello", "bid": 42, "doubles": "suit"}, {}, "42", 4),
    "sevens": ({"trump": "sevens", "bid": 42}, {}, "42", 4),
    "plunge": ({"trump": "fours", "kind": "plunge"}, {"doubles": (4, 7)}, "42", 4),
    "splash": ({"trump": "doubles", "kind": "splash"}, {"doubles": (3, 7)}, "42", 4),
    "moon4": ({"trump": "sixes", "bid": 4}, {}, "moon", 4),
    "moon3": ({"trump": "treys", "bid": 4}, {}, "moon", 3),
    "moon3-widow": ({"trump": "follow-me", "bid": 5}, {}, "moon", 3),
}


def small_view(category: str, seed: int, max_raw: int = 400) -> dict:
    """A random view late enough in a random hand that the brute force is cheap.

    Even seeds view the hand from the declarer's side, odd ones from a defender's.
    """
    contract, constraints, game, players = CATEGORIES[category]
    rng = random.Random(seed)
    declarer = rng.randrange(players)
    bounds = {k: {SEATS[declarer]: v} for k, v in constraints.items()}
    deal = Dealer(game=game, players=players, **bounds).deal(rng)
    contract = {**contract, "declarer": SEATS[declarer]}
    if category == "pip":
        contract["trump"] = ("blanks", "ones", "deuces", "treys", "fours", "fives",
                             "sixes")[seed % 7]
    position = deal.position(contract)
    if category == "moon3":
        position = Position({k: v for k, v in position.to_json().items()
                             if k not in ("widow", "discard")})
    widow = discard = deal.widow_id
    if category == "moon3-widow" and seed % 4 == 2:
        # The declarer keeps the widow and lays away its lowest tile instead.
        data = position.to_json()
        discard = position.hands[declarer][-1]
        data["hands"][SEATS[declarer]] = [T.NAMES[t] for t in position.hands[declarer][:-1]
                                          + (widow,)]
        data["discard"] = T.NAMES[discard]
        position = Position(data)
    active = position.active_seats
    if seed % 2 == 0:
        seat = declarer if declarer in active else partner(declarer)
    else:
        seat = rng.choice([s for s in active if position.scorer[s] == 0])
    plays: list[int] = []
    while True:
        view_json = {"seat": SEATS[seat], "hands": {SEATS[seat]: [T.NAMES[t] for t in
                                                                  position.hands[seat]]},
                     "contract": contract, "plays": [T.NAMES[t] for t in plays]}
        if game == "moon":
            view_json.update(game="moon", players=players)
            if category == "moon3-widow" and seat == declarer:
                view_json.update(widow=T.NAMES[widow], discard=T.NAMES[discard])
        if raw_assignments(View(view_json)) <= max_raw or position.is_complete:
            return view_json
        plays.append(rng.choice(position.legal_ids()))
        position = position.with_plays(plays)


SMALL_VIEWS = [pytest.param(category, seed, id=f"{category}-{seed}")
               for category in CATEGORIES for seed in range(7 if category == "pip" else 4)]


@pytest.mark.parametrize("category, seed", SMALL_VIEWS)
def test_count_and_probabilities_equal_brute_force(category, seed):
    view_json = small_view(category, seed)
    count, probabilities = brute_force(view_json)
    assert count > 0  # the true deal is consistent
    assert count_deals(view_json) == count
    got = tile_probabilities(view_json)
    assert_probabilities_match(got, probabilities, 1e-12)
    deals = enumerate_deals(view_json)
    assert len(deals) == count == len({d.to_json_str() for d in deals})


@pytest.mark.parametrize("case", [c for c in CASES if raw_assignments(View(c.values[0]["view"]))
                                  <= 1500][:12])
def test_case_counts_equal_brute_force(case):
    count, probabilities = brute_force(case["view"])
    assert count == case["expect"]["count"]
    assert_probabilities_match(tile_probabilities(case["view"]), probabilities, 1e-12)


def test_brute_force_views_cover_defenders_and_declarers():
    sides = Counter()
    for category in CATEGORIES:
        for seed in range(4):
            sides[(category, View(small_view(category, seed)).side)] += 1
    assert all(sides[(c, side)] for c in CATEGORIES for side in ("declaring", "defending"))


# ------------------------------------------------------------------- draws


def assert_consistent(view: View, deal: Position) -> None:
    """The deal holds the viewer's hand, and replaying the plays on it is legal."""
    data = deal.to_json()
    replayed = Position(data)  # validates hands, contract and every play
    assert sorted(replayed.hands[view.seat]) == sorted(view.hand_ids)
    assert replayed.plays == view.plays
    assert (replayed.remaining, replayed.to_move) == (deal.remaining, deal.to_move)
    assert (replayed.points, replayed.available) == (deal.points, deal.available)


@pytest.mark.parametrize("case", CASES[::3])
def test_drawn_deals_are_consistent(case):
    view = View(case["view"])
    for deal in sample_deals(view, 15, seed=11):
        assert_consistent(view, deal)


def test_same_seed_same_deals():
    view = View(CASES[5].values[0]["view"])
    first = [d.to_json() for d in sample_deals(view, 30, seed=4)]
    hands = sample_hands(view, 30, seed=4)
    assert [{SEATS[s]: [T.NAMES[t] for t in h[s]] for s in sorted(h)} for h in hands] == \
        [d["hands"] for d in first]
    assert first == [d.to_json() for d in sample_deals(view, 30, seed=4)]
    assert first != [d.to_json() for d in sample_deals(view, 30, seed=5)]
    assert first == [d.to_json() for d in sample_deals(view, 30, seed=random.Random(4))]
    # What each seat still holds, without the positions: the same deals.
    assert sample_remaining(view, 30, seed=4) == [list(d.remaining)
                                                  for d in sample_deals(view, 30, seed=4)]


@pytest.mark.parametrize("case", CASES[::4])
def test_what_the_seats_still_hold_is_the_drawn_deals(case):
    """Nello's partner and three-player Moon's missing seat hold nothing."""
    view = View(case["view"])
    assert sample_remaining(view, 12, seed=2) == [list(d.remaining)
                                                  for d in sample_deals(view, 12, seed=2)]
    with pytest.raises(PositionError):
        sample_remaining(view, -1)


def test_enumeration_is_every_deal_once_and_has_a_limit():
    case = next(c.values[0] for c in CASES if 100 <= c.values[0]["expect"]["count"] <= 400)
    view = View(case["view"])
    deals = enumerate_deals(view)
    assert len({d.to_json_str() for d in deals}) == len(deals) == case["expect"]["count"]
    for deal in deals[::7]:
        assert_consistent(view, deal)
    assert [d.to_json() for d in iter_deals(view)] == [d.to_json() for d in deals]
    with pytest.raises(PositionError) as info:
        enumerate_deals(view, limit=len(deals) - 1)
    assert info.value.code == "TOO_MANY_DEALS"


def chi_square_p_value(statistic: float, dof: int) -> float:
    """Upper tail of the chi-square distribution, Wilson-Hilferty approximation.

    (X/k)^(1/3) is close to normal with mean 1 - 2/(9k) and variance 2/(9k);
    accurate to about 1e-3 in p for k >= 30, which is all these tests need.
    """
    mean, var = 1 - 2 / (9 * dof), 2 / (9 * dof)
    z = ((statistic / dof) ** (1 / 3) - mean) / math.sqrt(var)
    return 0.5 * math.erfc(z / math.sqrt(2))


def test_chi_square_approximation_is_close():
    # Exact values: chi2.sf(x, k) from tables.
    assert chi_square_p_value(124.342, 100) == pytest.approx(0.05, abs=2e-3)
    assert chi_square_p_value(43.773, 30) == pytest.approx(0.05, abs=2e-3)
    assert chi_square_p_value(557.0, 500) == pytest.approx(0.04, abs=0.01)


UNIFORM_CASES = [c for c in CASES if 60 <= c.values[0]["expect"]["count"] <= 400][:4]


@pytest.mark.parametrize("case", UNIFORM_CASES)
def test_draws_are_uniform_over_deals(case):
    view = View(case["view"])
    count = count_deals(view)
    n = 25 * count
    drawn = Counter(d.to_json_str() for d in sample_deals(view, n, seed=2026))
    assert set(drawn) <= {d.to_json_str() for d in enumerate_deals(view)}
    expected = n / count
    statistic = sum((drawn.get(d.to_json_str(), 0) - expected) ** 2 / expected
                    for d in iter_deals(view))
    assert chi_square_p_value(statistic, count - 1) > 1e-3


#: Small random views whose table offers choices (several compositions of a group).
CHOICE_VIEWS = [("follow-me-high", 9), ("nello-high", 9), ("plunge", 5), ("splash", 11),
                ("moon4", 8)]


@pytest.mark.parametrize("category, seed", CHOICE_VIEWS)
def test_draws_are_uniform_where_the_table_branches(category, seed):
    view = View(small_view(category, seed, max_raw=2000))
    assert any(len(moves) > 1 for memo in view.completions._moves for moves in memo.values())
    count = count_deals(view)
    assert 60 <= count <= 400
    n = 25 * count
    drawn = Counter(d.to_json_str() for d in sample_deals(view, n, seed=seed))
    every = [d.to_json_str() for d in iter_deals(view)]
    assert set(drawn) <= set(every)
    statistic = sum((drawn.get(d, 0) - n / count) ** 2 / (n / count) for d in every)
    assert chi_square_p_value(statistic, count - 1) > 1e-3


BIG_CASES = [c for c in CASES if c.values[0]["expect"]["count"] >= 100_000][:4]


@pytest.mark.parametrize("case", BIG_CASES)
def test_draw_frequencies_match_exact_probabilities(case):
    view = View(case["view"])
    n = 4000
    seen = Counter()
    for deal in sample_deals(view, n, seed=7):
        for seat in view.place_seats:
            if seat is not None:
                for t in deal.hands[seat]:
                    seen[(T.NAMES[t], SEATS[seat])] += 1
    worst = 0.0
    for tile, places in tile_probabilities(view).items():
        for place, p in places.items():
            k = seen[(tile, place)]
            if p in (0.0, 1.0):
                assert k == p * n, (tile, place)
            else:
                worst = max(worst, abs(k - n * p) / math.sqrt(n * p * (1 - p)))
    assert worst < 4.5  # about 60 (tile, place) pairs: a 4.5-sigma miss is 1 in 10^4


def test_big_views_exist_for_the_frequency_test():
    assert len(BIG_CASES) == 4 and len(UNIFORM_CASES) == 4


def test_mutated_views_are_refused_cleanly():
    """Seeded garbage in every field: a view or a PositionError, never another exception."""
    rng = random.Random(2)
    junk = [None, 1, -1, 0, 2.5, True, "x", "", [], {}, [1], {"a": 1}, "6-6", ["6-6"], 99, "N",
            "W", "moon", "42", 3, 4, [None], [[]], {"N": []}, "0-0", "6-0", "1-1"]
    keys = ["seat", "hands", "contract", "plays", "game", "players", "widow", "discard",
            "auction", "contract.declarer", "contract.trump", "contract.bid", "contract.kind",
            "contract.doubles", "hand tile", "play tile", "cut plays", "repeat a play"]
    accepted = refused = 0
    for _ in range(2500):
        view = json.loads(json.dumps(rng.choice(CASES).values[0]["view"]))
        for _ in range(rng.randrange(1, 3)):
            key, value = rng.choice(keys), rng.choice(junk)
            plays = view.get("plays") if isinstance(view.get("plays"), list) else None
            if key.startswith("contract.") and isinstance(view.get("contract"), dict):
                view["contract"][key[9:]] = value
            elif key == "hand tile" and isinstance(view.get("hands"), dict) and view["hands"]:
                hand = next(iter(view["hands"].values()))
                if isinstance(hand, list) and hand:
                    hand[rng.randrange(len(hand))] = value
            elif key.endswith("play tile") and plays:
                plays[rng.randrange(len(plays))] = value
            elif key == "cut plays" and plays:
                del plays[rng.randrange(len(plays)):]
            elif key == "repeat a play" and plays:
                plays.append(rng.choice(plays))
            elif "." not in key and " " not in key:
                view[key] = value
        try:
            View(view)
            accepted += 1
        except PositionError as exc:
            assert exc.field and exc.reason and exc.code.isupper()
            refused += 1
    assert accepted > 100 and refused > 1000
