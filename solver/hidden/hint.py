"""Hints for a seat that sees only its own hand (docs/guides/players.md, "Hints").

The hint scores every legal move of the viewer on a set of consistent deals
(all of them when there are few, a uniform sample otherwise) and reports,
per move, the mean double-dummy value, the share of deals on which the
contract makes after it (``p_make``) and the share on which it is optimal
(``p_best``).

The deals of one view differ only in the hidden hands: the contract, the
plays, the trick in progress and the points won are the same on all of
them. So the hint loads each deal into the core as four hand masks and
scores all of the viewer's moves with one ``score_moves`` call, on one
engine per thread (the search releases the GIL, so the threads use every
core). The transposition table's key is the set of tiles still held and
the leader, which every deal of a view shares, so the table is cleared
between deals (``Engine.clear``). The threads take deals one at a time;
from trick 5 on, where a deal's searches take microseconds, one thread does
all.

The deals are made as the threads ask for them (drawn or enumerated
`DRAW_BATCH` at a time, never a list of them all up front), and the cancel
token is looked at before each batch, so a hint cancelled or past its
deadline stops within one batch even while it draws. A call samples at most
`MAX_DEALS` deals (adaptive budget included) and enumerates at most
`MAX_ENUMERATION_LIMIT`.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence, Union

from ..game import tiles as T
from ..game.errors import PositionError, SearchCancelled, quoted
from ..game.position import SEATS, Position
from ..game.view import View
from ..search._core import Aborted, CancelToken, Engine
from ._pool import DealPool
from .deals import (MAX_DEALS, MAX_ENUMERATION_LIMIT, DealBuilder, ProgressCounter,
                    check_deal_count, check_seconds, check_seed, token_stopped)
from .inference import (DRAWS_PER_DEAL, MIN_DRAW_BUDGET, Inference, InferenceLike,
                        InferenceReport, dealt_masks, effective_deals, min_pool, normalised,
                        read_inference, view_weigher)
from .play_model import PlayReplay
from .stats import Z95, mean_estimate, weighted_mean_estimate, wilson_interval

ViewLike = Union[View, Mapping[str, Any], str]

DEFAULT_DEALS = 100
DEFAULT_ENUMERATION_LIMIT = 1000
OBJECTIVES = ("make", "points")
#: adaptive hints stop at this many times ``deals`` (at most `MAX_DEALS`) unless told otherwise
ADAPTIVE_BUDGET_FACTOR = 10
#: Deals drawn (or enumerated) at a time; the cancel token is looked at before each
#: batch (drawing one deal takes ~20 us at the opening lead: a batch, ~5 ms).
DRAW_BATCH = 256

#: With this few tricks left a deal's searches take microseconds, less than
#: handing deals to a second thread costs: one thread does all (20% less CPU
#: at trick 5 of 42, no slower).
SERIAL_TRICKS_LEFT = 3

#: A deal as the core sees it: the tiles each seat still holds (4 masks).
Masks = tuple[int, int, int, int]


def as_view(view: ViewLike) -> View:
    return view if isinstance(view, View) else View(view)


def default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _tt_bits(tricks_left: int) -> int:
    # Big enough for the searches' working set, small enough to clear fast.
    return 16 if tricks_left >= 6 else 14 if tricks_left >= 4 else 12


class DealScorer:
    """Scores the moves of the seat to move on many deals of one view.

    ``template`` is any one consistent deal as a `Position`: it supplies the
    rules, the state of play and the viewer's legal moves, which every deal
    of the view shares. `score` takes deals as hand masks.

    Args:
        template: Any one deal of the view, as a `Position`.
        threads: The threads that score deals (None: one per core).

    >>> from solver import Position
    >>> p = Position.from_json(open("examples/deal.json").read())
    >>> DealScorer(p, threads=1).moves == tuple(p.legal_ids())
    True
    """

    def __init__(self, template: Position, threads: int | None = None) -> None:
        p = template
        self.template = p
        self.moves: tuple[int, ...] = tuple(p.legal_ids())
        self._column = {t: i for i, t in enumerate(self.moves)}
        self.threads = threads or default_threads()
        self.nodes = 0
        self._lock = threading.Lock()
        #: weighs each deal by its plays before scoring it (`score_weighted`), or None
        self.replay: Any = None
        #: counts each deal scored for a caller's progress callback, or None
        self.progress: ProgressCounter | None = None

    def _engine(self) -> Engine:
        p = self.template
        return Engine(p.rules, p.active_seats, p.maximizer, p.scorer, _tt_bits(p.tricks_left))

    def _score_one(self, engine: Engine, masks: Masks) -> tuple[int, ...]:
        p = self.template
        engine.set_state(list(masks), p.leader, list(p.trick), p.points, p.available,
                         p.tricks_left)
        row = [0] * len(self.moves)
        for tile, value in engine.score_moves():
            row[self._column[tile]] = value
        return tuple(row)

    def _position_value(self, row: tuple[int, ...]) -> int | None:
        """The value of the template's position on a deal, from its scored row (a
        scorer whose rows are not every move's exact value returns None)."""
        p = self.template
        return max(row) if p.maximizer[p.to_move_index] else min(row)

    def _worker(self, deals: Sequence[Masks], out: list, counter,
                token: CancelToken | None, stop: threading.Event,
                log_weights: list | None = None) -> None:
        engine = self._engine()
        replay = self.replay
        engine.set_token(token)
        try:
            # One deal at a time from a shared counter: a deal's searches vary
            # tenfold in cost, and taking them one by one leaves no thread
            # idle at the end for more than one deal (next() on a counter is
            # atomic under the GIL). Every deal is searched on a cleared
            # table, so its values and nodes do not depend on the thread.
            while not stop.is_set():
                i = next(counter)
                if i >= len(deals):
                    break
                engine.clear()
                out[i] = row = self._score_one(engine, deals[i])
                if log_weights is not None:
                    # The scoring first: its value of the position saves the judging a
                    # search, and its table serves the judging's searches.
                    log_weights[i] = replay.log_weight(engine, deals[i],
                                                       self._position_value(row))
                if self.progress is not None:
                    self.progress.tick()
        except Aborted:
            stop.set()          # the other threads stop at their next deal
            raise
        finally:
            with self._lock:
                self.nodes += engine.nodes

    def score(self, deals: Sequence[Masks],
              token: CancelToken | None = None) -> list[tuple[int, ...]]:
        """One row per deal: the value after each move of `moves`, in that order."""
        return self._score(deals, token, None)

    def score_weighted(self, deals: Sequence[Masks], token: CancelToken | None = None
                       ) -> tuple[list[tuple[int, ...]], list[float]]:
        """`score`'s rows and, per deal, the log-likelihood of the plays under `replay`
        (a `solver.hidden.play_model.PlayReplay`; 0.0 per deal without one)."""
        if self.replay is None:
            return self._score(deals, token, None), [0.0] * len(deals)
        log_weights: list = [0.0] * len(deals)
        return self._score(deals, token, log_weights), log_weights

    def _score(self, deals: Sequence[Masks], token: CancelToken | None,
               log_weights: list | None) -> list[tuple[int, ...]]:
        out: list = [None] * len(deals)
        counter = itertools.count()
        threads = min(self.threads, max(1, len(deals) // 4))
        if self.template.tricks_left <= SERIAL_TRICKS_LEFT:
            threads = 1
        stop = threading.Event()
        try:
            if threads == 1:
                self._worker(deals, out, counter, token, stop, log_weights)
            else:
                with ThreadPoolExecutor(threads) as pool:
                    jobs = [pool.submit(self._worker, deals, out, counter, token, stop,
                                        log_weights)
                            for _ in range(threads)]
                    for job in jobs:
                        job.result()
        except Aborted:
            raise SearchCancelled("hint stopped before it finished") from None
        return out


@dataclass(frozen=True)
class MoveFigures:
    """One move's figures over the deals scored (`Hint.moves`).

    Attributes:
        tile: The move.
        mean: The mean double-dummy value after it (the hint's ``unit``).
        p_make: The share of deals on which the contract makes after it.
        p_best: The share of deals on which it is optimal.
        makes: Deals on which the contract makes after the move.
        best: Deals on which the move is optimal.
        total: The sum of the values, so that ties are compared exactly.
        mean_ci: A 95% interval of ``mean``, only when the deals are a sample.
        p_make_ci: A 95% (Wilson) interval of ``p_make``, likewise.

    >>> MoveFigures("3-2", 30.0, 0.5, 1.0, 1, 2, 60).to_json()
    {'mean': 30.0, 'p_make': 0.5, 'p_best': 1.0}
    """

    tile: str
    mean: float
    p_make: float
    p_best: float
    makes: int           # deals on which the contract makes after the move
    best: int            # deals on which the move is optimal
    total: int           # sum of the values, so that ties are compared exactly
    #: 95% intervals, only when the deals are a sample
    mean_ci: tuple[float, float] | None = None
    p_make_ci: tuple[float, float] | None = None

    def to_json(self) -> dict:
        """``{"mean", "p_make", "p_best"}`` and the intervals when sampled."""
        out: dict[str, Any] = {"mean": self.mean, "p_make": self.p_make, "p_best": self.p_best}
        if self.mean_ci is not None:
            out["mean_ci"] = list(self.mean_ci)
        if self.p_make_ci is not None:
            out["p_make_ci"] = list(self.p_make_ci)
        return out


@dataclass(frozen=True)
class Example:
    """A deal on which the best move and the runner-up are worth different values.

    Attributes:
        position: The deal, as a `Position` at the view's point of play.
        values: The best move's and the runner-up's double-dummy values on that deal.

    >>> from solver import hint
    >>> h = hint(open("examples/view.json").read(), deals=20, seed=1, threads=1, examples=1)
    >>> [e.values for e in h.examples]
    [{'3-2': 29, '5-0': 35}]
    """

    position: Position
    values: dict[str, int]

    def to_json(self) -> dict:
        """``{"position", "values"}``."""
        return {"position": self.position.to_json(), "values": dict(self.values)}


@dataclass
class Hint:
    """A hint: every legal move of the viewer with its figures, best first, as
    `hint` returns it.

    Attributes:
        to_move: The seat to move (the viewer, unless ``viewer`` says otherwise).
        side: The viewer's side: ``"declaring"`` or ``"defending"``.
        count: The number of deals consistent with the view.
        method: ``"enumerated"`` (every consistent deal scored, the figures
            exact) or ``"sampled"`` (``deals`` drawn uniformly with ``seed``;
            the moves then carry 95% intervals); ``"none"`` for a viewer not
            to move.
        deals: The deals scored.
        seed: The seed the deals were drawn with (None when enumerated).
        objective: ``"make"`` (rank by P(make), then mean) or ``"points"``
            (by mean).
        moves: Every legal move's `MoveFigures`, best first.
        best: Every move ranked first (ties included).
        unit: What values count: ``"points"`` or ``"tricks"``.
        adaptive: Whether the hint drew deals until the best move was clear.
        stopped: Why an adaptive hint stopped: ``"clear"`` (the best move's
            lead is clear), ``"budget"`` (``max_deals`` reached), ``"draws"``
            (no more deals to draw) or ``"deadline"``.
        examples: Deals on which the best move and the runner-up differ.
        nodes: Nodes searched in all.
        declaring: Whether the viewer's side declared.
        maximizing: Whether the viewer's side wants the value high.
        inference: What the deals were weighed by (None: uniform).
        viewer: The viewer, when it is not the seat to move (``any_seat``).

    >>> from solver import hint
    >>> h = hint(open("examples/view.json").read(), deals=20, seed=1, threads=1)
    >>> h.method, h.count, h.best_move
    ('sampled', 5153148, '3-2')
    >>> h.moves["3-2"].p_make, h.moves["3-2"].mean
    (0.6, 32.15)
    """

    to_move: str
    side: str
    count: int
    method: str
    deals: int
    seed: int | None
    objective: str
    moves: dict[str, MoveFigures]
    best: list[str]
    unit: str
    adaptive: bool = False
    stopped: str | None = None
    examples: list[Example] = field(default_factory=list)
    nodes: int = 0
    #: the viewer's side: does it declare, does it want the value high
    declaring: bool = True
    maximizing: bool = True
    #: what inference weighed the deals by (None: every consistent deal the same)
    inference: InferenceReport | None = None
    #: the viewer, when it is not the seat to move (`hint` with ``any_seat``): no moves
    viewer: str | None = None

    @property
    def best_move(self) -> str:
        """The first of the best moves."""
        return self.best[0]

    def best_for(self, objective: str) -> list[str]:
        """Every best move under another objective, from the same figures."""
        ranking = _Ranking(self.declaring, self.maximizing, objective)
        keys = {t: ranking.key(m.makes, m.total) for t, m in self.moves.items()}
        top = max(keys.values())
        return [t for t, k in keys.items() if k == top]

    def to_json(self) -> dict:
        """The hint JSON, as `t42 hint --json` writes it."""
        out: dict[str, Any] = {
            "to_move": self.to_move, "side": self.side, "count": self.count,
            "method": self.method, "deals": self.deals, "seed": self.seed,
            "objective": self.objective, "unit": self.unit,
            "moves": {t: m.to_json() for t, m in self.moves.items()},
            "best": list(self.best),
        }
        if self.adaptive:
            out["adaptive"] = True
            out["stopped"] = self.stopped
        if self.examples:
            out["examples"] = [e.to_json() for e in self.examples]
        if self.inference is not None:
            out["inference"] = self.inference.to_json()
        if self.viewer is not None:
            out["viewer"] = self.viewer
        return out


class _Tally:
    """Running per-move sums over scored deals, kept as integers so ties are exact."""

    def __init__(self, scorer: DealScorer) -> None:
        p = scorer.template
        self.n_moves = len(scorer.moves)
        self.is_max = bool(p.maximizer[p.to_move_index])
        self.threshold, self.at_least = p.make_target()
        self.rows: list[tuple[int, ...]] = []
        self.sums = [0] * self.n_moves
        self.squares = [0] * self.n_moves
        self.makes = [0] * self.n_moves
        self.bests = [0] * self.n_moves
        #: `_lead_is_clear`'s sums per (best, runner-up) pair of columns: the rows
        #: folded in so far and, per criterion, [deals that differ, sum, sum of squares]
        #: of the differences (each row is read once per pair, not once per round)
        self.pairs: dict[tuple[int, int], list] = {}

    def made(self, value: int) -> bool:
        return value >= self.threshold if self.at_least else value < self.threshold

    def add(self, rows: Sequence[tuple[int, ...]]) -> None:
        if not rows:
            return
        # Column by column with builtins: this runs once per deal and move.
        pick = max if self.is_max else min
        tops = [pick(row) for row in rows]
        threshold, at_least = self.threshold, self.at_least
        for i, column in enumerate(zip(*rows)):
            self.sums[i] += sum(column)
            self.squares[i] += sum(v * v for v in column)
            if at_least:
                self.makes[i] += sum(1 for v in column if v >= threshold)
            else:
                self.makes[i] += sum(1 for v in column if v < threshold)
            self.bests[i] += sum(1 for v, top in zip(column, tops) if v == top)
        self.rows.extend(rows)


class _WeightedTally(_Tally):
    """`_Tally` with a weight per deal (inference): every sum is weighted (floats), and
    `weights` holds the deals' weights in the order of `rows`."""

    def __init__(self, scorer: DealScorer) -> None:
        super().__init__(scorer)
        self.sums = [0.0] * self.n_moves        # type: ignore[list-item]
        self.squares = [0.0] * self.n_moves     # type: ignore[list-item]
        self.makes = [0.0] * self.n_moves       # type: ignore[list-item]
        self.bests = [0.0] * self.n_moves       # type: ignore[list-item]
        self.weights: list[float] = []

    def add(self, rows: Sequence[tuple[int, ...]],  # type: ignore[override]
            weights: Sequence[float] = ()) -> None:
        if not rows:
            return
        pick = max if self.is_max else min
        tops = [pick(row) for row in rows]
        for i, column in enumerate(zip(*rows)):
            self.sums[i] += math.fsum(w * v for w, v in zip(weights, column))
            self.squares[i] += math.fsum(w * v * v for w, v in zip(weights, column))
            self.makes[i] += math.fsum(w for w, v in zip(weights, column) if self.made(v))
            self.bests[i] += math.fsum(w for w, v, top in zip(weights, column, tops)
                                       if v == top)
        self.rows.extend(rows)
        self.weights.extend(weights)

    @property
    def total_weight(self) -> float:
        return math.fsum(self.weights)


class _Ranking:
    """Orders moves by the best-move rule (docs/guides/players.md, "Hints") for the
    viewer's side and objective."""

    def __init__(self, declaring: bool, is_max: bool, objective: str) -> None:
        self.make_sign = 1 if declaring else -1    # the declaring side wants makes
        self.value_sign = 1 if is_max else -1      # the viewer's side's direction of value
        self.points_first = objective == "points"

    def key(self, makes: int, total: int) -> tuple[int, int]:
        m, v = self.make_sign * makes, self.value_sign * total
        return (v, m) if self.points_first else (m, v)

    def row_key(self, made: bool, value: int) -> tuple[int, int]:
        return self.key(int(made), value)


def _mask_maker(view: View):
    """A function from the unseen tiles' places to the four hand masks of tiles still held."""
    viewer = T.mask_of(view.remaining)
    hands = [(p, seat) for p, seat in enumerate(view.place_seats)
             if seat is not None and seat in view.active_seats]

    def masks(places: list[list[int]]) -> Masks:
        out = [0, 0, 0, 0]
        out[view.seat] = viewer
        for p, seat in hands:
            m = 0
            for t in places[p]:
                m |= 1 << t
            out[seat] = m
        return (out[0], out[1], out[2], out[3])
    return masks


class _DealSource:
    """The deals of one hint: drawn uniformly with ``rng``, or (``rng`` None) every
    consistent deal in turn, made only when a scoring thread asks for one.

    `batch` hands out the next ``n`` deals as a sequence that `DealScorer.score`
    reads; they are made `DRAW_BATCH` at a time, in the order of the draws (so a
    seed gives the same deals however many threads score them), and before each
    batch the token is looked at: once it has stopped, the thread that asked gets
    `Aborted`. ``places`` keeps every deal's places when examples are wanted; ``masks``
    makes a deal's hand masks from its places.
    """

    def __init__(self, view: View, rng: random.Random | None, token: CancelToken | None,
                 keep_places: bool) -> None:
        table = view.completions
        self._next = functools.partial(table.sample, rng) if rng is not None \
            else table.enumerate().__next__
        self.masks = _mask_maker(view)
        self.token = token
        self.first: list[list[int]] | None = None
        self.places: list[list[list[int]]] | None = [] if keep_places else None
        self.lock = threading.Lock()
        self.drawn = 0

    def take(self, n: int) -> list[Masks]:
        """The next ``n`` deals (fewer when the enumeration ends), made now; the token is
        looked at every `DRAW_BATCH` deals (`Aborted` once it has stopped)."""
        made: list[Masks] = []
        while len(made) < n:
            if token_stopped(self.token):
                raise Aborted()
            for _ in range(min(DRAW_BATCH, n - len(made))):
                try:
                    places = self._next()
                except StopIteration:
                    return made
                self.drawn += 1
                self.add(places, self.masks(places), made)
        return made

    def fill(self, pool: DealPool, n: int, budget: int, min_pool: int) -> None:
        """Have ``pool`` draw deals until it holds ``min_pool`` deals and is worth ``n``, or
        ``budget`` deals have been drawn in all; the token is looked at every `DRAW_BATCH`
        draws."""
        while not pool.enough(n, min_pool) and self.drawn < budget:
            if token_stopped(self.token):
                raise Aborted()
            self.drawn += pool.draw(n, min_pool, min(DRAW_BATCH, budget - self.drawn))

    def add(self, places: list[list[int]], masks: Masks, made: list[Masks]) -> None:
        """One deal onto ``made``, its places kept as asked."""
        if self.first is None:
            self.first = places
        if self.places is not None:
            self.places.append(places)
        made.append(masks)

    def batch(self, n: int) -> "_Batch":
        return _Batch(self, n)

    def make(self, made: list[Masks], n: int) -> None:
        """The next deals (at most `DRAW_BATCH`) of a batch of ``n``, onto ``made``."""
        if token_stopped(self.token):
            raise Aborted()
        for _ in range(min(DRAW_BATCH, n - len(made))):
            places = self._next()
            if self.first is None:
                self.first = places
            if self.places is not None:
                self.places.append(places)
            made.append(self.masks(places))


class _Batch:
    """``n`` deals of a `_DealSource` as a sequence; each is made when first asked for."""

    def __init__(self, source: _DealSource, n: int) -> None:
        self.source = source
        self.n = n
        self._made: list[Masks] = []

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> Masks:
        made = self._made
        if i >= len(made):      # the list only grows: reading it needs no lock
            with self.source.lock:
                while i >= len(made):
                    self.source.make(made, self.n)
        return made[i]


def check_options(*, deals: object = DEFAULT_DEALS,
                  enumerate_limit: object = DEFAULT_ENUMERATION_LIMIT,
                  max_deals: object = None, examples: object = 0,
                  timeout: object = None) -> float | None:
    """`PositionError` (naming the option) unless `hint`'s counts and time limit are in
    range: ``deals`` 1..`MAX_DEALS`, ``enumerate_limit`` 0..`MAX_ENUMERATION_LIMIT`,
    ``max_deals`` None or ``deals``..`MAX_DEALS`, ``examples`` >= 0, ``timeout`` None
    or seconds >= 0. Returns the timeout as a float (None: none).

    Args:
        deals: The deals of one round.
        enumerate_limit: Views with at most this many deals are enumerated.
        max_deals: The adaptive ceiling, or None.
        examples: How many example deals to return.
        timeout: Seconds, or None.

    Returns:
        ``timeout`` as a float, or None.

    Raises:
        PositionError: An option out of range, named.

    >>> check_options(deals=100, timeout=2)
    2.0
    >>> check_options(deals=0)
    Traceback (most recent call last):
    ...
    solver.game.errors.PositionError: deals: ...
    """
    check_deal_count("deals", deals)
    check_deal_count("enumerate_limit", enumerate_limit, low=0, high=MAX_ENUMERATION_LIMIT)
    if max_deals is not None:
        check_deal_count("max_deals", max_deals)
        if max_deals < deals:  # type: ignore[operator]
            raise PositionError("max_deals", f"must be at least deals ({deals}, the deals of "
                                f"one round), not {max_deals}", "INVALID_VALUE")
    if not isinstance(examples, int) or isinstance(examples, bool) or examples < 0:
        raise PositionError("examples", f"must be a whole number >= 0, not {quoted(examples)}",
                            "INVALID_VALUE")
    return check_seconds("timeout", timeout)


def with_deadline(token: CancelToken | None, timeout: float | None) -> CancelToken | None:
    """``token`` with the deadline ``timeout`` seconds from now folded in (a new token when
    None; the earlier deadline wins)."""
    if timeout is None:
        return token
    deadline = time.monotonic() + timeout
    if token is None:
        return CancelToken(deadline=deadline)
    if not token.deadline or token.deadline > deadline:
        token.deadline = deadline
    return token


def start_dealing(v: View, deals: int, enumerate_limit: int, seed: object,
                  token: CancelToken | None, keep_places: bool = False
                  ) -> tuple[int | None, int, bool, "_DealSource", "_Batch"]:
    """The deals of a view as a hint scores them: (seed, consistent deals, enumerated,
    source, first batch). Every consistent deal when there are at most
    ``enumerate_limit`` (seed None), else ``deals`` drawn from ``seed`` (a fresh one
    when None); the first deal of the batch is made (the source's ``first``, any deal
    of the view, a template). Raises `SearchCancelled` when ``token`` stops it."""
    seed = check_seed(seed)
    count = v.completions.count()
    enumerated = count <= enumerate_limit
    rng = None
    if enumerated:
        seed = None
    else:
        if seed is None:
            seed = random.SystemRandom().randrange(2 ** 31)
        rng = random.Random(seed)
    source = _DealSource(v, rng, token, keep_places=keep_places)
    first = source.batch(count if enumerated else deals)
    try:
        first[0]
    except Aborted:
        raise SearchCancelled("hint stopped before it finished") from None
    assert source.first is not None
    return seed, count, enumerated, source, first


def hint(view: ViewLike, *, deals: int = DEFAULT_DEALS,
         enumerate_limit: int = DEFAULT_ENUMERATION_LIMIT, objective: str = "make",
         seed: int | None = None, adaptive: bool = False, max_deals: int | None = None,
         examples: int = 0, token: CancelToken | None = None,
         timeout: float | None = None, threads: int | None = None,
         inference: InferenceLike = None, any_seat: bool = False,
         progress: Callable[[int, int], None] | None = None) -> Hint:
    """Score every legal move of the viewer over consistent deals.

    Each move gets its mean double-dummy value, P(make) and P(best) over the
    deals consistent with what the viewer sees (docs/guides/players.md).

    Args:
        view: The viewer's `View`, or its JSON (docs/formats.md) as a dict or
            text; the viewer must be the seat to move (see ``any_seat``).
        deals: How many deals to draw when there are more than
            ``enumerate_limit`` (at most `MAX_DEALS`); with ``inference``, the
            deals kept.
        enumerate_limit: With at most this many consistent deals, every one is
            scored (``method`` ``enumerated``); at most `MAX_ENUMERATION_LIMIT`.
        objective: ``"make"`` ranks moves by P(make), then mean; ``"points"``
            by mean.
        seed: The seed of the draws (a whole number 0 .. 2**63-1); None: a
            random one, reported in the answer.
        adaptive: Keep drawing batches of ``deals`` until the best move's lead
            over the runner-up is clear, or ``max_deals`` or the deadline is
            reached.
        max_deals: The adaptive budget (default ten times ``deals``; at least
            ``deals``, at most `MAX_DEALS`).
        examples: Up to this many deals on which the best move and the
            runner-up differ, in the answer.
        token: Stops the searches (`CancelToken`).
        timeout: Seconds (>= 0) after which the hint stops: an adaptive hint
            answers with what it has, a first batch not done raises.
        threads: Threads for the searches; None: one per core (one thread from
            trick 5 on, where searches take microseconds).
        inference: ``"off"`` (the default, as None), ``"auction"``, ``"plays"``
            or ``"both"``, or an `solver.hidden.inference.Inference`: weigh
            the deals by how likely the other seats were to make their calls
            and plays; the figures are then weighted, and the answer's
            ``inference`` names the models and the effective number of deals.
        any_seat: A viewer not to move gets a `Hint` without moves that names
            the seat to move (``viewer`` is its own seat) instead of the error.
        progress: Called as ``progress(scored, planned)`` after each deal scored
            (from the search threads): the deals scored so far and the deals the
            hint means to score (an adaptive hint's budget; it may stop sooner).

    Returns:
        The `Hint`.

    Raises:
        PositionError: A bad view or option, or a viewer not to move.
        SearchCancelled: ``token`` or ``timeout`` stopped the first batch
            (while its deals are drawn, too).

    >>> from solver import hint
    >>> hint(open("examples/view.json").read(), deals=20, seed=1, threads=1).best
    ['3-2']
    """
    v = as_view(view)
    waiting = any_seat and v.to_move_index != v.seat
    if not waiting:
        v.check_can_hint()
    if objective not in OBJECTIVES:
        raise PositionError("objective", f"unknown objective {objective!r} (make or points)",
                            "INVALID_OPTION")
    timeout = check_options(deals=deals, enumerate_limit=enumerate_limit, max_deals=max_deals,
                            examples=examples, timeout=timeout)
    if waiting:
        # Nothing for the viewer to do: the answer names the seat to move (None when the
        # hand is over) and has no moves.
        return Hint(to_move=v.to_move, side=v.side, count=v.completions.count(),
                    method="none", deals=0, seed=None, objective=objective, moves={},
                    best=[], unit="tricks" if v.max_value == 7 else "points",
                    viewer=SEATS[v.seat])
    inferred = read_inference(inference, v.game)
    token = with_deadline(token, timeout)
    if inferred is not None:
        return _inferred_hint(v, inferred, deals=deals, enumerate_limit=enumerate_limit,
                              objective=objective, seed=seed, adaptive=adaptive,
                              max_deals=max_deals, examples=examples, token=token,
                              threads=threads, progress=progress)
    seed, count, enumerated, source, first = start_dealing(v, deals, enumerate_limit, seed,
                                                           token, keep_places=examples > 0)
    builder = DealBuilder(v)
    template = builder.position(source.first)
    scorer = DealScorer(template, threads)
    _report_progress(scorer, progress, count if enumerated else
                     _planned(deals, max_deals, adaptive))
    tally = _Tally(scorer)
    ranking = _Ranking(v.scorer[v.seat] == 1, tally.is_max, objective)
    tally.add(scorer.score(first, token))

    stopped = None
    if adaptive and not enumerated:
        def more() -> bool:
            tally.add(scorer.score(source.batch(deals), token))
            return True
        stopped = _adapt(scorer, ranking, deals, max_deals, lambda: tally, more)
    # A batch stopped by the deadline leaves its places after every scored deal's.
    return _result(v, scorer, tally, ranking, count, enumerated, seed, objective, adaptive,
                   stopped, source.places or [], examples, builder)


class InferredDeals:
    """The deals of a view under inference, as `hint` and `quick_play` score them.

    Sampled views: drawn uniformly from ``seed`` into a pool with their auction weights
    until the pool is worth the deals asked for (at most `DRAWS_PER_DEAL` draws per
    deal asked, at least `MIN_DRAW_BUDGET`), then picked from it by weight
    (`solver.hidden._pool.DealPool`, `solver.hidden.inference.Resampler` in C, with a
    random stream of its own; a deal picked k times weighs k). Enumerated
    views: every deal, its auction weight kept as a log-weight. When every deal drawn
    has weight zero the deals are drawn uniformly instead and the report says so.
    `weights` folds in the plays' weights.

    Args:
        v: The view.
        inference: The mode and models.
        deals: The deals asked for.
        enumerate_limit: Views with at most this many deals are enumerated.
        seed: The seed of the draws and picks (checked as `hint`'s).
        token: Stops the drawing (`CancelToken`).
        keep_places: Keep each deal's places (the tiles of each place), for
            callers that build positions from them.

    >>> from solver import View
    >>> from solver.hidden.inference import read_inference
    >>> v = View.from_json(open("examples/view.json").read())
    >>> d = InferredDeals(v, read_inference("auction"), 10, 0, 1, None, False)
    >>> d.enumerated, d.count
    (False, 5153148)
    """

    def __init__(self, v: View, inference: Inference, deals: int, enumerate_limit: int,
                 seed: int | None, token: CancelToken | None, keep_places: bool) -> None:
        seed = check_seed(seed)
        self.view = v
        self.inference = inference
        self.report = InferenceReport(inference)
        self.count = v.completions.count()
        self.enumerated = self.count <= enumerate_limit
        weigher = view_weigher(v, inference.calls) if inference.uses_auction else None
        self.auction = weigher if weigher is not None and weigher.informative else None
        rng = None
        self.resampler: DealPool | None = None
        if self.enumerated:
            seed = None
        else:
            if seed is None:
                seed = random.SystemRandom().randrange(2 ** 31)
            rng = random.Random(seed)
            if self.auction is not None:
                self.resampler = DealPool(v, self.auction, seed)
        self.seed = seed
        self.token = token
        #: the pools' effective numbers of deals, summed over the rounds picked from them
        self.pool_effective = 0.0
        self._pending: list[float] = []     # log-weights of the deals taken, not yet weighed
        self.log_weights: list[float] = []
        self.source = _DealSource(v, rng, token, keep_places=keep_places)
        self.first = self.take(self.count if self.enumerated else deals)

    def take(self, n: int) -> list[Masks]:
        """The next ``n`` deals (fewer when an enumeration ends)."""
        try:
            if self.resampler is None:
                made = self.source.take(n)
                self._pending += [0.0] * len(made)
                return made
            budget = self.source.drawn + max(MIN_DRAW_BUDGET, DRAWS_PER_DEAL * n)
            self.source.fill(self.resampler, n, budget, min_pool=min_pool(n))
        except Aborted:
            raise SearchCancelled("hint stopped before it finished") from None
        drawn, effective = self.resampler.drawn, self.resampler.effective
        picks = self.resampler.pick(n)
        if picks is None:
            # Uniform deals from the seed, as without inference; the draws still count.
            self.report.fallback = (f"the call model gives every one of {drawn} deals drawn "
                                    "probability zero: uniform weights")
            self.resampler = None
            self.source = _DealSource(self.view, random.Random(self.seed), self.token,
                                      keep_places=self.source.places is not None)
            self.source.drawn = drawn
            return self.take(n)
        if effective < n:
            self.report.notes.append(f"the calls fit few deals: the {drawn} drawn were worth "
                                     f"{effective:.1f}, short of the {n} asked for")
        self.pool_effective += effective
        made: list[Masks] = []
        for places, times in picks:
            self.source.add(places, self.source.masks(places), made)
            self._pending.append(math.log(times))
        return made

    def prepare(self, scorer: DealScorer) -> None:
        """Give ``scorer`` (of this view's deals) the plays to weigh each deal by, when the
        inference reads plays and the view has some to judge."""
        if self.inference.uses_plays:
            replay = PlayReplay(self.view, scorer.template, self.inference.plays)
            scorer.replay = replay if replay.any_judged else None

    def score(self, scorer: DealScorer, deals: Sequence[Masks],
              token: CancelToken | None) -> list[tuple[int, ...]]:
        """``scorer``'s rows for ``deals``, their weights recorded (`weigh`)."""
        rows, play_log_weights = scorer.score_weighted(deals, token)
        self.weigh(deals, play_log_weights)
        return rows

    def weigh(self, deals: Sequence[Masks], play_log_weights: Sequence[float]) -> None:
        """Record the log-weights of deals just scored: how often each was picked, its
        plays, and for an enumerated view its auction."""
        picked, self._pending = self._pending[:len(deals)], self._pending[len(deals):]
        log_weights = [a + b for a, b in zip(picked, play_log_weights)]
        if self.enumerated and self.auction is not None:
            auction, played_by = self.auction, self.view.played_by
            log_weights = [lw + auction.log_weight(dealt_masks(d, played_by))
                           for d, lw in zip(deals, log_weights)]
        self.log_weights.extend(log_weights)

    @property
    def uniform(self) -> bool:
        """Whether every deal scored weighs the same."""
        return all(lw == 0.0 for lw in self.log_weights)

    def weights(self) -> list[float]:
        """Every deal's weight so far (the largest 1); uniform, with a note in the report,
        when every deal has weight zero."""
        weights = normalised(self.log_weights)
        if weights is None:
            self.report.fallback = ("the models give every deal scored probability zero: "
                                    "uniform weights")
            weights = [1.0] * len(self.log_weights)
        return weights

    def finish(self, weights: Sequence[float] | None) -> InferenceReport:
        self.report.drawn = self.source.drawn
        self.report.kept = len(self.log_weights)
        effective = effective_deals(weights) if weights is not None \
            else float(len(self.log_weights))
        if self.pool_effective:
            # Deals picked from a pool are worth no more than the pool.
            effective = min(effective, self.pool_effective)
        self.report.effective_deals = effective
        return self.report


def _inferred_hint(v: View, inference: Inference, *, deals: int, enumerate_limit: int,
                   objective: str, seed: object, adaptive: bool, max_deals: int | None,
                   examples: int, token: CancelToken | None, threads: int | None,
                   progress: Callable[[int, int], None] | None = None) -> Hint:
    """`hint` with inference (see `InferredDeals`): the figures weighted when the weights
    differ, as `hint`'s otherwise."""
    dealt = InferredDeals(v, inference, deals, enumerate_limit, seed, token,
                          keep_places=examples > 0)
    source = dealt.source
    assert source.first is not None
    builder = DealBuilder(v)
    template = builder.position(source.first)
    scorer = DealScorer(template, threads)
    _report_progress(scorer, progress, dealt.count if dealt.enumerated else
                     _planned(deals, max_deals, adaptive))
    dealt.prepare(scorer)
    ranking = _Ranking(v.scorer[v.seat] == 1, bool(template.maximizer[template.to_move_index]),
                       objective)
    rows: list[tuple[int, ...]] = []

    def score(batch: list[Masks]) -> None:
        rows.extend(dealt.score(scorer, batch, token))

    def tally_now() -> tuple[_Tally, list[float] | None]:
        if dealt.uniform:
            tally = _Tally(scorer)
            tally.add(rows)
            return tally, None
        weights = dealt.weights()
        weighted = _WeightedTally(scorer)
        weighted.add(rows, weights)
        return weighted, weights

    score(dealt.first)
    tally, weights = tally_now()
    stopped = None
    if adaptive and not dealt.enumerated:
        def more() -> bool:
            nonlocal tally, weights
            batch = dealt.take(deals)
            if not batch:
                return False
            score(batch)
            tally, weights = tally_now()
            return True
        stopped = _adapt(scorer, ranking, deals, max_deals, lambda: tally, more)
    answer = _result(v, scorer, tally, ranking, dealt.count, dealt.enumerated, dealt.seed,
                     objective, adaptive, stopped, source.places or [], examples, builder)
    answer.inference = dealt.finish(weights)
    return answer


def _planned(deals: int, max_deals: int | None, adaptive: bool) -> int:
    """The deals a sampled hint means to score: ``deals``, or an adaptive hint's budget."""
    if not adaptive:
        return deals
    return max_deals if max_deals is not None else min(ADAPTIVE_BUDGET_FACTOR * deals, MAX_DEALS)


def _report_progress(scorer: DealScorer, progress: Callable[[int, int], None] | None,
                     planned: int) -> None:
    if progress is not None:
        scorer.progress = ProgressCounter(progress, planned)


def _adapt(scorer: DealScorer, ranking: _Ranking, deals: int, max_deals: int | None,
           tally: Callable[[], _Tally], more: Callable[[], bool]) -> str:
    """An adaptive hint's rounds: ``more`` scores ``deals`` more deals (False: none were
    left to draw) until the best move's lead is clear on ``tally()``, the budget
    (``max_deals``, default ten times ``deals``) is reached or the deadline stops a round;
    returns why it stopped (``clear``, ``budget``, ``draws``, ``deadline``)."""
    budget = _planned(deals, max_deals, True)
    while True:
        now = tally()
        order = _order(scorer, now, ranking)
        if len(order) < 2 or _lead_is_clear(now, ranking, order[0], order[1]):
            return "clear"
        if len(now.rows) + deals > budget:
            return "budget"
        try:
            if not more():
                return "draws"
        except SearchCancelled:
            return "deadline"


def _order(scorer: DealScorer, tally: _Tally, ranking: _Ranking) -> list[int]:
    """Move columns best first (ties by tile, highest first)."""
    return sorted(range(tally.n_moves),
                  key=lambda i: (ranking.key(tally.makes[i], tally.sums[i]), scorer.moves[i]),
                  reverse=True)


def _lead_is_clear(tally: _Tally, ranking: _Ranking, best: int, second: int) -> bool:
    """Is the best move's lead over the runner-up clear on the deals so far?

    Paired comparison on the same deals: per deal, the difference between
    the two moves on the objective's first criterion (made or not for
    ``make``, the value for ``points``; the other criterion when the first
    ties on every deal). The lead is clear when the 95% interval of the
    mean difference lies above zero, or when the two moves are worth the
    same on every deal (more deals cannot tell them apart: both are best).
    """
    rows = tally.rows
    if isinstance(tally, _WeightedTally):
        return _weighted_lead_is_clear(tally, ranking, best, second)
    pair = tally.pairs.setdefault((best, second), [0, [0, 0, 0], [0, 0, 0]])
    for row in itertools.islice(rows, pair[0], None):
        a = ranking.row_key(tally.made(row[best]), row[best])
        b = ranking.row_key(tally.made(row[second]), row[second])
        for sums, d in ((pair[1], a[0] - b[0]), (pair[2], a[1] - b[1])):
            if d:
                sums[0] += 1
                sums[1] += d
                sums[2] += d * d
    pair[0] = len(rows)
    for differ, total, squares in (pair[1], pair[2]):
        if differ:
            return mean_estimate(len(rows), total, squares).low > 0
    return True


def _weighted_lead_is_clear(tally: _WeightedTally, ranking: _Ranking, best: int,
                            second: int) -> bool:
    """`_lead_is_clear` on weighted deals: the weighted mean difference and its standard
    error at the effective number of deals."""
    ess = effective_deals(tally.weights)
    total = tally.total_weight
    for k in (0, 1):
        diffs = [ranking.row_key(tally.made(r[best]), r[best])[k]
                 - ranking.row_key(tally.made(r[second]), r[second])[k] for r in tally.rows]
        if any(diffs):
            est = weighted_mean_estimate(total, math.fsum(w * d for w, d in
                                                          zip(tally.weights, diffs)),
                                         math.fsum(w * d * d for w, d in
                                                   zip(tally.weights, diffs)), ess)
            return est.low > 0
    return True


def _result(v: View, scorer: DealScorer, tally: _Tally, ranking: _Ranking, count: int,
            enumerated: bool, seed: int | None, objective: str, adaptive: bool,
            stopped: str | None, places: list, n_examples: int, builder: DealBuilder) -> Hint:
    n = len(tally.rows)
    order = _order(scorer, tally, ranking)
    top = ranking.key(tally.makes[order[0]], tally.sums[order[0]])
    best_cols = [i for i in order if ranking.key(tally.makes[i], tally.sums[i]) == top]
    moves: dict[str, MoveFigures] = {}
    weighted = isinstance(tally, _WeightedTally)
    total_weight: float = tally.total_weight if weighted else n  # type: ignore[attr-defined]
    ess = effective_deals(tally.weights) if weighted else n  # type: ignore[attr-defined]
    for i in order:
        mean_ci = p_make_ci = None
        if not enumerated:
            if weighted:
                est = weighted_mean_estimate(total_weight, tally.sums[i], tally.squares[i], ess)
                p_make_ci = wilson_interval(ess * tally.makes[i] / total_weight, ess, Z95)
            else:
                est = mean_estimate(n, tally.sums[i], tally.squares[i])
                p_make_ci = wilson_interval(tally.makes[i], n, Z95)
            # One deal gives no interval (its bounds are infinite): none is reported.
            mean_ci = (est.low, est.high) if n > 1 and math.isfinite(est.low) else None
        moves[T.name_of(scorer.moves[i])] = MoveFigures(
            tile=T.name_of(scorer.moves[i]), mean=tally.sums[i] / total_weight,
            p_make=tally.makes[i] / total_weight,
            p_best=tally.bests[i] / total_weight, makes=tally.makes[i], best=tally.bests[i],
            total=tally.sums[i],
            mean_ci=mean_ci, p_make_ci=p_make_ci)
    examples: list[Example] = []
    if n_examples and len(order) > 1:
        b, r = order[0], next((i for i in order if i not in best_cols), order[1])
        for row, pl in zip(tally.rows, places):
            if row[b] != row[r]:
                examples.append(Example(builder.position(pl), {T.name_of(scorer.moves[b]): row[b],
                                                           T.name_of(scorer.moves[r]): row[r]}))
                if len(examples) == n_examples:
                    break
    p = scorer.template
    return Hint(to_move=SEATS[v.seat], side=v.side, count=count,
                method="enumerated" if enumerated else "sampled", deals=n, seed=seed,
                objective=objective, moves=moves,
                best=[T.name_of(scorer.moves[i]) for i in best_cols],
                unit="tricks" if p.max_value == 7 else "points", adaptive=adaptive,
                stopped=stopped, examples=examples, nodes=scorer.nodes,
                declaring=ranking.make_sign > 0, maximizing=ranking.value_sign > 0)


__all__ = ["DEFAULT_DEALS", "DEFAULT_ENUMERATION_LIMIT", "MAX_DEALS", "DealScorer", "Example",
           "Hint", "InferredDeals", "MoveFigures", "check_options", "hint"]
