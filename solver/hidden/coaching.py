"""Coaching from the seat's view: every call, declaration, discard and play of a hand
graded by what its seat knew, mistakes apart from luck (docs/guides/coaching.md).

Hand analysis (`solver.search.analysis`) says what each play cost with every hand open.
That blames a player for where the hidden tiles lay. Here each decision is graded from
its seat's view alone:

* a **play** by the deals consistent with the seat's tiles, the calls and the plays
  before it (every one when there are at most ``enumerate_limit``, else ``deals`` drawn
  from ``seed``, as the hint draws them): each legal tile's value on each deal, double
  dummy (or, with ``search="postponed"``, by the seat-view search of
  `solver.hidden.seat_view`);
* a **call** by bid advice (`advise`) with the caller's seven tiles and the calls before
  it, the benchmark being the advised call; the winner's **declaration** by the same
  advice, each declaration at the winning bid;
* the three-player Moon declarer's **declaration and discard** by the deals of the two
  other hands consistent with its eight tiles, every trump and discard searched on each.

A decision's losses are against the best option, over the same deals: in points (tricks
in nello and Moon) against the option with the best mean, in the chance of its side's
goal (make for the declaring side, set for the defenders) and in expected marks against
the option most likely to reach it; calls and declarations in expected marks only. Each
loss comes with a paired 95% interval, the two options compared on the same deals: a t
interval of the per-deal differences (exact, a single point, when every consistent deal
was used), or for bid advice's calibrated figures, which are no mean over the deals, a
paired bootstrap. A decision is a **mistake** only when an interval lies wholly above its
threshold (`MISTAKE_POINTS`, `MISTAKE_TRICKS`, `MISTAKE_MARKS`).

**Skill, information and luck.** Every play (and the three-player Moon discard) moves
the double-dummy value of the hand, the declaring side's points (`HandAnalysis`'s value),
from ``dd_before`` to ``dd_after``. Write ``u(o, d)`` for the value after option ``o`` on
deal ``d`` for the seat's side (the value itself when its side wants it high, its
negative when low), ``E`` for the mean over the deals the grade used, ``k`` for the
option chosen and ``t`` for the true deal. Then ``dd_after - dd_before``, for the seat's
side, is ``u(k, t) - max_o u(o, t)`` (before the play, the value counts the option best
on this deal), and it splits into three terms:

* **skill**, ``E u(k) - max_o E u(o)``: minus the points loss, what the choice gave up
  against the option best over the deals (0 for that option);
* **information**, ``max_o E u(o) - E[max_o u(o, d)]``: minus the **price of hidden
  information** (``information_price``, never below 0), what the seat's side gives up
  on average over its deals because it must choose one option for all of them while the
  double-dummy value picks the best one on each (0 when one deal fits the view, or one
  option is legal);
* **luck**, the rest: ``(u(k, t) - E u(k)) - (max_o u(o, t) - E max_o u(o))``, how far
  the true deal sits from the average deal for the option chosen, less the same for the
  value before. Its mean over the grade's deals, were the true deal any one of them, is
  exactly 0.

Each term is turned into the declaring side's points like the value (times -1 when the
seat's side wants the value low): ``skill + information + luck = dd_after - dd_before``.
The changes telescope, so over a hand the sum of the three is the double-dummy value at
the start (the opening lead; before the discard in three-player Moon) taken from the
final value (the result, once every trick is played): an identity, kept exactly in
fractions. A seat's own figures (`SeatGrades`) turn them to its side: its skill and its
information are then never above 0, its luck has mean 0 over deals it cannot tell
apart.

This module joins the search (hand analysis, the solver) and the hidden-hand layer
(hints, bid advice), so it lives in the hidden layer, as `game_analysis` does.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

from ..game import tiles as T
from ..game.auction import SEATS, SPECIAL_CALLS, GameRules, legal_declarations, marks_of
from ..game.call_view import CallView, call_view
from ..game.errors import PositionError
from ..game.game_record import GameRecord, HandRecord
from ..game.position import MOON3_SET, Position
from ..game.view import View, seat_view
from ..search._core import CancelToken
from ..search.analysis import HandAnalysis, RecordLike, analyze_hand, parse_record
from ..search.discard import MOON_DECLARATIONS, best_discards
from .bidding import BidAdvice, DeclarationAdvice, advise
from .deals import MAX_ENUMERATION_LIMIT, DealBuilder, check_deal_count, check_seed
from .hint import DEFAULT_ENUMERATION_LIMIT, DealScorer, start_dealing
from .seat_view import DEFAULT_DEPTH, MAX_DEPTH, seat_view_values
from .stats import mean_of

#: Deals per play (and per three-player Moon discard), and their seed, unless asked
#: otherwise; every decision is dealt from the same seed, so a grading repeats exactly.
DEFAULT_DEALS = 100
DEFAULT_SEED = 42
#: Deals of bid advice per call, and its seed (as `t42 analyze`'s call analysis).
DEFAULT_ADVICE_DEALS = 100
DEFAULT_ADVICE_SEED = 42

#: A decision is a mistake only when a loss's 95% interval lies wholly above its
#: threshold: 2 points of 42 (a third of a trick's worth), half a trick in nello and
#: Moon, or a quarter of a mark in expected marks (Moon: 0.75 of the game's points, a
#: game being 21 points against 7 marks).
MISTAKE_POINTS = 2.0
MISTAKE_TRICKS = 0.5
MISTAKE_MARKS = {"42": 0.25, "moon": 0.75}

#: How plays are valued on each deal: double dummy (as the hint), or by the seat-view
#: search with postponed reasoning over the seat's own next decisions.
SEARCHES = ("double-dummy", "postponed")

#: The kinds of decision, in the order a hand makes them.
KINDS = ("call", "declaration", "discard", "play")

#: Resamples of the paired bootstrap that gives calibrated figures their intervals.
BOOTSTRAP_RESAMPLES = 1000

#: Moon's lowest bid that bid advice scores (a house minimum may go lower).
_ADVICE_MOON_LOW = 4


# ------------------------------------------------------------------------- results


def _rounded(x: float | Fraction | None) -> float | None:
    return None if x is None else round(float(x), 6)


@dataclass(frozen=True)
class Loss:
    """What a choice gave up against the best option, averaged over the seat's deals, with
    a paired 95% interval (the per-deal differences of the two options on the same deals).

    Attributes:
        value: The mean loss (>= 0 against the best option; a `Fraction` when it is an
            exact mean of whole numbers).
        low: The interval's low end (None when one deal gives no interval).
        high: ... and its high end.
        exact: Whether every consistent deal was used (the interval is the value).

    >>> Loss(Fraction(5, 2), 2.5, 2.5, True).clear_of(2.0)
    True
    """

    value: Fraction | float
    low: float | None
    high: float | None
    exact: bool

    def clear_of(self, threshold: float) -> bool:
        """Whether the whole interval lies above ``threshold``."""
        return self.low is not None and self.low > threshold

    def to_json(self) -> dict:
        """``{"value", "low", "high", "exact"}``."""
        return {"value": _rounded(self.value), "low": _rounded(self.low),
                "high": _rounded(self.high), "exact": self.exact}


#: The loss of a choice that was the only one, or worth the best on every deal.
NO_LOSS = Loss(Fraction(0), 0.0, 0.0, True)


@dataclass(frozen=True)
class OptionFigures:
    """One option of a decision, valued from the seat's view (`DecisionGrade.options`).

    Attributes:
        option: A tile, a call (``"pass"``, ``"30"``, ``"plunge"``) or a declaration.
        mean: The mean double-dummy value after it (the declaring side's points; tricks
            in nello and Moon); None for calls and make-or-set declarations.
        p_make: The declaring side's P(make) after it (calls and declarations: bid
            advice's, calibrated in 42); None for a pass.
        e_marks: The expected marks of the deciding seat's side (Moon: the game's points).
        declaration: The declaration a call is valued in (its best at that bid).
    """

    option: str
    mean: float | None
    p_make: float | None
    e_marks: float | None
    declaration: str | None = None

    def to_json(self) -> dict:
        """``{"option", "mean", "p_make", "e_marks"}`` (and ``declaration`` for a call)."""
        out: dict[str, Any] = {"option": self.option, "mean": _rounded(self.mean),
                               "p_make": _rounded(self.p_make), "e_marks": _rounded(self.e_marks)}
        if self.declaration is not None:
            out["declaration"] = self.declaration
        return out


@dataclass(frozen=True)
class DecisionGrade:
    """One decision graded from its seat's view (`HandGrades.decisions`).

    Attributes:
        kind: ``"call"``, ``"declaration"``, ``"discard"`` or ``"play"``.
        seat: Who decided.
        choice: What it chose (a call, a declaration, a tile).
        best: The benchmark option: for plays and discards the one with the best mean
            (the points loss is against it); for calls the advised call; for declarations
            the one most likely to make.
        best_for_make: Plays and discards: the option most likely to reach the seat's
            side's goal (the P(make) and marks losses are against it); else ``best``.
        options: Every option's figures, best first.
        method: ``"enumerated"`` (every consistent deal), ``"sampled"``, ``"forced"`` (one
            legal option) or ``"ungraded"`` (``note`` says why).
        deals: The deals the options were valued on.
        count: The deals consistent with the seat's view (None when not counted).
        unit: The unit of ``loss``: ``"points"`` or ``"tricks"``; None for calls and
            declarations, graded in marks.
        loss: The loss in ``unit`` (plays, discards, the three-player Moon declaration).
        p_make_loss: The loss in the chance of the seat's side's goal (make for the
            declaring side, set for the defenders); None for calls.
        marks_loss: The loss in expected marks (Moon: the game's points).
        mistake: Whether a loss's interval lies wholly above its threshold.
        index: The call's place in the auction or the play's in the hand (0 first).
        trick: A play's trick (1 first).
        note: Why a decision is ungraded, or how it was valued when that needs saying.
        dd_before: Plays and the discard: the double-dummy value before the decision
            (the declaring side's points, as `HandAnalysis`).
        dd_after: ... and after it.
        dd_cost: What it cost the seat's side double dummy (`PlayAnalysis.cost`).
        skill: Its skill term, in the declaring side's points: minus the points loss
            when the seat's side wants the value high (the declaring side, bar nello's
            declarer), plus it when low.
        luck: ``dd_after - dd_before - skill - information``.
        information_price: Plays, discards and the three-player Moon declaration: the
            price of hidden information for the seat's side, in ``unit`` (>= 0): the
            mean over the deals of the best option's value on each deal, less the best
            option's mean (what choosing one option for every deal gives up; 0 with one
            deal or one legal option).
        information: Plays and the discard: the information term, in the declaring
            side's points as ``skill``: minus ``information_price`` when the seat's
            side wants the value high, plus it when low.
    """

    kind: str
    seat: str
    choice: str
    best: str | None
    best_for_make: str | None
    options: tuple[OptionFigures, ...]
    method: str
    deals: int
    count: int | None
    unit: str | None
    loss: Loss | None
    p_make_loss: Loss | None
    marks_loss: Loss | None
    mistake: bool
    index: int = 0
    trick: int | None = None
    note: str | None = None
    dd_before: int | None = None
    dd_after: int | None = None
    dd_cost: int | None = None
    skill: Fraction | None = None
    luck: Fraction | None = None
    information_price: Fraction | float | None = None
    information: Fraction | None = None

    @property
    def graded(self) -> bool:
        """Whether the decision has figures (not ``ungraded``)."""
        return self.method != "ungraded"

    def to_json(self) -> dict:
        """The grade's JSON, as `t42 analyze --seat-view --json` writes it."""
        out: dict[str, Any] = {
            "kind": self.kind, "index": self.index, "seat": self.seat, "choice": self.choice}
        if self.trick is not None:
            out["trick"] = self.trick
        out.update({
            "best": self.best, "best_for_make": self.best_for_make, "method": self.method,
            "deals": self.deals, "count": self.count, "unit": self.unit,
            "loss": None if self.loss is None else self.loss.to_json(),
            "p_make_loss": None if self.p_make_loss is None else self.p_make_loss.to_json(),
            "marks_loss": None if self.marks_loss is None else self.marks_loss.to_json(),
            "mistake": self.mistake})
        if self.information_price is not None:
            out["information_price"] = _rounded(self.information_price)
        if self.dd_before is not None:
            out.update({"dd_before": self.dd_before, "dd_after": self.dd_after,
                        "dd_cost": self.dd_cost, "skill": _rounded(self.skill),
                        "information": _rounded(self.information),
                        "luck": _rounded(self.luck)})
        if self.note is not None:
            out["note"] = self.note
        out["options"] = [o.to_json() for o in self.options]
        return out


