"""Dealing known tiles into places: exact counts, exact marginals, uniform draws.

The problem: distinct tiles go into places of fixed sizes (hands, a discard);
each tile may only go to some places, and optionally a place must get
between ``lo`` and ``hi`` tiles of a marked set (a plunge declarer's
doubles, a dealer's "at least 3 trumps in N"). Tiles that may go to the
same places and belong to the same marked sets are interchangeable, so they
form a group; a deal is a choice, per group, of how many of its tiles each
place gets (a composition), times the ways to pick which tiles
(a multinomial). A dynamic program over the groups, whose state is the room
left in each place and the marked tiles each bounded place holds so far,
counts the completions exactly (Python integers, no overflow).

Walking the same table with a random number below the count draws a deal
uniformly: each composition is chosen with probability proportional to
the completions it leaves, then its tiles are shuffled into the places.
No rejection, no greedy filling. The marginals P(tile in place) come from
a forward pass over the same table.
"""

from __future__ import annotations

import itertools
import random
from bisect import bisect_right
from dataclasses import dataclass
from typing import Iterator, Sequence

_FACT = [1]
for _i in range(1, 29):
    _FACT.append(_FACT[-1] * _i)


@dataclass(frozen=True)
class Bound:
    """Place ``place`` gets between ``lo`` and ``hi`` tiles of the set ``mask``."""

    mask: int
    place: int
    lo: int = 0
    hi: int = 28


