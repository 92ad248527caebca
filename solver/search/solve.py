"""The Python API over the search core: solve, make-or-set, legal moves.

Every query goes through a `DealSolver`, which owns one search engine (and so
one transposition table) for a deal and contract; positions of the same deal
and contract reuse what earlier queries learned. A `DealSolver` may be shared
by threads: a lock lets one call at a time use its engine. With ``threads``
above one, a query shares the position's moves out between that many threads,
each with an engine of its own (see `solver.search.split`).
"""

from __future__ import annotations

import functools
import threading
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, TypeVar, Union

from ..game import tiles as T
from ..game.errors import ArgumentError, PositionError, SearchCancelled
from ..game.position import SEATS, Position
from . import split
from ._core import Aborted, CancelToken, Engine
from ._line import optimal_line as walk_line

PositionLike = Union[Position, Mapping[str, Any], str]
F = TypeVar("F", bound=Callable[..., Any])

#: The most log2 of the transposition table's entries (8 bytes each) an engine may use;
#: it allocates what the tricks left need (1 MiB from the opening lead).
DEFAULT_TT_BITS = 18


def check_threads(threads: object) -> int | None:
    """``threads`` as given when it is None (automatic) or a whole number >= 1."""
    if threads is None:
        return None
    if isinstance(threads, bool) or not isinstance(threads, int):
        raise TypeError(f"threads must be None or a whole number, not {type(threads).__name__}")
    if threads < 1:
        raise ArgumentError("threads", f"{threads} is not a thread count (1 or more; "
                            f"None: automatic)")
    return threads


def as_position(position: PositionLike) -> Position:
    """A `Position` from a Position, a position JSON dict or a JSON string."""
    return position if isinstance(position, Position) else Position(position)


@dataclass
class SolveResult:
    """Exact double-dummy answer for a position, as `solve` returns it.

    Values are the declaring side's points (42), tricks or points (Moon) or
    nello's tricks, as docs/formats.md describes for the answer JSON.

    Attributes:
        value: The position's exact value under best play by both sides.
        makes: Whether the contract makes at that value.
        to_move: The seat to move (``"N"``, ``"E"``, ``"S"``, ``"W"``), None when
            the hand is over.
        moves: Every legal tile of the seat to move mapped to its value, best
            first for that seat's side (only the optimal tiles with ``best_only``).
        line: One optimal play from the position to the end of the hand.
        nodes: Nodes searched for the answer (a node is one tile played).

    >>> from solver import solve
    >>> result = solve(open("examples/deal.json").read())
    >>> result.value, result.makes, result.best_moves
    (31, True, ['1-1', '3-3'])
    """

    value: int
    makes: bool
    to_move: str | None
    moves: dict[str, int]
    line: list[str]
    nodes: int = 0

    def to_json(self) -> dict:
        """The answer JSON (docs/formats.md): value, makes, to_move, moves, line."""
        return {"value": self.value, "makes": self.makes, "to_move": self.to_move,
                "moves": dict(self.moves), "line": list(self.line)}

    @property
    def best_moves(self) -> list[str]:
        """The tiles whose value is the position's (every optimal move)."""
        return [t for t, v in self.moves.items() if v == self.value]


@dataclass
class MakeOrSetResult:
    """Whether the declaring side makes ``bid`` under double-dummy play, as
    `make_or_set` returns it.

    Attributes:
        makes: True when the declaring side makes ``bid`` against best defence.
        bid: The bid tested (the contract's unless another was asked).
        nodes: Nodes searched for the answer.
        value: The exact value, only when asked for (``exact=True``), else None.

    >>> from solver import make_or_set
    >>> make_or_set(open("examples/deal.json").read(), 34).makes
    False
    """

    makes: bool
    bid: int
    nodes: int = 0
    value: int | None = None

    def to_json(self) -> dict:
        """The answer JSON: makes, bid, and value when it was computed."""
        out: dict[str, Any] = {"makes": self.makes, "bid": self.bid}
        if self.value is not None:
            out["value"] = self.value
        return out