@dataclass(frozen=True)
class SeatGrades:
    """A seat's decisions in a hand, summed up (`HandGrades.seats`).

    Attributes:
        decisions: Decisions graded.
        mistakes: ... of which mistakes.
        loss: The points (tricks) its plays and discard gave up in expectation.
        marks_loss: The expected marks all its decisions gave up.
        skill: Its plays' and discard's skill, for its own side (what it gave up, <= 0).
        information: Their information term, for its own side (<= 0: minus the price of
            hidden information its plays and discard paid).
        luck: Their luck, for its own side.
    """

    decisions: int = 0
    mistakes: int = 0
    loss: Fraction | float = Fraction(0)
    marks_loss: float = 0.0
    skill: Fraction = Fraction(0)
    luck: Fraction = Fraction(0)
    information: Fraction = Fraction(0)

    def to_json(self) -> dict:
        """The summary's JSON (fractions as rounded numbers)."""
        return {"decisions": self.decisions, "mistakes": self.mistakes,
                "loss": _rounded(self.loss), "marks_loss": _rounded(self.marks_loss),
                "skill": _rounded(self.skill), "information": _rounded(self.information),
                "luck": _rounded(self.luck)}


@dataclass
class HandGrades:
    """A hand's decisions graded from each seat's view, and its skill, information and
    luck, as `grade_hand` returns it (and `grade_game` per hand).

    Attributes:
        decisions: Every decision graded, in the order they were made.
        analysis: The hand's double-dummy analysis (None without a contract).
        dd_start: The double-dummy value where the identity starts: at the opening
            lead, or before the discard in three-player Moon (None without a contract).
        index: The hand's place in a game (None for a hand record).
        id: The hand record's ``id``.
        meta: The hand record's ``meta``.
        seats: Each seat's `SeatGrades`.
        settings: A hand record's: the deals, seed and search its grades used (a game's
            hands leave them to `GameGrades.settings`).
    """

    decisions: list[DecisionGrade]
    analysis: HandAnalysis | None
    dd_start: int | None
    index: int | None = None
    id: Any = None
    meta: dict | None = None
    seats: dict[str, SeatGrades] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def dd_final(self) -> int | None:
        """The double-dummy value after the last play: the result once every trick is
        played."""
        return None if self.analysis is None else self.analysis.final_value

    @property
    def skill(self) -> Fraction:
        """The sum of the decisions' skill (declaring side's points)."""
        return sum((d.skill for d in self.decisions if d.skill is not None), Fraction(0))

    @property
    def luck(self) -> Fraction:
        """The sum of the decisions' luck (declaring side's points)."""
        return sum((d.luck for d in self.decisions if d.luck is not None), Fraction(0))

    @property
    def information(self) -> Fraction:
        """The sum of the decisions' information terms (declaring side's points)."""
        return sum((d.information for d in self.decisions if d.information is not None),
                   Fraction(0))

    @property
    def dd_change(self) -> int:
        """``dd_final - dd_start`` (0 without a contract): what skill, information and luck
        add up to."""
        if self.dd_start is None or self.dd_final is None:
            return 0
        return self.dd_final - self.dd_start

    @property
    def mistakes(self) -> list[DecisionGrade]:
        """The decisions that are mistakes, in order."""
        return [d for d in self.decisions if d.mistake]

    def to_json(self) -> dict:
        """The hand's grades as JSON, as `t42 analyze --seat-view --json` writes them."""
        out: dict[str, Any] = {}
        if self.index is not None:
            out["hand"] = self.index
        if self.id is not None:
            out["id"] = self.id
        if self.meta is not None:
            out["meta"] = self.meta
        if self.settings:
            out["seat_view"] = dict(self.settings)
        a = self.analysis
        if a is not None:
            out.update({"game": a.position.game, "contract": a.contract.to_json(),
                        "unit": a.unit, "value": a.value, "dd_start": self.dd_start,
                        "result": a.result, "complete": a.complete,
                        "final_value": a.final_value, "made": a.made,
                        "skill": _rounded(self.skill),
                        "information": _rounded(self.information),
                        "luck": _rounded(self.luck), "dd_change": self.dd_change})
        out["decisions"] = [d.to_json() for d in self.decisions]
        out["seats"] = {s: g.to_json() for s, g in self.seats.items()}
        return out


