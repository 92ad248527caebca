"""Bid advice from the seat's view (`solver.hidden.seat_view_bidding`): every deal played
out by seat-view players, P(make) what they get; and the calibration scores it is
measured by (`solver.hidden.calibration.calibration_scores`)."""

from __future__ import annotations

import json
import random

import pytest

from solver.game.errors import PositionError
from solver.game.game_record import GameRecord
from solver.game.position import SEATS, Position
from solver.hidden.bidding import advise
from solver.hidden.calibration import calibration_scores
from solver.hidden.seat_view import SeatViewPlayer
from solver.hidden.seat_view_bidding import play_out, seat_view_advise
from solver.play.bots import RuleBot
from solver.play.calibration_run import game_calibration_hand

SIXES = "6-6 6-5 6-4 6-3 6-2 6-1 6-0"
MIDDLING = ["6-6 6-4 5-5 5-3 4-4 2-1 1-0", "5-5 5-4 5-2 4-1 3-3 2-0 1-1",
            "6-5 6-2 4-4 4-3 4-0 3-1 2-2", "6-6 5-5 4-4 6-1 3-2 2-0 1-0"]


def test_every_trump_makes_every_bid_on_every_deal():
    a = seat_view_advise(SIXES, "E", deals=6, seed=3, declarations="sixes")
    row = a.declaration("sixes")
    assert row.distribution[42] == 6 and sum(row.distribution) == 6
    assert all(c.made == 6 for c in row.bids)
    assert a.search == "playout" and a.defence == "seat-view" and a.inner_deals == 3
    out = a.to_json()
    assert (out["search"], out["inner_deals"], out["defence"]) == ("playout", 3, "seat-view")


def test_a_nello_of_high_doubles_never_makes():
    a = seat_view_advise("6-6 5-5 4-4 3-3 6-5 6-4 5-4", "N", deals=5, seed=2,
                         declarations="nello")
    assert a.declaration("nello").made == 0


def test_the_figures_depend_on_the_seed_alone_not_the_threads():
    one = seat_view_advise(MIDDLING[0], "S", deals=6, seed=11, threads=1,
                           declarations="fours,doubles,nello")
    two = seat_view_advise(MIDDLING[0], "S", deals=6, seed=11, threads=2,
                           declarations="fours,doubles,nello")
    strip = [{k: v for k, v in x.to_json().items() if k != "seconds"} for x in (one, two)]
    assert strip[0] == strip[1]
    # A declaration's playouts do not depend on the others asked for.
    alone = seat_view_advise(MIDDLING[0], "S", deals=6, seed=11, declarations="fours")
    assert alone.declaration("fours") == one.declaration("fours")


def _opening_decisions(monkeypatch, **kwargs) -> tuple[dict, dict]:
    """Seat-view advice with every player's decision watched: per declaration, the deals
    each opening-lead decision drew, and the first play of every position decided after."""
    choose = SeatViewPlayer.choose
    leads: dict[str, list[int]] = {}
    first: dict[str, set[str]] = {}

    def watched(player, p, rng):
        c = p.contract   # a plunge is played in the trump its partner named
        name = c.declaration.name if c.kind == "standard" else c.kind
        if not p.plays:
            leads.setdefault(name, []).append(player.inner_deals)
        else:
            first.setdefault(name, set()).add(p.plays[0])
        return choose(player, p, rng)
    monkeypatch.setattr(SeatViewPlayer, "choose", watched)
    seat_view_advise("6-6 5-5 4-4 3-3 6-4 2-1 1-0", "W", deals=5, seed=4, **kwargs)
    return leads, first


def test_the_declarers_lead_is_one_decision_for_every_deal(monkeypatch):
    """The declarer leads one tile whatever the deal: decided once per declaration over
    ``lead_deals`` deals, and every deal is played out from it. A plunge's lead is the
    partner's, whose hand differs by deal: each deal's partner decides it."""
    leads, first = _opening_decisions(monkeypatch, lead_deals=7,
                                      declarations="fours,nello,plunge")
    assert leads == {"fours": [7], "nello": [7], "plunge": [3] * 5}
    assert len(first["fours"]) == 1 and len(first["nello"]) == 1
    assert len(first["plunge"]) > 1    # each partner's own lead, not one for all
    # 0: each deal's declarer decides its own lead from its inner deals, as before.
    leads, first = _opening_decisions(monkeypatch, lead_deals=0, declarations="fours")
    assert leads == {"fours": [3] * 5}