def _locked(method: F) -> F:
    """Run ``method`` holding the solver's lock (re-entrant: queries call queries)."""
    @functools.wraps(method)
    def run(self: "DealSolver", *args: Any, **kwargs: Any) -> Any:
        with self.lock:
            return method(self, *args, **kwargs)
    return run  # type: ignore[return-value]


@dataclass(eq=False)
class DealSolver:
    """Answers queries on positions of one deal and contract with one engine.

    Positions of the same deal and contract reuse what earlier queries learned
    (the transposition table), so a caller that asks many questions of one deal
    (every play of a hand, every lead) builds one solver and `load`s each
    position into it.

    Args:
        position: The first position to load.
        token: Stops every search of this solver (`CancelToken`); None: never.
        tt_bits: log2 of the transposition table's most entries.
        threads: How many threads one query may use (see below).

    ``tt_bits`` is log2 of the transposition table's entries (10..30, 8 bytes
    each; `ArgumentError` outside). Thread safety: every method holds
    ``lock`` (a re-entrant lock), so threads sharing a solver take turns on
    its engine and each call answers as if it were alone. A query that spans
    calls (`load` then `solve`, or `play` ... `undo`) must hold the lock
    itself: ``with solver.lock: solver.load(p); result = solver.solve()``.

    ``threads``: how many threads one query may use (the value, a null-window
    test, every move scored; a line is walked in one). 1 (the default) keeps
    to the solver's engine, and node counts are then deterministic; N shares
    the position's moves out between N threads, the caller's and N-1 helpers,
    each with an engine of its own that the solver keeps (searching with the
    solver's engine's table, `Engine.share_table`); None
    (automatic) splits the scoring of every move (`solve`, `child_values`)
    over every core the process may use when `split.SPLIT_MIN_TRICKS` or
    more tricks are left, the token has no node budget and no other automatic
    split holds the helper cores, and runs everything else in one thread.
    Answers never depend on it; pass 1 when the caller runs searches in
    parallel already.
    Play through `play`/`undo`, not on ``engine``: the helper engines follow
    the solver's moves.

    >>> from solver import DealSolver, Position
    >>> solver = DealSolver(Position(open("examples/deal.json").read()))
    >>> solver.value(), solver.make_or_set(32).makes
    (31, False)
    """

    position: Position
    token: CancelToken | None = None
    tt_bits: int = DEFAULT_TT_BITS
    threads: int | None = 1
    engine: Engine = field(init=False, repr=False)
    lock: threading.RLock = field(init=False, repr=False, default_factory=threading.RLock)
    #: Engines of the helper threads of split queries, made on first need.
    helpers: list[Engine] = field(init=False, repr=False, default_factory=list)

    def __post_init__(self) -> None:
        p = self.position
        check_threads(self.threads)
        self.engine = Engine(p.rules, p.active_seats, p.maximizer, p.scorer, self.tt_bits)
        self.engine.set_token(self.token)
        self._deal = 0                   # bumped by load_deal: helpers clear their table
        self._helper_deal: list[int] = []
        self.load(p)

    def _set_state(self, state: tuple) -> None:
        # What the engine was loaded with, and the plays since: the helpers are loaded alike.
        self._state = state
        self._plays: list[int] = []
        self.engine.set_state(*state)

    @_locked
    def load(self, position: Position) -> None:
        """Point the engine at another position of the same deal and contract.

        Args:
            position: A position of this solver's deal and contract.
        """
        self.position = position
        p = position
        self._set_state((p.remaining, p.leader, p.trick, p.points, p.available, p.tricks_left))

    @_locked
    def load_deal(self, position: Position) -> None:
        """Point the engine at a position of another deal of the same contract.

        The transposition table is cleared (in constant time): its keys name
        states only while every tile keeps its owner.

        Args:
            position: A position with the same declaration, doubles and declaring
                side; ValueError otherwise.
        """
        p, q = self.position, position
        if (q.rules is not p.rules or q.active_seats != p.active_seats
                or q.maximizer != p.maximizer or q.scorer != p.scorer):
            raise ValueError("load_deal needs the same declaration, doubles and declaring side")
        self.engine.clear()
        self._deal += 1
        self.load(q)

    @_locked
    def open_with_leader(self, seat: int) -> None:
        """Load the deal's opening position with ``seat`` (an index) on lead instead.

        The transposition table stays valid: its key includes the leader.
        """
        p = self.position.with_plays([]) if self.position.plays else self.position
        self.position = p
        self._set_state((list(p.remaining), seat, [], 0, p.available, p.tricks_left))

    @_locked
    def play(self, tile: int | str) -> None:
        """Play ``tile`` (a tile number 0..27, or a name such as "6-4") for the seat to move;
        the caller has checked it is legal."""
        if tile.__class__ is str:
            tile = T.parse_tile(tile, "tile")
        self.engine.play(tile)
        self._plays.append(tile)

    @_locked
    def undo(self) -> None:
        """Take back the last `play`."""
        self.engine.undo()
        self._plays.pop()

    @_locked
    def legal(self) -> list[int]:
        """Legal tiles of the seat to move, most promising first."""
        return self.engine.legal()

    @property
    def to_move(self) -> int:
        """Index of the seat to move, -1 when the hand is over."""
        return self.engine.to_move

    @property
    def nodes(self) -> int:
        """Nodes searched by the solver's engines in all (its helpers' included)."""
        return self.engine.nodes + sum(h.nodes for h in self.helpers)

    def _run(self, fn, *args):
        try:
            return fn(*args)
        except Aborted:
            raise SearchCancelled("search stopped before it finished") from None

    # -- one query on several threads (see solver.search.split) -----------------------------
    def _tricks_left(self) -> int:
        """Tricks left at the engine's position, the one being played included."""
        played = len(self._state[2]) + len(self._plays)
        return self._state[5] - played // len(self.position.active_seats)

    def _thread_count(self, scoring: bool) -> int:
        """How many threads the next query would use (``threads`` resolved).

        Automatic (None) splits only the scoring of every move: an exact value
        or a null-window test is mostly its first move's search, which one
        thread does alone, and the tests of `solve(best_only=True)` run on a
        helper's empty table (bench/README.md, "One search on both cores").
        """
        if self.threads == 1 or self.engine.finished:
            return 1
        if self.threads is not None:
            return self.threads
        if not scoring or (self.token is not None and self.token.node_budget is not None):
            return 1  # a budget counts one engine's nodes: the search stays deterministic
        return split.cores() if self._tricks_left() >= split.SPLIT_MIN_TRICKS else 1

    def _helpers(self, count: int) -> list[Engine]:
        """``count`` helper engines loaded with the solver's position (made on first need)."""
        p = self.position
        while len(self.helpers) < count:
            self.helpers.append(Engine(p.rules, p.active_seats, p.maximizer, p.scorer,
                                       self.tt_bits))
            self._helper_deal.append(self._deal)
        for i, helper in enumerate(self.helpers[:count]):
            if self._helper_deal[i] != self._deal:
                helper.clear()
                self._helper_deal[i] = self._deal
            helper.set_state(*self._state)
            for tile in self._plays:
                helper.play(tile)
        return self.helpers[:count]

    def _split(self, work: Callable, arg: int) -> split.Split | None:
        """``work`` done on the position's moves by several threads, or None when this
        query runs in one thread (``threads`` resolves to 1, or a single legal move)."""
        threads = self._thread_count(work is split.score_moves)
        if threads <= 1:
            return None
        moves = self.engine.legal()
        threads = min(threads, len(moves))
        if threads <= 1:
            return None
        claimed = 0
        if self.threads is None:  # automatic: only helper cores nobody else has claimed
            claimed = split.POOL.claim(threads - 1)
            if not claimed:
                return None
            threads = claimed + 1
        try:
            job = split.Split([self.engine] + self._helpers(threads - 1), moves,
                              self._is_max())
            return self._run(split.run, job, work, arg, self.token)
        finally:
            split.POOL.release(claimed)
            self.engine.set_token(self.token)

    def _sure_bounds(self) -> tuple[int, int] | None:
        # What the one-thread search settles at its first node, before any split.
        return None if self.engine.finished else self.engine.sure_bounds()

    @_locked
    def value(self, guess: int = -1) -> int:
        """Exact value of the loaded position.

        Args:
            guess: A first guess of the value (-1: none); a good one saves probes.
        """
        if self._thread_count(False) > 1:
            bounds = self._sure_bounds()
            if bounds is not None and bounds[0] == bounds[1]:
                return bounds[0]
            job = self._split(split.exact_value, guess)
            if job is not None:
                return job.best
        return self._run(self.engine.exact, guess)

    @_locked
    def at_least(self, target: int) -> bool:
        """Null-window test of the loaded position: is its value at least ``target``?

        Args:
            target: The value to test against.
        """
        if self._thread_count(False) > 1:
            bounds = self._sure_bounds()
            if bounds is not None and (bounds[0] >= target or bounds[1] < target):
                return bounds[0] >= target
            job = self._split(split.at_least, target)
            if job is not None:
                # No move decided it: the maximiser reached nothing, or nothing fell short.
                return job.answer if job.answer is not None else not job.is_max
        return self._run(self.engine.at_least, target)

    def _is_max(self, engine: Engine | None = None) -> bool:
        seat = (engine or self.engine).to_move
        return seat >= 0 and bool(self.position.maximizer[seat])

    def _scored(self) -> tuple[list[tuple[int, int]], list[Engine]]:
        """(tile, exact value) for every legal move, and the engine that searched each."""
        job = self._split(split.score_moves, -1)
        if job is None:
            scored = self._run(self.engine.score_moves)
            return scored, [self.engine] * len(scored)
        return list(zip(job.moves, job.results)), [job.engines[i] for i in job.slot_of]

    @_locked
    def child_values(self) -> list[tuple[int, int]]:
        """(tile, exact value) for every legal move of the loaded position."""
        return self._scored()[0]

    @_locked
    def child_is_optimal(self, tile: int, value: int) -> bool:
        """Does playing ``tile`` keep the position's exact ``value``?"""
        return self._child_is_optimal(tile, value)

    def _child_is_optimal(self, tile: int, value: int, engine: Engine | None = None) -> bool:
        # The caller holds the lock: the queries of a line take it once, not per probe.
        engine = engine or self.engine
        is_max = self._is_max(engine)
        engine.play(tile)
        try:
            # Children of a max node are <= value, of a min node >= value.
            return self._run(engine.at_least, value) if is_max \
                else not self._run(engine.at_least, value + 1)
        finally:
            engine.undo()

    @_locked
    def optimal_line(self, value: int, first: int | None = None) -> list[int]:
        """One optimal line from the loaded position to the end of the hand.

        Args:
            value: The position's exact value (from `value`).
            first: The line's first tile when it must be that one (an optimal move).

        Returns:
            Tile numbers 0..27, one per play to the end of the hand.
        """
        return self._line(self.engine, value, first)

    def _line(self, engine: Engine, value: int, first: int | None) -> list[int]:
        """The line, walked on ``engine`` (at the solver's position).

        Each play is the first optimal tile in the engine's order, except that a
        lead is the lowest-numbered optimal lead: the order of leads puts the
        table's move first, and what the table holds depends on what the engine
        searched before (and on how a split search shared the moves out), so
        the line depends on neither.
        """
        # Walked in C (a forced play needs no probe, a choice one per move tried).
        played = len(self._state[2]) + len(self._plays)
        return self._run(walk_line, engine, value, first, self.position.maximizer,
                         len(self.position.active_seats), played)

    @_locked
    def solve(self, best_only: bool = False, with_line: bool = True) -> SolveResult:
        """Value, makes, every legal move's value (or only the best) and a line.

        Args:
            best_only: Score only the optimal moves (cheaper).
            with_line: Walk one optimal line to the end of the hand.
        """
        p = self.position
        if p.is_complete:
            return SolveResult(p.points, p.makes(p.points), None, {}, [], self.nodes)
        if best_only:
            value = self.value()
            job = self._split(split.keeps_value, value)
            if job is None:
                scored = [(t, value) for t in self.engine.legal()
                          if self._child_is_optimal(t, value)]
                engines = [self.engine] * len(scored)
            else:
                kept = [i for i, k in enumerate(job.results) if k]
                scored = [(job.moves[i], value) for i in kept]
                engines = [job.engines[job.slot_of[i]] for i in kept]
        else:
            scored, engines = self._scored()  # the best child's value is the position's
        sign = -1 if self._is_max() else 1
        order = sorted(range(len(scored)), key=lambda i: (sign * scored[i][1], scored[i][0]))
        scored = [scored[i] for i in order]
        value = scored[0][1]
        # The line on the engine that searched its first play: its table knows the way.
        line = self._line(engines[order[0]], value, scored[0][0]) if with_line else []
        return SolveResult(value=value, makes=p.makes(value), to_move=p.to_move,
                           moves={T.NAMES[t]: v for t, v in scored},
                           line=[T.NAMES[t] for t in line], nodes=self.nodes)

    @_locked
    def make_or_set(self, bid: int | None = None, exact: bool = False) -> MakeOrSetResult:
        """Null-window answer to: does the declaring side make ``bid``?

        Args:
            bid: The bid to test; None: the contract's.
            exact: Also compute the exact value.
        """
        p = self.position
        bid = p.contract.bid if bid is None else p.check_bid(bid)
        threshold, at_least = p.make_target(bid)
        reached = self.at_least(threshold) if not p.is_complete else p.points >= threshold
        makes = reached if at_least else not reached
        value = (self.value() if not p.is_complete else p.points) if exact else None
        return MakeOrSetResult(makes=makes, bid=bid, nodes=self.nodes, value=value)


