"""A model of how the ``advice`` bot calls and declares in 42, for inference.

Inference weighs each deal consistent with a seat's view by how likely the other
seats were to make the calls they made with the hands the deal gives them
(docs/guides/players.md, "Inference"). This module says how likely: a small fitted
model of the ``advice`` bot (`solver.play.bots.AdviceBot`: it bids the highest bid
whose calibrated chance to make reaches 0.75, else passes, and names the declaration
its bid advice ranked best at the winning bid), cheap enough to evaluate for every deal of a sample.

* Strength. For each declaration ``d`` a strength ``S_d(h) = alpha_g + sum_k
  beta_g[k] * x_k(h, d)``, linear in a few counts of the hand (`features`), one set
  of weights per group ``g`` (the seven pip suits share theirs, with ``alpha`` 0).
  The hand's strength is ``S(h) = max_d S_d(h)`` over every declaration but nello
  (`LEVEL_DECLARATIONS`): the advice bot bids nello rarely (8 of 1266 declarations in
  the fitting games), and with nello in the max its few-parameter strength acted as
  a floor for weak hands, no better on held-out calls.
* Calls. A latent level ``L`` over `LEVELS` (30..41 points, 42 for one mark, 84 for
  two marks or more) with ``P(L >= b | h) = sigmoid(S(h) - c_b)`` for increasing
  cutpoints ``c_b``. The seat bids its level when that is above the highest bid so
  far, else passes: a bid at level ``b`` has ``P(L >= b) - P(L >= b')`` (``b'`` the
  next level it could have bid, none for the top), a pass ``1 - P(L >= b0)`` (``b0``
  the lowest level it could have bid). A bid of more marks than two stands for the
  top level. Plunge and splash calls are not modelled (likelihood 1).
* Declarations. A softmax of ``kappa * S_d(h)`` over the declarations the rules
  allow at the bid (default 42 rules: sevens from one mark, nello from two).

The parameters are fitted by ``bench/fit_inference.py calls`` and shipped in
``data/call_model.json``; `shipped_call_model` loads them once.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..game import tiles as T
from ..game.auction import (
    ONE_MARK,
    PASS,
    SPECIAL_CALLS,
    GameRules,
    bids_over,
    legal_declarations,
)
from ..game.errors import PositionError
from ..game.rules import PIP_NAMES, parse_declaration

MODEL_FILE = Path(__file__).resolve().parent / "data" / "call_model.json"

#: The latent call levels: 30..41 points, one mark, two marks or more.
LEVELS: tuple[int, ...] = tuple(range(30, 42)) + (ONE_MARK, 2 * ONE_MARK)
#: Every declaration of 42, in the order of the strength tables (groups contiguous).
DECLARATIONS: tuple[str, ...] = PIP_NAMES + ("doubles", "follow-me", "sevens", "nello")
#: The declarations whose strength sets the hand's call level.
LEVEL_DECLARATIONS: tuple[str, ...] = DECLARATIONS[:-1]
GROUPS: tuple[str, ...] = ("pip", "doubles", "follow-me", "sevens", "nello")
GROUP_OF: dict[str, str] = {d: ("pip" if d in PIP_NAMES else d) for d in DECLARATIONS}
#: The features of each group, in the order of its weights.
FEATURE_NAMES: dict[str, tuple[str, ...]] = {
    "pip": ("trumps", "trump_double", "top3_trumps", "other_doubles", "count",
            "long_trumps", "other_doubles_x_trumps"),
    "doubles": ("doubles", "top3_doubles", "count"),
    "follow-me": ("doubles", "top3_doubles", "count"),
    "sevens": ("sevens", "six_or_eight", "five_or_nine"),
    "nello": ("doubles", "low_tiles", "high_tiles"),
}

_RULES = GameRules()
_LOWEST = 1e-12


def _mask(pred) -> int:
    return T.mask_of(t for t in range(T.N_TILES) if pred(*T.ENDS[t]))


def _top3(pip: int) -> int:
    """The three highest trumps of pip suit ``pip``: the double, then by the other end."""
    others = sorted((o for o in range(7) if o != pip), reverse=True)[:2]
    return T.mask_of([T.index_of(pip, pip)] + [T.index_of(pip, o) for o in others])


_DOUBLES = T.mask_of(T.DOUBLES)
_TOP3_DOUBLES = T.mask_of([T.index_of(p, p) for p in (6, 5, 4)])
_COUNT10 = _mask(lambda h, l: h + l == 10)
_COUNT5 = _mask(lambda h, l: h + l == 5)
_SUIT = tuple(_mask(lambda h, l, p=p: p in (h, l)) for p in range(7))
_PIP_DOUBLE = tuple(1 << T.index_of(p, p) for p in range(7))
_PIP_TOP3 = tuple(_top3(p) for p in range(7))
_SEVEN = _mask(lambda h, l: h + l == 7)
_SIX_EIGHT = _mask(lambda h, l: h + l in (6, 8))
_FIVE_NINE = _mask(lambda h, l: h + l in (5, 9))
_LOW = _mask(lambda h, l: h + l <= 4 and h != l)
_HIGH = _mask(lambda h, l: h >= 5 and h != l)


def _count(hand: int) -> float:
    return (2 * (hand & _COUNT10).bit_count() + (hand & _COUNT5).bit_count()) / 1.0


def features(hand: int, declaration: str) -> tuple[float, ...]:
    """The counts of ``hand`` the strength of ``declaration`` is linear in
    (`FEATURE_NAMES` of its group): count points are in fives (10 = 2); a pip suit's
    ``long_trumps`` are its trumps beyond three, ``other_doubles_x_trumps`` the other
    doubles times the trumps / 7 (off doubles are worth more with trump control)."""
    group = GROUP_OF[declaration]
    if group == "pip":
        p = PIP_NAMES.index(declaration)
        trumps = (hand & _SUIT[p]).bit_count()
        other_doubles = (hand & _DOUBLES & ~_PIP_DOUBLE[p]).bit_count()
        return (trumps, 1 if hand & _PIP_DOUBLE[p] else 0, (hand & _PIP_TOP3[p]).bit_count(),
                other_doubles, _count(hand), max(0, trumps - 3), other_doubles * trumps / 7)
    if group in ("doubles", "follow-me"):
        return ((hand & _DOUBLES).bit_count(), (hand & _TOP3_DOUBLES).bit_count(),
                _count(hand))
    if group == "sevens":
        return ((hand & _SEVEN).bit_count(), (hand & _SIX_EIGHT).bit_count(),
                (hand & _FIVE_NINE).bit_count())
    return ((hand & _DOUBLES).bit_count(), (hand & _LOW).bit_count(),
            (hand & _HIGH).bit_count())


def level_of(bid: int) -> int:
    """The level a bid stands for: itself for 30..42, two marks for any mark bid above."""
    if bid >= 2 * ONE_MARK:
        return 2 * ONE_MARK
    if bid >= ONE_MARK:
        return ONE_MARK
    if bid < LEVELS[0]:
        raise ValueError(f"no bid of 42 is {bid} (bids are 30..41 points or 42*k marks)")
    return bid


@functools.cache
def _legal_levels(highest: int | None) -> tuple[int, ...]:
    """Indices into `LEVELS` of the bids the default 42 rules allow over ``highest``."""
    levels = sorted({LEVELS.index(level_of(b)) for b in bids_over(_RULES, highest)})
    return tuple(levels)


@functools.cache
def call_levels(bid: int | str, highest: int | None, forced: bool = False) -> tuple[int, int]:
    """(lo, hi) level indices with ``P(call) = P(L >= lo) - P(L >= hi)``, where -2 stands
    for "always" (a pass: 1 - P(L >= hi)) and -1 for "never" (a top bid: P(L >= lo)).
    (-2, -1) when the call says nothing (no bid was possible). ``forced``: the seat may
    not pass (the shaker after three passes), so its lowest bid takes the pass's share.
    ValueError for a bid that is not above ``highest`` (or a forced pass)."""
    legal = _legal_levels(highest)
    if bid == PASS:
        if forced and legal:
            raise ValueError("the seat may not pass: every other seat passed")
        return (-2, legal[0]) if legal else (-2, -1)
    if isinstance(bid, str):
        raise ValueError(f"unknown call {bid!r} (pass, a bid, plunge or splash)")  # noqa: TRY004
    if isinstance(bid, bool) or not isinstance(bid, int):
        raise TypeError(f"a call is a string or a whole number, not {type(bid).__name__}")
    if highest is not None and bid <= highest:
        raise ValueError(f"a bid of {bid} is not above the highest bid {highest}")
    lo = LEVELS.index(level_of(bid))
    higher = [i for i in legal if i > lo]
    hi = higher[0] if higher else -1
    if forced and legal and lo <= legal[0]:
        return -2, hi
    return lo, hi


class CallModel:
    """The fitted call and declaration model, from its parameters ``doc`` (the JSON that
    `bench/fit_inference.py` writes)."""

    def __init__(self, doc: Mapping[str, Any]) -> None:
        self.doc = doc
        self.name: str = doc["name"]
        self.cutpoints: tuple[float, ...] = tuple(float(c) for c in doc["cutpoints"])
        if tuple(doc["levels"]) != LEVELS or len(self.cutpoints) != len(LEVELS):
            raise ValueError("the call model's levels are not this module's")
        self.kappa = float(doc["kappa"])
        groups = doc["groups"]
        self._weights: list[tuple[float, tuple[float, ...]]] = []
        for d in DECLARATIONS:
            g = groups[GROUP_OF[d]]
            beta = tuple(float(g["beta"][n]) for n in FEATURE_NAMES[GROUP_OF[d]])
            self._weights.append((float(g["alpha"]), beta))
        self._cache: dict[int, tuple[float, ...]] = {}
        self._build_evaluator()

    def _build_evaluator(self) -> None:
        """One flat function of the hand for all the strengths (no per-feature calls)."""
        w = {d: wb for d, wb in zip(DECLARATIONS, self._weights)}
        pip_a, pip_b = w["blanks"]
        a_dbl, b_dbl = w["doubles"]
        a_fm, b_fm = w["follow-me"]
        a_sv, b_sv = w["sevens"]
        a_ne, b_ne = w["nello"]
        suits = tuple(zip(_SUIT, _PIP_DOUBLE, _PIP_TOP3))
        b0, b1, b2, b3, b4, b5, b6 = pip_b
        b6 /= 7

        def evaluate(hand: int) -> tuple[float, ...]:
            doubles = (hand & _DOUBLES).bit_count()
            top = (hand & _TOP3_DOUBLES).bit_count()
            count = 2 * (hand & _COUNT10).bit_count() + (hand & _COUNT5).bit_count()
            base = pip_a + b3 * doubles + b4 * count
            out = []
            for suit, dbl, top3 in suits:
                held = 1 if hand & dbl else 0
                trumps = (hand & suit).bit_count()
                out.append(base + b0 * trumps + (b1 - b3) * held
                           + b2 * (hand & top3).bit_count()
                           + (b5 * (trumps - 3) if trumps > 3 else 0.0)
                           + b6 * (doubles - held) * trumps)
            out.append(a_dbl + b_dbl[0] * doubles + b_dbl[1] * top + b_dbl[2] * count)
            out.append(a_fm + b_fm[0] * doubles + b_fm[1] * top + b_fm[2] * count)
            out.append(a_sv + b_sv[0] * (hand & _SEVEN).bit_count()
                       + b_sv[1] * (hand & _SIX_EIGHT).bit_count()
                       + b_sv[2] * (hand & _FIVE_NINE).bit_count())
            out.append(a_ne + b_ne[0] * doubles + b_ne[1] * (hand & _LOW).bit_count()
                       + b_ne[2] * (hand & _HIGH).bit_count())
            out.append(max(out[:-1]))   # the level: every declaration but nello
            return tuple(out)

        self._evaluate = evaluate

    def _strengths(self, hand: int) -> tuple[float, ...]:
        """The strength of every declaration (`DECLARATIONS` order), then their max."""
        s = self._cache.get(hand)
        if s is None:
            if len(self._cache) > 50_000:   # about 8 MB
                self._cache.clear()
            s = self._cache[hand] = self._evaluate(hand)
        return s

    def strength(self, hand: int, declaration: str) -> float:
        """``S_d(h)``: the strength of ``hand`` for ``declaration`` (any alias)."""
        return self._strengths(hand)[_declaration_index(declaration)]

    def _at_least(self, s: float, level: int) -> float:
        z = s - self.cutpoints[level]
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)

    def call_likelihood(self, hand: int, bid: int | str, highest: int | None,
                        forced: bool = False) -> float:
        """How likely the advice bot holding ``hand`` makes call ``bid`` (pass, a bid,
        plunge or splash) after the highest bid ``highest`` (None: no bid yet).
        ``forced``: the seat could not pass (the shaker after three passes under
        ``all_pass: "forced"``); its lowest bid then stands for every hand that would
        have passed. The fit leaves forced calls out, as the model's other callers may."""
        if isinstance(bid, str) and bid in SPECIAL_CALLS:
            return 1.0
        lo, hi = call_levels(bid, highest, forced)
        s = self._strengths(hand)[-1]
        p = (1.0 if lo == -2 else self._at_least(s, lo)) - \
            (0.0 if hi == -1 else self._at_least(s, hi))
        return max(_LOWEST, p)

    def call_bound(self, bid: int | str, highest: int | None) -> float:
        """The largest `call_likelihood` of this call over every strength of hand: 1 for a
        pass, a top bid or a special call; for a bid between two levels with cutpoints
        ``a < b``, ``sigmoid(s - a) - sigmoid(s - b)`` is largest at ``s = (a + b) / 2``,
        where it is ``tanh((b - a) / 4)``. Inference divides by it, so that the product
        over the calls is a probability of keeping a deal that is as large as it may be."""
        if isinstance(bid, str) and bid in SPECIAL_CALLS:
            return 1.0
        lo, hi = call_levels(bid, highest)
        if lo == -2 or hi == -1:
            return 1.0
        return max(_LOWEST, math.tanh((self.cutpoints[hi] - self.cutpoints[lo]) / 4))

    def declaration_likelihood(self, hand: int, declaration: str, bid: int) -> float:
        """How likely the advice bot holding ``hand`` names ``declaration`` having won the
        auction at ``bid`` (a softmax over the declarations allowed at that bid; one the
        default rules do not allow there, as house rules may, e.g. nello on one mark,
        joins them)."""
        index = _declaration_index(declaration)
        allowed = _allowed_indices(bid)
        if index not in allowed:
            allowed = allowed + (index,)
        s = self._strengths(hand)
        k = self.kappa
        top = max(s[i] for i in allowed)
        total = sum(math.exp(k * (s[i] - top)) for i in allowed)
        p = math.exp(k * (s[index] - top)) / total
        return max(_LOWEST, p)

    def to_json(self) -> dict:
        """A short description for answers: the name, what it was fitted on, how well
        it predicts held-out calls."""
        fitted = self.doc.get("fitted_on", {})
        valid = self.doc.get("validation", {})
        return {"name": self.name,
                "describes": "the advice bot's calls and declarations (42)",
                "fitted_on": {k: fitted[k] for k in ("records", "seed", "calls", "declarations")
                              if k in fitted},
                "validation": {k: valid[k] for k in ("seed", "calls", "declarations",
                                                     "mean_log_likelihood") if k in valid}}


_INDEX: dict[object, int] = {d: i for i, d in enumerate(DECLARATIONS)}


def _declaration_index(declaration: str) -> int:
    """The index in `DECLARATIONS` of a declaration name or alias; ValueError if none."""
    index = _INDEX.get(declaration)
    if index is not None:
        return index
    try:
        return _INDEX[parse_declaration(declaration, "declaration").name]
    except PositionError as e:
        raise ValueError(str(e)) from None


def allowed_declarations(bid: int) -> tuple[str, ...]:
    """The declarations the default 42 rules allow on a winning bid of ``bid``."""
    return legal_declarations(_RULES, bid)


@functools.cache
def _allowed_indices(bid: int) -> tuple[int, ...]:
    return tuple(DECLARATIONS.index(d) for d in allowed_declarations(bid))


@functools.cache
def shipped_call_model() -> CallModel:
    """The model fitted on the advice bot's games, from ``data/call_model.json``."""
    return CallModel(json.loads(MODEL_FILE.read_text()))
