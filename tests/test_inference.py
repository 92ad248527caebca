"""Inference (SPEC "Inference (optional)"): hints, quick plays and bid advice that weigh
their deals by the other seats' calls and plays.

* ``off`` answers exactly as no option does.
* On small enumerated views the weighted figures equal a brute force computed here
  from the models' definitions: every consistent deal, its weight the product of the
  other seats' call likelihoods, the declaration's likelihood and a softmax over the
  double-dummy loss of each judged play, and each move's double-dummy value.
* The answer depends only on the view (two true deals with one view, one answer).
* Sampled auction inference keeps deals that fit the calls; bid advice too.
* Models that rule every deal out fall back to uniform weights and say so.
* Bad options are refused with the field ``inference``.

Everything is seeded or enumerated: nothing depends on the machine's speed.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from solver.game import tiles as T
from solver.game.auction import Call, read_rules
from solver.game.call_view import call_view
from solver.game.errors import PositionError
from solver.game.position import SEATS, Position
from solver.game.view import View
from solver.hidden.bidding import advise
from solver.hidden.call_model import LEVEL_DECLARATIONS, shipped_call_model
from solver.hidden.dealer import Dealer
from solver.hidden.deals import iter_deals, sample_deals
from solver.hidden._pool import DealPool
from solver.hidden.hint import InferredDeals, hint
from solver.hidden.inference import (
    DRAWS_PER_DEAL,
    MIN_POOL,
    CallSeen,
    Inference,
    calls_seen,
    effective_deals,
    read_inference,
    view_weigher,
)
from solver.hidden.play_model import PlayModel, shipped_play_model
from solver.hidden.quick_play import quick_play
from solver.hidden.stats import mean_estimate, weighted_mean_estimate
from solver.play.bots import make_bot
from solver.search.solve import DealSolver

CASES = Path(__file__).parent / "cases"


def _game_hand(game_id: str, index: int) -> dict:
    for line in (CASES / "games.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if rec["id"] == game_id:
            return rec["record"]["hands"][index]
    raise KeyError(game_id)


def _view_of(deal: dict, n_plays: int) -> dict:
    """The view of the seat to move after ``n_plays`` plays of ``deal`` (a record's hand:
    hands as dealt, auction, contract, plays): its own hand, the auction, the contract and
    the plays, nothing else of the deal."""
    plays = deal["plays"][:n_plays]
    p = Position({"hands": deal["hands"], "contract": deal["contract"], "plays": plays})
    seat = SEATS[p.to_move_index]
    return {"seat": seat, "hands": {seat: list(deal["hands"][seat])},
            "contract": dict(deal["contract"]), "plays": list(plays),
            "auction": [dict(c) for c in deal["auction"]]}


#: A defender's view (W) at trick 5 of fives 36 by N (E bid 31, S and W passed, N 36):
#: 90 consistent deals, three plays by the other seats since W's last play, each with a
#: choice (4, 3 and 3 legal moves).
FIVES = _game_hand("game-2026-1", 1)
FIVES_VIEW = _view_of(FIVES, 18)
#: The declarer's partner's view (N) at trick 5 of ones 38 by S (W passed, N 32, E 34,
#: S 38): 48 consistent deals.
ONES = _game_hand("game-2026-2", 3)
ONES_VIEW = _view_of(ONES, 18)
#: Sixes 41 by S (N passed, E 30, S 41, W passed).
SIXES = _game_hand("game-2026-1", 4)

BIG = 100_000


def _mask(tiles) -> int:
    return T.mask_of(T.parse_tile(t, "t") for t in tiles)


# ------------------------------------------------------------------ off is unchanged


@pytest.mark.parametrize("n_plays,deals", [(18, 30), (7, 12)])
def test_off_is_the_default(n_plays, deals):
    view = _view_of(FIVES, n_plays)
    for seed in (1, 7):
        plain = hint(view, seed=seed, deals=deals).to_json()
        off = hint(view, seed=seed, deals=deals, inference="off").to_json()
        assert plain == off and "inference" not in off
        assert hint(view, seed=seed, deals=deals, inference="OFF").to_json() == plain
        assert hint(view, seed=seed, deals=deals,
                    inference=Inference("off")).to_json() == plain
        q = quick_play(view, seed=seed, deals=deals).to_json()
        assert quick_play(view, seed=seed, deals=deals, inference="off").to_json() == q
        assert "inference" not in q


def test_off_advice_is_the_default():
    hand = ["6-6", "6-5", "6-4", "6-2", "5-5", "3-3", "1-0"]
    auction = [{"seat": "E", "bid": "pass"}, {"seat": "S", "bid": 31}]
    kwargs = {"auction": auction, "deals": 6, "seed": 3, "declarations": ["sixes", "doubles"]}

    def strip(a):
        out = a.to_json()
        out.pop("seconds", None)
        return out
    plain = strip(advise(hand, "W", **kwargs))
    assert strip(advise(hand, "W", inference="off", **kwargs)) == plain
    assert "inference" not in plain


# ------------------------------------------------------------- the brute force


def _calls_weight(view: dict, hands: dict[str, int]) -> float:
    """The product of the other seats' call likelihoods and, when another seat declared,
    the declaration's (none of these auctions has a forced bid)."""
    model = shipped_call_model()
    w = 1.0
    highest = None
    for call in view["auction"]:
        bid = call["bid"]
        if call["seat"] != view["seat"]:
            w *= model.call_likelihood(hands[call["seat"]], bid, highest)
        if bid != "pass" and (highest is None or bid > highest):
            highest = bid
    c = view["contract"]
    if c["declarer"] != view["seat"]:
        w *= model.declaration_likelihood(hands[c["declarer"]], c["trump"], c["bid"])
    return w