@dataclass
class GameGrades:
    """A game record graded hand by hand, as `grade_game` returns it.

    Attributes:
        game: The `GameRecord` (its ``id`` and ``meta`` go through to the JSON).
        hands: Every hand's `HandGrades`.
        settings: The deals, seeds and search the grades used.
    """

    game: GameRecord
    hands: list[HandGrades]
    settings: dict[str, Any]

    def to_json(self) -> dict:
        """The game's grades as JSON, as `t42 analyze --seat-view --json` writes them."""
        out: dict[str, Any] = {}
        if self.game.has_id:
            out["id"] = self.game.id
        if self.game.has_meta:
            out["meta"] = self.game.meta
        out["game"] = self.game.game
        out["players"] = self.game.players
        out["seat_view"] = dict(self.settings)
        out["hands"] = [h.to_json() for h in self.hands]
        out["score"] = dict(self.game.score)
        out["winner"] = self.game.winner
        return out


# ---------------------------------------------------------------- paired losses


def _paired_loss(best: Sequence[float], chosen: Sequence[float], exact: bool,
                 value: Fraction | float | None = None) -> Loss:
    """The mean of ``best[i] - chosen[i]`` (or ``value``, when the caller knows it better)
    with the t interval of those paired differences; exact: the interval is the value."""
    diffs = [b - c for b, c in zip(best, chosen)]
    if value is None:
        total = sum(diffs)
        value = Fraction(total, len(diffs)) if isinstance(total, int) else total / len(diffs)
    if exact:
        return Loss(value, float(value), float(value), True)
    if all(d == diffs[0] for d in diffs):   # no spread: the deals agree
        half = 0.0
    else:
        est = mean_of([float(d) for d in diffs])
        if not math.isfinite(est.low):
            return Loss(value, None, None, False)
        half = est.high - est.mean
    return Loss(value, float(value) - half, float(value) + half, False)


def _argbest(keys: Sequence[tuple]) -> int:
    """The first index of the largest key."""
    return max(range(len(keys)), key=lambda i: (keys[i], -i))


# ----------------------------------------------------------------------- plays


@dataclass(frozen=True)
class _Valued:
    """The options of one decision, each valued on the same deals."""

    options: list[str]
    rows: list[Sequence[int]]       # per deal, each option's value
    enumerated: bool
    count: int
    template: Position              # any one deal: the contract, the seat to move


def _valued_plays(v: View, deals: int, enumerate_limit: int, seed: int, search: str,
                  depth: int, token: CancelToken | None, threads: int | None) -> _Valued:
    if search == "postponed":
        found = seat_view_values(v, method="postponed", deals=deals, depth=depth,
                                 enumerate_limit=enumerate_limit, seed=seed, token=token)
        rows = list(zip(*(found.values[t] for t in found.legal)))
        return _Valued([T.name_of(t) for t in found.legal], rows, found.enumerated,
                       found.count, found.positions[0])
    _, count, enumerated, source, first = start_dealing(v, deals, enumerate_limit, seed, token)
    template = DealBuilder(v).position(source.first)
    scorer = DealScorer(template, threads)
    rows = scorer.score(first, token)
    return _Valued([T.name_of(t) for t in scorer.moves], rows, enumerated, count, template)


def _grade_values(kind: str, seat: int, choice: str, valued: _Valued, game: str,
                  marks: int) -> DecisionGrade:
    """A play's (or a discard's) grade from its options' values on the same deals."""
    p = valued.template
    sign = 1 if p.maximizer[seat] else -1
    declaring = bool(p.scorer[seat])
    threshold, at_least = p.make_target()
    rows, n = valued.rows, len(valued.rows)
    columns = list(zip(*rows))
    # The seat's side's utility and whether it reaches its goal, per option and deal.
    utility = [[sign * x for x in col] for col in columns]
    goal = [[int((x >= threshold if at_least else x < threshold) == declaring) for x in col]
            for col in columns]
    sums = [sum(u) for u in utility]
    reached = [sum(g) for g in goal]
    best = _argbest([(sums[i], reached[i]) for i in range(len(columns))])
    best_make = _argbest([(reached[i], sums[i]) for i in range(len(columns))])
    k = valued.options.index(choice)
    exact = valued.enumerated
    loss = _paired_loss(utility[best], utility[k], exact)
    price = information_price(utility)
    p_loss = _paired_loss(goal[best_make], goal[k], exact)
    marks_loss = _scaled(p_loss, 2 * marks)
    unit = "tricks" if p.max_value == 7 else "points"
    limit = MISTAKE_TRICKS if unit == "tricks" else MISTAKE_POINTS
    order = sorted(range(len(columns)), key=lambda i: (sums[i], reached[i], -i), reverse=True)
    options = tuple(OptionFigures(
        valued.options[i], sum(columns[i]) / n,
        sum(1 for x in columns[i] if (x >= threshold if at_least else x < threshold)) / n,
        marks * (2 * reached[i] / n - 1)) for i in order)
    return DecisionGrade(
        kind=kind, seat=SEATS[seat], choice=choice, best=valued.options[best],
        best_for_make=valued.options[best_make], options=options,
        method="enumerated" if exact else "sampled", deals=n, count=valued.count, unit=unit,
        loss=loss, p_make_loss=p_loss, marks_loss=marks_loss,
        mistake=loss.clear_of(limit) or marks_loss.clear_of(MISTAKE_MARKS[game]),
        information_price=price)


