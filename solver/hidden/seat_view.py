"""Seat-view search: a move valued by what the seat to move can know, not by every hand
open (docs/guides/players.md, "Seat-view search").

The double-dummy hint values a move on each consistent deal as if, from then on, every
seat saw that deal: the viewer's own later choices are made deal by deal, so the move
looks as good as the best line *for each deal*, a line the viewer cannot follow
because it does not know which deal it holds (strategy fusion). Two published remedies,
each a function here:

- ``postponed`` (after Arjonilla, Saffidine and Cazenave, "Perfect Information Monte
  Carlo with Postponing Reasoning", 2024): after the move, the viewer's next ``depth``
  decisions are searched over what it knows: one choice for all the deals it cannot
  tell apart (the deals that agree on every play so far), the one that is best over
  them, not the best for each. The other seats choose double dummy, deal by deal, and
  below the viewer's ``depth``-th decision every deal is solved double dummy. Depth 0
  is the double-dummy hint exactly.
- ``playout`` (after Furtak and Buro, "Recursive Monte Carlo Search for Imperfect
  Information Games", 2013): after the move, each deal is played to its end by players
  that each decide from their own view: every seat samples ``inner_deals`` deals
  consistent with what it sees and plays the move that is best over them (perfect
  information Monte Carlo with a few deals). A move is worth what these players get.

Both score every legal move of the viewer over the same deals (drawn uniformly as the
hint draws them, or all of them when few), and give per move the mean value (the
declaring side's points, Moon and nello tricks), P(make) and P(best) as the hint does.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..game import tiles as T
from ..game.errors import PositionError
from ..game.position import SEATS, Position
from ..game.view import View, seat_view
from ..search._core import CancelToken, Engine
from .deals import MAX_DEALS, check_deal_count, check_seed, count_deals, enumerate_deals, \
    sample_deals, sample_remaining
from .hint import DEFAULT_ENUMERATION_LIMIT, MoveFigures, ViewLike, as_view
from .stats import mean_estimate, wilson_interval

#: The searches: ``double-dummy`` (the hint), ``postponed`` and ``playout``.
METHODS = ("double-dummy", "postponed", "playout")
#: Default depth of postponed reasoning (the viewer's later decisions searched over its
#: knowledge) and default deals of a playout's inner players.
DEFAULT_DEPTH = 1
DEFAULT_INNER_DEALS = 3
MAX_DEPTH = 3
MAX_INNER_DEALS = 50
#: A world's own transposition table (2**bits entries): small, since every deal keeps one.
_WORLD_TT_BITS = 14


@dataclass
class SeatViewHint:
    """Every legal move of the viewer valued by a seat-view search.

    Attributes:
        seat: The viewer (the seat to move).
        count: The number of deals consistent with the view.
        unit: What values count: ``"points"`` or ``"tricks"``.
        method: ``postponed`` or ``playout``.
        depth: The postponed reasoning's depth (the viewer's later decisions searched
            over its knowledge); 0 for a playout.
        inner_deals: The deals each inner player of a playout samples; 0 for postponed.
        deals: The deals the moves were valued on.
        enumerated: Whether those are every consistent deal (else a uniform sample).
        seed: The seed of the sample (None when enumerated).
        declaring: Whether the viewer's side declared.
        objective: ``make`` (P(make), then the mean) or ``points``.
        moves: Every legal move's `MoveFigures`, best first (``p_best``: the share of
            deals on which the move's value is the best of the moves').
        best: The moves ranked first (ties included).
        nodes: Nodes searched.
    """

    seat: str
    count: int
    unit: str
    method: str
    depth: int
    inner_deals: int
    deals: int
    enumerated: bool
    seed: int | None
    declaring: bool
    objective: str
    moves: dict[str, MoveFigures] = field(default_factory=dict)
    best: list[str] = field(default_factory=list)
    nodes: int = 0

    @property
    def best_move(self) -> str:
        """The first of the best moves."""
        return self.best[0]

    def to_json(self) -> dict[str, Any]:
        """The answer as JSON: the method, its settings, the deals and every move."""
        return {"seat": self.seat, "count": self.count, "unit": self.unit,
                "search": self.method, "depth": self.depth,
                "inner_deals": self.inner_deals, "deals": self.deals,
                "method": "enumerated" if self.enumerated else "sampled", "seed": self.seed,
                "side": "declaring" if self.declaring else "defending",
                "objective": self.objective,
                "moves": {t: m.to_json() for t, m in self.moves.items()},
                "best": list(self.best), "nodes": self.nodes}


class _World:
    """One consistent deal with an engine of its own, walked by play and undo."""

    def __init__(self, p: Position, token: CancelToken | None) -> None:
        self.position = p
        self.engine = Engine(p.rules, p.active_seats, p.maximizer, p.scorer, _WORLD_TT_BITS)
        self.engine.set_token(token)
        self.engine.set_state(list(p.remaining), p.leader, list(p.trick), p.points,
                              p.available, p.tricks_left)

        # The exact value of the current node when a pick already found it, else None.
        self.known: int | None = None

    def value(self) -> int:
        return self.engine.exact() if self.known is None else self.known

    def double_dummy_pick(self) -> tuple[int, int]:
        """The double-dummy move of the seat to move (ties: the lowest tile) and the value
        after it. A best move keeps the node's value, so one null-window test per move
        around that value finds them all: far cheaper than every move's exact value."""
        value = self.value()
        if self.position.maximizer[self.engine.to_move]:
            best = [t for t, reached in self.engine.at_least_moves(value) if reached]
        else:
            best = [t for t, reached in self.engine.at_least_moves(value + 1) if not reached]
        return min(best), value