def solve(position: PositionLike, *, best_only: bool = False, with_line: bool = True,
          token: CancelToken | None = None, threads: int | None = None) -> SolveResult:
    """Exact double-dummy solution of a position.

    Returns the value, whether the contract makes, the seat to move, the
    value of every legal move (only the optimal ones with ``best_only``) and
    one optimal line to the end of the hand.

    Args:
        position: A `Position`, or its JSON as a dict or text (the position
            JSON of docs/formats.md).
        best_only: Score only the optimal moves (cheaper than every move).
        with_line: Walk one optimal line to the end of the hand.
        token: Stops the search (`CancelToken`: cancel, deadline, node budget).
        threads: None (automatic) uses every core for positions with enough
            tricks left (see `DealSolver`); pass 1 when the caller runs solves
            in parallel itself. The answer is the same whatever the count.

    Returns:
        The `SolveResult`.

    Raises:
        PositionError: The position is bad input (the field and the reason).
        SearchCancelled: ``token`` stopped the search.

    >>> from solver import solve
    >>> solve(open("examples/deal.json").read()).moves["1-1"]
    31
    """
    return _one_shot(position, token, threads, lambda s: s.solve(best_only, with_line))


def make_or_set(position: PositionLike, bid: int | None = None, *, exact: bool = False,
                token: CancelToken | None = None,
                threads: int | None = None) -> MakeOrSetResult:
    """Does the declaring side make ``bid`` (default: the contract's)?

    Answered by a null-window search against the bid's target, which is
    faster than the exact value.

    Args:
        position: A `Position`, or its JSON as a dict or text.
        bid: The bid to test (a number of points or marks as the contract's);
            None: the contract's own.
        exact: Also compute the exact value (slower).
        token: Stops the search (`CancelToken`).
        threads: As for `solve`.

    Returns:
        The `MakeOrSetResult`.

    Raises:
        PositionError: Bad input, or a bid the contract cannot have.
        SearchCancelled: ``token`` stopped the search.

    >>> from solver import make_or_set
    >>> make_or_set(open("examples/deal.json").read(), bid=31).makes
    True
    """
    return _one_shot(position, token, threads, lambda s: s.make_or_set(bid, exact))