def information_price(utility: Sequence[Sequence[int | float]]) -> Fraction | float:
    """The price of hidden information of a decision: ``utility[o][d]`` the value for the
    deciding seat's side of option ``o`` on deal ``d`` (every option on the same deals),
    the mean over the deals of the best option on each deal less the best mean of an
    option: ``E[max_o u] - max_o E[u]`` (>= 0; exact, a `Fraction`, for whole numbers).

    >>> information_price([[3, 0], [0, 3]])   # each option best on one deal of two
    Fraction(3, 2)
    >>> information_price([[3, 1], [0, 0]])   # one option best on every deal
    Fraction(0, 1)
    """
    n = len(utility[0])
    best_each = sum(max(col) for col in zip(*utility))
    best_mean = max(sum(u) for u in utility)
    total = best_each - best_mean
    if isinstance(total, int):
        return Fraction(total, n)
    return Fraction(total) / n


def _scaled(loss: Loss, factor: float) -> Loss:
    scale = (lambda x: None if x is None else x * factor)
    return Loss(loss.value * factor, scale(loss.low), scale(loss.high), loss.exact)


def _forced(kind: str, seat: str, choice: str, unit: str | None) -> DecisionGrade:
    return DecisionGrade(kind=kind, seat=seat, choice=choice, best=choice,
                         best_for_make=choice, options=(OptionFigures(choice, None, None, None),),
                         method="forced", deals=0, count=None, unit=unit, loss=NO_LOSS,
                         p_make_loss=NO_LOSS, marks_loss=NO_LOSS, mistake=False,
                         information_price=Fraction(0))


def grade_play(view: View | Mapping[str, Any] | str, tile: str, *, deals: int = DEFAULT_DEALS,
               seed: int = DEFAULT_SEED, enumerate_limit: int = DEFAULT_ENUMERATION_LIMIT,
               search: str = "double-dummy", depth: int = DEFAULT_DEPTH,
               token: CancelToken | None = None, threads: int | None = None) -> DecisionGrade:
    """Grade one play from the view of the seat that made it.

    Every legal tile is valued on the deals consistent with the view (all of them when
    there are at most ``enumerate_limit``, else ``deals`` drawn from ``seed``, the same
    deals the hint draws with that seed), and the chosen tile's losses are the paired
    differences against the best tiles on those deals.

    Args:
        view: The seat's `View` (or its JSON) just before the play; the seat is to move.
        tile: The tile it played.
        deals: Deals to draw when the view has more than ``enumerate_limit``.
        seed: The seed of the draws.
        enumerate_limit: Views with at most this many deals use every one (exact).
        search: ``"double-dummy"`` or ``"postponed"`` (`solver.hidden.seat_view`).
        depth: The postponed search's depth.
        token: Stops the searches (`CancelToken`).
        threads: Search threads (None: one per core).

    Returns:
        The `DecisionGrade` (its double-dummy fields unset: they need the deal).

    Raises:
        PositionError: A bad view or option, a seat not to move, or an illegal tile.

    >>> g = grade_play(open("examples/view.json").read(), "6-6", deals=20, seed=1, threads=1)
    >>> g.best, round(float(g.loss.value), 2), round(g.loss.low, 2), g.mistake
    ('3-2', 5.25, 3.54, True)
    """
    v = view if isinstance(view, View) else View(view)
    v.check_can_hint()
    _check_settings(deals, seed, enumerate_limit, search, depth)
    legal = v.legal_tiles()
    name = T.name_of(T.parse_tile(tile, "tile"))
    if name not in legal:
        raise PositionError("tile", f"{name} is not a legal play here (legal: "
                            f"{', '.join(legal)})", "ILLEGAL_PLAY")
    unit = "tricks" if v.max_value == 7 else "points"
    if len(legal) == 1:
        return _forced("play", SEATS[v.seat], name, unit)
    valued = _valued_plays(v, deals, enumerate_limit, seed, search, depth, token, threads)
    grade = _grade_values("play", v.seat, name, valued, v.game,
                          marks_of(v.contract.bid, v.game))
    if search == "postponed":
        grade = replace(grade, note=f"seat-view search, postponed reasoning to depth {depth}")
    return grade


def _check_settings(deals: object, seed: object, enumerate_limit: object, search: object,
                    depth: object) -> None:
    check_deal_count("deals", deals)
    if check_seed(seed) is None:
        raise PositionError("seed", "a grade needs a seed, so that it repeats",
                            "INVALID_VALUE")
    check_deal_count("enumerate_limit", enumerate_limit, low=0, high=MAX_ENUMERATION_LIMIT)
    if search not in SEARCHES:
        raise PositionError("search", f"unknown search {str(search)[:20]!r} "
                            f"({' or '.join(SEARCHES)})", "INVALID_VALUE")
    check_deal_count("depth", depth, 0, MAX_DEPTH)


# ------------------------------------------------------------ calls and declarations


def _bid_target(bid: int, game: str) -> int:
    """The value a bid needs: its points (42 for marks, every trick); Moon its tricks
    (7 for 21)."""
    if game == "moon":
        return 7 if bid == 21 else bid
    return min(bid, 42)


def _made_on_deals(advice: BidAdvice, row: DeclarationAdvice, bid: int) -> list[int]:
    """Per deal of the advice, 1 when ``bid`` in ``row``'s declaration makes."""
    assert advice.dealt is not None
    target = _bid_target(bid, advice.game)
    out = []
    for deal in advice.dealt:
        value = deal.values[row.declaration]
        out.append(int(value if isinstance(value, bool) else value >= target))
    return out


@dataclass(frozen=True)
class _BidOption:
    """A call or declaration over the advice's deals: the deals its bid makes on (None
    for a pass, worth 0 on every deal) and what it wins or loses in marks."""

    made: tuple[int, ...] | None
    marks: int

    def p_make(self, p_dd: float, cmap: Callable[[float], float] | None) -> float:
        return p_dd if cmap is None else cmap(p_dd)

    def e_marks(self, p_dd: float, cmap: Callable[[float], float] | None) -> float:
        return 0.0 if self.made is None else self.marks * (2 * self.p_make(p_dd, cmap) - 1)

    def per_deal(self, n: int) -> list[int]:
        """Its marks on each of the ``n`` deals (double dummy)."""
        if self.made is None:
            return [0] * n
        return [self.marks * (2 * x - 1) for x in self.made]

    def figures(self, option: str, n: int, cmap: Callable[[float], float] | None,
                mean: float | None = None, declaration: str | None = None) -> OptionFigures:
        p_dd = _p_dd(self, n)
        return OptionFigures(option, mean, None if self.made is None else
                             self.p_make(p_dd, cmap), self.e_marks(p_dd, cmap), declaration)


def _p_dd(option: _BidOption, n: int) -> float:
    return 0.0 if option.made is None else sum(option.made) / n