def _plays_weight(view: dict, deal: Position) -> float:
    """The play model's probability of each play of another seat after the viewer's last
    play, where that seat had a choice: a softmax over double-dummy loss."""
    temperature = shipped_play_model().temperature["points"]
    plays = view["plays"]
    full = Position({"hands": deal.to_json()["hands"], "contract": view["contract"],
                     "plays": []})
    seats = []
    p = full
    for tile in plays:
        seats.append(SEATS[p.to_move_index])
        p = p.with_plays([T.parse_tile(t, "t") for t in plays[:len(seats)]])
    last = max((i for i, s in enumerate(seats) if s == view["seat"]), default=-1)
    w = 1.0
    for i in range(last + 1, len(plays)):
        assert seats[i] != view["seat"]
        at = full.with_plays([T.parse_tile(t, "t") for t in plays[:i]])
        if len(at.legal_tiles()) < 2:
            continue
        values = DealSolver(at).child_values()
        maximizing = bool(at.maximizer[at.to_move_index])
        sign = 1 if maximizing else -1
        best = max(sign * v for _, v in values)
        terms = {tile: math.exp((sign * v - best) / temperature) for tile, v in values}
        w *= terms[T.parse_tile(plays[i], "t")] / sum(terms.values())
    return w


def _brute_force(view: dict, mode: str):
    """Per move, the weighted mean value and share of makes over every consistent deal,
    and the weights."""
    bid = view["contract"]["bid"]
    rows, weights = [], []
    for deal in iter_deals(View(view)):
        hands = {s: _mask(ts) for s, ts in deal.to_json()["hands"].items()}
        w = 1.0
        if mode in ("auction", "both"):
            w *= _calls_weight(view, hands)
        if mode in ("plays", "both"):
            w *= _plays_weight(view, deal)
        weights.append(w)
        rows.append(dict(DealSolver(deal).child_values()))
    total = math.fsum(weights)
    out = {}
    for tile in rows[0]:
        mean = math.fsum(w * r[tile] for w, r in zip(weights, rows)) / total
        # A point contract of 42 makes when the declaring side ends with >= bid points.
        p_make = math.fsum(w for w, r in zip(weights, rows) if r[tile] >= bid) / total
        out[T.name_of(tile)] = (mean, p_make)
    return out, weights