def test_a_screen_plays_out_what_double_dummy_ranks_first_with_the_full_figures():
    """Sixes is this hand's best declaration by far; the screen of one plays it alone,
    with exactly the figures a playout of every declaration gives it at the seed."""
    hand = "6-6 6-5 6-4 6-3 6-2 5-5 4-1"
    every = seat_view_advise(hand, "N", deals=3, seed=5, declarations="blanks,sixes,nello")
    screened = seat_view_advise(hand, "N", deals=3, seed=5, declarations="blanks,sixes,nello",
                                screen=1)
    assert [row.declaration for row in screened.declarations] == ["sixes"]
    assert sorted(screened.screened) == ["blanks", "nello"] and every.screened == []
    assert screened.declaration("sixes") == every.declaration("sixes")
    assert screened.recommendation == every.recommendation
    assert screened.to_json()["screened"] == screened.screened
    # A screen as wide as the declarations asked plays them all.
    assert seat_view_advise(hand, "N", deals=3, seed=5, declarations="blanks,sixes,nello",
                            screen=3).screened == []


def test_the_face_screens_by_default_and_double_dummy_refuses_a_screen():
    from solver.hidden.seat_view_bidding import DEFAULT_SCREEN, bid_advice
    a = bid_advice(MIDDLING[1], "N", search="playout", deals=2, inner_deals=1, seed=4)
    assert len(a.declarations) == DEFAULT_SCREEN and len(a.screened) >= 8
    with pytest.raises(PositionError) as err:
        bid_advice(MIDDLING[1], "N", deals=2, screen=2)
    assert err.value.field == "screen"


def test_playouts_are_no_more_optimistic_than_double_dummy():
    """Over these hands the declarer's side no longer plays each deal as if it saw it:
    the chance of making 30 falls (it may not rise by much on any one hand)."""
    seat_view = dd = 0.0
    for k, hand in enumerate(MIDDLING):
        sv = seat_view_advise(hand, "N", deals=12, seed=k, declarations="follow-me,doubles")
        d = advise(hand, "N", deals=12, seed=k, declarations="follow-me,doubles", threads=1)
        for name in ("follow-me", "doubles"):
            seat_view += sv.declaration(name).chance(30).p_make
            dd += d.declaration(name).chance(30).p_make
    assert seat_view < dd - 0.5


def test_the_defenders_see_only_their_own_view():
    seen = []
    rule = RuleBot()

    def defenders(view):
        seen.append(view)
        return rule.choose(view)
    a = seat_view_advise(MIDDLING[1], "W", deals=3, seed=5, declarations="fives",
                         defence="rule", defenders=defenders, threads=1)
    assert a.defence == "rule"
    # Each defender's decision in every playout: 7 tricks, 2 defenders, 3 deals.
    assert len(seen) == 2 * 7 * 3
    for view in seen:
        assert SEATS[view.seat] in ("N", "S")            # West declares: N and S defend
        assert list(view.hands) == [view.seat]           # its own tiles and nothing else


def test_play_out_of_the_last_two_tricks_is_what_the_players_choose():
    """Random plays to two tricks before the end: what the seat-view players reach lies
    between the least and the most the declaring side can end with on that deal."""
    rng = random.Random(8)
    for k in range(20):
        hands = _deal(rng)
        p = Position({"hands": hands, "contract": {"declarer": "N", "trump": "fives",
                                                   "bid": 30}})
        plays: list[int] = []
        while len(plays) < 20:
            plays.append(rng.choice(p.with_plays(plays).legal_ids()))
        p = p.with_plays(plays)
        value, nodes = play_out(p, 3, random.Random(k))
        low, high = _extremes(p)
        assert low <= value <= high and isinstance(value, int)


def _deal(rng: random.Random) -> dict:
    tiles = [f"{h}-{low}" for h in range(7) for low in range(h + 1)]
    rng.shuffle(tiles)
    return {s: tiles[7 * i:7 * i + 7] for i, s in enumerate(SEATS)}


def _extremes(p: Position) -> tuple[int, int]:
    """The least and most the declaring side can end with from ``p``, over every line."""
    if p.is_complete:
        return p.points, p.points
    found = [_extremes(p.with_plays(list(p.plays) + [t])) for t in p.legal_ids()]
    return min(f[0] for f in found), max(f[1] for f in found)