def _bid_loss(advice: BidAdvice, best: _BidOption, chosen: _BidOption, figure: str,
              seed: int) -> Loss:
    """``best``'s figure less ``chosen``'s over the advice's deals (``figure``:
    ``"e_marks"`` or ``"p_make"``), with a paired 95% interval.

    Double dummy (no calibration) the figure is a mean over the deals, and the interval
    a t interval of the per-deal differences. Through the calibration map it is not (the
    map bends, and is flat in places): the interval is then a paired bootstrap, the same
    deals resampled for both options, `BOOTSTRAP_RESAMPLES` times from ``seed``."""
    n = advice.deals
    cmap = advice.calibration

    def value(p_best: float, p_chosen: float) -> float:
        if figure == "p_make":
            return best.p_make(p_best, cmap) - chosen.p_make(p_chosen, cmap)
        return best.e_marks(p_best, cmap) - chosen.e_marks(p_chosen, cmap)

    point = value(_p_dd(best, n), _p_dd(chosen, n))
    if cmap is None:
        if figure == "p_make":
            return _paired_loss(best.made or [0] * n, chosen.made or [0] * n, False, point)
        return _paired_loss(best.per_deal(n), chosen.per_deal(n), False, point)
    # A deal is one of four pairs (made or not by each option): resampling the deals
    # is drawing n such pairs.
    b, c = best.made or (0,) * n, chosen.made or (0,) * n
    counts = [0, 0, 0, 0]
    for x, y in zip(b, c):
        counts[2 * x + y] += 1
    rng = random.Random(seed)
    draws = []
    for _ in range(BOOTSTRAP_RESAMPLES):
        picked = rng.choices(range(4), weights=counts, k=n)
        made_best = sum(1 for k in picked if k >= 2)
        made_chosen = sum(1 for k in picked if k & 1)
        draws.append(value(made_best / n, made_chosen / n))
    draws.sort()
    low = draws[int(0.025 * BOOTSTRAP_RESAMPLES)]
    high = draws[int(0.975 * BOOTSTRAP_RESAMPLES) - 1]
    return Loss(point, min(low, point), max(high, point), False)


def _row_key(row: DeclarationAdvice, made: int) -> tuple:
    # Bid advice's tie-break between declarations at one bid: more deals made, then a
    # higher mean (make-or-set declarations after).
    mean = row.mean
    return (made, mean is not None, mean or 0.0)


def _call_text(call: int | str, declaration: str | None = None) -> str:
    if isinstance(call, int) and declaration is not None:
        return f"{call} {declaration}"
    return str(call)


def _best_row(advice: BidAdvice, bid: int, names: Sequence[str]
              ) -> tuple[DeclarationAdvice, list[int]] | None:
    """The declaration among ``names`` that gives ``bid`` its best P(make), with the
    deals it makes on."""
    best = None
    for row in advice.declarations:
        if row.declaration not in names or row.chance(bid) is None:
            continue
        made = _made_on_deals(advice, row, bid)
        key = _row_key(row, sum(made))
        if best is None or key > best[0]:
            best = (key, row, made)
    return None if best is None else (best[1], best[2])


def _call_option(advice: BidAdvice, rules: GameRules, call: int | str
                 ) -> tuple[OptionFigures, _BidOption] | None:
    """A call's figures over the advice's deals, in its best declaration at its bid (a
    plunge or splash in its own); None when the advice does not value it."""
    if call == "pass":
        option = _BidOption(None, 0)
        return option.figures("pass", advice.deals, advice.calibration), option
    if isinstance(call, str):
        names: Sequence[str] = (call,)
        bid = SPECIAL_CALLS[call][0]
    else:
        bid = max(call, _ADVICE_MOON_LOW) if rules.game == "moon" else call
        names = legal_declarations(rules, bid)
    found = _best_row(advice, bid, names)
    if found is None:
        return None
    row, made = found
    option = _BidOption(tuple(made), marks_of(bid, rules.game))
    text = _call_text(call, None if isinstance(call, str) else row.declaration)
    return option.figures(text, advice.deals, advice.calibration,
                          declaration=row.declaration), option


def advised_call_text(advice: BidAdvice) -> str:
    """The advised call as text: ``pass``, a bid and its declaration, ``plunge``."""
    rec = advice.recommendation
    call = _advised_call(advice)
    return _call_text(call, None if isinstance(call, str) else rec.declaration)


def _advised_call(advice: BidAdvice) -> int | str:
    rec = advice.recommendation
    if rec.bid is None:
        return "pass"
    return rec.declaration if rec.declaration in SPECIAL_CALLS else rec.bid


def _advice_for(view: CallView, deals: int, seed: int, calibrated: bool, doubles: str,
                token: CancelToken | None, threads: int | None) -> BidAdvice:
    """Bid advice from the caller's view: its seven tiles and the calls before it (plunge
    and splash as the bids they stand for), every deal returned."""
    rules = view.rules
    before = [{"seat": SEATS[c.seat], "bid": "pass" if c.is_pass else c.amount}
              for c in view.calls]
    return advise(view.hand, SEATS[view.seat], game=rules.game, players=rules.players,
                  auction=before, doubles=doubles, deals=deals, seed=seed,
                  calibrated=calibrated and rules.game == "42", return_deals=True,
                  token=token, threads=threads)


def grade_call(view: CallView, call: int | str, *, deals: int = DEFAULT_ADVICE_DEALS,
               seed: int = DEFAULT_ADVICE_SEED, calibrated: bool = True,
               token: CancelToken | None = None, threads: int | None = None,
               advice: BidAdvice | None = None) -> DecisionGrade:
    """Grade a call from the caller's view, against bid advice's call.

    Every legal call is valued by bid advice over ``deals`` deals of the other hands
    (from ``seed``): its expected marks were it to win the contract, in the declaration
    that gives its bid the best P(make) (calibrated in 42 with ``calibrated``); a pass
    is worth 0. The benchmark is the advised call: a lone bid's expected marks cannot
    see the overcalls a higher bid keeps out, and the advice's rule (the highest bid
    that reaches its threshold) stands in for them. So the marks loss is the advised
    call's expected marks less the call's: negative when the call risks less than the
    advice (a lower bid), never a mistake then.

    Args:
        view: The caller's `CallView` before the call.
        call: The call made (a bid, ``"pass"``, ``"plunge"``, ``"splash"``).
        deals: Deals of bid advice.
        seed: Its seed.
        calibrated: 42: P(make) through the measured calibration (as the advice bot).
        token: Stops the searches.
        threads: Search threads.
        advice: The advice for this view when already at hand.

    Returns:
        The `DecisionGrade`.
    """
    if advice is None:
        advice = _advice_for(view, deals, seed, calibrated, "high", token, threads)
    rules = view.rules
    seat = SEATS[view.seat]
    options: dict[str, tuple[OptionFigures, _BidOption]] = {}
    for legal in view.legal_calls():
        found = _call_option(advice, rules, legal)
        if found is not None:
            options[str(legal)] = found
    chosen, advised = str(call), str(_advised_call(advice))
    note = None
    if chosen not in options:
        return _ungraded("call", seat, _call_text(call), "bid advice does not value this "
                         "call", advice.deals)
    if advised not in options:
        # A seat that may not pass (the last of an auction that must be bid): the call
        # worth the most in expectation stands in for the advice.
        advised = max(options, key=lambda o: options[o][0].e_marks or 0.0)
        note = (f"the advised call ({advised_call_text(advice)}) is not open here: graded "
                "against the call with the best expected marks")
    made, best = options[chosen], options[advised]
    loss = _bid_loss(advice, best[1], made[1], "e_marks", advice.seed)
    ranked = sorted(options.values(), key=lambda o: o[0].e_marks or 0.0, reverse=True)
    return DecisionGrade(
        kind="call", seat=seat, choice=made[0].option, best=best[0].option,
        best_for_make=best[0].option, options=tuple(o[0] for o in ranked), method="sampled",
        deals=advice.deals, count=None, unit=None, loss=None, p_make_loss=None,
        marks_loss=loss, mistake=loss.clear_of(MISTAKE_MARKS[rules.game]), index=len(view.calls),
        note=note)


def _ungraded(kind: str, seat: str, choice: str, why: str, deals: int = 0) -> DecisionGrade:
    return DecisionGrade(kind=kind, seat=seat, choice=choice, best=None, best_for_make=None,
                         options=(), method="ungraded", deals=deals, count=None, unit=None,
                         loss=None, p_make_loss=None, marks_loss=None, mistake=False, note=why)


