"""A play chosen by makes over consistent deals, without every move's exact value.

`quick_play` draws the deals of a view as `solver.hidden.hint.hint` does (the same
sampler and seed, every consistent deal when there are few, the same option bounds,
token and deadline) but asks of each deal and legal move only whether the contract
makes after it: one null-window search per move (`Engine.at_least_moves`) instead of
every move's exact value (`Engine.score_moves`), five to ten times less work at the
opening lead. So its P(make) of every move is the hint's (objective ``make``) for the
same deals. The declaring side takes the move that makes on the most deals, the
defenders the one that makes on the fewest; moves tied on makes are told apart by
their mean exact value (the side's direction) over the first `TIE_DEALS` deals only,
computed for those moves alone, and then, as in the hint, by the highest tile.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from ..game import tiles as T
from ..game.errors import PositionError, SearchCancelled
from ..game.position import SEATS, Position
from ..search._core import CancelToken, Engine
from .deals import DealBuilder
from .hint import (DEFAULT_DEALS, DEFAULT_ENUMERATION_LIMIT, DealScorer, InferredDeals, Masks,
                   ViewLike, as_view, check_options, start_dealing, with_deadline)
from .inference import InferenceLike, InferenceReport, read_inference

#: Moves tied on makes are compared by their mean value over this many deals (the first).
TIE_DEALS = 16


class _MadeScorer(DealScorer):
    """Per deal, 1 where the contract makes after the move, else 0 (columns: `moves`)."""

    def __init__(self, template: Position, threads: int | None) -> None:
        super().__init__(template, threads)
        target, self.at_least = template.make_target()
        self.target = int(target)

    def _score_one(self, engine: Engine, masks: Masks) -> tuple[int, ...]:
        p = self.template
        engine.set_state(list(masks), p.leader, list(p.trick), p.points, p.available,
                         p.tricks_left)
        row = [0] * len(self.moves)
        for tile, reached in engine.at_least_moves(self.target):
            row[self._column[tile]] = int(reached == self.at_least)
        return tuple(row)

    def _position_value(self, row: tuple[int, ...]) -> None:
        return None                 # a row of makes, not of values


class _ValueScorer(DealScorer):
    """Per deal, the exact value after each move of ``columns`` (in that order)."""

    def __init__(self, template: Position, threads: int | None,
                 columns: Sequence[int]) -> None:
        super().__init__(template, threads)
        self.columns = tuple(columns)

    def _score_one(self, engine: Engine, masks: Masks) -> tuple[int, ...]:
        p = self.template
        engine.set_state(list(masks), p.leader, list(p.trick), p.points, p.available,
                         p.tricks_left)
        row, guess = [], -1
        for i in self.columns:
            engine.play(self.moves[i])
            try:
                guess = engine.exact(guess)
            finally:
                engine.undo()
            row.append(guess)
        return tuple(row)

    def _position_value(self, row: tuple[int, ...]) -> None:
        return None                 # the values of some moves only


@dataclass(frozen=True)
class QuickMove:
    """One move's figures: P(make) over every deal; the mean value only for a move tied
    for the most (declaring) or fewest (defending) makes, over the first deals.

    Attributes:
        tile: The move.
        makes: Deals on which the contract makes after it.
        p_make: Their share.
        mean: The mean value over the first ``tie_deals`` deals, for a tied move."""

    tile: str
    makes: int
    p_make: float
    mean: float | None = None

    def to_json(self) -> dict:
        return {"p_make": self.p_make, "mean": self.mean}


@dataclass(frozen=True)
class QuickPlay:
    """`quick_play`'s answer: the move chosen and every legal move's figures.

    Attributes:
        to_move: The seat to move (the viewer).
        count: The deals consistent with the view.
        method: ``"enumerated"`` or ``"sampled"``.
        deals: Deals scored.
        seed: The seed of the draws (None when enumerated).
        moves: Every legal move's `QuickMove`, best first.
        best: The move chosen.
        tie_deals: Deals that gave the means (0: no tie to break).
        declaring: Whether the viewer's side declared.
        nodes: Nodes searched.
        inference: What the deals were weighed by (None: uniform)."""

    to_move: str
    count: int
    method: str
    deals: int
    seed: int | None
    moves: dict[str, QuickMove]
    best: str
    tie_deals: int
    declaring: bool
    nodes: int = 0
    #: what inference weighed the deals by (None: every consistent deal the same)
    inference: InferenceReport | None = None

    def to_json(self) -> dict:
        out = {"to_move": self.to_move, "count": self.count, "method": self.method,
               "deals": self.deals, "seed": self.seed, "best": self.best,
               "tie_deals": self.tie_deals,
               "moves": {t: m.to_json() for t, m in self.moves.items()}}
        if self.inference is not None:
            out["inference"] = self.inference.to_json()
        return out


def quick_play(view: ViewLike, *, deals: int = DEFAULT_DEALS,
               enumerate_limit: int = DEFAULT_ENUMERATION_LIMIT, seed: int | None = None,
               tie_deals: int = TIE_DEALS, token: CancelToken | None = None,
               timeout: float | None = None, threads: int | None = 1,
               inference: InferenceLike = None) -> QuickPlay:
    """The viewer's move with the most makes (declaring) or fewest (defending) over the
    deals `hint` would score with the same options, ties by the mean value over the first
    ``tie_deals`` deals, then by the highest tile.

    Args:
        view: The viewer's `View` or its JSON.
        deals: As for `hint`.
        enumerate_limit: As for `hint`.
        seed: As for `hint`.
        tie_deals: The deals whose mean breaks ties on makes.
        token: Stops the searches (`CancelToken`).
        timeout: Seconds after which it stops.
        threads: Threads for the searches.
        inference: As for `hint`.

    Raises:
        PositionError: A bad view or option, or a viewer not to move.
        SearchCancelled: ``token`` or ``timeout`` stopped it.
    """
    v = as_view(view)
    v.check_can_hint()
    timeout = check_options(deals=deals, enumerate_limit=enumerate_limit, timeout=timeout)
    if not isinstance(tie_deals, int) or isinstance(tie_deals, bool) or tie_deals < 1:
        raise PositionError("tie_deals", f"must be a whole number >= 1, not {tie_deals!r}",
                            "INVALID_VALUE")
    inferred = read_inference(inference, v.game)
    token = with_deadline(token, timeout)
    weights: list[float] | None = None
    report = None
    try:
        if inferred is None:
            seed, count, enumerated, source, batch = start_dealing(v, deals, enumerate_limit,
                                                                   seed, token)
            template = DealBuilder(v).position(source.first)
            scorer = _MadeScorer(template, threads)
            rows = scorer.score(batch, token)
        else:
            dealt = InferredDeals(v, inferred, deals, enumerate_limit, seed, token,
                                  keep_places=False)
            seed, count, enumerated, batch = dealt.seed, dealt.count, dealt.enumerated, \
                dealt.first
            template = DealBuilder(v).position(dealt.source.first)
            scorer = _MadeScorer(template, threads)
            dealt.prepare(scorer)
            rows = dealt.score(scorer, batch, token)
            weights = None if dealt.uniform else dealt.weights()
            report = dealt.finish(weights)
        first = batch[0]
    except SearchCancelled:
        raise SearchCancelled("play stopped before it finished") from None
    n = len(rows)
    moves = scorer.moves
    if weights is None:
        makes: list = [sum(column) for column in zip(*rows)]
        total_weight: float = n
    else:
        makes = [math.fsum(w for w, made in zip(weights, column) if made)
                 for column in zip(*rows)]
        total_weight = math.fsum(weights)
    declaring = v.scorer[v.seat] == 1
    make_sign = 1 if declaring else -1
    top = max(make_sign * m for m in makes)
    tied = [i for i in range(len(moves)) if make_sign * makes[i] == top]
    sums: dict[int, int] = {}     # exact integers, so that ties stay ties
    used = 0
    used_weight: float = 0
    if len(tied) > 1:
        sub = [first] + [batch[i] for i in range(1, min(tie_deals, n))]
        values = _ValueScorer(template, threads, tied)
        value_rows = values.score(sub, token)
        scorer.nodes += values.nodes
        used = len(value_rows)
        tie_weights = weights[:used] if weights is not None else [1] * used
        for k, i in enumerate(tied):
            sums[i] = sum(w * row[k] for w, row in zip(tie_weights, value_rows))
        used_weight = sum(tie_weights)
    value_sign = 1 if template.maximizer[template.to_move_index] else -1
    order = sorted(range(len(moves)),
                   key=lambda i: (make_sign * makes[i], value_sign * sums.get(i, 0),
                                  moves[i]), reverse=True)
    figures = {T.name_of(moves[i]): QuickMove(T.name_of(moves[i]), makes[i],
                                              makes[i] / total_weight,
                                              sums[i] / used_weight if i in sums else None)
               for i in order}
    return QuickPlay(to_move=SEATS[v.seat], count=count,
                     method="enumerated" if enumerated else "sampled", deals=n, seed=seed,
                     moves=figures, best=T.name_of(moves[order[0]]), tie_deals=used,
                     declaring=declaring, nodes=scorer.nodes, inference=report)


__all__ = ["TIE_DEALS", "QuickMove", "QuickPlay", "quick_play"]