class _Rank:
    """The viewer's order of outcomes: by P(make) then mean (or mean first)."""

    def __init__(self, p: Position, viewer: int, objective: str) -> None:
        self.threshold, self.at_least = p.make_target()
        # The seats whose tricks the value counts are the declaring side.
        self.declaring = bool(p.scorer[viewer])
        self.value_sign = 1 if p.maximizer[viewer] else -1
        self.make_sign = 1 if self.declaring else -1
        self.points_first = objective == "points"

    def made(self, value: int) -> bool:
        return value >= self.threshold if self.at_least else value < self.threshold

    def key(self, values: Sequence[int]) -> tuple[int, int]:
        return self.key_of(sum(values), sum(1 for v in values if self.made(v)))

    def key_of(self, total: int, makes: int) -> tuple[int, int]:
        """The key of values that sum to ``total``, ``makes`` of them made. It rises
        with a value on one side of the viewer's, falls on the other: the maximizer
        wants more, and the make goes with it (nello's declarer wants fewer tricks)."""
        total, makes = self.value_sign * total, self.make_sign * makes
        return (total, makes) if self.points_first else (makes, total)


def _postponed(worlds: list[_World], group: list[int], viewer: int, depth: int,
               rank: _Rank) -> dict[int, int]:
    """The final value of each world of ``group`` (worlds at the same node, which agree on
    every play so far) when the viewer's next ``depth`` decisions are made once for the
    group and the other seats play double dummy, deal by deal."""
    if depth == 0 or worlds[group[0]].engine.finished:
        return {w: worlds[w].value() for w in group}
    mover = worlds[group[0]].engine.to_move
    if mover == viewer:
        best: tuple | None = None
        chosen: dict[int, int] = {}
        for tile in sorted(worlds[group[0]].engine.legal()):
            values = _after(worlds, group, tile, None,
                            lambda: _postponed(worlds, group, viewer, depth - 1, rank))
            key = rank.key([values[w] for w in group])
            if best is None or key > best:
                best, chosen = key, values
        return chosen
    # Another seat: its double-dummy move on each world; the worlds then part by it.
    by_move: dict[int, list[int]] = {}
    value_after: dict[int, int] = {}
    for w in group:
        tile, value_after[w] = worlds[w].double_dummy_pick()
        by_move.setdefault(tile, []).append(w)
    out: dict[int, int] = {}
    for tile, part in by_move.items():
        out.update(_after(worlds, part, tile, value_after,
                          lambda: _postponed(worlds, part, viewer, depth, rank)))
    return out


def _after(worlds: list[_World], group: list[int], tile: int,
           known: dict[int, int] | None, search: Callable[[], dict[int, int]]
           ) -> dict[int, int]:
    """``search()`` with ``tile`` played in every world of ``group`` (each world's value
    after it from ``known`` when given), then taken back."""
    saved = [worlds[w].known for w in group]
    for w in group:
        worlds[w].engine.play(tile)
        worlds[w].known = None if known is None else known[w]
    values = search()
    for w, before in zip(group, saved):
        worlds[w].engine.undo()
        worlds[w].known = before
    return values