@pytest.mark.parametrize("view", [FIVES_VIEW, ONES_VIEW], ids=["fives", "ones"])
@pytest.mark.parametrize("mode", ["auction", "plays", "both"])
def test_enumerated_figures_are_the_weighted_brute_force(view, mode):
    count = View(view).completions.count()
    assert count <= 400
    expected, weights = _brute_force(view, mode)
    assert len(weights) == count and min(weights) > 0
    # The weights differ from deal to deal (else this test would test nothing).
    assert max(weights) > 1.5 * min(weights)
    h = hint(view, inference=mode, enumerate_limit=BIG)
    assert h.method == "enumerated" and h.deals == count
    assert set(h.moves) == set(expected)
    for tile, (mean, p_make) in expected.items():
        assert h.moves[tile].mean == pytest.approx(mean, abs=1e-9), tile
        assert h.moves[tile].p_make == pytest.approx(p_make, abs=1e-9), tile
    assert h.inference is not None and h.inference.fallback is None
    assert h.inference.kept == count
    assert h.inference.effective_deals == pytest.approx(effective_deals(weights), rel=1e-9)
    ess = math.fsum(weights) ** 2 / math.fsum(w * w for w in weights)
    assert h.inference.effective_deals == pytest.approx(ess, rel=1e-9)
    assert 1 < ess < count
    out = h.to_json()["inference"]
    assert out["mode"] == mode and out["effective_deals"] == round(ess, 3)
    assert ("calls" in out) == (mode != "plays") and ("plays" in out) == (mode != "auction")
    # The quick play's P(make) is the hint's for the same (every) deal.
    q = quick_play(view, inference=mode, enumerate_limit=BIG)
    for tile, (_, p_make) in expected.items():
        assert q.moves[tile].p_make == pytest.approx(p_make, abs=1e-9), tile
    assert q.inference.effective_deals == pytest.approx(ess, rel=1e-9)


def test_inference_moves_the_figures():
    """On the fives view the auction's weights change a move's figures (the uniform
    answer is not the weighted one)."""
    plain = hint(FIVES_VIEW, enumerate_limit=BIG)
    weighted = hint(FIVES_VIEW, enumerate_limit=BIG, inference="both")
    assert any(abs(plain.moves[t].mean - weighted.moves[t].mean) > 1e-3 for t in plain.moves)


# --------------------------------------------------------------------- no peeking


def _other_true_deal(deal: dict, n_plays: int, seed: int) -> dict:
    """``deal`` with the tiles the viewer cannot see dealt again, consistently with the
    view (so the view is the same): a deal drawn from the view's consistent deals."""
    view = _view_of(deal, n_plays)
    other = sample_deals(View(view), 1, seed)[0].to_json()
    assert other["hands"][view["seat"]] == deal["hands"][view["seat"]]
    return {**deal, "hands": other["hands"]}


@pytest.mark.parametrize("mode", ["auction", "plays", "both"])
def test_enumerated_answer_depends_on_the_view_only(mode):
    other = _other_true_deal(FIVES, 18, seed=5)
    assert other["hands"] != FIVES["hands"]
    a, b = _view_of(FIVES, 18), _view_of(other, 18)
    assert a == b
    ha = hint(a, seed=2, inference=mode, enumerate_limit=BIG).to_json()
    hb = hint(b, seed=2, inference=mode, enumerate_limit=BIG).to_json()
    assert ha == hb and ha["inference"]["mode"] == mode


@pytest.mark.parametrize("mode", ["auction", "both"])
def test_sampled_answer_depends_on_the_view_only(mode):
    n_plays = 10       # trick 3: far too many deals to enumerate
    other = _other_true_deal(FIVES, n_plays, seed=9)
    assert other["hands"] != FIVES["hands"]
    a, b = _view_of(FIVES, n_plays), _view_of(other, n_plays)
    assert a == b and View(a).completions.count() > 1000
    ha = hint(a, seed=4, deals=20, inference=mode).to_json()
    hb = hint(b, seed=4, deals=20, inference=mode).to_json()
    assert ha == hb and ha["method"] == "sampled"
    assert ha["inference"]["kept"] <= 20 and ha["inference"]["drawn"] >= MIN_POOL
    qa = quick_play(a, seed=4, deals=20, inference=mode).to_json()
    assert qa == quick_play(b, seed=4, deals=20, inference=mode).to_json()


# ------------------------------------------------- sampled auction inference


def _sixes(mask: int) -> int:
    return sum(1 for t in T.tiles_of(mask) if 6 in T.ENDS[t])


#: W bid 36 (S passed before, N and E after) and declared sixes, then led the 5-5: N's
#: view at the first trick (far too many deals to enumerate).
SIXES_VIEW = {"seat": "N", "hands": {"N": ["5-4", "5-2", "4-3", "3-1", "2-2", "1-0", "0-0"]},
              "contract": {"declarer": "W", "trump": "sixes", "bid": 36}, "plays": ["5-5"],
              "auction": [{"seat": "S", "bid": "pass"}, {"seat": "W", "bid": 36},
                          {"seat": "N", "bid": "pass"}, {"seat": "E", "bid": "pass"}]}


