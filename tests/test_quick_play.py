"""The quick play: the hint's P(make) for the same deals, and a best move by makes.

`quick_play` asks each deal only whether the contract makes after each move
(`Engine.at_least_moves`), so its P(make) of every move must equal the full hint's
(objective make) for the same seed and deal count, sampled or enumerated.
"""

from __future__ import annotations

import random

import pytest

from solver import CancelToken, PositionError, SearchCancelled
from solver.game import tiles as T
from solver.hidden.dealer import Dealer
from solver.hidden.hint import hint
from solver.hidden.quick_play import quick_play
from solver.play.bots import make_bot, seat_view
from solver.search._core import Engine

# (game, players, contract, plays made before the view, deal seed)
VIEWS = [
    ("42", 4, {"declarer": "N", "trump": "sixes", "bid": 30}, 0, 1),     # declarer leads
    ("42", 4, {"declarer": "E", "trump": "fours", "bid": 34}, 1, 2),     # a defender follows
    ("42", 4, {"declarer": "S", "trump": "doubles", "bid": 31}, 6, 3),   # mid-hand
    ("42", 4, {"declarer": "W", "trump": "nello", "bid": 42}, 0, 4),     # nello lead
    ("42", 4, {"declarer": "N", "trump": "nello", "bid": 42}, 2, 5),     # nello, defending
    ("moon", 3, {"declarer": "N", "trump": "fives", "bid": 5}, 0, 6),
    ("moon", 3, {"declarer": "E", "trump": "threes", "bid": 4}, 4, 7),
]


def _view(game, players, contract, plays, seed):
    rng = random.Random(seed)
    p = Dealer(game, players).deal(rng).position(contract)
    for _ in range(plays):
        p = p.with_plays(list(p.plays) + [rng.choice(p.legal_tiles())])
    return seat_view(p)


def _check_against_hint(view, deals, seed, enumerate_limit=0):
    q = quick_play(view, deals=deals, seed=seed, enumerate_limit=enumerate_limit)
    h = hint(view, deals=deals, seed=seed, enumerate_limit=enumerate_limit, objective="make",
             threads=1)
    assert q.deals == h.deals and q.seed == h.seed and q.method == h.method
    assert set(q.moves) == set(h.moves)
    for tile, move in q.moves.items():
        assert move.p_make == h.moves[tile].p_make, tile
        assert move.makes == h.moves[tile].makes, tile
    # The choice is a best move by makes (the hint's best, or tied with it on makes).
    sign = 1 if h.declaring else -1
    top = max(sign * m.makes for m in h.moves.values())
    assert sign * h.moves[q.best].makes == top
    # Means only for the moves tied on makes, each an average of exact values.
    tied = [t for t, m in h.moves.items() if sign * m.makes == top]
    for tile, move in q.moves.items():
        if len(tied) > 1 and tile in tied:
            assert q.tie_deals == min(16, q.deals)
            assert h.moves[tile].mean is not None and move.mean is not None
        else:
            assert move.mean is None
    if len(tied) > 1 and q.tie_deals == h.deals:
        # Over the same deals the means are the hint's, and so is the choice.
        for tile in tied:
            assert q.moves[tile].mean == pytest.approx(h.moves[tile].mean, abs=1e-9)
        assert q.best == h.best[0]
    return q, h


@pytest.mark.parametrize("case", VIEWS, ids=lambda c: f"{c[0]}-{c[2]['trump']}-{c[3]}")
@pytest.mark.parametrize("seed", [3, 11])
def test_sampled_p_make_is_the_hints(case, seed):
    view = _view(*case)
    _check_against_hint(view, 40, seed)


@pytest.mark.parametrize("case", [VIEWS[1], VIEWS[3], VIEWS[5]],
                         ids=lambda c: f"{c[0]}-{c[2]['trump']}-{c[3]}")
def test_over_as_few_deals_as_the_tie_break_the_means_are_the_hints(case):
    q, h = _check_against_hint(_view(*case), 12, 3)
    assert q.tie_deals == 12 and q.best == h.best[0]