def grade_declaration(view: CallView, trump: str, bid: int, advice: BidAdvice
                      ) -> DecisionGrade:
    """Grade a declaration at the winning ``bid`` by bid advice from the declarer's view
    (``advice``: its tiles and the calls before its winning bid): every declaration the
    bid allows, valued over the same deals, against the one most likely to make."""
    rules = view.rules
    seat = SEATS[view.seat]
    if rules.game == "moon":
        bid = max(bid, _ADVICE_MOON_LOW)
    marks = marks_of(bid, rules.game)
    allowed = legal_declarations(rules, bid)
    n, cmap = advice.deals, advice.calibration
    options = [(row, _BidOption(tuple(_made_on_deals(advice, row, bid)), marks))
               for row in advice.declarations
               if row.declaration in allowed and row.chance(bid) is not None]
    chosen = next((o for o in options if o[0].declaration == trump), None)
    if chosen is None:
        return _ungraded("declaration", seat, trump, f"bid advice does not value {trump} "
                         f"at {bid}", n)
    ranked = sorted(options, key=lambda o: _row_key(o[0], sum(o[1].made or ())), reverse=True)
    best = ranked[0]
    p_loss = _bid_loss(advice, best[1], chosen[1], "p_make", advice.seed)
    marks_loss = _bid_loss(advice, best[1], chosen[1], "e_marks", advice.seed)
    figures = tuple(option.figures(row.declaration, n, cmap, row.mean)
                    for row, option in ranked)
    return DecisionGrade(
        kind="declaration", seat=seat, choice=trump, best=best[0].declaration,
        best_for_make=best[0].declaration, options=figures, method="sampled",
        deals=n, count=None, unit=None, loss=None, p_make_loss=p_loss,
        marks_loss=marks_loss, mistake=marks_loss.clear_of(MISTAKE_MARKS[rules.game]),
        index=len(view.calls))


# ------------------------------------------------- three-player Moon: trump and discard


def _moon3_values(view: CallView, bid: int, deals: int, enumerate_limit: int, seed: int,
                  token: CancelToken | None) -> tuple[list[dict[tuple[str, str], int]], int, bool]:
    """Every (trump, discard) valued double dummy on the deals of the two other hands
    consistent with the declarer's eight tiles: one dict per deal, the number of
    consistent deals, and whether all were used.

    The deals: the 14 unseen tiles split seven and seven, every split (in the order of
    `itertools.combinations` over the tiles in tile order) when there are at most
    ``enumerate_limit``, else ``deals`` splits whose first hand (the first other seat in
    seat order) is ``random.Random(seed).sample`` of those tiles, seven at a time."""
    seat = view.seat
    others = [s for s in view.rules.seats if s != seat]
    eight = set(view.eight_ids())
    unseen = sorted(t for t in MOON3_SET if t not in eight)
    count = math.comb(len(unseen), 7)
    enumerated = count <= enumerate_limit
    if enumerated:
        splits = [list(first) for first in itertools.combinations(unseen, 7)]
    else:
        rng = random.Random(seed)
        splits = [rng.sample(unseen, 7) for _ in range(deals)]
    out = []
    for first in splits:
        rest = [t for t in unseen if t not in first]
        hands = {SEATS[seat]: view.hand, SEATS[others[0]]: [T.name_of(t) for t in first],
                 SEATS[others[1]]: [T.name_of(t) for t in rest]}
        table = best_discards({"game": "moon", "hands": hands, "widow": view.widow,
                               "contract": {"declarer": SEATS[seat], "bid": bid}}, token=token)
        out.append({(r.trump, r.discard): r.value for r in table.rows})
    return out, count, enumerated


def grade_moon_discard(view: CallView, trump: str, discard: str, bid: int, *,
                       deals: int = DEFAULT_DEALS, seed: int = DEFAULT_SEED,
                       enumerate_limit: int = DEFAULT_ENUMERATION_LIMIT,
                       token: CancelToken | None = None) -> tuple[DecisionGrade, DecisionGrade]:
    """Grade the three-player Moon declarer's declaration and discard from its eight
    tiles (``view`` with the widow), on the same deals of the two other hands.

    The declaration: each trump with the discard that is best for it over the deals,
    against the best trump so. The discard: each of the eight under the trump named,
    against the best one. The two losses add up to that of the pair against the best
    pair.

    Returns:
        (declaration grade, discard grade).
    """
    values, count, enumerated = _moon3_values(view, max(bid, _ADVICE_MOON_LOW), deals,
                                              enumerate_limit, seed, token)
    seat = view.seat
    game_bid = max(bid, _ADVICE_MOON_LOW)
    marks = marks_of(game_bid, "moon")
    eight = [T.name_of(t) for t in sorted(view.eight_ids(), reverse=True)]

    def valued(options: list[str], pick: Callable[[str], tuple[str, str]]) -> _Valued:
        rows = [tuple(deal[pick(o)] for o in options) for deal in values]
        return _Valued(options, rows, enumerated, count, _moon3_template(view, trump, game_bid))

    discards = valued(eight, lambda d: (trump, d))
    discard_grade = _grade_values("discard", seat, discard, discards, "moon", marks)
    # Each trump with its own best discard over the deals (the seat cannot pick one per
    # deal), the declaration graded among them.
    best_discard = {}
    for name in MOON_DECLARATIONS:
        totals = [sum(deal[(name, d)] for deal in values) for d in eight]
        best_discard[name] = eight[_argbest([(t,) for t in totals])]
    trumps = valued(list(MOON_DECLARATIONS), lambda t: (t, best_discard[t]))
    declaration_grade = _grade_values("declaration", seat, trump, trumps, "moon", marks)
    return (replace(declaration_grade, note="each trump with its best discard over the deals"),
            discard_grade)


def _moon3_template(view: CallView, trump: str, bid: int) -> Position:
    """A three-player Moon position of the declarer's contract: what `_grade_values` reads
    of it (the sides, the target, the unit) is the same on every deal."""
    seat = view.seat
    others = [s for s in view.rules.seats if s != seat]
    held = view.held_ids() if view.discard_id is not None else view.hand_ids
    rest = sorted(t for t in MOON3_SET if t not in set(view.eight_ids()))
    hands = {SEATS[seat]: [T.name_of(t) for t in held],
             SEATS[others[0]]: [T.name_of(t) for t in rest[:7]],
             SEATS[others[1]]: [T.name_of(t) for t in rest[7:]]}
    return Position({"game": "moon", "hands": hands,
                     "contract": {"declarer": SEATS[seat], "trump": trump, "bid": bid}})


# ------------------------------------------------------------------- whole hands