def test_sampled_auction_keeps_deals_that_fit_the_calls():
    """W bid 36 and declared sixes: the deals picked hold more sixes in W's hand than
    uniform draws of the same view (about 3.7 against 2.1 with these seeds)."""
    view = View(SIXES_VIEW)
    west = SEATS.index("W")
    uniform = [_sixes(_mask(p.to_json()["hands"]["W"])) for p in sample_deals(view, 400, 11)]
    uniform_mean = sum(uniform) / len(uniform)
    for seed in (11, 12):
        dealt = InferredDeals(view, read_inference("auction"), 60, 0, seed, None, False)
        # The distinct deals picked, each as often as it was picked: 60 in all.
        times = [round(math.exp(lw)) for lw in dealt._pending]
        assert not dealt.enumerated and len(dealt.first) == len(times) <= 60 == sum(times)
        assert dealt.report.fallback is None and dealt.source.drawn >= MIN_POOL
        kept = [k * _sixes(m[west] | view.played_by[west]) for m, k in zip(dealt.first, times)]
        kept_mean = sum(kept) / 60
        assert kept_mean >= uniform_mean + 1.0, (seed, kept_mean, uniform_mean)
    # The hint searches the distinct deals picked (60 picks), weighed by how often each
    # was picked, and draws more.
    h = hint(SIXES_VIEW, deals=60, seed=11, inference="auction", threads=1)
    assert h.method == "sampled" and h.deals == h.inference.kept <= 60
    assert h.inference.drawn >= MIN_POOL and h.inference.fallback is None
    assert 0 < h.inference.effective_deals <= h.inference.kept
    # The same seed draws the same deals as InferredDeals does.
    again = hint(SIXES_VIEW, deals=60, seed=11, inference="auction", threads=3)
    assert again.to_json() == h.to_json()


def test_adaptive_weighted_hint_is_seeded_and_bounded():
    """An adaptive hint with weighted deals (the plays' weights: no rejection step, every
    deal drawn is kept) stops by its rule within its budget, and a seed gives the same
    answer whatever the threads."""
    kwargs = {"deals": 10, "max_deals": 60, "seed": 21, "adaptive": True,
              "enumerate_limit": 0, "inference": "plays"}
    a = hint(FIVES_VIEW, threads=1, **kwargs)
    assert a.stopped in ("clear", "budget") and 10 <= a.deals <= 60 and a.deals % 10 == 0
    assert a.inference.kept == a.inference.drawn == a.deals
    assert 0 < a.inference.effective_deals < a.deals
    assert hint(FIVES_VIEW, threads=4, **kwargs).to_json() == a.to_json()
    for m in a.moves.values():
        assert 0 <= m.p_make <= 1 and 0 <= m.p_best <= 1 and 0 <= m.mean <= 42


# ------------------------------------------------------------------------ fallback


class ZeroCalls:
    """A call model under which no call is ever made."""

    def call_likelihood(self, hand, bid, highest):
        return 0.0

    def declaration_likelihood(self, hand, declaration, bid):
        return 0.0

    def to_json(self):
        return {"name": "zero"}


class ZeroPlays(PlayModel):
    """A play model under which no play is ever made."""

    def log_probability(self, values, played, maximizing, unit):
        return -math.inf


def _figures(h):
    return {t: (m.mean, m.p_make, m.p_best) for t, m in h.moves.items()}


def _sentence(text) -> bool:
    return isinstance(text, str) and len(text.split()) >= 4