class SeatViewPlayer:
    """A player that decides from its own view: at each turn it draws ``inner_deals``
    deals consistent with what the seat to move sees and plays the move best over them
    (double dummy on each; by P(make) then the mean, or with ``objective`` ``points``
    by the mean), ties to the lowest tile. It keeps one engine per kind of position
    and clears it between deals, instead of making one per deal."""

    def __init__(self, inner_deals: int, objective: str = "make",
                 token: CancelToken | None = None) -> None:
        self.inner_deals = inner_deals
        self.objective = objective
        self.token = token
        self.nodes = 0
        self._engines: dict[tuple, tuple[Any, Engine]] = {}

    def _engine(self, p: Position) -> Engine:
        # Rules are not hashable: keyed by identity, kept alive beside their engine.
        key = (id(p.rules), p.active_seats, p.maximizer, p.scorer)
        if key not in self._engines:
            engine = Engine(p.rules, p.active_seats, p.maximizer, p.scorer, _WORLD_TT_BITS)
            engine.set_token(self.token)
            self._engines[key] = (p.rules, engine)
        return self._engines[key][1]

    def _loaded(self, p: Position, remaining: list[int]) -> Engine:
        """The engine at ``p``'s point of play on the deal where each seat still holds
        ``remaining``."""
        engine = self._engine(p)
        engine.clear()
        engine.set_state(remaining, p.leader, list(p.trick), p.points, p.available,
                         p.tricks_left)
        return engine

    def choose(self, p: Position, rng: random.Random) -> int:
        """The tile the seat to move on ``p`` plays, from its own view."""
        legal = p.legal_ids()
        if len(legal) == 1:
            return legal[0]
        rank = _Rank(p, p.to_move_index, self.objective)
        sums: dict[int, list[int]] = {t: [] for t in legal}
        # The deals differ only in what the hidden seats hold.
        *first, last = sample_remaining(seat_view(p), self.inner_deals, rng)
        for remaining in first:
            engine = self._loaded(p, remaining)
            before = engine.nodes
            for tile, value in engine.score_moves():
                sums[tile].append(value)
            self.nodes += engine.nodes - before
        return self._best_after_last(p, last, sorted(legal), sums, rank)

    def _best_after_last(self, p: Position, remaining: list[int], legal: list[int],
                         sums: dict[int, list[int]], rank: _Rank) -> int:
        """The move best over every deal (ties: the lowest tile), given each move's values
        on the deals before the last, where each seat holds ``remaining``. The choice is
        the one every move's exact value on the last deal gives, for less: there a move
        needs its exact value only when it beats the best so far, which one null-window
        test tells."""
        engine = self._loaded(p, remaining)
        before = engine.nodes
        lowest, highest = p.points, p.points + p.available
        best: int | None = None
        best_key: tuple[int, int] | None = None
        # The most promising first, so that the later ones mostly fail their test.
        for tile in sorted(legal, key=lambda t: rank.key(sums[t]), reverse=True):
            total = sum(sums[tile])
            makes = sum(1 for v in sums[tile] if rank.made(v))

            def beats(value: int) -> bool:
                key = rank.key_of(total + value, makes + rank.made(value))
                return best_key is None or key > best_key or (key == best_key and tile < best)
            # The key is monotone in the value: the values that win are the top or the
            # bottom of the range, and one null-window test at the edge tells whether
            # this deal's value is among them.
            top, bottom = beats(highest), beats(lowest)
            if not top and not bottom:
                continue
            engine.play(tile)
            if top and bottom:
                wins, guess = True, -1
            elif top:
                guess = _edge(beats, lowest, highest)     # the lowest value that wins
                wins = engine.at_least(guess)
            else:
                guess = _edge(beats, highest, lowest)     # the highest value that wins
                wins = not engine.at_least(guess + 1)
            value = engine.exact(guess) if wins else None
            engine.undo()
            if value is not None and beats(value):
                best, best_key = tile, rank.key_of(total + value, makes + rank.made(value))
        self.nodes += engine.nodes - before
        assert best is not None
        return best


def _edge(wins: Callable[[int], bool], losing: int, winning: int) -> int:
    """The value nearest ``losing`` that still ``wins``, between a value that loses and
    one that wins (either order), by halving."""
    step = 1 if winning > losing else -1
    while abs(winning - losing) > 1:
        middle = (losing + winning) // 2
        if wins(middle):
            winning = middle
        else:
            losing = middle
    assert winning - losing == step
    return winning