@dataclass(frozen=True)
class _Settings:
    """What every grade of a hand or game is made with."""

    deals: int = DEFAULT_DEALS
    seed: int = DEFAULT_SEED
    enumerate_limit: int = DEFAULT_ENUMERATION_LIMIT
    search: str = "double-dummy"
    depth: int = DEFAULT_DEPTH
    advice_deals: int = DEFAULT_ADVICE_DEALS
    advice_seed: int = DEFAULT_ADVICE_SEED
    calibrated: bool = True
    token: CancelToken | None = None
    threads: int | None = None

    def check(self) -> "_Settings":
        _check_settings(self.deals, self.seed, self.enumerate_limit, self.search, self.depth)
        check_deal_count("advice_deals", self.advice_deals)
        if check_seed(self.advice_seed, "advice_seed") is None:
            raise PositionError("advice_seed", "a grade needs a seed, so that it repeats",
                                "INVALID_VALUE")
        if not isinstance(self.calibrated, bool):
            raise PositionError("calibrated", f"must be true or false, not "
                                f"{self.calibrated!r}", "INVALID_TYPE")
        return self

    def to_json(self, game: str, plays_only: bool = False) -> dict:
        out: dict[str, Any] = {"deals": self.deals, "seed": self.seed,
                               "enumerate_limit": self.enumerate_limit, "search": self.search}
        if self.search == "postponed":
            out["depth"] = self.depth
        if not plays_only:
            out.update({"advice_deals": self.advice_deals, "advice_seed": self.advice_seed,
                        "p_make": "calibrated" if self.calibrated and game == "42"
                        else "double-dummy"})
        out.update({"mistake": {"points": MISTAKE_POINTS, "tricks": MISTAKE_TRICKS,
                                "marks": MISTAKE_MARKS["moon" if game == "moon" else "42"]}})
        return out

    def play(self, view: View, tile: str) -> DecisionGrade:
        return grade_play(view, tile, deals=self.deals, seed=self.seed,
                          enumerate_limit=self.enumerate_limit, search=self.search,
                          depth=self.depth, token=self.token, threads=self.threads)


class _Ticker:
    """Counts the decisions graded for a caller's ``progress(done, planned)``."""

    def __init__(self, progress: Callable[[int, int], None] | None, planned: int) -> None:
        self.progress, self.planned, self.done = progress, planned, 0

    def __call__(self) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.planned)


def _with_luck(grade: DecisionGrade, sign: int, before: int, after: int, cost: int
               ) -> DecisionGrade:
    """The grade with its double-dummy change split into skill, information and luck
    (declaring side's points; ``sign`` +1 when the seat wants the value high)."""
    assert grade.loss is not None and grade.information_price is not None
    skill = -sign * Fraction(grade.loss.value)
    information = -sign * Fraction(grade.information_price)
    return replace(grade, dd_before=before, dd_after=after, dd_cost=cost, skill=skill,
                   information=information,
                   luck=Fraction(after - before) - skill - information)


def _grade_plays(analysis: HandAnalysis, auction: list | None, settings: _Settings,
                 tick: _Ticker) -> list[DecisionGrade]:
    """Every play of an analysed hand, graded from the view of the seat that made it (its
    tiles, the calls when given, the plays before it)."""
    played = analysis.position
    start = played.with_plays([])
    out = []
    for play in analysis.plays:
        p = start.with_plays(played.plays[:play.index])
        view = seat_view(p, auction)
        grade = replace(settings.play(view, play.tile), index=play.index, trick=play.trick)
        sign = 1 if p.maximizer[p.to_move_index] else -1
        out.append(_with_luck(grade, sign, play.value_before, play.value_after, play.cost))
        tick()
    return out


def _dealt_seven(position: Position) -> list[str]:
    """The three-player Moon declarer's seven tiles as dealt: those it holds after the
    discard, less the widow, plus the discard."""
    seat = position.contract.declarer
    held = list(position.hands[seat])
    if position.widow != position.discard:
        held[held.index(position.widow)] = position.discard   # type: ignore[arg-type]
    return [T.name_of(t) for t in held]


def _grade_moon3(position: Position, analysis: HandAnalysis, view: CallView,
                 settings: _Settings) -> tuple[DecisionGrade, DecisionGrade, int]:
    """The three-player Moon declarer's declaration and discard, graded from its eight
    tiles; the discard with its double-dummy change (the best discard under the trump
    named, with every hand open, to the value at the opening lead). Returns the two
    grades and the value before the discard."""
    contract = position.contract
    trump = contract.declaration.name
    discard = T.name_of(position.discard)   # type: ignore[arg-type]
    declaration, graded = grade_moon_discard(
        view, trump, discard, contract.bid, deals=settings.deals, seed=settings.seed,
        enumerate_limit=settings.enumerate_limit, token=settings.token)
    hands = {SEATS[s]: [T.name_of(t) for t in tiles] for s, tiles in position.hands.items()}
    hands[SEATS[contract.declarer]] = _dealt_seven(position)
    table = best_discards({"game": "moon", "hands": hands, "widow": T.name_of(position.widow),
                           "contract": {"declarer": SEATS[contract.declarer],
                                        "bid": contract.bid}}, trump, token=settings.token)
    before = table.value if table.rows[0].trump == trump else \
        max(r.value for r in table.rows if r.trump == trump)
    after = analysis.value
    return declaration, _with_luck(graded, 1, before, after, before - after), before


def _summarise(decisions: Sequence[DecisionGrade], position: Position | None
               ) -> dict[str, SeatGrades]:
    seats: dict[str, SeatGrades] = {}
    for d in decisions:
        if not d.graded:
            continue
        s = seats.get(d.seat, SeatGrades())
        side = 1    # the seat's side wants the value high (not so nello's declarer)
        if position is not None:
            side = 1 if position.maximizer[SEATS.index(d.seat)] else -1
        seats[d.seat] = SeatGrades(
            decisions=s.decisions + 1, mistakes=s.mistakes + d.mistake,
            loss=s.loss + (d.loss.value if d.loss is not None else 0),
            marks_loss=s.marks_loss + (float(d.marks_loss.value) if d.marks_loss else 0.0),
            skill=s.skill + side * (d.skill or 0), luck=s.luck + side * (d.luck or 0),
            information=s.information + side * (d.information or 0))
    return {seat: seats[seat] for seat in SEATS if seat in seats}


def grade_hand(record: RecordLike, *, deals: int = DEFAULT_DEALS, seed: int = DEFAULT_SEED,
               enumerate_limit: int = DEFAULT_ENUMERATION_LIMIT, search: str = "double-dummy",
               depth: int = DEFAULT_DEPTH, token: CancelToken | None = None,
               threads: int | None = None,
               progress: Callable[[int, int], None] | None = None) -> HandGrades:
    """Grade every play of a hand record from the view of the seat that made it (and the
    three-player Moon declarer's declaration and discard, from its eight tiles), with
    each play's skill, information and luck.

    Args:
        record: A hand record (docs/formats.md; as `analyze_hand` takes it).
        deals: Deals per decision when its view has more than ``enumerate_limit``.
        seed: Their seed, the same for every decision (a grading repeats exactly).
        enumerate_limit: Views with at most this many deals use every one (exact).
        search: ``"double-dummy"`` or ``"postponed"`` (the seat-view search).
        depth: The postponed search's depth.
        token: Stops the searches (`CancelToken`).
        threads: Search threads (None: one per core).
        progress: Called as ``progress(done, planned)`` after each decision graded.

    Returns:
        The `HandGrades`; its ``skill + information + luck`` equals ``dd_change``
        exactly.

    Raises:
        PositionError: A bad record or option.
        SearchCancelled: ``token`` stopped a search.

    >>> import json
    >>> grades = grade_hand(open("examples/hands.jsonl").readline(), deals=20, threads=1)
    >>> grades.skill + grades.information + grades.luck == grades.dd_change == 35 - 29
    True
    """
    settings = _Settings(deals, seed, enumerate_limit, search, depth, token=token,
                         threads=threads).check()
    _, hand_id, meta = parse_record(record)
    analysis = analyze_hand(record, token=token)
    position = analysis.position
    moon3 = position.widow is not None and position.discard is not None
    tick = _Ticker(progress, len(position.plays) + 2 * moon3)
    decisions: list[DecisionGrade] = []
    dd_start = analysis.value
    if moon3:
        declarer = position.contract.declarer
        view = call_view(GameRules("moon", 3), declarer, _dealt_seven(position), declarer,
                         widow=position.widow)
        declaration, discard, dd_start = _grade_moon3(position, analysis, view, settings)
        decisions += [declaration, discard]
        tick()
        tick()
    decisions += _grade_plays(analysis, None, settings, tick)
    return HandGrades(decisions, analysis, dd_start, id=hand_id, meta=meta,
                      seats=_summarise(decisions, position),
                      settings=settings.to_json(position.game, plays_only=True))