def test_call_model_that_rules_everything_out_falls_back():
    zero = Inference("auction", calls=ZeroCalls())
    # sampled: every draw rejected, then the same seed's uniform draws
    plain = hint(FIVES_VIEW, seed=8, deals=25, enumerate_limit=0)
    h = hint(FIVES_VIEW, seed=8, deals=25, enumerate_limit=0, inference=zero)
    assert h.method == "sampled" and h.deals == 25
    assert _sentence(h.inference.fallback)
    assert _figures(h) == _figures(plain) and h.best == plain.best
    assert h.inference.effective_deals == 25 and h.inference.kept == 25
    assert h.inference.drawn > 25
    assert h.to_json()["inference"]["calls"] == {"name": "zero"}
    # enumerated: every weight zero, uniform weights
    plain = hint(FIVES_VIEW, enumerate_limit=BIG)
    h = hint(FIVES_VIEW, enumerate_limit=BIG, inference=zero)
    assert h.method == "enumerated" and _sentence(h.inference.fallback)
    for t, (mean, p_make, p_best) in _figures(plain).items():
        assert h.moves[t].mean == pytest.approx(mean, abs=1e-12)
        assert h.moves[t].p_make == pytest.approx(p_make, abs=1e-12)
        assert h.moves[t].p_best == pytest.approx(p_best, abs=1e-12)
    assert h.best == plain.best
    assert h.inference.effective_deals == pytest.approx(h.deals)
    # the quick play too
    q = quick_play(FIVES_VIEW, seed=8, deals=25, enumerate_limit=0, inference=zero)
    assert _sentence(q.inference.fallback) and q.inference.effective_deals > 0
    assert q.to_json()["moves"] == quick_play(FIVES_VIEW, seed=8, deals=25,
                                              enumerate_limit=0).to_json()["moves"]


def test_call_model_that_rules_everything_out_falls_back_in_advice():
    hand = ["6-6", "6-5", "6-4", "6-2", "5-5", "3-3", "1-0"]
    auction = [{"seat": "E", "bid": "pass"}, {"seat": "S", "bid": 31}]
    a = advise(hand, "W", auction=auction, deals=5, seed=3, declarations=["sixes"],
               inference=Inference("auction", calls=ZeroCalls()))
    assert a.deals == 5
    assert _sentence(a.inference.fallback)
    assert a.inference.kept == 5 and a.inference.effective_deals > 0
    assert a.inference.drawn > 5


def test_play_model_that_rules_everything_out_falls_back():
    zero = Inference("plays", plays=ZeroPlays("zero", {"points": 1.0, "tricks": 1.0}))
    plain = hint(FIVES_VIEW, enumerate_limit=BIG)
    h = hint(FIVES_VIEW, enumerate_limit=BIG, inference=zero)
    assert _sentence(h.inference.fallback)
    assert h.inference.effective_deals == pytest.approx(h.deals)
    for t, (mean, p_make, p_best) in _figures(plain).items():
        assert h.moves[t].mean == pytest.approx(mean, abs=1e-12)
        assert h.moves[t].p_make == pytest.approx(p_make, abs=1e-12)
        assert h.moves[t].p_best == pytest.approx(p_best, abs=1e-12)
    # sampled: the same deals as the uniform hint (no rejection step), uniform weights
    plain = hint(FIVES_VIEW, seed=6, deals=20, enumerate_limit=0)
    h = hint(FIVES_VIEW, seed=6, deals=20, enumerate_limit=0, inference=zero)
    assert _sentence(h.inference.fallback) and h.best == plain.best
    for t, (mean, p_make, p_best) in _figures(plain).items():
        assert h.moves[t].mean == pytest.approx(mean, abs=1e-12)
        assert h.moves[t].p_make == pytest.approx(p_make, abs=1e-12)
    assert h.inference.effective_deals == pytest.approx(20)
    q = quick_play(FIVES_VIEW, enumerate_limit=BIG, inference=zero)
    assert _sentence(q.inference.fallback)


# -------------------------------------------------------------------------- errors


@pytest.mark.parametrize("bad", ["maybe", 3, ["auction"], True, ""])
def test_bad_inference_values_are_refused(bad):
    for call in (lambda: hint(FIVES_VIEW, inference=bad),
                 lambda: quick_play(FIVES_VIEW, inference=bad),
                 lambda: advise(["6-6", "6-5", "6-4", "6-2", "5-5", "3-3", "1-0"], "W",
                                deals=2, seed=1, inference=bad)):
        with pytest.raises(PositionError) as e:
            call()
        assert e.value.field == "inference" and e.value.code == "INVALID_OPTION"


def _moon_view() -> dict:
    for line in (CASES / "moon.jsonl").read_text().splitlines():
        case = json.loads(line)
        p = case["position"]
        if "widow" not in p and len(p["plays"]) >= 12 and p["contract"]["declarer"] != "W":
            pos = Position(p)
            seat = SEATS[pos.to_move_index]
            if seat == p["contract"]["declarer"]:
                continue
            return {"game": "moon", "players": len(p["hands"]), "seat": seat,
                    "hands": {seat: p["hands"][seat]}, "contract": p["contract"],
                    "plays": p["plays"]}
    raise AssertionError("no Moon view")


