"""The arena, its bots and its statistics.

Small runs (20 pairs of rule vs random, 6 of cheat vs rule, one pair with a
hint bot of 8 deals; about 10 s): every recorded hand is a legal hand with
the rotating contract, and the statistics equal those recomputed here from
the records. Whether a bot wins is the benchmark's business (bench/).
"""

from __future__ import annotations

import math
import statistics

import pytest

from solver import Position, solve
from solver.game.position import SEATS
from solver.game.rules import TRUMP
from solver.game.tiles import ENDS, parse_tile
from solver.hidden.stats import mcnemar, mean_of, t_quantile_975, wilson_interval
from solver.play.arena import (HandRecord, deal_for_pair, gap_share, longest_suit, run_arena,
                               summarize)
from solver.play.bots import CheatBot, RuleBot, seat_view

PIPS = ("blanks", "ones", "deuces", "treys", "fours", "fives", "sixes")


@pytest.fixture(scope="module")
def rule_vs_random():
    return run_arena("rule", "random", 20, seed=5)


def replay(r: HandRecord) -> Position:
    return Position({"hands": r.hands, "contract": {"declarer": r.declarer, "trump": r.trump,
                                                    "bid": 30}, "plays": r.plays})


def test_records_are_legal_duplicate_hands(rule_vs_random):
    assert len(rule_vs_random) == 40
    for pair in range(20):
        first, second = rule_vs_random[2 * pair], rule_vs_random[2 * pair + 1]
        assert (first.pair, first.game, second.pair, second.game) == (pair, 0, pair, 1)
        assert (first.ns, first.ew, second.ns, second.ew) == ("rule", "random", "random", "rule")
        assert first.hands == second.hands and first.declarer == SEATS[pair % 4]
        assert first.trump == second.trump
        for r in (first, second):
            p = replay(r)                       # every play legal
            assert p.is_complete and p.points == r.points and r.made == (r.points >= 30)
            hand = p.hands[p.contract.declarer]
            pip = PIPS.index(r.trump)
            assert pip == longest_suit(hand)
            lengths = [sum(1 for t in hand if q in ENDS[t]) for q in range(7)]
            assert lengths[pip] == max(lengths) and all(lengths[q] < lengths[pip]
                                                        for q in range(pip + 1, 7))
    assert run_arena("rule", "random", 3, seed=5, first_pair=2) == rule_vs_random[4:10]


def test_statistics_are_those_of_the_records(rule_vs_random):
    s = summarize(rule_vs_random, "rule", "random")
    by_pair = {}
    for r in rule_vs_random:
        by_pair.setdefault(r.pair, {})[r.declaring_bot] = r
    rule_decl = [g["rule"] for g in by_pair.values()]
    random_decl = [g["random"] for g in by_pair.values()]
    assert s.pairs == 20 and s.hands == 40
    assert s.bots["rule"].made == sum(r.made for r in rule_decl)
    assert s.bots["rule"].make_rate == sum(r.made for r in rule_decl) / 20
    assert s.bots["rule"].set == sum(not r.made for r in random_decl)
    assert s.bots["random"].mean_points_declaring == statistics.mean(r.points
                                                                     for r in random_decl)
    diffs = [a.points - b.points for a, b in zip(rule_decl, random_decl)]
    d = s.difference
    assert d.mean == pytest.approx(statistics.mean(diffs))
    assert d.sd == pytest.approx(statistics.stdev(diffs))
    half = 2.093024054408263 * statistics.stdev(diffs) / math.sqrt(20)   # t(0.975, 19)
    assert (d.low, d.high) == pytest.approx((d.mean - half, d.mean + half))
    assert s.z == pytest.approx(d.mean / d.se)
    only_rule = sum(1 for a, b in zip(rule_decl, random_decl) if a.made and not b.made)
    only_random = sum(1 for a, b in zip(rule_decl, random_decl) if b.made and not a.made)
    assert (s.mcnemar.b, s.mcnemar.c) == (only_rule, only_random)
    n = only_rule + only_random
    k = min(only_rule, only_random)
    exact = min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n)
    assert s.mcnemar.p_value == pytest.approx(exact)


