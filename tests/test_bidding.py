"""Bid advice: every figure against separate solves of the same deals, uniform dealing,
the recommendation rule, bad hands, and the CLI as a real process."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter

import pytest

from solver import CancelToken, PositionError, SearchCancelled, solve
from solver.game.bid_request import bids_on_offer, read_bid_request
from solver.game.tiles import NAMES
from solver.hidden.bidding import (BidChance, DeclarationAdvice, _deal_batch, _draws, _Evaluator,
                                   _template, advise, deal_others, partner_trump, recommend,
                                   settled)
from solver.hidden.stats import wilson_interval

POINT_TRUMPS = ["blanks", "ones", "deuces", "treys", "fours", "fives", "sixes", "doubles",
                "follow-me"]
ALL_SIXES = ["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0"]
WEAK = ["6-2", "5-3", "4-1", "3-0", "2-1", "6-0", "5-1"]
FIVE_DOUBLES = ["6-6", "6-4", "5-5", "4-4", "3-3", "2-0", "1-1"]


def t42(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *args], input=stdin,
                          capture_output=True, text=True, timeout=300)


def separate_value(hands: dict, seat: str, trump: str, *, kind: str = "standard",
                   doubles: str = "high", game: str = "42", **extra) -> int:
    contract = {"declarer": seat, "trump": trump, "bid": 4 if game == "moon" else 42,
                "kind": kind, "doubles": doubles if trump in ("follow-me", "nello") else "high"}
    position = {"game": game, "hands": hands, "contract": contract, **extra}
    return solve(position, best_only=True, with_line=False).value


def tiles(names: list[str]) -> list[int]:
    return [NAMES.index(t) for t in names]


def made_counts(values: list[int], bids: list[int]) -> list[int]:
    return [sum(1 for v in values if v >= min(b, 42)) for b in bids]


# ------------------------------------------------- figures equal separate solves


def test_every_figure_equals_separate_solves_of_the_same_deals():
    # 5 deals x 11 declarations, each solved again separately: about 3 s.
    advice = advise(FIVE_DOUBLES, "E", deals=5, seed=11, doubles="low", return_deals=True)
    assert advice.deals == 5 and advice.seed == 11 and len(advice.dealt) == 5
    names = [d.declaration for d in advice.declarations]
    assert sorted(names) == sorted(POINT_TRUMPS + ["nello", "sevens", "plunge", "splash"])
    for deal in advice.dealt:
        assert deal.hands["E"] == sorted(FIVE_DOUBLES, key=NAMES.index)
        assert sorted(t for h in deal.hands.values() for t in h) == sorted(NAMES)
    for row in advice.declarations:
        d = row.declaration
        if d in POINT_TRUMPS:
            values = [separate_value(deal.hands, "E", d, doubles="low") for deal in advice.dealt]
            assert [deal.values[d] for deal in advice.dealt] == values, d
            assert row.mean == pytest.approx(sum(values) / 5)
            assert list(row.distribution) == [values.count(v) for v in range(43)]
        else:
            if d in ("plunge", "splash"):
                # The partner (W) names its trump from its own hand.
                made = [separate_value(deal.hands, "E", partner_trump(tiles(deal.hands["W"]),
                                                                      "low"),
                                       kind=d, doubles="low") == 42 for deal in advice.dealt]
            elif d == "nello":
                made = [separate_value(deal.hands, "E", d, doubles="low") == 0
                        for deal in advice.dealt]
            else:
                made = [separate_value(deal.hands, "E", d) == 42 for deal in advice.dealt]
            assert [deal.values[d] for deal in advice.dealt] == made, d
            assert row.mean is None and row.made == sum(made)
            values = [42 if m else 0 for m in made]
        bids = [c.bid for c in row.bids]
        assert [c.made for c in row.bids] == made_counts(values, bids), d
        assert all(c.p_make == c.made / 5 for c in row.bids)


def test_three_player_moon_discards_by_the_best_mean_per_widow():
    # 8 deals x 8 discards, fours: advise and the separate solves, about 1 s.
    hand = ["6-6", "6-4", "5-5", "4-4", "3-3", "2-2", "1-1"]
    advice = advise(hand, "S", game="moon", players=3, deals=8, seed=4,
                    declarations=["fours"], return_deals=True)
    per_deal = []  # per deal: discard -> the declarer's tricks
    for deal in advice.dealt:
        assert set(deal.hands) == {"N", "E", "S"} and deal.widow not in deal.hands["S"]
        eight = deal.hands["S"] + [deal.widow]
        per_deal.append({discard: separate_value(
            dict(deal.hands, S=[t for t in eight if t != discard]), "S", "fours", game="moon",
            widow=deal.widow, discard=discard) for discard in eight})
    expected = []
    for deal, scores in zip(advice.dealt, per_deal):
        same_widow = [s for d, s in zip(advice.dealt, per_deal) if d.widow == deal.widow]
        order = sorted(scores, key=NAMES.index, reverse=True)  # 6-6, 6-5, ... first
        best = max(order, key=lambda t: (sum(s[t] for s in same_widow), -order.index(t)))
        assert deal.discards["fours"] == best
        expected.append(scores[best])
    row = advice.declaration("fours")
    assert [d.values["fours"] for d in advice.dealt] == expected
    assert row.mean == pytest.approx(sum(expected) / 8)
    assert [c.bid for c in row.bids] == [4, 5, 6, 7, 21]
    assert [c.made for c in row.bids] == [sum(v >= t for v in expected) for t in (4, 5, 6, 7, 7)]


def test_four_player_moon_counts_the_sides_tricks():
    advice = advise(ALL_SIXES, "W", game="moon", players=4, deals=3, seed=2,
                    declarations=["sixes", "blanks"], return_deals=True)
    for deal in advice.dealt:
        assert len(deal.hands) == 4
        for d in ("sixes", "blanks"):
            assert deal.values[d] == separate_value(deal.hands, "W", d, game="moon")
    assert advice.declaration("sixes").distribution == (0,) * 7 + (3,)
    assert advice.recommendation.bid == 21 and advice.recommendation.declaration == "sixes"


# ----------------------------------------------------------------- dealing


def test_dealt_hands_are_uniform_chi_square():
    setup = read_bid_request(FIVE_DOUBLES, "N", "42", 4, None, "high", 0.75, ["sixes"])
    rng = random.Random(2024)
    n = 3000
    counts: Counter = Counter()
    for _ in range(n):
        hands, widow = deal_others(rng, setup)
        assert widow is None and hands[0] == sum(1 << NAMES.index(t) for t in FIVE_DOUBLES)
        assert hands[1] | hands[2] | hands[3] | hands[0] == (1 << 28) - 1
        for seat in (1, 2, 3):
            for tile in range(28):
                if hands[seat] >> tile & 1:
                    counts[seat, tile] += 1
    others = [t for t in range(28) if NAMES[t] not in FIVE_DOUBLES]
    expected = n / 3
    chi2 = sum((counts[s, t] - expected) ** 2 / expected for s in (1, 2, 3) for t in others)
    # 21 tiles x 3 seats, each tile's row sums to n: 42 degrees of freedom; the 0.999
    # quantile of chi-square(42) is 76.1.
    assert chi2 < 76.1
    assert all(counts[s, t] == 0 for s in (1, 2, 3) for t in range(28) if t not in others)


def test_three_player_moon_deals_the_widow_uniformly_too():
    hand = ["6-6", "6-4", "5-5", "4-4", "3-3", "2-2", "1-1"]
    setup = read_bid_request(hand, "E", "moon", 3, None, "high", 0.75, ["sixes"])
    rng = random.Random(7)
    widows = Counter(deal_others(rng, setup)[1] for _ in range(3000))
    assert len(widows) == 15 and 0 not in [NAMES.index(t) for t in hand]
    expected = 3000 / 15
    chi2 = sum((c - expected) ** 2 / expected for c in widows.values())
    assert chi2 < 36.1  # 0.999 quantile of chi-square(14)


def test_a_seed_gives_the_same_deals_on_any_number_of_threads():
    one = advise(WEAK, "N", deals=6, seed=9, declarations=["fives", "nello"], threads=1)
    two = advise(WEAK, "N", deals=6, seed=9, declarations=["fives", "nello"], threads=2)
    assert one.to_json()["declarations"] == two.to_json()["declarations"]
    assert one.nodes == two.nodes


# ---------------------------------------------------------- recommendation


def test_seven_trumps_bid_two_marks_in_their_suit():
    advice = advise(ALL_SIXES, "N", deals=6, seed=1,
                    declarations=["follow-me", "sixes", "fives"])
    rec = advice.recommendation
    # sixes and follow-me both take every trick (mean 42): the table order decides.
    assert (rec.bid, rec.declaration, rec.chance.p_make) == (84, "sixes", 1.0)
    assert [d.declaration for d in advice.declarations][:2] == ["sixes", "follow-me"]
    assert rec.chance.e_marks == 2.0
    # After a bid of 2 marks, 3 marks are on offer.
    after = advise(ALL_SIXES, "N", deals=6, seed=1, declarations=["sixes"],
                   auction=[{"seat": "W", "bid": 30}, {"seat": "N", "bid": "pass"},
                            {"seat": "E", "bid": 84}])
    assert after.highest_bid == 84 and after.recommendation.bid == 126


def test_a_hand_that_makes_nothing_passes():
    advice = advise(WEAK, "N", deals=20, seed=2)
    assert advice.recommendation.is_pass
    assert advice.to_json()["recommendation"] == {"bid": "pass"}
    assert all(c.p_make < 0.75 for d in advice.declarations for c in d.bids)


# ------------------------------------------------------- plunge and splash


def test_the_partner_names_its_longest_suit_or_follow_me_with_doubles():
    # Longest pip suit: four blanks.
    assert partner_trump(tiles(["6-0", "5-0", "4-0", "3-0", "6-5", "4-2", "3-1"])) == "blanks"
    # Three fives and three fours: the fives hold the double, so they are higher.
    assert partner_trump(tiles(["5-5", "5-3", "5-1", "4-3", "4-2", "4-1", "6-0"])) == "fives"
    # Every suit two long; treys (6-3 3-0) and deuces (6-2 2-0) rank highest: the higher pip.
    assert partner_trump(tiles(["6-3", "6-2", "3-0", "5-4", "5-1", "4-1", "2-0"])) == "treys"
    # Two doubles and no suit longer than three: follow-me, doubles high; else the suit.
    hand = tiles(["6-6", "6-5", "6-4", "5-5", "3-2", "1-0", "2-0"])
    assert partner_trump(hand) == "follow-me"
    assert partner_trump(hand, "low") == partner_trump(hand, "suit") == "sixes"
    # A mask reads the same as the tiles.
    assert partner_trump(sum(1 << t for t in hand)) == "follow-me"


def test_the_partners_trump_depends_only_on_the_partners_hand():
    # N plunges; S (the partner) keeps one hand while E and W hold different tiles.
    setup = read_bid_request(FIVE_DOUBLES[:5] + ["5-2", "6-1"], "N", "42", 4, None, "high",
                             0.75, ["plunge"])
    evaluator = _Evaluator(setup, "plunge", _template(setup))
    engines = evaluator.engines(None)
    south = tiles(["6-5", "6-3", "6-0", "5-4", "4-3", "2-1", "1-0"])
    rest = [t for t in range(28) if t not in setup.hand and t not in south]
    deals = []
    for seed in (1, 2, 3):
        random.Random(seed).shuffle(rest)
        deals.append({"N": setup.hand, "E": rest[:7], "S": south, "W": rest[7:]})
    masks = [[sum(1 << t for t in deal[s]) for s in "NESW"] for deal in deals]
    assert masks[0][1] != masks[1][1] != masks[2][1]
    chosen = {evaluator.trumps[evaluator.trump_for(m)] for m in masks}
    assert chosen == {partner_trump(south)} == {"sixes"}
    for deal, mask in zip(deals, masks):
        made, _ = evaluator(mask, None, engines)
        hands = {s: [NAMES[t] for t in deal[s]] for s in "NESW"}
        assert made == (separate_value(hands, "N", "sixes", kind="plunge") == 42)


def test_three_doubles_and_weak_trumps_no_longer_splash():
    # Seeded: with the best trump per deal picked with every hand open this hand makes
    # splash on 165 of these 200 deals (0.825), which would recommend 84 splash; with
    # the partner naming trump from its own hand it makes on 66, and the hand bids 30 in
    # blanks (155 of 200) instead.
    hand = ["5-4", "4-0", "3-0", "2-2", "1-1", "1-0", "0-0"]
    advice = advise(hand, "N", deals=200, seed=13)
    splash = advice.declaration("splash")
    assert splash.made == 66 and splash.chance(84).p_make == 0.33
    assert (advice.recommendation.bid, advice.recommendation.declaration) == (30, "blanks")


def row(name: str, bids: dict[int, int], deals: int = 10, mean_value: int | None = None):
    distribution = None if mean_value is None else tuple(
        deals if v == mean_value else 0 for v in range(43))
    return DeclarationAdvice(name, "standard", "points" if distribution else None, distribution,
                             None if distribution else max(bids.values()),
                             tuple(BidChance(b, m, deals, max(1, b // 42))
                                   for b, m in bids.items()), deals)


def test_recommendation_takes_the_highest_bid_that_reaches_the_threshold():
    rows = [row("sixes", {30: 10, 31: 8, 32: 7}, mean_value=33),
            row("fives", {30: 10, 31: 9, 32: 8, 33: 6}, mean_value=32)]
    rec = recommend(rows, 0.75, None)
    assert (rec.bid, rec.declaration) == (32, "fives")
    assert recommend(rows, 0.85, None).bid == 31          # fives 0.9 at 31
    assert recommend(rows, 0.75, 32).is_pass              # only bids above 32 count
    assert recommend(rows, 1.0, None).declaration == "sixes"  # 30: equal P, higher mean


def test_ties_at_a_bid_go_to_higher_p_then_mean_then_table_order():
    a = row("fours", {35: 8}, mean_value=36)
    b = row("doubles", {35: 9}, mean_value=30)
    assert recommend([a, b], 0.75, None).declaration == "doubles"       # higher P(make)
    c = row("follow-me", {35: 8}, mean_value=37)
    assert recommend([a, c], 0.75, None).declaration == "follow-me"     # then mean
    d = row("blanks", {35: 8}, mean_value=36)
    assert recommend([a, d], 0.75, None).declaration == "blanks"        # then table order
    e = row("sevens", {42: 9})
    f = row("sixes", {42: 9}, mean_value=41)
    assert recommend([e, f], 0.75, None).declaration == "sixes"         # a mean beats none


def test_bids_on_offer_follow_the_auction():
    assert bids_on_offer("sixes", "42", None) == tuple(range(30, 42)) + (42, 84)
    assert bids_on_offer("nello", "42", 84) == (42, 84, 126)
    assert bids_on_offer("plunge", "42", None) == (168,)
    assert bids_on_offer("plunge", "42", 168) == (210,)
    assert bids_on_offer("splash", "42", 30) == (84,)
    assert bids_on_offer("fours", "moon", 5) == (4, 5, 6, 7, 21)


def test_wilson_interval_and_adaptive_settling():
    low, high = wilson_interval(150, 200)
    assert (round(low, 4), round(high, 4)) == (0.6857, 0.8049)
    # Exact at the ends for every n (the formula alone leaves dust such as 5.6e-17 at
    # 0 of 3, which hints reported as p_make_ci's lower bound).
    for n in range(1, 500):
        assert wilson_interval(0, n)[0] == 0.0 and wilson_interval(n, n)[1] == 1.0
    sure = [row("sixes", {30: 200, 31: 200, 42: 200, 84: 200}, deals=200, mean_value=42)]
    assert settled(sure, 0.75, None)
    unsure = [row("sixes", {30: 16, 31: 15}, deals=20, mean_value=31)]
    assert not settled(unsure, 0.75, None)
    advice = advise(ALL_SIXES, "N", deals=200, seed=3, declarations=["sixes"], adaptive=True)
    assert advice.adaptive and advice.deals == 50 and advice.recommendation.bid == 84


def test_deadline_stops_the_advice():
    token = CancelToken()
    token.cancel()
    with pytest.raises(SearchCancelled):
        advise(WEAK, "N", deals=5, seed=1, declarations=["sixes"], token=token)


# ------------------------------------------------------------------ bad hands

BAD = [
    (dict(hand=FIVE_DOUBLES[:6]), "hand", "HAND_SIZE"),
    (dict(hand=FIVE_DOUBLES[:6] + ["6-6"]), "hand[6]", "DUPLICATE_TILE"),
    (dict(hand=FIVE_DOUBLES[:6] + ["7-1"]), "hand[6]", "UNKNOWN_TILE"),
    (dict(hand=FIVE_DOUBLES, game="moon", players=3), "hand[5]", "NOT_IN_TILE_SET"),
    (dict(auction=[30, "pass", 30]), "auction[2]", "BID_NOT_HIGHER"),
    (dict(auction=[{"seat": "E", "bid": 84}, {"seat": "S", "bid": 41}]), "auction[1].bid",
     "BID_NOT_HIGHER"),
    (dict(auction=[29]), "auction[0]", "BID_OUT_OF_RANGE"),
    (dict(seat="X"), "seat", "UNKNOWN_SEAT"),
    (dict(seat="W", game="moon", players=3, hand=ALL_SIXES[:6] + ["5-5"]), "seat",
     "UNKNOWN_SEAT"),
    (dict(threshold=1.5), "threshold", "INVALID_VALUE"),
    (dict(deals=0), "deals", "INVALID_VALUE"),
    (dict(declarations=["nello"], game="moon"), "declarations[0]", "UNKNOWN_DECLARATION"),
    (dict(declarations=["sixes", "clubs"]), "declarations[1]", "UNKNOWN_DECLARATION"),
    (dict(hand=WEAK, declarations=["plunge"]), "declarations[0]", "PLUNGE_NEEDS_FOUR_DOUBLES"),
    (dict(doubles="sideways"), "doubles", "INVALID_OPTION"),
    (dict(game="bridge"), "game", "UNKNOWN_GAME"),
]


@pytest.mark.parametrize("change, field, code", BAD, ids=[b[2] + ":" + b[1] for b in BAD])
def test_bad_input_is_one_clear_error(change, field, code):
    kwargs = dict(hand=FIVE_DOUBLES, seat="N", deals=1, seed=0)
    kwargs.update(change)
    with pytest.raises(PositionError) as info:
        advise(kwargs.pop("hand"), kwargs.pop("seat"), **kwargs)
    assert (info.value.field, info.value.code) == (field, code)


# ----------------------------------------------------------------------- CLI


def test_cli_json_equals_the_api_for_a_seed():
    done = t42("bid", *WEAK, "--seat", "E", "--deals", "8", "--seed", "5", "--declarations",
               "fives,sevens", "--auction", "30,pass", "--json")
    assert done.returncode == 0, done.stderr
    api = advise(WEAK, "E", deals=8, seed=5, declarations=["fives", "sevens"],
                 auction=[30, "pass"]).to_json()
    got = json.loads(done.stdout)
    for key in ("seconds", "nodes"):
        got.pop(key), api.pop(key)
    assert got == api


def test_cli_with_deals_gives_deals_that_t42_solve_agrees_with():
    done = t42("bid", *WEAK, "--seat", "S", "--deals", "2", "--seed", "8", "--declarations",
               "treys", "--json", "--with-deals")
    assert done.returncode == 0, done.stderr
    dealt = json.loads(done.stdout)["dealt"]
    positions = [{"hands": d["hands"], "contract": {"declarer": "S", "trump": "treys", "bid": 30}}
                 for d in dealt]
    solved = t42("solve", "--json", "--best-only",
                 stdin="\n".join(json.dumps(p) for p in positions) + "\n")
    assert solved.returncode == 0, solved.stderr
    assert [json.loads(line)["value"] for line in solved.stdout.splitlines()] == \
        [d["values"]["treys"] for d in dealt]


def test_cli_table_lists_declarations_best_first_with_bids_as_columns():
    done = t42("bid", *ALL_SIXES, "--deals", "4", "--seed", "1", "--declarations",
               "fives,sixes,follow-me")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "42: N holds " + " ".join(ALL_SIXES)
    assert "Recommended: 84 (2 marks) sixes, P(make) 100%" in done.stdout
    header = next(i for i, line in enumerate(lines) if line.strip().startswith("declaration"))
    assert lines[header].split()[2:] == [str(b) for b in range(30, 42)] + ["1m", "2m"]
    assert [line.split()[0] for line in lines[header + 1:]] == ["sixes", "follow-me", "fives"]
    assert lines[header + 1].split()[1:] == ["42.0"] + ["100%"] * 14


def test_cli_reads_json_lines_and_reports_bad_lines():
    good = {"seat": "S", "hands": {"S": WEAK}, "deals": 3, "seed": 1, "declarations": ["sixes"]}
    bad = {"hand": WEAK[:6], "seat": "S"}
    done = t42("bid", "--json", stdin=json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    assert done.returncode == 2
    first, second = [json.loads(line) for line in done.stdout.splitlines()]
    assert first["seat"] == "S" and first["deals"] == 3 and first["seed"] == 1
    assert second == {"error": {"field": "hand", "reason": "holds 6 tiles, a hand holds 7",
                                "code": "HAND_SIZE"}}
    assert done.stderr.strip() == "t42: error: line 2: hand: holds 6 tiles, a hand holds 7"


@pytest.mark.parametrize("args, message", [
    (("6-6", "6-6", "5-5", "4-4", "3-3", "2-0", "1-1"), "hand[1]: tile 6-6 appears twice"),
    ((*WEAK, "--auction", "31,30"), "auction[1]: bid 30 is not higher than the last bid 31"),
    ((*WEAK, "--game", "moon", "--players", "3"), "hand[3]: 3-0 is not in the 22-tile set"),
])
def test_cli_bad_hand_is_one_line_and_exit_2(args, message):
    done = t42("bid", *args, "--deals", "1")
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith("t42: error: " + message)


# ---------------------------------------------------------------- calibration


def test_calibration_table_bins_predictions_against_outcomes():
    from solver.hidden.calibration import calibration_table
    from solver.play.calibration_run import calibration_markdown

    pairs = [(0.05, False), (0.08, True), (0.95, True), (1.0, True), (1.0, False), (0.5, True)]
    table = calibration_table(pairs)
    assert [b.count for b in table] == [2, 0, 0, 0, 0, 1, 0, 0, 0, 3]
    assert (table[0].made, table[0].observed, table[0].predicted) == (1, 0.5, pytest.approx(0.065))
    assert table[9].observed == pytest.approx(2 / 3) and table[1].observed is None
    text = calibration_markdown(table).splitlines()
    assert text[2].startswith("| 0.0-0.1 | 2 | 0.07 | 0.50 (")
    assert text[3] == "| 0.1-0.2 | 0 | - | - |"
    with pytest.raises(ValueError):
        calibration_table([(1.5, True)])


def test_shipped_calibration_map_is_monotone_and_respects_its_bins():
    from solver.hidden.calibration import bid_calibration

    cal = bid_calibration()
    assert (cal.source["hands"], cal.source["seed"], cal.source["mode"]) == (881, 7, "games")
    grid = [cal(k / 1000) for k in range(1001)]
    assert all(0.0 <= a <= b <= 1.0 for a, b in zip(grid, grid[1:]))
    assert cal(0.0) == 0.0 and cal(1.0) == cal(0.9495) == pytest.approx(308 / 386)
    # Each bin's own rate at its mean prediction, but for the two bins whose rates
    # fall (0.3-0.4: 5 of 10, 0.4-0.5: 5 of 27), which pool to 10 of 37.
    for predicted, made, count in [(0.5474, 25, 58), (0.6556, 48, 86), (0.7473, 65, 114),
                                   (0.8552, 113, 198), (0.9495, 308, 386), (0.19, 0, 1),
                                   (0.26, 0, 1)]:
        assert cal(predicted) == pytest.approx(made / count)
    assert cal((10 * 0.354 + 27 * 0.4441) / 37) == pytest.approx(10 / 37)
    low, high = wilson_interval(5, 27)
    assert low <= cal(0.4441) <= high
    with pytest.raises(ValueError):
        cal(1.01)


def test_calibration_map_pools_falling_bins_and_skips_empty_ones():
    from solver.hidden.calibration import CalibrationMap, calibration_table

    pairs = [(0.25, False)] * 3 + [(0.25, True)] + [(0.45, True)] * 3 + [(0.45, False)] + \
        [(0.55, False)] * 3 + [(0.55, True)] + [(0.95, True)] * 9 + [(0.95, False)]
    cal = CalibrationMap.from_table(calibration_table(pairs))
    # 0.45 (3 of 4) and 0.55 (1 of 4) fall: pooled at 0.5 to 4 of 8.
    assert [x for knot in cal.knots for x in knot] == \
        pytest.approx([0.0, 0.0, 0.25, 0.25, 0.5, 0.5, 0.95, 0.9])
    assert cal(0.125) == pytest.approx(0.125) and cal(0.725) == pytest.approx(0.7)
    assert cal(0.99) == pytest.approx(0.9)        # no data above 0.95: flat
    with pytest.raises(ValueError):
        CalibrationMap.from_table(calibration_table([]))


def test_calibrated_advice_recommends_by_the_calibrated_figure():
    raw = advise(FIVE_DOUBLES, "N", deals=16, seed=4, declarations=["fours", "doubles"])
    cal = advise(FIVE_DOUBLES, "N", deals=16, seed=4, declarations=["fours", "doubles"],
                 calibrated=True)
    assert (raw.p_make_used, cal.p_make_used) == ("double-dummy", "calibrated")
    mapping = cal.calibration
    for d in ("fours", "doubles"):
        assert [(c.bid, c.made) for c in raw.declaration(d).bids] == \
            [(c.bid, c.made) for c in cal.declaration(d).bids]
        for c in cal.declaration(d).bids:
            assert c.p_used == c.p_calibrated == mapping(c.p_make)
    # The highest bid whose calibrated P(make) reaches the threshold, by hand.
    reaching = [c.bid for row in cal.declarations for c in row.bids
                if mapping(c.p_make) >= 0.75]
    assert reaching and cal.recommendation.bid == max(reaching) == 31
    assert (raw.recommendation.bid, raw.recommendation.declaration) == (41, "doubles")
    doc = cal.to_json()
    assert doc["p_make_used"] == "calibrated" and doc["calibration"]["hands"] == 881
    bid = doc["declarations"][0]["bids"][0]
    assert bid["p_make_calibrated"] == round(mapping(bid["p_make"]), 6)
    assert "calibration" not in raw.to_json() and "p_make_calibrated" not in \
        raw.to_json()["declarations"][0]["bids"][0]
    for bad in (dict(calibrated="yes"), dict(calibrated=True, game="moon")):
        with pytest.raises(PositionError) as err:
            advise(FIVE_DOUBLES, "N", deals=2, **bad)
        assert err.value.field == "calibrated"


def test_cli_calibrated_table_says_so():
    done = t42("bid", *FIVE_DOUBLES, "--deals", "6", "--seed", "2", "--declarations", "fours",
               "--calibrated")
    assert done.returncode == 0, done.stderr
    assert "P(make) calibrated by play with hidden hands (881 hands, seed 7)" in done.stdout
    assert "calibrated P(make) by bid" in done.stdout


def test_the_deals_are_the_compiled_draws_of_the_seed():
    """A seed gives bid advice's deals: the compiled draws of that seed (`_draws`), the
    same on every call. `t42 deal --hand` deals from the same distribution with a stream
    of its own (tests/test_bid_draws.py compares the two)."""
    advice = advise(WEAK, "E", deals=3, seed=5, declarations=["nello"], return_deals=True)
    setup = read_bid_request(WEAK, "E", "42", 4, None, "high", 0.75, ["nello"])
    drawn = _deal_batch(_draws(setup, 5), setup, 3, None)[0]
    assert [{s: sorted(h) for s, h in d.hands.items()} for d in advice.dealt] == \
        [{seat: sorted(NAMES[t] for t in range(28) if hands[s] >> t & 1)
          for s, seat in enumerate("NESW")} for hands, _ in drawn]
    again = advise(WEAK, "E", deals=3, seed=5, declarations=["nello"], return_deals=True)
    assert again.dealt == advice.dealt