def play_to_end(p: Position, inner_deals: int, rng: random.Random,
                token: CancelToken | None = None, *, objective: str = "make",
                defenders: Callable[[View], int] | None = None) -> tuple[Position, int]:
    """``p`` played to its end by seat-view players (`SeatViewPlayer` with
    ``objective``; the defending seats by ``defenders``, a play from their view, when
    given): the finished position and the nodes searched."""
    player = SeatViewPlayer(inner_deals, objective, token)
    plays = list(p.plays)
    while not p.is_complete:
        if defenders is not None and not p.scorer[p.to_move_index]:
            plays.append(defenders(seat_view(p)))
        else:
            plays.append(player.choose(p, rng))
        p = p.with_plays(plays)
    return p, player.nodes


@dataclass
class SeatViewValues:
    """The value of every legal move of the viewer on every deal a seat-view search used:
    what `seat_view_hint` sums up, kept deal by deal for callers that compare two moves
    on the same deals (paired differences; `solver.hidden.coaching`).

    Attributes:
        view: The viewer's `View`.
        count: The number of deals consistent with the view.
        positions: The deals, as positions at the view's point of play.
        enumerated: Whether those are every consistent deal (else a uniform sample).
        seed: The seed of the sample (what the draws used, also when enumerated).
        legal: The viewer's legal moves (tile numbers), in tile order.
        values: Per move, its value on each deal (in the order of ``positions``).
        rank: The viewer's order of outcomes.
        nodes: Nodes searched.
    """

    view: View
    count: int
    positions: list[Position]
    enumerated: bool
    seed: int
    legal: list[int]
    values: dict[int, list[int]]
    rank: "_Rank"
    nodes: int = 0


def seat_view_values(view: ViewLike, *, method: str = "postponed", deals: int = 30,
                     depth: int = DEFAULT_DEPTH, inner_deals: int = DEFAULT_INNER_DEALS,
                     enumerate_limit: int = DEFAULT_ENUMERATION_LIMIT, objective: str = "make",
                     seed: int | None = None, token: CancelToken | None = None,
                     progress: Callable[[int, int], None] | None = None) -> SeatViewValues:
    """Every legal move of the viewer valued by a seat-view search on each deal
    (`seat_view_hint`'s arguments, checked as it checks them)."""
    if method not in ("postponed", "playout"):
        raise PositionError("method", f"unknown seat-view search {str(method)[:20]!r} "
                            "(postponed or playout)", "INVALID_VALUE")
    if objective not in ("make", "points"):
        raise PositionError("objective", "must be make or points", "INVALID_VALUE")
    deals = check_deal_count("deals", deals, 1, MAX_DEALS)
    depth = check_deal_count("depth", depth, 0, MAX_DEPTH) if method == "postponed" else 0
    inner = check_deal_count("inner_deals", inner_deals, 1, MAX_INNER_DEALS) \
        if method == "playout" else 0
    seed = check_seed(seed)
    v = as_view(view)
    v.check_can_hint()
    if seed is None:
        seed = random.SystemRandom().randrange(2 ** 63)
    rng = random.Random(seed)
    total = count_deals(v)
    enumerated = total <= enumerate_limit
    positions = list(enumerate_deals(v)) if enumerated else sample_deals(v, deals, rng)
    root = positions[0]
    viewer = root.to_move_index
    rank = _Rank(root, viewer, objective)
    legal = sorted(root.legal_ids())
    values: dict[int, list[int]] = {}
    nodes = 0
    if method == "postponed":
        worlds = [_World(p, token) for p in positions]
        group = list(range(len(worlds)))
        for i, tile in enumerate(legal):
            found = _after(worlds, group, tile, None,
                           lambda: _postponed(worlds, group, viewer, depth, rank))
            values[tile] = [found[j] for j in group]
            if progress is not None:
                progress(i + 1, len(legal))
        nodes = sum(w.engine.nodes for w in worlds)
    else:
        for i, tile in enumerate(legal):
            inner_rng = random.Random(rng.randrange(2 ** 63))
            # Played out: what the declaring side took.
            values[tile] = [play_to_end(p.with_plays(list(p.plays) + [tile]), inner, inner_rng,
                                        token)[0].points for p in positions]
            if progress is not None:
                progress(i + 1, len(legal))
    return SeatViewValues(v, total, positions, enumerated, seed, legal, values, rank, nodes)