def _one_shot(position: PositionLike, token: CancelToken | None, threads: int | None,
              query: Callable[[DealSolver], Any]) -> Any:
    """``query`` on a kept (or new) solver loaded with ``position``; the result's nodes
    are this query's own."""
    threads = check_threads(threads)
    solver, start = _kept_solver(as_position(position), token)
    solver.threads = threads
    result = query(solver)
    _keep(solver)
    result.nodes -= start
    return result


#: One-shot queries (`solve`, `make_or_set`) reuse the engines of earlier ones, some per
#: thread by contract layout: building an engine (its rule tables) costs more than the
#: whole search of a late position, and `Engine.clear` empties a table in constant time.
#: 42 alone has 36 layouts (declaration and doubles option by declaring side; nello by
#: declarer). Of the engines kept, few may have grown a large table (from 5 tricks left:
#: 256 KiB to 1 MiB; a late position's is a few KiB), so memory stays what 32 engines
#: with full tables take.
ENGINES_KEPT_PER_THREAD = 64
LARGE_TABLES_KEPT_PER_THREAD = 32
LARGE_TABLE_TRICKS = 5
_kept = threading.local()


class _KeptSolvers(dict):
    """A thread's kept solvers by layout key, oldest first, and which have large tables."""

    def __init__(self) -> None:
        super().__init__()
        self.large: weakref.WeakSet[DealSolver] = weakref.WeakSet()