def _compositions(n: int, places: Sequence[int], room: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every way to split ``n`` tiles over ``places`` (no place above its room).

    Yields (k_place0, k_place1, ...) over all places (zeros for the others).
    """
    n_places = len(room)
    counts = [0] * n_places

    def rec(i: int, left: int) -> Iterator[tuple[int, ...]]:
        p = places[i]
        if i == len(places) - 1:
            if left <= room[p]:
                counts[p] = left
                yield tuple(counts)
                counts[p] = 0
            return
        later = sum(room[q] for q in places[i + 1:])
        for k in range(max(0, left - later), min(left, room[p]) + 1):
            counts[p] = k
            yield from rec(i + 1, left - k)
        counts[p] = 0

    if not places:
        if n == 0:
            yield tuple(counts)
        return
    yield from rec(0, n)


class Completions:
    """All ways to deal ``tiles`` into places of sizes ``capacity``.

    ``allowed[t]`` is the bitmask of places tile ``t`` may go to; ``bounds``
    adds per-place counts of marked tiles. Tables are built on first use
    and shared by every later query, so count, marginals and draws of one
    problem cost one dynamic program.
    """

    def __init__(self, allowed: dict[int, int], capacity: Sequence[int],
                 bounds: Sequence[Bound] = ()) -> None:
        self.capacity = tuple(capacity)
        self.bounds = tuple(bounds)
        n_places = len(self.capacity)
        by_key: dict[tuple[int, int], list[int]] = {}
        for tile in sorted(allowed):
            member = sum(1 << b for b, bound in enumerate(self.bounds) if bound.mask >> tile & 1)
            by_key.setdefault((allowed[tile], member), []).append(tile)
        # Most constrained groups first keeps the tables small.
        keys = sorted(by_key, key=lambda k: (bin(k[0]).count("1"), k))
        self.groups: list[tuple[tuple[int, ...], tuple[int, ...], int]] = [
            (tuple(by_key[k]), tuple(p for p in range(n_places) if k[0] >> p & 1), k[1])
            for k in keys]
        self.start = self.capacity + (0,) * len(self.bounds)
        self._ways: list[dict[tuple, int]] = [{} for _ in range(len(self.groups) + 1)]
        self._moves: list[dict[tuple, list]] = [{} for _ in range(len(self.groups))]
        self._cumulative: list[dict[tuple, list[int]]] = [{} for _ in range(len(self.groups))]
        self.total_tiles_ok = len(allowed) == sum(self.capacity)

    # ------------------------------------------------------------ the table

    def _ways_from(self, i: int, state: tuple) -> int:
        memo = self._ways[i]
        got = memo.get(state)
        if got is not None:
            return got
        if i == len(self.groups):
            n_places = len(self.capacity)
            ok = all(r == 0 for r in state[:n_places]) and all(
                b.lo <= state[n_places + j] <= b.hi for j, b in enumerate(self.bounds))
            memo[state] = int(ok)
            return int(ok)
        total = 0
        moves = []
        for split, weight, nxt in self._successors(i, state):
            ways = self._ways_from(i + 1, nxt)
            if ways:
                moves.append((split, weight * ways, nxt))
                total += weight * ways
        memo[state] = total
        self._moves[i][state] = moves
        return total

    def _successors(self, i: int, state: tuple):
        tiles, places, member = self.groups[i]
        n_places = len(self.capacity)
        room = state[:n_places]
        n = len(tiles)
        for split in _compositions(n, places, room):
            weight = _FACT[n]
            for k in split:
                weight //= _FACT[k]
            nxt = list(state)
            for p in places:
                nxt[p] -= split[p]
            ok = True
            for j, bound in enumerate(self.bounds):
                if member >> j & 1:
                    nxt[n_places + j] += split[bound.place]
                    if nxt[n_places + j] > bound.hi:
                        ok = False
            if ok:
                yield split, weight, tuple(nxt)

    # -------------------------------------------------------------- queries

    def count(self) -> int:
        """The exact number of deals."""
        if not self.total_tiles_ok:
            return 0
        return self._ways_from(0, self.start)

    def marginals(self) -> dict[int, list[float]]:
        """tile -> [P(tile in place p) for each place], exact (0 everywhere if no deal)."""
        total = self.count()
        n_places = len(self.capacity)
        out = {t: [0.0] * n_places for g in self.groups for t in g[0]}
        if not total:
            return out
        forward: dict[tuple, int] = {self.start: 1}
        for i, (tiles, _, _) in enumerate(self.groups):
            expected = [0] * n_places
            nxt_forward: dict[tuple, int] = {}
            for state, reach in forward.items():
                for split, weight, nxt in self._moves[i].get(state, ()):
                    # ``weight`` already holds the completions after this group.
                    for p in range(n_places):
                        if split[p]:
                            expected[p] += reach * weight * split[p]
                    step = weight // self._ways[i + 1][nxt]
                    nxt_forward[nxt] = nxt_forward.get(nxt, 0) + reach * step
            forward = nxt_forward
            n = len(tiles)
            probs = [expected[p] / (total * n) for p in range(n_places)]
            for t in tiles:
                out[t] = list(probs)
        return out

    def sample(self, rng: random.Random) -> list[list[int]]:
        """One deal drawn uniformly: the tiles of each place. Needs count() > 0.

        One random integer below the number of deals picks the composition
        of every group (the table is walked like a mixed-radix number), and
        one random integer below n! per shared group picks the order of its
        tiles (a permutation by its Lehmer code), so a draw costs a few big
        integer operations instead of one random call per tile.
        """
        places: list[list[int]] = [[] for _ in self.capacity]
        state = self.start
        r = -1
        for i, (tiles, group_places, _) in enumerate(self.groups):
            moves = self._moves[i][state]
            if len(moves) == 1:
                split, _, state = moves[0]
                if r >= 0:
                    r %= self._ways[i + 1][state]
            else:
                cumulative = self._cumulative[i].get(state)
                if cumulative is None:
                    cumulative = list(itertools.accumulate(m[1] for m in moves))
                    self._cumulative[i][state] = cumulative
                if r < 0:
                    r = rng.randrange(cumulative[-1])
                pick = bisect_right(cumulative, r)
                split, _, state = moves[pick]
                # What is left of r is uniform below the completions of the
                # chosen move: carry the part that the groups after it use.
                r = (r - (cumulative[pick - 1] if pick else 0)) % self._ways[i + 1][state]
            if len(group_places) == 1:
                places[group_places[0]].extend(tiles)
                continue
            pool = list(tiles)
            code = rng.randrange(_FACT[len(pool)])
            order = []
            for radix in range(len(pool), 0, -1):
                code, j = divmod(code, radix)
                order.append(pool.pop(j))
            at = 0
            for p in group_places:
                k = split[p]
                if k:
                    places[p].extend(order[at:at + k])
                    at += k
        return places

    def flat_table(self) -> tuple[list[tuple[tuple[int, ...], tuple[int, ...]]],
                                  list[list[tuple[int, int, int, tuple[int, ...]]]]]:
        """The table as plain numbers, for a sampler outside Python: (groups, nodes).
        ``groups[i]`` is (tiles, places) of group i; ``nodes`` are the states reachable
        from the start with completions left (node 0 the start; a node at depth i is a
        state before group i), each a list of moves (cumulative completions of the node's
        moves so far, completions after the move, next node or -1 after the last group,
        tiles each place gets). Needs count() > 0."""
        assert self.count() > 0
        last = len(self.groups)
        if not last:
            return [], []
        ids: dict[tuple[int, tuple], int] = {(0, self.start): 0}
        order = [(0, self.start)]
        nodes = []
        for i, state in order:      # grows as new states are met
            moves, cumulative = [], 0
            for split, ways, nxt in self._moves[i][state]:
                cumulative += ways
                if i + 1 == last:
                    node = -1
                else:
                    node = ids.get((i + 1, nxt))
                    if node is None:
                        node = ids[(i + 1, nxt)] = len(order)
                        order.append((i + 1, nxt))
                moves.append((cumulative, self._ways[i + 1][nxt], node, split))
            nodes.append(moves)
        return [(tiles, places) for tiles, places, _ in self.groups], nodes

    def enumerate(self) -> Iterator[list[list[int]]]:
        """Every deal, in a fixed order: the tiles of each place."""
        if not self.count():
            return
        n_places = len(self.capacity)

        def rec(i: int, state: tuple, places: list[list[int]]) -> Iterator[list[list[int]]]:
            if i == len(self.groups):
                yield [list(p) for p in places]
                return
            tiles, group_places, _ = self.groups[i]
            for split, _, nxt in self._moves[i][state]:
                for chosen in _splits(tiles, [(p, split[p]) for p in group_places if split[p]]):
                    for p, part in chosen:
                        places[p].extend(part)
                    yield from rec(i + 1, nxt, places)
                    for p, part in chosen:
                        del places[p][len(places[p]) - len(part):]

        yield from rec(0, self.start, [[] for _ in range(n_places)])


def _splits(tiles: Sequence[int],
            sizes: list[tuple[int, int]]) -> Iterator[list[tuple[int, tuple]]]:
    """Every way to hand ``tiles`` out in parts of the given (place, size)s."""
    if not sizes:
        yield []
        return
    (place, k), rest = sizes[0], sizes[1:]
    if not rest:
        yield [(place, tuple(tiles))]
        return
    for part in itertools.combinations(tiles, k):
        left = [t for t in tiles if t not in part]
        for others in _splits(left, rest):
            yield [(place, part)] + others