def test_moon_refuses_the_auction_but_reads_plays():
    view = _moon_view()
    for mode in ("auction", "both"):
        with pytest.raises(PositionError) as e:
            hint(view, inference=mode)
        assert e.value.field == "inference" and e.value.code == "INVALID_OPTION"
    h = hint(view, inference="plays", enumerate_limit=BIG)
    assert h.inference is not None and h.unit == "tricks"


def test_advice_refuses_the_plays():
    hand = ["6-6", "6-5", "6-4", "6-2", "5-5", "3-3", "1-0"]
    for mode in ("plays", "both"):
        with pytest.raises(PositionError) as e:
            advise(hand, "W", deals=2, seed=1, inference=mode)
        assert e.value.field == "inference" and e.value.code == "INVALID_OPTION"
    with pytest.raises(PositionError) as e:
        advise(hand, "W", game="moon", deals=2, seed=1, inference="auction")
    assert e.value.field == "inference"


# ------------------------------------------------------------------------ bid advice


def _level(mask: int) -> float:
    model = shipped_call_model()
    return max(model.strength(mask, d) for d in LEVEL_DECLARATIONS)


def _trumps_and_doubles(mask: int) -> int:
    """The most tiles of one pip suit plus the doubles outside it."""
    doubles = {t for t in T.tiles_of(mask) if T.ENDS[t][0] == T.ENDS[t][1]}
    best = 0
    for pip in range(7):
        suit = {t for t in T.tiles_of(mask) if pip in T.ENDS[t]}
        best = max(best, len(suit) + len(doubles - suit))
    return best


def test_advice_with_the_auction_keeps_strong_partners():
    """N (the viewer's partner) bid 36, E and W passed: the advice's deals give N a
    stronger hand than uniform deals (the call model's strength about 16.5 against 12.9,
    the longest suit with the other doubles 5.1 against 4.5, with this seed)."""
    hand = ["6-3", "5-2", "4-1", "3-0", "2-2", "1-0", "0-0"]
    auction = [{"seat": "W", "bid": "pass"}, {"seat": "N", "bid": 36},
               {"seat": "E", "bid": "pass"}]
    kwargs = {"auction": auction, "deals": 40, "seed": 5, "declarations": ["doubles"],
              "return_deals": True}
    weighted = advise(hand, "S", inference="auction", **kwargs)
    uniform = advise(hand, "S", **kwargs)
    # 40 deals picked (each searched once, counted as often as picked); 40 in dealt.
    assert weighted.deals == len(weighted.dealt) == 40 >= weighted.inference.kept
    assert weighted.inference.kept == len({str(d.hands) for d in weighted.dealt})
    assert weighted.inference.drawn >= MIN_POOL
    assert weighted.inference.fallback is None
    assert weighted.to_json()["inference"]["mode"] == "auction"
    assert 0 < weighted.inference.effective_deals <= weighted.inference.kept

    def partner(a):
        return [_mask(d.hands["N"]) for d in a.dealt]
    w_level = sum(map(_level, partner(weighted))) / 40
    u_level = sum(map(_level, partner(uniform))) / 40
    w_td = sum(map(_trumps_and_doubles, partner(weighted))) / 40
    u_td = sum(map(_trumps_and_doubles, partner(uniform))) / 40
    assert w_level >= u_level + 2.0, (w_level, u_level)
    assert w_td >= u_td + 0.5, (w_td, u_td)
    for d in weighted.dealt:
        assert sorted(d.hands["S"]) == sorted(hand)


def test_calls_seen_reads_the_other_seats_calls():
    """The calls judged: every other seat's, with the highest bid before it; the viewer's
    own calls and a bid forced on the last seat after three passes are left out."""
    auction = [{"seat": "S", "bid": "pass"}, {"seat": "W", "bid": 36},
               {"seat": "N", "bid": "pass"}, {"seat": "E", "bid": 37}]
    assert calls_seen(auction, SEATS.index("N")) == [
        CallSeen(2, "pass", None), CallSeen(3, 36, None), CallSeen(1, 37, 36)]
    # bare bids: the seats before the viewer's turn, in order
    assert calls_seen(["pass", 31], SEATS.index("S")) == [
        CallSeen(0, "pass", None), CallSeen(1, 31, None)]
    forced = [{"seat": s, "bid": "pass"} for s in "ESW"] + [{"seat": "N", "bid": 30}]
    assert calls_seen(forced, SEATS.index("E")) == [CallSeen(2, "pass", None),
                                                    CallSeen(3, "pass", None)]
    assert calls_seen(None, 0) == []