def _winning_call(hand: HandRecord) -> int | None:
    """The place in the auction of the call that won the contract."""
    if hand.contract is None:
        return None
    bids = [i for i, c in enumerate(hand.auction.calls) if not c.is_pass]
    return bids[-1] if bids else None


def _grade_game_hand(game: GameRecord, hand: HandRecord, settings: _Settings,
                     tick: _Ticker) -> HandGrades:
    rules = game.rules
    score = dict(game.hands[hand.index - 1].score) if hand.index else \
        {key: 0 for key in rules.score_keys}
    calls = hand.auction.calls
    contract = hand.contract
    winning = _winning_call(hand)
    decisions: list[DecisionGrade] = []
    winning_advice = None
    for i, call in enumerate(calls):
        view = call_view(rules, call.seat, hand.deal_ids[call.seat], hand.shaker,
                         tuple(calls[:i]), score)
        doubles = "high"
        if i == winning and contract is not None and contract.kind == "standard" and \
                contract.declaration.name in ("follow-me", "nello"):
            doubles = contract.doubles   # the winner's own option: what it then played
        advice = _advice_for(view, settings.advice_deals, settings.advice_seed,
                             settings.calibrated, doubles, settings.token, settings.threads)
        if i == winning:
            winning_advice = advice
        decisions.append(replace(grade_call(view, call.bid, advice=advice), index=i))
        tick()
    if contract is None or hand.position is None:
        return HandGrades(decisions, None, None, index=hand.index,
                          seats=_summarise(decisions, None))
    analysis = analyze_hand(hand.position.to_json(), token=settings.token)
    dd_start = analysis.value
    trump = contract.declaration.name
    namer = hand.auction.declarer_names_trump
    assert namer is not None
    if rules.three_handed:
        view = call_view(rules, contract.declarer, hand.deal_ids[contract.declarer],
                         hand.shaker, tuple(calls), score, widow=hand.widow_id)
        declaration, discard, dd_start = _grade_moon3(hand.position, analysis, view, settings)
        decisions += [replace(declaration, index=len(calls)), replace(discard, index=len(calls))]
        tick()
        tick()
    elif contract.kind != "standard":
        decisions.append(replace(_ungraded(
            "declaration", SEATS[namer], trump, "the partner of a plunge or splash names "
            "trump: bid advice does not value its choice"), index=len(calls)))
        tick()
    else:
        assert winning_advice is not None
        view = call_view(rules, namer, hand.deal_ids[namer], hand.shaker, tuple(calls), score)
        decisions.append(grade_declaration(view, trump, contract.bid, winning_advice))
        tick()
    decisions += _grade_plays(analysis, hand.auction.to_json(), settings, tick)
    return HandGrades(decisions, analysis, dd_start, index=hand.index,
                      seats=_summarise(decisions, hand.position))


def grade_game(record: Mapping[str, Any] | str | bytes | GameRecord, *,
               deals: int = DEFAULT_DEALS, seed: int = DEFAULT_SEED,
               enumerate_limit: int = DEFAULT_ENUMERATION_LIMIT, search: str = "double-dummy",
               depth: int = DEFAULT_DEPTH, advice_deals: int = DEFAULT_ADVICE_DEALS,
               advice_seed: int = DEFAULT_ADVICE_SEED, calibrated: bool = True,
               token: CancelToken | None = None, threads: int | None = None,
               progress: Callable[[int, int], None] | None = None,
               hands: Sequence[int] | None = None) -> GameGrades:
    """Grade every decision of a game record from the view of the seat that made it: each
    call and declaration by bid advice with the seat's tiles and the calls before it, the
    three-player Moon declaration and discard from the declarer's eight tiles, each play
    from the seat's tiles, the calls and the plays before it.

    Args:
        record: A game record (docs/formats.md): a dict, JSON text or bytes, or a
            `GameRecord`.
        deals: Deals per play (and discard) when its view has more than
            ``enumerate_limit``.
        seed: Their seed, the same for every decision.
        enumerate_limit: Views with at most this many deals use every one (exact).
        search: ``"double-dummy"`` or ``"postponed"`` (plays only).
        depth: The postponed search's depth.
        advice_deals: Deals of bid advice per call.
        advice_seed: Bid advice's seed, the same for every call.
        calibrated: 42: bid advice's P(make) through the measured calibration.
        token: Stops the searches (`CancelToken`).
        threads: Search threads (None: one per core).
        progress: Called as ``progress(done, planned)`` after each decision graded.
        hands: Grade only these hands (their indexes in the record, from 0; a page that
            grades each hand once it is over); None: every hand.

    Returns:
        The `GameGrades` (its ``hands`` those graded, in the record's order).

    Raises:
        PositionError: A bad record or option.
        SearchCancelled: ``token`` stopped a search.

    >>> graded = grade_game(open("examples/game.json").read(), deals=10, advice_deals=10,
    ...                     threads=1)
    >>> south = graded.hands[0].decisions[1]
    >>> south.kind, south.choice, south.best, south.mistake
    ('call', '35 treys', '84 sevens', True)
    >>> [h.skill + h.information + h.luck == h.dd_change for h in graded.hands]
    [True, True, True]
    """
    settings = _Settings(deals, seed, enumerate_limit, search, depth, advice_deals,
                         advice_seed, calibrated, token, threads).check()
    game = record if isinstance(record, GameRecord) else GameRecord(record)
    chosen = _chosen_hands(hands, len(game.hands))
    planned = sum(len(h.auction.calls) + len(h.plays) +
                  (0 if h.contract is None else 2 if game.rules.three_handed else 1)
                  for h in game.hands if h.index in chosen)
    tick = _Ticker(progress, planned)
    graded = [_grade_game_hand(game, hand, settings, tick) for hand in game.hands
              if hand.index in chosen]
    return GameGrades(game, graded, settings.to_json(game.game))


def _chosen_hands(hands: Sequence[int] | None, count: int) -> set[int]:
    """The indexes of the hands to grade, checked against the record's ``count``."""
    if hands is None:
        return set(range(count))
    if isinstance(hands, (str, bytes)) or not isinstance(hands, Sequence):
        raise PositionError("hands", "must be a list of hand indexes", "INVALID_TYPE")
    for i, k in enumerate(hands):
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < count:
            raise PositionError(f"hands[{i}]", f"must be a hand of the record, 0.."
                                f"{count - 1}, not {str(k)[:20]}", "OUT_OF_RANGE")
    return set(hands)


__all__ = ["DEFAULT_ADVICE_DEALS", "DEFAULT_ADVICE_SEED", "DEFAULT_DEALS", "DEFAULT_SEED",
           "KINDS", "MISTAKE_MARKS", "MISTAKE_POINTS", "MISTAKE_TRICKS", "SEARCHES",
           "DecisionGrade", "GameGrades", "HandGrades", "Loss", "OptionFigures",
           "SeatGrades", "grade_call", "grade_declaration", "grade_game", "grade_hand",
           "grade_moon_discard", "grade_play", "information_price"]
