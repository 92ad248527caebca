"""Players for the arena: each picks a tile for the seat to move.

Every bot but ``cheat`` is handed the seat's `View` (`seat_view`): its own
hand, the contract and the plays, parsed as any SPEC view is. That object
holds nothing of the other hands, so a bot cannot peek even by mistake.
``cheat`` alone (``sees_deal = True``) is handed the true deal, a `Position`.

* ``random``: a uniformly random legal tile.
* ``rule``: a casual player's heuristic (see `RuleBot`).
* ``hint``: the best move of `solver.hidden.hint.hint` with N deals from its view.
* ``cheat``: the double-dummy best move on the true deal (an upper bound).
"""

from __future__ import annotations

import random
from typing import Protocol, Union

from ..game import tiles as T
from ..game.position import SEATS, Position
from ..game.rules import LEAD, TRUMP
from ..game.view import View
from ..hidden.hint import hint
from ..search.solve import DealSolver


def seat_view(position: Position) -> View:
    """What the seat to move knows of ``position``: a `View` built from the SPEC view JSON
    (its hand, the contract, the plays), which holds no reference to the deal."""
    seat = position.to_move_index
    if seat is None:
        raise ValueError("the hand is over: no seat is to move")
    data: dict = {"seat": SEATS[seat],
                  "hands": {SEATS[seat]: [T.name_of(t) for t in position.hands[seat]]},
                  "contract": position.contract.to_json(),
                  "plays": [T.name_of(t) for t in position.plays]}
    if position.game == "moon":
        data["game"] = "moon"
        data["players"] = len(position.hands)
    return View(data)


class Bot(Protocol):
    name: str
    #: True for a bot handed the true deal (a `Position`: cheat only); the others are
    #: handed the seat's `View`.
    sees_deal: bool

    def choose(self, seen: Union[View, Position]) -> int: ...


class RandomBot:
    """A uniformly random legal tile."""

    name = "random"
    sees_deal = False

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: View) -> int:
        return self.rng.choice(view.legal_tiles())


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
    sees_deal = False

    def choose(self, view: View) -> int:
        p = view
        rules = p.rules
        seat = p.seat
        legal = p.legal_tiles()
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

    sees_deal = False

    def __init__(self, deals: int = 100, seed: int = 0, threads: int = 1) -> None:
        self.name = f"hint{deals}" if deals != 100 else "hint"
        self.deals = deals
        self.rng = random.Random(seed)
        self.threads = threads

    def choose(self, view: View) -> int:
        legal = view.legal_tiles()
        if len(legal) == 1:
            return legal[0]
        h = hint(view, deals=self.deals, seed=self.rng.randrange(2 ** 31), threads=self.threads)
        return T.parse_tile(h.best[0], "best")


class CheatBot:
    """The double-dummy best move on the true deal (ties: the core's move order)."""

    name = "cheat"
    sees_deal = True

    def __init__(self) -> None:
        self.solver: DealSolver | None = None

    def choose(self, position: Position) -> int:
        p = position
        legal = p.legal_tiles()
        if len(legal) == 1:
            return legal[0]
        if self.solver is None or self.solver.position.hands != p.hands or \
                self.solver.position.contract != p.contract:
            self.solver = DealSolver(p)
        else:
            self.solver.load(p)
        scored = self.solver.child_values()
        sign = 1 if p.maximizer[p.to_move_index] else -1
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