def test_enumerated_views_are_the_hints():
    # Late in the hand few deals are consistent: both enumerate every one.
    view = _view("42", 4, {"declarer": "N", "trump": "fives", "bid": 30}, 17, 9)
    q, h = _check_against_hint(view, 100, 1, enumerate_limit=1000)
    assert q.method == h.method == "enumerated" and q.seed is None and q.deals == h.count


def test_ties_use_the_first_deals_only():
    # A contract already decided: every move makes (or none does), the means break the tie.
    found = False
    for seed in range(30):
        view = _view("42", 4, {"declarer": "N", "trump": "sixes", "bid": 30}, 12, seed)
        if len(view.legal_tiles()) < 2:
            continue
        q, _ = _check_against_hint(view, 30, seed)
        if q.tie_deals:
            found = True
            assert q.tie_deals == 16
            break
    assert found


def test_at_least_moves_agrees_with_score_moves():
    rng = random.Random(4)
    dealer = Dealer("42", 4)
    for k in range(6):
        p = dealer.deal(rng).position({"declarer": "NESW"[k % 4], "trump": "threes",
                                       "bid": 30})
        for _ in range(rng.randrange(0, 12)):
            p = p.with_plays(list(p.plays) + [rng.choice(p.legal_tiles())])
        engine = Engine(p.rules, p.active_seats, p.maximizer, p.scorer, 14)
        for target in (0, 10, 30, 31, 42, 43):
            engine.clear()
            engine.set_state(list(p.remaining), p.leader, list(p.trick), p.points, p.available,
                             p.tricks_left)
            values = dict(engine.score_moves())
            engine.clear()
            reached = engine.at_least_moves(target)
            assert sorted(t for t, _ in reached) == sorted(values)
            assert {t: r for t, r in reached} == {t: v >= target for t, v in values.items()}


def test_score_moves_with_a_known_move_searches_only_the_others():
    """The play model's judging passes the value after the move played, which it knows:
    that move is listed with the value given (not searched), the others exactly."""
    rng = random.Random(8)
    dealer = Dealer("42", 4)
    checked = 0
    for k in range(40):
        trump = ("fives", "doubles", "follow-me", "blanks")[k % 4]
        p = dealer.deal(rng).position({"declarer": "NESW"[k // 4 % 4], "trump": trump,
                                       "bid": 31})
        for _ in range(rng.randrange(0, 14)):
            p = p.with_plays(list(p.plays) + [rng.choice(p.legal_tiles())])
        engine = Engine(p.rules, p.active_seats, p.maximizer, p.scorer, 14)
        engine.set_state(list(p.remaining), p.leader, list(p.trick), p.points, p.available,
                         p.tricks_left)
        values = dict(engine.score_moves())
        for tile in values:
            engine.play(tile)
            assert engine.exact() == values[tile]
            engine.undo()
        for known in values:
            # A wrong value given is listed as given: the move was not searched.
            for given in (values[known], 99):
                engine.clear()
                assert dict(engine.score_moves(known, given)) == {**values, known: given}
            checked += 1
    assert checked >= 80


def test_options_and_cancel():
    view = _view(*VIEWS[0])
    with pytest.raises(PositionError):
        quick_play(view, deals=0)
    with pytest.raises(PositionError):
        quick_play(view, tie_deals=0)
    token = CancelToken()
    token.cancel()
    with pytest.raises(SearchCancelled):
        quick_play(view, deals=50, seed=1, token=token)


def test_advice_plays_quick_and_hint_plays_the_full_hint():
    view = _view(*VIEWS[0])
    advice, full = make_bot("advice", seed=2, hint_deals=30), make_bot("hint", seed=2,
                                                                          hint_deals=30)
    a, b = advice.choose(view), full.choose(view)
    seed = random.Random(2).randrange(2 ** 31)
    assert T.name_of(a) == quick_play(view, deals=30, seed=seed).best
    assert T.name_of(b) == hint(view, deals=30, seed=seed, threads=1).best[0]
    assert advice.last_hint.moves[T.name_of(a)].p_make == \
        full.last_hint.moves[T.name_of(a)].p_make
