"""The call model of inference (solver/hidden/call_model.py): likelihoods that sum to
one over the legal calls and declarations, stronger hands bid more, the shipped
parameters load, bad calls are refused."""

from __future__ import annotations

import json
import math
import random

import pytest

from solver.game import tiles as T
from solver.game.auction import GameRules, bids_over
from solver.hidden import call_model as CM
from solver.hidden.call_model import CallModel, shipped_call_model

HIGHESTS = (None, 30, 31, 34, 36, 41, 42, 84, 126, 168, 294)


def random_hands(n: int, seed: int = 5) -> list[int]:
    rng = random.Random(seed)
    return [T.mask_of(rng.sample(range(T.N_TILES), 7)) for _ in range(n)]


def hand(*names: str) -> int:
    return T.mask_of(T.parse_tiles(list(names), "hand"))


#: Six sixes with the double, and a seven-cycle of pips: no doubles, two tiles a suit.
STRONG = hand("6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "5-0")
WEAK = hand("1-0", "2-1", "3-2", "4-3", "5-4", "6-5", "6-0")


def test_calls_sum_to_one_over_the_legal_calls():
    model = shipped_call_model()
    rules = GameRules()
    for h in random_hands(40) + [STRONG, WEAK]:
        for highest in HIGHESTS:
            bids = bids_over(rules, highest)
            total = model.call_likelihood(h, "pass", highest) + \
                sum(model.call_likelihood(h, b, highest) for b in bids)
            assert abs(total - 1) < 1e-9, (T.tiles_of(h), highest, total)


def test_a_forced_bid_takes_the_pass_share():
    model = shipped_call_model()
    bids = bids_over(GameRules(), None)
    for h in random_hands(20) + [STRONG, WEAK]:
        total = sum(model.call_likelihood(h, b, None, forced=True) for b in bids)
        assert abs(total - 1) < 1e-9
        assert model.call_likelihood(h, 30, None, forced=True) == pytest.approx(
            model.call_likelihood(h, "pass", None) + model.call_likelihood(h, 30, None))
        assert model.call_likelihood(h, 35, None, forced=True) == \
            model.call_likelihood(h, 35, None)
    assert model.call_likelihood(WEAK, 30, None, forced=True) > 0.99
    with pytest.raises(ValueError):
        model.call_likelihood(WEAK, "pass", None, forced=True)


def test_declarations_sum_to_one_over_the_allowed_ones():
    model = shipped_call_model()
    for h in random_hands(40) + [STRONG, WEAK]:
        for bid in (30, 35, 41, 42, 84, 126, 294):
            allowed = CM.allowed_declarations(bid)
            assert ("sevens" in allowed) == (bid >= 42) and ("nello" in allowed) == (bid >= 84)
            total = sum(model.declaration_likelihood(h, d, bid) for d in allowed)
            assert abs(total - 1) < 1e-9


def test_stronger_hands_bid_more():
    model = shipped_call_model()

    def p_at_least_34(h: int) -> float:
        return sum(model.call_likelihood(h, b, None) for b in bids_over(GameRules(), None)
                   if b >= 34)

    assert p_at_least_34(STRONG) > p_at_least_34(WEAK)
    assert model.call_likelihood(STRONG, "pass", None) < 0.5
    assert model.call_likelihood(WEAK, "pass", None) > 0.5
    assert model.call_likelihood(STRONG, "pass", None) < model.call_likelihood(WEAK, "pass", None)
    # The strong hand's best declaration is its trump suit, and it is the likeliest named.
    assert max(CM.DECLARATIONS, key=lambda d: model.strength(STRONG, d)) == "sixes"
    assert model.declaration_likelihood(STRONG, "sixes", 34) > 0.5
    assert model.declaration_likelihood(STRONG, "6", 34) == \
        model.declaration_likelihood(STRONG, "sixes", 34)


def test_strengths_are_the_features_times_the_weights():
    """The flat evaluator the model runs agrees with `features`, which the fit uses."""
    model = shipped_call_model()
    groups = model.doc["groups"]
    for h in random_hands(30, seed=9):
        for d in CM.DECLARATIONS:
            g = groups[CM.GROUP_OF[d]]
            beta = [g["beta"][n] for n in CM.FEATURE_NAMES[CM.GROUP_OF[d]]]
            expected = g["alpha"] + sum(b * x for b, x in zip(beta, CM.features(h, d)))
            assert model.strength(h, d) == pytest.approx(expected, abs=1e-9)


def test_never_zero():
    model = shipped_call_model()
    for h in (STRONG, WEAK, hand("6-6", "5-5", "4-4", "3-3", "2-2", "1-1", "0-0")):
        for highest in HIGHESTS:
            for b in ("pass",) + bids_over(GameRules(), highest):
                assert model.call_likelihood(h, b, highest) >= 1e-12
        for d in CM.allowed_declarations(84):
            assert model.declaration_likelihood(h, d, 84) >= 1e-12


def test_shipped_model_loads_and_names_itself():
    doc = json.loads(CM.MODEL_FILE.read_text())
    model = shipped_call_model()
    assert model is shipped_call_model()
    assert model.name == doc["name"] == "advice-calls-1"
    assert list(model.cutpoints) == sorted(model.cutpoints)
    assert model.kappa > 0
    described = model.to_json()
    assert described["name"] == "advice-calls-1"
    assert described["fitted_on"]["seed"] == 11 and described["fitted_on"]["calls"] > 1000
    # Held out, the model beats the level frequencies and uniform declarations.
    held_out = described["validation"]["mean_log_likelihood"]
    assert held_out["call"] > held_out["call_levels_only"]
    assert held_out["declaration"] > held_out["declaration_uniform"]
    assert CallModel(doc).call_likelihood(WEAK, "pass", None) == \
        model.call_likelihood(WEAK, "pass", None)


def test_special_calls_say_nothing_and_mark_bids_map_to_the_top_level():
    model = shipped_call_model()
    assert model.call_likelihood(WEAK, "plunge", None) == 1.0
    assert model.call_likelihood(WEAK, "splash", None) == 1.0
    # Over 2 marks the only bid is one more mark: the top level.
    p = model.call_likelihood(STRONG, 126, 84)
    assert math.isclose(p + model.call_likelihood(STRONG, "pass", 84), 1.0)
    assert math.isclose(p, model._at_least(model._strengths(STRONG)[-1], len(CM.LEVELS) - 1))
    # No bid above 7 marks: the pass is certain.
    assert model.call_likelihood(STRONG, "pass", 294) == 1.0


@pytest.mark.parametrize("bid, highest", [(30, 30), (31, 34), (84, 84), (41, 42), (29, None)])
def test_a_bid_not_above_the_highest_is_refused(bid, highest):
    with pytest.raises(ValueError):
        shipped_call_model().call_likelihood(WEAK, bid, highest)


def test_bad_calls_and_declarations_are_refused():
    model = shipped_call_model()
    with pytest.raises(ValueError):
        model.call_likelihood(WEAK, "double", None)
    with pytest.raises(ValueError):
        model.declaration_likelihood(WEAK, "spades", 30)
    # Nello on one mark needs a house rule; the softmax takes it in rather than refuse it.
    with_nello = model.declaration_likelihood(WEAK, "nello", 42)
    assert 0 < with_nello < 1
    assert model.declaration_likelihood(WEAK, "nello", 84) > 0