def seat_view_hint(view: ViewLike, *, method: str = "postponed", deals: int = 30,
                   depth: int = DEFAULT_DEPTH, inner_deals: int = DEFAULT_INNER_DEALS,
                   enumerate_limit: int = DEFAULT_ENUMERATION_LIMIT, objective: str = "make",
                   seed: int | None = None, token: CancelToken | None = None,
                   progress: Callable[[int, int], None] | None = None) -> SeatViewHint:
    """Value every legal move of the viewer by a seat-view search.

    Args:
        view: The viewer's `View` (or its JSON); the viewer must be the seat to move.
        method: ``postponed`` or ``playout`` (``double-dummy`` is `hint`).
        deals: The deals to value the moves on, drawn uniformly (1..`MAX_DEALS`).
        depth: ``postponed``: the viewer's later decisions searched over what it knows
            (0..`MAX_DEPTH`; 0 is the double-dummy hint).
        inner_deals: ``playout``: the deals each inner player samples per decision
            (1..`MAX_INNER_DEALS`).
        enumerate_limit: With at most this many consistent deals, every one is used.
        objective: ``make`` (rank by P(make), then the mean) or ``points``.
        seed: Seeds the deals (and a playout's inner players); None: a random one.
        token: Stops the searches (`CancelToken`).
        progress: Called as ``progress(done, planned)`` after each move valued.

    Returns:
        The `SeatViewHint`.

    Raises:
        PositionError: A bad view or option, or a viewer not to move.
        SearchCancelled: ``token`` stopped the searches.

    >>> h = seat_view_hint(open("examples/view.json").read(), deals=8, seed=1)
    >>> h.method, h.depth, h.deals, sorted(h.moves) == sorted(h.moves)
    ('postponed', 1, 8, True)
    """
    found = seat_view_values(view, method=method, deals=deals, depth=depth,
                             inner_deals=inner_deals, enumerate_limit=enumerate_limit,
                             objective=objective, seed=seed, token=token, progress=progress)
    depth = depth if method == "postponed" else 0
    inner = inner_deals if method == "playout" else 0
    return _result(found.view, found.count, method, depth, inner, found.positions,
                   found.enumerated, None if found.enumerated else found.seed,
                   found.rank, objective, found.values, found.nodes)


def _result(v: View, count: int, method: str, depth: int, inner: int,
            positions: list[Position],
            enumerated: bool, seed: int | None, rank: _Rank, objective: str,
            values: dict[int, list[int]], nodes: int) -> SeatViewHint:
    n = len(positions)
    tops = [max((values[t][j] for t in values), key=lambda x: rank.value_sign * x)
            for j in range(n)]
    moves: list[MoveFigures] = []
    for tile, row in values.items():
        makes = sum(1 for x in row if rank.made(x))
        best = sum(1 for x, top in zip(row, tops) if x == top)
        mean_ci = p_ci = None
        if not enumerated:
            m = mean_estimate(n, sum(row), sum(x * x for x in row))
            mean_ci, p_ci = (m.low, m.high), wilson_interval(makes, n)
        moves.append(MoveFigures(T.name_of(tile), sum(row) / n, makes / n, best / n, makes,
                                 best, sum(row), mean_ci, p_ci))
    keyed = sorted(moves, key=lambda m: rank.key(values[T.parse_tile(m.tile, "tile")]),
                   reverse=True)
    top_key = rank.key(values[T.parse_tile(keyed[0].tile, "tile")])
    best = [m.tile for m in keyed if rank.key(values[T.parse_tile(m.tile, "tile")]) == top_key]
    return SeatViewHint(SEATS[v.seat], count, "tricks" if v.max_value == 7 else "points",
                        method, depth, inner, n, enumerated, seed,
                        rank.declaring, objective, {m.tile: m for m in keyed}, best, nodes)


__all__ = ["DEFAULT_DEPTH", "DEFAULT_INNER_DEALS", "MAX_DEPTH", "MAX_INNER_DEALS", "METHODS",
           "SeatViewHint", "SeatViewPlayer", "SeatViewValues", "play_to_end", "seat_view_hint",
           "seat_view_values"]