@pytest.mark.parametrize("kwargs, field", [
    ({"players": 3, "game": "moon", "hand": "6-6 6-4 5-5 5-3 4-4 2-1 1-1"}, "players"),
    ({"defence": "psychic"}, "defence"),
    ({"defence": "rule"}, "defence"),
    ({"defenders": RuleBot().choose}, "defence"),
    ({"inner_deals": 0}, "inner_deals"),
    ({"screen": -1}, "screen"),
    ({"screen": True}, "screen"),
    ({"screen": "2"}, "screen"),
    ({"lead_deals": -1}, "lead_deals"),
    ({"lead_deals": 51}, "lead_deals"),
    ({"deals": 0}, "deals"),
])
def test_bad_options_are_refused_by_name(kwargs, field):
    hand = kwargs.pop("hand", "6-6 6-4 5-5 5-3 4-4 2-1 1-0")
    with pytest.raises(PositionError) as err:
        seat_view_advise(hand, "N", deals=kwargs.pop("deals", 2), **kwargs)
    assert err.value.field == field


def test_a_game_hand_calibrated_by_playout_names_its_defence(tmp_path):
    data = _one_game()
    record = GameRecord(data)
    index = next(i for i, h in enumerate(record.hands)
                 if h.contract is not None and h.contract.kind == "standard")
    pair = game_calibration_hand(record, index, advice_deals=4, seed=9, search="playout",
                                 inner_deals=2, lead_deals=5)
    c = record.hands[index].contract
    direct = seat_view_advise(record.hands[index].deal[c.declarer], SEATS[c.declarer],
                              auction=pair.calls_before, deals=4, inner_deals=2,
                              seed=pair.seed, declarations=[c.declaration.name], threads=1,
                              lead_deals=5)
    assert pair.predicted == direct.declaration(c.declaration.name).chance(c.bid).p_make
    arena = data["meta"]["arena"]
    assert pair.defended_by == arena["EW" if SEATS[c.declarer] in "NS" else "NS"]
    assert (pair.to_json()["search"], pair.to_json()["lead_deals"]) == ("playout", 5)


def _one_game() -> dict:
    with open("bench/records/seat_view_advice_s91.jsonl", encoding="utf-8") as f:
        return json.loads(f.readline())


def test_calibration_scores_of_known_pairs():
    sc = calibration_scores([(0.8, True), (0.2, False), (0.5, True), (0.5, False)],
                            resamples=200)
    assert sc.brier == pytest.approx((0.04 + 0.04 + 0.25 + 0.25) / 4)
    # Bins: 0.2 (|0.2 - 0|), 0.5 (two pairs, |1.0 - 1|), 0.8 (|0.8 - 1|).
    assert sc.ece == pytest.approx((0.2 + 0.0 + 0.2) / 4)
    assert sc.brier_interval[0] <= sc.brier <= sc.brier_interval[1]
    assert sc.bins_outside == ()   # no bin of 30 pairs


def test_calibrated_pairs_score_as_calibrated_and_biased_ones_do_not():
    rng = random.Random(4)
    fair = [(p, rng.random() < p) for p in (rng.random() for _ in range(4000))]
    sc = calibration_scores(fair, resamples=300)
    assert sc.bins_outside == () and sc.ece < 0.03
    # Ten bins each held to a 95% interval: a perfect prediction misses one now and
    # then (none in about 0.95**10 of draws), and no draw misses fewer than none.
    assert 0.3 < sc.outside_if_calibrated < 0.8
    assert 0.45 < sc.all_inside_if_calibrated < 0.75
    assert sc.p_outside == 1.0
    optimistic = [(min(1.0, p + 0.15), made) for p, made in fair]
    worse = calibration_scores(optimistic, resamples=300)
    assert worse.ece_interval[0] > sc.ece_interval[1]
    assert len(worse.bins_outside) >= 5
    assert worse.p_outside == 0.0   # far more misses than chance gives


def test_moon_and_plunge_are_played_out_too():
    """Four-player Moon counts tricks (0..7); a plunge is played for every trick, led by
    the partner in the trump it names from its own tiles."""
    moon = seat_view_advise("6-6 6-4 5-5 5-3 4-4 2-1 1-0", "N", game="moon", deals=3, seed=1,
                            declarations="fours")
    row = moon.declaration("fours")
    assert row.unit == "tricks" and len(row.distribution) == 8 and sum(row.distribution) == 3
    assert [c.bid for c in row.bids] == [4, 5, 6, 7, 21]
    plunge = seat_view_advise("6-6 5-5 4-4 3-3 6-4 2-1 1-0", "N", deals=3, seed=1,
                              declarations="plunge")
    assert plunge.declaration("plunge").distribution is None
    assert 0 <= plunge.declaration("plunge").made <= 3
