"""Players for the arena: each picks a tile for the seat to move.

A bot sees a `Table`: the true deal (a `Position` with the plays so far)
and the seat it plays. Every bot but ``cheat`` reads only what that seat
may know: its own hand, the contract and the plays (``table.view_json()``).

* ``random``: a uniformly random legal tile.
* ``rule``: a casual player's heuristic (see `RuleBot`).
* ``hint``: the best move of `solver.hint.hint` with N deals from its view.
* ``cheat``: the double-dummy best move on the true deal (an upper bound).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol

from . import tiles as T
from .hint import hint
from .position import SEATS, Position
from .rules import LEAD, TRUMP
from .solve import DealSolver


@dataclass
class Table:
    """The state of a hand being played: the true deal and plays so far."""

    position: Position

    @property
    def seat(self) -> int:
        seat = self.position.to_move_index
        assert seat is not None
        return seat

    def legal(self) -> list[int]:
        return self.position.legal_tiles()

    def view_json(self) -> dict:
        """What the seat to move knows, as a SPEC view."""
        p = self.position
        out = {"seat": SEATS[self.seat], "hands": {SEATS[self.seat]: [T.name_of(t) for t in
                                                                     p.hands[self.seat]]},
               "contract": p.contract.to_json(), "plays": [T.name_of(t) for t in p.plays]}
        if p.game == "moon":
            out["game"] = "moon"
            out["players"] = len(p.hands)
        return out


class Bot(Protocol):
    name: str

    def choose(self, table: Table) -> int: ...


class RandomBot:
    """A uniformly random legal tile."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, table: Table) -> int:
        return self.rng.choice(table.legal())


class RuleBot:
    """What a casual player does, from its own hand and the plays only.

    * Leading: lead a trump when holding the highest trump still out;
      otherwise lead the lowest tile.
    * Following, partner winning the trick: throw the legal tile with the
      most count that is not a trump (never trump a partner's winner);
      without count, the lowest tile.
    * Following, an opponent winning: win with the lowest tile that wins;
      when none wins, the lowest tile.

    "Lowest" means: a non-trump before a trump, then the least count, then
    the least power in the led suit, then the fewest pips. For the nello
    declarer (who must lose every trick) "wins" and "lowest" are turned
    around: it plays the strongest tile that still loses, else its strongest.
    """

    name = "rule"

    def choose(self, table: Table) -> int:
        p = table.position
        rules = p.rules
        seat = table.seat
        legal = table.legal()
        if len(legal) == 1:
            return legal[0]
        trick = list(p.trick)
        ctx = LEAD if not trick else rules.lead_suit[trick[0][1]]
        power = rules.power[ctx] if trick else None

        def is_trump(t: int) -> bool:
            return rules.lead_suit[t] == TRUMP

        def low_key(t: int) -> tuple:
            return (is_trump(t), rules.count[t], power[t] if power else 0, sum(T.ENDS[t]))

        nello_declarer = p.contract.declaration.name == "nello" and seat == p.contract.declarer
        if not trick:
            if nello_declarer:
                return min(legal, key=lambda t: (sum(T.ENDS[t]), t))
            played = T.mask_of(p.plays)
            out = [t for t in range(T.N_TILES) if is_trump(t) and not played >> t & 1]
            if out:
                top = max(out, key=lambda t: rules.power[TRUMP][t])
                if top in legal:
                    return top
            return min(legal, key=low_key)
        tiles = [t for _, t in trick]
        win_i = max(range(len(tiles)), key=lambda i: (power[tiles[i]], -i))
        win_seat, win_power = trick[win_i][0], power[tiles[win_i]]
        winners = [t for t in legal if power[t] > win_power]
        if nello_declarer:
            losers = [t for t in legal if t not in winners]
            pool = losers or legal
            return max(pool, key=lambda t: (power[t], sum(T.ENDS[t])))
        if p.maximizer[win_seat] == p.maximizer[seat]:
            throws = [t for t in legal if not is_trump(t) and rules.count[t] > 0]
            if throws:
                return max(throws, key=lambda t: (rules.count[t], -sum(T.ENDS[t])))
            return min(legal, key=low_key)
        if winners:
            return min(winners, key=lambda t: (power[t], rules.count[t]))
        return min(legal, key=low_key)


class HintBot:
    """Plays the hint's best move (objective make) over ``deals`` deals from its own view."""

    def __init__(self, deals: int = 100, seed: int = 0, threads: int = 1) -> None:
        self.name = f"hint{deals}" if deals != 100 else "hint"
        self.deals = deals
        self.rng = random.Random(seed)
        self.threads = threads

    def choose(self, table: Table) -> int:
        legal = table.legal()
        if len(legal) == 1:
            return legal[0]
        h = hint(table.view_json(), deals=self.deals, seed=self.rng.randrange(2 ** 31),
                 threads=self.threads)
        return T.parse_tile(h.best[0], "best")


class CheatBot:
    """The double-dummy best move on the true deal (ties: the core's move order)."""

    name = "cheat"

    def __init__(self) -> None:
        self.solver: DealSolver | None = None

    def choose(self, table: Table) -> int:
        p = table.position
        legal = table.legal()
        if len(legal) == 1:
            return legal[0]
        if self.solver is None or self.solver.position.hands != p.hands or \
                self.solver.position.contract != p.contract:
            self.solver = DealSolver(p)
        else:
            self.solver.load(p)
        scored = self.solver.child_values()
        sign = 1 if p.maximizer[table.seat] else -1
        return max(scored, key=lambda tv: sign * tv[1])[0]


BOT_NAMES = ("random", "rule", "hint", "cheat")


def make_bot(name: str, seed: int = 0, hint_deals: int = 100) -> Bot:
    """A bot by name: random, rule, hint (``hint_deals`` deals) or cheat."""
    if name == "random":
        return RandomBot(seed)
    if name == "rule":
        return RuleBot()
    if name == "hint":
        return HintBot(hint_deals, seed)
    if name == "cheat":
        return CheatBot()
    raise ValueError(f"unknown bot {name!r} (one of {', '.join(BOT_NAMES)})")