def test_rule_bot_follows_its_documented_rules(rule_vs_random):
    checked = {"lead_top_trump": 0, "partner_winning": 0, "win_lowest": 0}
    for r in rule_vs_random:
        p0 = replay(r).with_plays([])
        rules = p0.rules
        for i, tile_name in enumerate(r.plays):
            p = p0.with_plays([_idx(t) for t in r.plays[:i]])
            seat = p.to_move_index
            if (r.ns if seat in (0, 2) else r.ew) != "rule" or len(p.legal_tiles()) == 1:
                continue
            tile, legal = _idx(tile_name), p.legal_ids()
            assert RuleBot().choose(seat_view(p)) == tile
            if not p.trick:
                played = set(p.plays)
                out = [t for t in range(28) if rules.lead_suit[t] == TRUMP and t not in played]
                top = max(out, key=lambda t: rules.power[TRUMP][t]) if out else None
                if top in legal:
                    assert tile == top
                    checked["lead_top_trump"] += 1
                continue
            ctx = rules.lead_suit[p.trick[0][1]]
            power = rules.power[ctx]
            win_seat, win_tile = max(p.trick, key=lambda st: power[st[1]])
            if p.maximizer[win_seat] == p.maximizer[seat]:
                if any(rules.lead_suit[t] != TRUMP for t in legal):
                    assert rules.lead_suit[tile] != TRUMP      # never trump a partner
                    checked["partner_winning"] += 1
            else:
                winners = [t for t in legal if power[t] > power[win_tile]]
                if winners:
                    assert tile == min(winners, key=lambda t: (power[t], rules.count[t]))
                    checked["win_lowest"] += 1
    assert all(checked.values()), checked


def _idx(name: str) -> int:
    return parse_tile(name, "tile")


def test_cheat_plays_double_dummy_best_moves():
    records = run_arena("cheat", "rule", 6, seed=2)
    s = summarize(records, "cheat", "rule")
    assert s.pairs == 6
    r = records[0]                          # cheat at N/S
    p0 = replay(r).with_plays([])
    for i in range(0, 24):
        p = p0.with_plays([_idx(t) for t in r.plays[:i]])
        if p.to_move_index in (0, 2):
            solved = solve(p, with_line=False)
            assert solved.moves[r.plays[i]] == solved.value
            assert CheatBot().choose(p) == _idx(r.plays[i])


def test_a_small_hint_run_is_legal_and_summarised():
    records = run_arena("hint", "rule", 1, seed=4, hint_deals=8)
    assert len(records) == 2
    for r in records:
        assert replay(r).points == r.points
    s = summarize(records, "hint", "rule")
    assert s.hands == 2 and s.difference.mean == records[
        0 if records[0].declaring_bot == "hint" else 1].points - records[
        1 if records[0].declaring_bot == "hint" else 0].points


def test_deals_are_seeded_by_pair():
    assert deal_for_pair(3, 9) == deal_for_pair(3, 9)
    assert deal_for_pair(3, 9) != deal_for_pair(4, 9)
    assert [SEATS[deal_for_pair(i, 9).contract.declarer] for i in range(5)] == list("NESWN")


def test_each_seat_has_its_own_bot_seeded_the_same_in_both_games():
    # A bot per seat, seeded by the pair and the seat: random against itself plays both
    # games of a pair alike (its bots in N drew from one generator, now one each).
    for game0, game1 in zip(*[iter(run_arena("random", "random", 4, seed=6))] * 2):
        assert (game0.pair, game0.game, game1.game) == (game1.pair, 0, 1)
        assert game0.plays == game1.plays


def _record(pair: int, game: int, ns: str, ew: str, points: int) -> HandRecord:
    return HandRecord(pair=pair, game=game, ns=ns, ew=ew, declarer="N", trump="sixes",
                      hands={}, plays=[], points=points, made=points >= 30)


def test_gap_share_is_the_ratio_of_paired_leads():
    bot = [r for i, (x, y) in enumerate([(34, 30), (31, 28), (40, 33)])
           for r in (_record(i, 0, "hint", "rule", x), _record(i, 1, "rule", "hint", y))]
    bound = [r for i, (x, y) in enumerate([(38, 30), (36, 28), (41, 33)])
             for r in (_record(i, 0, "cheat", "rule", x), _record(i, 1, "rule", "cheat", y))]
    g = gap_share(bot, bound, "hint", "cheat", "rule")
    assert g.pairs == 3
    assert g.bot_lead == pytest.approx((4 + 3 + 7) / 3)
    assert g.bound_lead == pytest.approx((8 + 8 + 8) / 3)
    assert g.closed == pytest.approx(14 / 24)
    assert g.low < g.closed < g.high


def test_statistics_helpers_against_known_values():
    for df, t in ((1, 12.7062), (2, 4.3027), (5, 2.5706), (10, 2.2281), (30, 2.0423),
                  (1000, 1.9623)):
        assert t_quantile_975(df) == pytest.approx(t, abs=2e-4)
    low, high = wilson_interval(8, 10)
    assert (low, high) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert mcnemar(5, 0).p_value == pytest.approx(0.0625)
    assert mcnemar(3, 3).p_value == 1.0
    est = mean_of([1, 2, 3, 4])
    assert (est.mean, est.sd) == pytest.approx((2.5, statistics.stdev([1, 2, 3, 4])))