def _layout_key(p: Position) -> tuple:
    # Rules come from a cache (rules.build_rules) and live as long as the process.
    return id(p.rules), p.active_seats, p.maximizer, p.scorer


def _kept_solver(p: Position, token: CancelToken | None) -> tuple[DealSolver, int]:
    """A solver loaded with ``p`` and ``token``, and its node count so far: a kept one of
    the same layout with its table cleared (it answers exactly as a new one), else new."""
    if token is not None and token.node_budget is not None:
        return DealSolver(p, token), 0  # a budget counts every node the engine ever searched
    solvers: dict[tuple, DealSolver] | None = getattr(_kept, "solvers", None)
    solver = solvers.pop(_layout_key(p), None) if solvers else None
    if solver is None:
        return DealSolver(p, token), 0
    solver.token = token
    solver.engine.set_token(token)
    solver.load_deal(p)
    return solver, solver.nodes


def _keep(solver: DealSolver) -> None:
    """Keep a solver whose query finished (one that raised is dropped, not kept)."""
    if solver.token is not None:
        if solver.token.node_budget is not None:
            return
        solver.token = None
        solver.engine.set_token(None)
    solvers: _KeptSolvers | None = getattr(_kept, "solvers", None)
    if solvers is None:
        solvers = _kept.solvers = _KeptSolvers()
    solvers[_layout_key(solver.position)] = solver  # newest last
    if len(solvers) > ENGINES_KEPT_PER_THREAD:
        del solvers[next(iter(solvers))]
    large = solvers.large
    if solver.position.tricks_left >= LARGE_TABLE_TRICKS:
        large.add(solver)  # its table stays large: an engine's table never shrinks
        if len(large) > LARGE_TABLES_KEPT_PER_THREAD:
            oldest = next((key for key, kept in solvers.items() if kept in large), None)
            if oldest is not None:
                large.discard(solvers.pop(oldest))


def legal_moves(position: PositionLike) -> list[str]:
    """Legal tiles of the seat to move, in tile order; [] when the hand is over.

    Args:
        position: A `Position`, or its JSON as a dict or text.

    Returns:
        Tile names, high end first (``"6-4"``).

    >>> from solver import legal_moves
    >>> legal_moves(open("examples/deal.json").read())
    ['1-1', '2-0', '3-3', '4-0', '4-3', '5-1', '5-5']
    """
    return as_position(position).legal_tiles()


__all__ = ["DealSolver", "MakeOrSetResult", "PositionError", "SEATS", "SearchCancelled",
           "SolveResult", "as_position", "legal_moves", "make_or_set", "solve"]