# -------------------------------------------------------------- weighted statistics


def test_weighted_statistics():
    values = [3, 7, 7, 12, 0, 42, 19, 19, 5]
    n = len(values)
    plain = mean_estimate(n, sum(values), sum(v * v for v in values))
    weighted = weighted_mean_estimate(float(n), float(sum(values)),
                                      float(sum(v * v for v in values)),
                                      effective_deals([1.0] * n))
    assert weighted.n == plain.n
    for name in ("mean", "sd", "se", "low", "high"):
        assert getattr(weighted, name) == pytest.approx(getattr(plain, name), rel=1e-12)
    assert effective_deals([1.0] * 17) == pytest.approx(17)
    assert effective_deals([0.25] * 9) == pytest.approx(9)
    assert effective_deals([0.0, 0.0, 0.3, 0.0]) == pytest.approx(1)
    assert effective_deals([0.0, 0.0]) == 0.0
    assert effective_deals([1.0, 1.0, 0.0, 0.0]) == pytest.approx(2)


# ----------------------------------------------------------------------------- bots


def test_inference_bots_play_and_call_legally():
    bot = make_bot("advice-auction", seed=1, advice_deals=6, hint_deals=6)
    assert bot.inference == "auction"
    view = View(FIVES_VIEW)
    tile = bot.choose(view)
    assert tile in view.legal_ids()
    early = View(_view_of(SIXES, 3))
    assert bot.choose(early) in early.legal_ids()
    for name in ("advice-plays", "advice-both"):
        other = make_bot(name, seed=2, advice_deals=6, hint_deals=6)
        assert other.choose(view) in view.legal_ids()
    rules = read_rules(None, "42", 4)
    rng = random.Random(4)
    for _ in range(2):
        deal = Dealer("42", 4).deal(rng)
        calls = (Call(1, "pass"), Call(2, 34))
        cv = call_view(rules, 3, deal.hand_ids[3], 0, calls, {"NS": 0, "EW": 0})
        call = bot.call(cv)
        assert call in cv.legal_calls()


class FiveSixesCalls:
    """A call model under which W bids only holding 6-6 6-5 6-4 6-3 6-2 (about one deal in
    2,600 of SIXES_VIEW): a pool of thousands of draws is worth a handful of deals."""

    NEEDED = T.mask_of(T.parse_tile(t, "t") for t in ("6-6", "6-5", "6-4", "6-3", "6-2"))

    def call_likelihood(self, hand, bid, highest):
        return 1.0 if bid == "pass" or hand & self.NEEDED == self.NEEDED else 1e-9

    def declaration_likelihood(self, hand, declaration, bid):
        return 1.0

    def to_json(self):
        return {"name": "five sixes"}


def _pool_effective(view_json: dict, model, seed: int, draws: int) -> float:
    """The effective number of deals of the first ``draws`` uniform draws of a sampled
    view from ``seed`` (the hint's pool), weighed by ``model``'s calls: the weights
    recomputed here from each deal's hands."""
    view = View(view_json)
    weigher = view_weigher(view, model)
    pool = DealPool(view, view_weigher(view, model), seed)
    assert pool.draw(10 ** 9, 10 ** 9, draws) == draws
    log_weights = []
    for places, _ in pool.contents():
        held = [0, 0, 0, 0]
        held[view.seat] = T.mask_of(view.remaining)
        for p, seat in enumerate(view.place_seats):
            if seat is not None:
                held[seat] = T.mask_of(places[p])
        log_weights.append(weigher.log_weight([h | p for h, p in zip(held, view.played_by)]))
    top = max(log_weights)
    return effective_deals([math.exp(lw - top) for lw in log_weights])


def test_a_pool_short_of_the_deals_asked_for_says_so_and_counts_for_what_it_is_worth():
    """With an auction that fits one deal in 500, the draw budget (50 draws per deal
    asked) ends with a pool worth far fewer than the 100 deals asked for: the answer says
    so, and its effective number of deals is at most the pool's, recomputed here."""
    model = FiveSixesCalls()
    h = hint(SIXES_VIEW, deals=100, enumerate_limit=0, seed=2,
             inference=Inference("auction", calls=model))
    report = h.inference
    assert report.drawn == DRAWS_PER_DEAL * 100 and report.fallback is None
    assert report.kept == h.deals <= 100
    pool = _pool_effective(SIXES_VIEW, model, 2, report.drawn)
    assert 1 < pool < 30
    assert report.notes == [f"the calls fit few deals: the {report.drawn} drawn were worth "
                            f"{pool:.1f}, short of the 100 asked for"]
    assert report.effective_deals <= pool + 1e-9


def test_a_flat_first_pool_does_not_stop_the_draws():
    """The first draws may all miss the deals the calls point to and weigh alike (their
    effective number is then all of them): the pool draws at least `min_pool` deals."""
    model = FiveSixesCalls()
    h = hint(SIXES_VIEW, deals=20, enumerate_limit=0, seed=2,   # the first fit: draw 435
             inference=Inference("auction", calls=model))
    assert h.inference.drawn >= MIN_POOL
    assert h.inference.effective_deals <= _pool_effective(SIXES_VIEW, model, 2,
                                                          h.inference.drawn) + 1e-9


_PLAIN = {"seat": "E", "hands": {"E": ["6-6", "6-5", "6-4", "5-0", "4-1", "3-2", "0-0"]},
          "contract": {"declarer": "W", "trump": "fours", "bid": 30}, "plays": ["1-1", "2-2"]}


@pytest.mark.parametrize("auction,field,code", [
    ([{"seat": "N", "bid": 30}, {"seat": "E", "bid": 30}], "auction[1].bid", "BID_NOT_HIGHER"),
    ([{"seat": "N", "bid": 25}], "auction[0].bid", "INVALID_VALUE"),
    ([{"seat": "N", "bid": 50}], "auction[0].bid", "INVALID_VALUE"),
])
def test_an_auction_the_model_cannot_read_is_refused_naming_the_call(auction, field, code):
    """A view's auction never changes which deals are consistent, so a plain hint takes
    any; with inference, a bid that is no bid of 42 or not above the last is an error
    naming it, never a traceback."""
    view = {**_PLAIN, "auction": auction}
    assert hint(view, deals=5, seed=1).deals == 5
    with pytest.raises(PositionError) as e:
        hint(view, deals=5, seed=1, inference="auction")
    assert (e.value.field, e.value.code) == (field, code)


def test_a_declaration_house_rules_allow_is_weighed():
    """Nello on one mark (a house rule) is read, not refused: the softmax takes it in."""
    view = {"seat": "N", "hands": {"N": ["6-6", "6-5", "6-4", "5-0", "4-1", "3-2", "0-0"]},
            "contract": {"declarer": "W", "trump": "nello", "bid": 42}, "plays": ["1-0"],
            "auction": [{"seat": "W", "bid": 42}, {"seat": "N", "bid": "pass"},
                        {"seat": "E", "bid": "pass"}, {"seat": "S", "bid": "pass"}]}
    h = hint(view, deals=10, seed=1, inference="auction")
    assert h.inference.kept == 10 and h.inference.fallback is None
    p = shipped_call_model().declaration_likelihood(_mask(["1-0", "2-0", "3-0", "2-1", "3-1",
                                                          "0-0", "1-1"]), "nello", 42)
    assert 0 < p < 1


def test_advice_reads_a_plunge_in_the_auction():
    """A plunge earlier in the auction stands for its 4 marks: bid advice takes it (with
    inference and without), and the advice bot with inference calls after one."""
    hand = ["6-5", "5-4", "4-3", "3-2", "2-1", "1-0", "6-0"]
    auction = [{"seat": "N", "bid": "plunge"}, {"seat": "E", "bid": "pass"}]
    for inference in ("off", "auction"):
        advice = advise(hand, "S", auction=auction, deals=6, seed=2, inference=inference,
                        declarations=["sixes"])
        assert advice.highest_bid == 168
        assert advice.recommendation.bid is None or advice.recommendation.bid > 168
    rules = read_rules({}, "42", 4)
    calls = (Call(0, "plunge"), Call(1, "pass"))
    view = call_view(rules, 2, tuple(T.parse_tile(t, "t") for t in hand), 3, calls)
    bot = make_bot("advice-auction", 1, hint_deals=6, advice_deals=6)
    assert bot.call(view) in view.legal_calls()
