"""Bid advice: what to bid with seven tiles, in which declaration, and how sure.

One seat's hand is kept; the other tiles are dealt at random, uniformly,
into the other hands (three-player Moon: into the two other hands and the
widow), and on every deal each declaration is searched double dummy with
this seat declaring and leading trick 1 (plunge and splash: the partner
leads). Over the deals each declaration gets the distribution of its value
and its mean, and every bid its chance of making, with a Wilson 95%
interval and the expected marks. The recommended bid is the highest bid,
over all declarations, whose P(make) reaches the threshold
(docs/guides/players.md, "Bid advice").

Searches per deal and declaration:

* point declarations (pip suits, doubles, follow-me; every Moon
  declaration): the exact value, so every bid is read off one search;
* sevens: does the declaring side take all seven tricks (one null window);
* nello: does the declarer lose every trick (one null window);
* plunge and splash (only for a hand with 4 or 3 doubles): the partner
  leads and names trump from what it can know, its own seven tiles (and
  that the bidder holds the doubles), one trump per partner hand by
  `partner_trump`; the contract makes when the side takes all seven tricks
  double dummy with that trump. (Letting the partner pick the best trump
  per deal with every hand open made almost any three doubles a splash.)

With ``fixed_lead`` each of those questions is asked after every opening lead
(`Engine.score_moves`, `Engine.at_least_moves`), and a bid counts the deals of
the one lead that makes it most often: the declarer leads before it sees a
tile of the other hands.

Mark bids on offer follow the usual auction rule: at most 2 marks unless
marks were bid already, then one mark more than the highest bid. Plunge is
bid at 4 marks and splash at 2, or one mark over the highest bid when that
is more.

``e_marks`` is the expected net marks for the bidder's side: a made bid
of 30..42 scores +1 mark and a bid of k marks +k; a set gives those marks
to the other side, counted -1 (or -k). So ``e_marks = m * (2 P(make) - 1)``.
Moon scores the bid instead of marks (4..7, 21 for shooting the moon), made
for the bidder, set against.
"""

from __future__ import annotations

import functools
import itertools
import os
import random
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..game import tiles as T
from ..game.bid_request import (KIND_DECLARATIONS, ONE_MARK, ORDER_42, POINT_DECLARATIONS,
                                AuctionLike, BidRequest, bids_on_offer, marks_of,
                                read_bid_request)
from ..game.completions import Completions
from ..game.errors import PositionError, SearchCancelled
from ..game.position import (DOUBLES_NEEDED, SEAT_INDEX, SEATS, Position,
                             partner)
from ..game.rules import PIP_NAMES
from ..search._core import Aborted, CancelToken, Engine
from ._pool import DealPool, UniformDeals
from .calibration import CalibrationMap, bid_calibration
from .dealer import Dealer
from .deals import (MAX_DEALS, ProgressCounter, check_deal_count, check_seconds, check_seed,
                    token_stopped)
from .inference import (DRAWS_PER_DEAL, MIN_DRAW_BUDGET, AuctionWeigher, InferenceLike,
                        InferenceReport, Resampler, calls_seen, effective_deals, min_pool,
                        read_inference)
from .stats import wilson_interval

#: Declarations that follow the ``doubles`` option (the others play doubles high).
_DOUBLES_OPTION_APPLIES = ("follow-me", "nello")

DEFAULT_DEALS = 200
#: Deals dealt at a time: the cancel token is looked at between two such batches, so a
#: call stopped while it deals stops within one (dealing takes no search's poll).
DEAL_BATCH = 256
DEFAULT_THRESHOLD = 0.75
#: Deals added per round by adaptive advice.
ADAPTIVE_BATCH = 50
#: Transposition table of a search: 2**15 entries (256 KiB), per thread and
#: declaration, cleared between deals. One opening-lead search hardly needs more:
#: 2**18 saves 1% of the nodes but costs 15% more time in cache misses.
TT_BITS = 15


# ------------------------------------------------------------------ results


@dataclass(frozen=True)
class BidChance:
    """One bid of one declaration: deals on which it makes, P(make), interval, E[marks].

    Attributes:
        bid: The bid (points 30..41, marks as multiples of 42; Moon 4..7, 21).
        made: Deals on which it makes.
        deals: Deals scored.
        marks: What it is worth in marks (won or lost).
        calibration: The measured map of P(make), when advice was asked
            ``calibrated``; else None.

    With a ``calibration`` (advice asked ``calibrated``), `p_used` and
    `interval_used`, which the recommendation compares with the threshold,
    are the double-dummy figures mapped through it; without, they are the
    double-dummy figures themselves.
    """

    bid: int
    made: int
    deals: int
    marks: int
    calibration: "CalibrationMap | None" = field(default=None, compare=False)

    @property
    def p_make(self) -> float:
        """The share of deals on which the bid makes (double dummy)."""
        return self.made / self.deals if self.deals else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """A Wilson 95% interval of `p_make`."""
        return wilson_interval(self.made, self.deals)

    @property
    def e_marks(self) -> float:
        """Expected marks of bidding it: won when it makes, lost when it fails."""
        return self.marks * (2 * self.p_make - 1)

    @property
    def p_calibrated(self) -> float | None:
        """`p_make` through the calibration, or None without one."""
        return None if self.calibration is None else self.calibration(self.p_make)

    @property
    def p_used(self) -> float:
        """The P(make) the recommendation uses: calibrated when asked, else double dummy."""
        return self.p_make if self.calibration is None else self.calibration(self.p_make)

    @property
    def interval_used(self) -> tuple[float, float]:
        """`interval`, through the calibration when there is one."""
        low, high = self.interval
        if self.calibration is None:
            return low, high
        return self.calibration(low), self.calibration(high)   # the map is monotone

    def to_json(self) -> dict:
        """The bid's JSON, as `t42 bid --json` writes it."""
        low, high = self.interval
        out = {"bid": self.bid, "made": self.made, "p_make": round(self.p_make, 6),
               "low": round(low, 6), "high": round(high, 6), "e_marks": round(self.e_marks, 6)}
        if self.calibration is not None:
            p = self.calibration(self.p_make)
            out["p_make_calibrated"] = round(p, 6)
            out["e_marks_calibrated"] = round(self.marks * (2 * p - 1), 6)
        return out


@dataclass(frozen=True)
class DeclarationAdvice:
    """Everything about one declaration over the deals (`BidAdvice.declarations`).

    Attributes:
        declaration: Its name (``"sixes"``, ``"nello"``, ``"plunge"``, ...).
        kind: ``"standard"``, ``"plunge"`` or ``"splash"``.
        unit: ``"points"`` or ``"tricks"``; None for make-or-set declarations.
        distribution: ``distribution[v]`` counts the deals of value ``v``
            (points 0..42, Moon tricks 0..7); None for nello, sevens, plunge
            and splash, which are searched make-or-set only.
        made: Deals a make-or-set declaration makes; None for the others.
        bids: Every bid on offer with its chance (`BidChance`).
        deals: Deals scored.
    """

    declaration: str
    kind: str
    unit: str | None
    distribution: tuple[int, ...] | None
    made: int | None
    bids: tuple[BidChance, ...]
    deals: int

    @property
    def mean(self) -> float | None:
        """The mean value over the deals; None for make-or-set declarations."""
        if self.distribution is None or not self.deals:
            return None
        return sum(v * c for v, c in enumerate(self.distribution)) / self.deals

    def chance(self, bid: int) -> BidChance | None:
        """The figures of ``bid`` (None when it is not on offer)."""
        return next((b for b in self.bids if b.bid == bid), None)

    def to_json(self) -> dict:
        """The declaration's JSON, as `t42 bid --json` writes it."""
        mean = self.mean
        return {"declaration": self.declaration, "kind": self.kind, "unit": self.unit,
                "mean": None if mean is None else round(mean, 6),
                "distribution": None if self.distribution is None else list(self.distribution),
                "made": self.made, "bids": [b.to_json() for b in self.bids]}


@dataclass(frozen=True)
class Recommendation:
    """The recommended bid and its declaration (`BidAdvice.recommendation`).

    Attributes:
        bid: The bid; None means pass.
        declaration: The declaration to name when the bid wins.
        chance: The bid's figures in that declaration.
    """

    bid: int | None
    declaration: str | None = None
    chance: BidChance | None = None

    @property
    def is_pass(self) -> bool:
        """Whether the advice is to pass."""
        return self.bid is None

    def to_json(self) -> dict:
        """``{"bid": "pass"}``, or the declaration and the bid's figures."""
        if self.bid is None or self.chance is None:
            return {"bid": "pass"}
        return {"declaration": self.declaration, **self.chance.to_json()}


@dataclass(frozen=True)
class AdvisedDeal:
    """One deal of the advice (with ``return_deals``): the hands, the widow, and what each
    declaration scored on it (the exact value, or made/set for make-or-set declarations);
    three-player Moon also gives the discard each declaration chose for this widow; advice
    with one opening lead for every deal (``fixed_lead``) gives the value after each lead.

    Attributes:
        hands: The deal, tile names by seat.
        widow: The widow (three-player Moon), else None.
        values: Each declaration's exact value, or made (True) or set (False).
        discards: Each declaration's discard (three-player Moon), else None.
        leads: With ``fixed_lead``: per declaration led by the declarer, the value (or
            made) after each legal opening lead, by tile name; else None.
    """

    hands: dict[str, list[str]]
    widow: str | None
    values: dict[str, int | bool]
    discards: dict[str, str] | None = None
    leads: dict[str, dict[str, int | bool]] | None = None

    def to_json(self) -> dict:
        """The deal's JSON, as `t42 bid --with-deals` writes it."""
        out: dict[str, Any] = {"hands": self.hands}
        if self.widow is not None:
            out["widow"] = self.widow
        out["values"] = dict(self.values)
        if self.discards is not None:
            out["discards"] = dict(self.discards)
        if self.leads is not None:
            out["leads"] = {d: dict(v) for d, v in self.leads.items()}
        return out


@dataclass
class BidAdvice:
    """Bid advice for one hand: per declaration (best first) and the recommendation,
    as `advise` returns it.

    Attributes:
        game: ``"42"`` or ``"moon"``.
        players: 4, or 3 for three-player Moon.
        seat: The seat holding the hand.
        hand: Its seven tiles.
        doubles: Where doubles rank (``"high"``, ``"low"``, ``"suit"``).
        highest_bid: The highest bid of the auction so far (None: none); only
            higher bids are recommended.
        threshold: The P(make) a recommended bid must reach.
        deals: Deals scored.
        seed: The seed they were dealt from.
        declarations: Every declaration considered (`DeclarationAdvice`), best
            first.
        recommendation: The recommended bid (`Recommendation`).
        seconds: Time taken.
        nodes: Nodes searched in all.
        adaptive: Whether the deals were dealt in rounds until the advice
            settled.
        dealt: The deals and their scores (``return_deals``), else None.
        calibration: The measured calibration the recommendation used, or None
            (double dummy).
        inference: What inference kept the deals by (None: every deal the same).
        fixed_lead: Whether the declarer was held to one opening lead for every deal.
        search: ``double-dummy`` (every deal solved with every hand open) or
            ``playout`` (every deal played out by seat-view players:
            `solver.hidden.seat_view_bidding`).
        inner_deals: A playout's deals per decision of each player; 0 for double dummy.
        lead_deals: A playout's deals over which the declarer's opening lead was decided,
            once for every deal (0: each deal's declarer decided its own; 0 for double
            dummy).
        defence: Whom a playout's P(make) is against (``seat-view``, ``rule``); None
            for double dummy.
        screened: A playout's declarations that double dummy ranked below those played
            out, in its order (not in ``declarations``); empty when every declaration
            was played out, and for double dummy.

    >>> from solver import advise
    >>> hand = ["6-6", "6-5", "6-4", "6-3", "6-2", "5-5", "4-4"]
    >>> advice = advise(hand, "N", deals=20, seed=1, threads=1)
    >>> advice.recommendation.bid, advice.recommendation.declaration
    (84, 'sixes')
    >>> advice.declaration("sixes").chance(34).p_make
    1.0
    """

    game: str
    players: int
    seat: str
    hand: list[str]
    doubles: str
    highest_bid: int | None
    threshold: float
    deals: int
    seed: int
    declarations: list[DeclarationAdvice]
    recommendation: Recommendation
    seconds: float = 0.0
    nodes: int = 0
    adaptive: bool = False
    dealt: list[AdvisedDeal] | None = None
    #: the measured calibration the recommendation used, or None (double dummy)
    calibration: "CalibrationMap | None" = None
    #: what inference kept the deals by (None: every deal the same)
    inference: InferenceReport | None = None
    #: whether the declarer was held to one opening lead for every deal
    fixed_lead: bool = False
    #: ``double-dummy`` or ``playout`` (seat-view players play every deal out)
    search: str = "double-dummy"
    #: a playout's deals per decision (0: double dummy)
    inner_deals: int = 0
    #: a playout's deals for the declarer's one opening lead (0: each deal's own)
    lead_deals: int = 0
    #: whom a playout's P(make) is against (None: double dummy)
    defence: str | None = None
    #: declarations a playout's double-dummy screen left out, double dummy's order
    screened: list[str] = field(default_factory=list)

    @property
    def p_make_used(self) -> str:
        """Which P(make) the recommendation compared with the threshold: ``double-dummy``,
        ``calibrated`` or ``playout``."""
        return self.search if self.calibration is None else "calibrated"

    def declaration(self, name: str) -> DeclarationAdvice:
        """The advice of the declaration ``name`` (StopIteration when not considered)."""
        return next(d for d in self.declarations if d.declaration == name)

    def to_json(self) -> dict:
        """The advice JSON, as `t42 bid --json` writes it."""
        out: dict[str, Any] = {
            "game": self.game, "players": self.players, "seat": self.seat, "hand": self.hand,
            "doubles": self.doubles, "highest_bid": self.highest_bid, "threshold": self.threshold,
            "deals": self.deals, "seed": self.seed, "adaptive": self.adaptive,
            "p_make_used": self.p_make_used,
            "recommendation": self.recommendation.to_json(),
            "declarations": [d.to_json() for d in self.declarations],
            "seconds": round(self.seconds, 4), "nodes": self.nodes,
        }
        if self.calibration is not None:
            out["calibration"] = self.calibration.to_json()
        if self.dealt is not None:
            out["dealt"] = [d.to_json() for d in self.dealt]
        if self.inference is not None:
            out["inference"] = self.inference.to_json()
        if self.fixed_lead:
            out["fixed_lead"] = True
        if self.search != "double-dummy":
            out.update(search=self.search, inner_deals=self.inner_deals,
                       lead_deals=self.lead_deals, defence=self.defence,
                       screened=list(self.screened))
        return out


# ---------------------------------------------------------------- searching


@dataclass(frozen=True)
class _Search:
    """What an engine needs for one declaration: tables, seat order, sides, leader."""

    rules: Any
    active: tuple[int, ...]
    maximizer: tuple[int, ...]
    scorer: tuple[int, ...]
    leader: int
    available: int

    @classmethod
    def of(cls, position: Position) -> "_Search":
        return cls(position.rules, position.active_seats, position.maximizer, position.scorer,
                   position.first_leader, position.available)

    def engine(self, token: CancelToken | None) -> Engine:
        engine = Engine(self.rules, self.active, self.maximizer, self.scorer, TT_BITS)
        engine.set_token(token)
        return engine

    def load(self, engine: Engine, hands: Sequence[int]) -> None:
        if len(self.active) < 4:  # the nello partner sits out, or 3 players: no West
            hands = [hands[s] if s in self.active else 0 for s in range(4)]
        engine.set_state(hands, self.leader, (), 0, self.available, 7)


class _Evaluator:
    """Scores one declaration on a deal: an int (exact value), a bool (made), or for
    three-player Moon a tuple of exact values, one per possible discard.

    Each thread gets its own engines (`engines`) and keeps them for all its deals;
    the transposition table is cleared between deals, since its key (the tiles
    still held and the leader) names the same state only while every tile keeps
    its owner."""

    def __init__(self, setup: BidRequest, declaration: str, template: dict[int, tuple[int, ...]],
                 fixed_lead: bool = False):
        self.setup = setup
        self.declaration = declaration
        # One opening lead for every deal: the declarer leads from its hand alone. Plunge
        # and splash are led by the partner, whose trump differs from deal to deal.
        self.per_lead = fixed_lead and declaration not in KIND_DECLARATIONS
        self.exact = declaration in POINT_DECLARATIONS
        kind = declaration if declaration in KIND_DECLARATIONS else "standard"
        self.trumps = POINT_DECLARATIONS if kind != "standard" else (declaration,)
        self.searches = [_Search.of(_position(setup, template, t, kind)) for t in self.trumps]
        self.partner = partner(setup.seat)

    def trump_for(self, hands: Sequence[int]) -> int:
        """The index in `trumps` of the declaration searched on this deal: the only one for a
        standard declaration; plunge and splash: the partner's `partner_trump`, which reads
        the partner's hand and nothing else."""
        if len(self.trumps) == 1:
            return 0
        return self.trumps.index(partner_trump(hands[self.partner], self.setup.doubles))

    def engines(self, token: CancelToken | None) -> list[Engine]:
        """One engine per search, for one thread."""
        return [search.engine(token) for search in self.searches]

    def __call__(self, hands: Sequence[int], widow: int | None, engines: list[Engine]
                 ) -> tuple[Any, int]:
        """(score, nodes) on one deal."""
        if self.setup.moon3:
            return self._moon3(hands, widow, engines[0])
        k = self.trump_for(hands)
        search, engine = self.searches[k], engines[k]
        engine.clear()
        search.load(engine, hands)
        before = engine.nodes
        result = self._ask(engine)
        return result, engine.nodes - before

    def _ask(self, engine: Engine) -> Any:
        if self.per_lead:
            return self._ask_per_lead(engine)
        if self.exact:
            return engine.exact()
        if self.declaration == "nello":
            return not engine.at_least(1)
        return engine.at_least(ONE_MARK)  # sevens, plunge, splash: every trick

    def _ask_per_lead(self, engine: Engine) -> dict[int, int | bool]:
        """`_ask` after each legal opening lead, by tile, in the order of the hand; which
        leads are legal (all seven but in sevens) depends on the declarer's hand alone, so
        every deal has the same keys."""
        if self.exact:
            after = dict(engine.score_moves())
        elif self.declaration == "nello":
            after = {t: not took for t, took in engine.at_least_moves(1)}
        else:
            after = dict(engine.at_least_moves(ONE_MARK))
        return {t: after[t] for t in self.setup.hand if t in after}

    def _moon3(self, hands: Sequence[int], widow: int | None, engine: Engine
               ) -> tuple[tuple[int, ...], int]:
        # The eight discards share one table: the hands differ only in the
        # discarded tile, so equal sets of tiles left are equal states.
        assert widow is not None
        search = self.searches[0]
        engine.clear()
        before = engine.nodes
        seat = self.setup.seat
        eight = hands[seat] | 1 << widow
        values: list[int] = []
        for discard in _discard_order(eight):
            held = list(hands)
            held[seat] = eight & ~(1 << discard)
            search.load(engine, held)
            # The last discard's value is a good first guess for the next.
            values.append(engine.exact(values[-1] if values else -1))
        return tuple(values), engine.nodes - before


def partner_trump(hand: int | Iterable[int], doubles: str = "high") -> str:
    """The trump a plunge or splash partner names, from its own seven tiles only.

    ``hand``: a tile mask or tiles; ``doubles``: the follow-me option. The
    partner cannot see the deal; it knows its hand and that the bidder holds
    at least four (plunge) or three (splash) doubles. The rule:

    * the partner's longest pip suit (the tiles with that pip, its double
      included); ties go to the suit whose tiles are higher in it, compared
      from the top (the double first, then the other end), then to the
      higher pip;
    * follow-me instead when doubles are high (the default) and the partner
      holds at least as many doubles as that suit's length less one: with
      no trumps every double tops its suit, the bidder's and its own.

    Doubles as trump are never named. Measured double dummy on 2,400 deals
    of 40 hands with at least three doubles (doubles high), this rule makes
    55% of them; always the longest suit 48%, always follow-me 53%, always
    doubles 24%; the best trump per deal with every hand open 87%. With
    doubles low or a suit of their own follow-me makes under 12% (600 deals
    of 10 of those hands; the longest suit 48%), so the longest suit is named.
    """
    tiles = T.tiles_of(hand) if isinstance(hand, int) else list(hand)

    def strength(pip: int) -> tuple[int, list[int], int]:
        ranks = sorted((7 if T.is_double(t) else sum(T.ENDS[t]) - pip)
                       for t in tiles if pip in T.ENDS[t])
        return len(ranks), ranks[::-1], pip

    longest = max(range(7), key=strength)
    held = sum(1 for t in tiles if T.is_double(t))
    if doubles == "high" and held >= strength(longest)[0] - 1:
        return "follow-me"
    return PIP_NAMES[longest]


def _discard_order(eight: int) -> list[int]:
    """The eight tiles in discard tie-break order: 6-6, 6-5, ..., 0-0."""
    return sorted(T.tiles_of(eight), reverse=True)


def _position(setup: BidRequest, hands: Mapping[int, tuple[int, ...]], trump: str, kind: str
              ) -> Position:
    seats = SEATS[:3] if setup.moon3 else SEATS
    bid = 4 if setup.game == "moon" else (DOUBLES_NEEDED[kind][1] if kind != "standard"
                                          else ONE_MARK)
    return Position({
        "game": setup.game,
        "hands": {s: [T.name_of(t) for t in hands[SEAT_INDEX[s]]] for s in seats},
        "contract": {"declarer": SEATS[setup.seat], "trump": trump, "bid": bid, "kind": kind,
                     "doubles": setup.doubles if trump in _DOUBLES_OPTION_APPLIES else "high"}})


# ------------------------------------------------------------------ dealing


@functools.lru_cache(maxsize=64)
def _dealer(setup: BidRequest) -> Dealer:
    """Uniform deals with the seat's hand fixed (the same as `t42 deal --hand`)."""
    return Dealer(setup.game, setup.players,
                  fixed={SEATS[setup.seat]: [T.name_of(t) for t in setup.hand]})


@dataclass(frozen=True)
class _HandView:
    """The view of a seat that holds seven tiles before the auction, as the compiled
    draws read a view (`solver.hidden._pool.UniformDeals`): the table of the deals of
    the other tiles (`_dealer`'s: a place per seat, the asking seat's empty, then
    three-player Moon's widow, which no seat holds), the seat and its hand; nothing
    played."""

    completions: Completions
    seat: int
    remaining: tuple[int, ...]
    place_seats: tuple[int | None, ...]
    active_seats: tuple[int, ...]
    played_by: tuple[int, ...] = (0, 0, 0, 0)


def _draws(setup: BidRequest, seed: int, weigher: AuctionWeigher | None = None
           ) -> UniformDeals:
    """The compiled draws of bid advice's deals from ``seed`` (`deal_others`'s
    distribution): uniform, or with an informative ``weigher`` the auction's pool
    (`DealPool`), which draws the same way and also deals uniformly (`UniformDeals.deals`)
    once the calls give every deal weight zero."""
    seats = setup.seats()
    view = _HandView(_dealer(setup).completions, setup.seat, setup.hand,
                     seats + ((None,) if setup.moon3 else ()), seats)
    return UniformDeals(view, seed) if weigher is None else DealPool(view, weigher, seed)


def _as_deal(deal: tuple[list[int], int]) -> tuple[list[int], int | None]:
    """A deal of `UniformDeals.deals` as `deal_others` gives it: the widow a tile, or None."""
    hands, widow = deal
    return hands, widow.bit_length() - 1 if widow else None


def deal_others(rng: random.Random, setup: BidRequest) -> tuple[list[int], int | None]:
    """One uniform deal of the tiles the seat does not hold, drawn in C (`_draws`, seeded
    from ``rng``): a mask per seat index (the seat's own hand included) and, in
    three-player Moon, the widow. Every deal of the other tiles is equally likely, as
    with `solver.hidden.dealer.Dealer` (`_dealer`)."""
    return _deal_batch(rng, setup, 1, None)[0][0]


def _deal_batch(rng: random.Random | UniformDeals, setup: BidRequest, n: int,
                token: CancelToken | None, pool: DealPool | Resampler | None = None
                ) -> tuple[list[tuple[list[int], int | None]], list[int] | None, int, float]:
    """``n`` deals of `deal_others` in a row, drawn in C from ``rng`` (the compiled draws of
    `_draws`, or a `random.Random` that seeds fresh ones), `DEAL_BATCH` at a time, the token
    looked at before each batch (`SearchCancelled` once it has stopped). With inference
    (``pool``: the `DealPool` of `_draws`, which draws its own deals, or a `Resampler`,
    which weighs in Python the deals drawn here), the deals drawn go into the pool until
    it is worth ``n`` deals (at most `DRAWS_PER_DEAL` per deal asked, at least
    `MIN_DRAW_BUDGET`) and ``n`` are picked from it by weight: the distinct deals picked,
    how often each was (no deal when every weight is zero), the deals drawn and the
    pool's effective number of deals. Without, the deals, None, the deals drawn and 0."""
    draws = rng if isinstance(rng, UniformDeals) else _draws(setup, rng.getrandbits(64))
    if pool is not None:
        budget = pool.drawn + max(MIN_DRAW_BUDGET, DRAWS_PER_DEAL * n)
        while not pool.enough(n, min_pool(n)) and pool.drawn < budget:
            if token_stopped(token):
                raise SearchCancelled("bid advice stopped before it finished")
            batch = min(DEAL_BATCH, budget - pool.drawn)
            if isinstance(pool, DealPool):
                pool.draw(n, min_pool(n), batch)
                continue
            for deal in draws.deals(batch):
                pool.add(_as_deal(deal), deal[0])
                if pool.enough(n, min_pool(n)):
                    break
        drawn, worth = pool.drawn, pool.effective
        if isinstance(pool, DealPool):
            picked = pool.pick(n, dealt=True)
            picks = None if picked is None else [(_as_deal(d), k) for d, k in picked]
        else:
            picks = pool.pick(n)
        if picks is None:
            return [], None, drawn, 0.0
        return [deal for deal, _ in picks], [times for _, times in picks], drawn, worth
    out: list[tuple[list[int], int | None]] = []
    while len(out) < n:
        if token_stopped(token):
            raise SearchCancelled("bid advice stopped before it finished")
        out += [_as_deal(deal) for deal in draws.deals(min(DEAL_BATCH, n - len(out)))]
    return out, None, len(out), 0.0


def _template(setup: BidRequest) -> dict[int, tuple[int, ...]]:
    """Some deal of the other tiles (in tile order), to build each declaration's tables."""
    rest = setup.unseen
    hands = {s: tuple(rest[7 * k:7 * k + 7]) for k, s in enumerate(setup.other_seats)}
    return {**hands, setup.seat: setup.hand}


# -------------------------------------------------------------------- advice


def advise(hand: Sequence[str] | str, seat: str, *, game: str = "42", players: int = 4,
           auction: AuctionLike = None, doubles: str = "high", deals: int | None = None,
           seed: int | None = None, threshold: float = DEFAULT_THRESHOLD,
           declarations: Sequence[str] | str | None = None,
           deadline: float | None = None, token: CancelToken | None = None,
           adaptive: bool = False, return_deals: bool = False,
           threads: int | None = None, calibrated: bool = False,
           inference: InferenceLike = None,
           progress: Callable[[int, int], None] | None = None,
           fixed_lead: bool = False) -> BidAdvice:
    """Bid advice for ``hand`` held by ``seat``: what to bid, in which declaration,
    and how sure (docs/guides/players.md, "Bid advice").

    The other tiles are dealt at random into the other hands; on every deal
    each declaration is searched double dummy with this seat declaring. The
    recommended bid is the highest, over all declarations, whose P(make)
    reaches ``threshold``.

    Args:
        hand: The seven tiles (names such as ``"6-4"``, or one string of them
            separated by spaces).
        seat: The seat holding them (``"N"``, ``"E"``, ``"S"``, ``"W"``).
        game: ``"42"`` or ``"moon"``.
        players: 4, or 3 for three-player Moon.
        auction: The highest bid so far, or the calls so far in order (bids,
            ``"pass"``, ``"plunge"``, ``"splash"``, or ``{"seat", "bid"}``);
            only higher bids are recommended.
        doubles: Where doubles rank in follow-me and nello (``"high"``,
            ``"low"``, ``"suit"``; Moon: ``"high"``).
        deals: How many deals (with ``inference``, deals kept); None: 200.
        seed: The seed of the deals; None: a fresh one, reported.
        threshold: The P(make) a recommended bid must reach, in (0, 1].
        declarations: The names to consider (a list, or one string separated
            by commas or spaces); None: every declaration of the game, plunge
            and splash when the hand qualifies.
        deadline: Seconds (>= 0) after which dealing and searching stop
            (`SearchCancelled`).
        token: Stops the dealing and the searches (`CancelToken`).
        adaptive: Deal in rounds of 50 and stop once the recommendation is
            settled.
        return_deals: Put the deals and each declaration's scores in the answer
            (``dealt``).
        threads: Threads for the searches; None: one per core.
        calibrated: Map every P(make) through the package's measured
            calibration (double-dummy P(make), or with ``fixed_lead`` the
            fixed-lead P(make), against the results of games of bots) and
            recommend by the calibrated figure (42 only); the answer gives both
            figures and says which it used.
        inference: ``"off"`` (as None) or ``"auction"`` (42 only): weigh each
            deal by how likely the other seats' calls in ``auction`` were with
            the hands it gives them; the answer's ``inference`` names the
            model and the deals drawn.
        progress: Called as ``progress(searched, planned)`` after each search
            (from the search threads): the searches done so far (one per deal and
            declaration) and the searches planned (an adaptive advice's budget; it
            may stop sooner).
        fixed_lead: Hold the declarer to one opening lead for every deal, as a
            declarer who sees only its own hand must lead: each bid's P(make) is
            that of the lead that makes it on the most deals, and a declaration's
            distribution and mean are those of the lead with the best mean (42 and
            four-player Moon; plunge and splash, led by the partner, as without).
            Double dummy credits the declarer with the best lead on every deal;
            this takes that optimism out of trick 1, for about 2.7 times the
            searching. The answer says so (``fixed_lead``). With
            ``calibrated``, the map measured on fixed-lead figures applies.

    Returns:
        The `BidAdvice`.

    Raises:
        PositionError: Bad input (the field and the reason).
        SearchCancelled: ``deadline`` or ``token`` stopped the advice.

    >>> from solver import advise
    >>> advice = advise("6-6 6-5 6-4 6-3 6-2 5-5 4-4", "N", deals=20, seed=1, threads=1)
    >>> advice.recommendation.bid
    84
    """
    started = time.perf_counter()
    setup = read_bid_request(hand, seat, game, players, auction, doubles, threshold, declarations)
    deals = DEFAULT_DEALS if deals is None else deals
    check_deal_count("deals", deals)
    deadline = check_seconds("timeout", deadline)
    if seed is None:
        seed = random.SystemRandom().randrange(2 ** 63)
    else:
        seed = check_seed(seed)
    if not isinstance(calibrated, bool):
        raise PositionError("calibrated", f"must be true or false, not {calibrated!r}",
                            "INVALID_TYPE")
    calibration = None
    if calibrated and setup.game == "moon":
        raise PositionError("calibrated", "the calibration was measured on 42 hands; Moon has "
                            "none", "INVALID_OPTION")
    if not isinstance(fixed_lead, bool):
        raise PositionError("fixed_lead", f"must be true or false, not {fixed_lead!r}",
                            "INVALID_TYPE")
    if calibrated:
        # Each kind of figure has its own map: the double-dummy one applied to the
        # lower fixed-lead figures would take trick 1's optimism out twice.
        calibration = bid_calibration(fixed_lead=fixed_lead)
    if fixed_lead and setup.moon3:
        raise PositionError("fixed_lead", "three-player Moon's declarer leads after its "
                            "discard, which differs from deal to deal: not offered there",
                            "INVALID_OPTION")
    inferred = read_inference(inference, setup.game, plays=False)
    pool = report = None
    if inferred is not None:
        report = InferenceReport(inferred)
        weigher = AuctionWeigher(inferred.calls, calls_seen(
            auction if isinstance(auction, (list, tuple)) else None, setup.seat,
            setup.players))
        pool = _draws(setup, seed, weigher) if weigher.informative else None
    if token is None and deadline is not None:
        token = CancelToken(deadline=time.monotonic() + deadline)
    dealt: list[tuple[list[int], int | None]] = []
    scores: dict[str, list[Any]] = {}
    template = _template(setup)
    # Plunge and splash ask the same question (the partner leads and names a trump
    # that takes every trick): one evaluator answers both.
    asked = {d: ("plunge" if "plunge" in setup.declarations else "splash")
             if d in KIND_DECLARATIONS else d for d in setup.declarations}
    questions = list(dict.fromkeys(asked.values()))
    evaluators = [_Evaluator(setup, q, template, fixed_lead) for q in questions]
    answers: dict[str, list[Any]] = {q: [] for q in questions}
    nodes = 0
    # The auction's pool draws the deals (and, should the calls rule every deal out,
    # goes on drawing them uniformly); without inference, uniform draws from the seed.
    draws = pool if pool is not None else _draws(setup, seed)
    target = int(deals)  # type: ignore[call-overload]
    drawn = 0             # deals drawn (with inference, into the pools)
    pool_effective = 0.0  # the pools' effective numbers of deals, summed over the rounds
    picked: list[int] = []  # how often each deal searched counts
    searched = ProgressCounter(progress, len(evaluators) * target)
    while len(dealt) < target:
        batch = min(ADAPTIVE_BATCH if adaptive else target, target - len(dealt))
        new, times, pool_drawn, pool_worth = _deal_batch(draws, setup, batch, token, pool)
        drawn += pool_drawn
        if pool is not None and times is None:
            # Every deal drawn has weight zero under the model: deal uniformly from here
            # on, and say so.
            assert report is not None
            report.fallback = (f"the call model gives every one of {pool_drawn} deals "
                               "drawn probability zero: uniform deals")
            pool = None
            continue
        results, batch_nodes = _score_deals(evaluators, new, token, threads, searched)
        nodes += batch_nodes
        picked += times if times is not None else [1] * len(new)
        if times is not None:
            # A deal picked k times counts k times (it was searched once).
            assert report is not None
            pool_effective += pool_worth
            if pool_worth < batch:
                report.notes.append(f"the calls fit few deals: the {pool_drawn} drawn in a "
                                    f"round were worth {pool_worth:.1f}, short of the "
                                    f"{batch} asked for")
            new = [deal for deal, k in zip(new, times) for _ in range(k)]
            results = [[value for value, k in zip(column, times) for _ in range(k)]
                       for column in results]
        dealt += new
        for q, column in zip(questions, results):
            answers[q] += column
        scores = {d: answers[asked[d]] for d in setup.declarations}
        if adaptive:
            rows = _summarise(setup, dealt, scores, calibration)[0]
            if settled(rows, setup.threshold, setup.highest):
                break
    rows, discards = _summarise(setup, dealt, scores, calibration)
    recommendation = recommend(rows, setup.threshold, setup.highest, setup.order)
    if report is not None:
        report.drawn = drawn
        report.kept = len(picked)
        # Deals picked from a pool are worth no more than the pool.
        report.effective_deals = effective_deals(picked)
        if pool_effective:
            report.effective_deals = min(report.effective_deals, pool_effective)
    rows = rank(rows, setup.threshold, setup.highest, setup.order)
    return BidAdvice(
        game=setup.game, players=setup.players, seat=SEATS[setup.seat],
        hand=[T.name_of(t) for t in setup.hand], doubles=setup.doubles,
        highest_bid=setup.highest, threshold=setup.threshold, deals=len(dealt), seed=int(seed),
        declarations=rows, recommendation=recommendation,
        seconds=time.perf_counter() - started, nodes=nodes, adaptive=adaptive,
        dealt=_advised_deals(setup, dealt, scores, discards) if return_deals else None,
        calibration=calibration, inference=report, fixed_lead=fixed_lead)


def _score_deals(evaluators: list[_Evaluator], deals: list[tuple[list[int], int | None]],
                 token: CancelToken | None, threads: int | None,
                 searched: ProgressCounter | None = None) -> tuple[list[list[Any]], int]:
    """Every evaluator on every deal, on ``threads`` threads (default: one per core).

    The searches release the GIL. The work is one search per declaration and
    deal, declaration by declaration: a thread that stays with one
    declaration's engine keeps its table in the cache (5% less CPU
    than every declaration on one deal after the other). Each thread takes
    the next piece not yet taken (``next`` on a shared counter is atomic
    under the GIL), so no thread idles at the end for longer than one
    search. Every search starts on a cleared table, so values and node counts
    do not depend on which thread searched a deal, nor on the number of
    threads."""
    n = max(1, min(threads or os.cpu_count() or 1, len(deals)))
    results: list[list[Any]] = [[None] * len(deals) for _ in evaluators]
    node_counts = [0] * n
    counter = itertools.count()
    stop = threading.Event()
    pieces = len(evaluators) * len(deals)

    def lane(k: int) -> None:
        engines = [evaluate.engines(token) for evaluate in evaluators]
        try:
            while not stop.is_set():
                piece = next(counter)
                if piece >= pieces:
                    break
                j, i = divmod(piece, len(deals))
                hands, widow = deals[i]
                results[j][i], used = evaluators[j](hands, widow, engines[j])
                node_counts[k] += used
                if searched is not None:
                    searched.tick()
        except Aborted:
            stop.set()  # the other threads stop at their next deal
            raise

    try:
        if n == 1:
            lane(0)
        else:
            with ThreadPoolExecutor(max_workers=n) as pool:
                for future in [pool.submit(lane, k) for k in range(n)]:
                    future.result()
    except Aborted:
        raise SearchCancelled("bid advice stopped before it finished") from None
    return results, sum(node_counts)


def _choose_discards(dealt: list[tuple[list[int], int | None]], column: list[tuple[int, ...]]
                     ) -> dict[int, int]:
    """Three-player Moon: per widow, the position (in `_discard_order`) of the discard
    with the highest mean over the deals with that widow; ties to the first."""
    totals: dict[int, list[int]] = {}
    for (hands, widow), values in zip(dealt, column):
        assert widow is not None
        sums = totals.setdefault(widow, [0] * len(values))
        for k, v in enumerate(values):
            sums[k] += v
    return {w: max(range(len(s)), key=lambda k: (s[k], -k)) for w, s in totals.items()}


def _summarise(setup: BidRequest, dealt: list[tuple[list[int], int | None]],
               scores: Mapping[str, list[Any]], calibration: "CalibrationMap | None" = None
               ) -> tuple[list[DeclarationAdvice], dict[str, dict[int, int]]]:
    """Per declaration the distribution (or made count) and every bid's chance."""
    rows = []
    discards: dict[str, dict[int, int]] = {}
    n = len(dealt)
    for d in setup.declarations:
        column = scores[d]
        if setup.moon3:
            choice = _choose_discards(dealt, column)
            discards[d] = choice
            column = [values[choice[widow]] for (_, widow), values in zip(dealt, column)]
        bids = bids_on_offer(d, setup.game, setup.highest)
        # With one opening lead for every deal a value is a dict, a value per lead: each
        # bid counts the deals of the lead that makes it most often, the distribution is
        # the lead with the best mean.
        per_lead = bool(column) and isinstance(column[0], dict)
        leads = [[v[t] for v in column] for t in column[0]] if per_lead else [column]
        if d in POINT_DECLARATIONS:
            top = 7 if setup.game == "moon" else 42
            tallies = [Counter(values) for values in leads]
            best = max(tallies, key=lambda c: sum(v * k for v, k in c.items()))
            distribution: tuple[int, ...] | None = tuple(best.get(v, 0) for v in range(top + 1))
            made = None
            chances = tuple(BidChance(b, max(sum(c for v, c in counts.items()
                                                 if v >= _target(b, setup.game))
                                             for counts in tallies), n,
                                      marks_of(b, setup.game), calibration) for b in bids)
        else:
            distribution = None
            made = max(sum(1 for v in values if v) for values in leads)
            chances = tuple(BidChance(b, made, n, marks_of(b, setup.game), calibration)
                            for b in bids)
        rows.append(DeclarationAdvice(
            declaration=d, kind=d if d in KIND_DECLARATIONS else "standard",
            unit=("tricks" if setup.game == "moon" else "points") if distribution else None,
            distribution=distribution, made=made, bids=chances, deals=n))
    return rows, discards


def _target(bid: int, game: str) -> int:
    """The value a bid needs: its points, 42 for marks (every trick); Moon its tricks, 7 for 21."""
    if game == "moon":
        return 7 if bid == 21 else bid
    return min(bid, ONE_MARK)


def _key(row: DeclarationAdvice, chance: BidChance, order: Sequence[str]) -> tuple:
    """The tie-break between declarations at one bid (docs/guides/players.md): higher
    P(make), then higher mean (make-or-set declarations have none and come after), then
    table order. The
    double-dummy count decides even for calibrated advice: the calibration is
    monotone, so it orders the same way, and it can only merge, not part, ties."""
    mean = row.mean
    return (chance.made, mean is not None, mean or 0.0, -order.index(row.declaration))


def _candidates(rows: Iterable[DeclarationAdvice], threshold: float, highest: int | None
                ) -> list[tuple[DeclarationAdvice, BidChance]]:
    return [(row, c) for row in rows for c in row.bids
            if (highest is None or c.bid > highest) and c.p_used >= threshold]


def recommend(rows: Sequence[DeclarationAdvice], threshold: float, highest: int | None,
              order: Sequence[str] = ORDER_42) -> Recommendation:
    """The highest bid above ``highest`` whose P(make) (`BidChance.p_used`: calibrated
    when the advice is) reaches ``threshold``, over every declaration (ties: the
    declarations' order, see `_key`); pass when there is none.

    Args:
        rows: Every declaration's advice (`DeclarationAdvice`).
        threshold: The P(make) a recommended bid must reach.
        highest: The highest bid so far; None: none.
        order: The declarations' table order (the last tie-break)."""
    found = _candidates(rows, threshold, highest)
    if not found:
        return Recommendation(None)
    row, chance = max(found, key=lambda rc: (rc[1].bid, _key(rc[0], rc[1], order)))
    return Recommendation(chance.bid, row.declaration, chance)


def rank(rows: Sequence[DeclarationAdvice], threshold: float, highest: int | None,
         order: Sequence[str] = ORDER_42) -> list[DeclarationAdvice]:
    """Declarations best first: by the highest bid each would recommend, then the
    recommendation's tie-break; those that reach no bid by mean, then table order.

    Args:
        rows: Every declaration's advice (`DeclarationAdvice`).
        threshold: The P(make) a recommended bid must reach.
        highest: The highest bid so far; None: none.
        order: The declarations' table order (the last tie-break)."""
    def key(row: DeclarationAdvice) -> tuple:
        found = _candidates([row], threshold, highest)
        if found:
            chance = max((c for _, c in found), key=lambda c: c.bid)
            return (1, chance.bid) + _key(row, chance, order)
        first = row.bids[0] if row.bids else BidChance(0, 0, 0, 1)
        return (0, 0) + _key(row, first, order)
    return sorted(rows, key=key, reverse=True)


def settled(rows: Sequence[DeclarationAdvice], threshold: float, highest: int | None) -> bool:
    """Whether more deals would hardly change the recommendation: the recommended bid's
    Wilson interval lies above the threshold and every higher bid's below it (for a
    pass: every bid's interval lies below the threshold).

    Args:
        rows: Every declaration's advice (`DeclarationAdvice`).
        threshold: The P(make) a recommended bid must reach.
        highest: The highest bid so far; None: none."""
    chosen = recommend(rows, threshold, highest)
    floor = chosen.bid if chosen.bid is not None else -1
    for row in rows:
        for c in row.bids:
            if highest is not None and c.bid <= highest:
                continue
            low, high = c.interval_used
            if c.bid > floor and high >= threshold:
                return False
    if chosen.chance is not None and chosen.chance.interval_used[0] < threshold:
        return False
    return True


def _advised_deals(setup: BidRequest, dealt: list[tuple[list[int], int | None]],
                   scores: Mapping[str, list[Any]], discards: Mapping[str, dict[int, int]]
                   ) -> list[AdvisedDeal]:
    out = []
    for i, (hands, widow) in enumerate(dealt):
        values: dict[str, int | bool] = {}
        chosen: dict[str, str] = {}
        leads: dict[str, dict[str, int | bool]] = {}
        for d in setup.declarations:
            value = scores[d][i]
            if isinstance(value, dict):
                # A value per opening lead: the double-dummy value is the declarer's best.
                after = {T.name_of(t): v for t, v in value.items()}
                leads[d] = after
                value = max(after.values())
            elif setup.moon3:
                assert widow is not None
                k = discards[d][widow]
                value = value[k]
                chosen[d] = T.name_of(_discard_order(hands[setup.seat] | 1 << widow)[k])
            values[d] = value
        out.append(AdvisedDeal(
            hands={SEATS[s]: [T.name_of(t) for t in T.tiles_of(hands[s])] for s in setup.seats()},
            widow=T.name_of(widow) if widow is not None else None, values=values,
            discards=chosen if setup.moon3 else None, leads=leads or None))
    return out


__all__ = ["MAX_DEALS", "AdvisedDeal", "BidAdvice", "BidChance", "DeclarationAdvice",
           "Recommendation", "advise", "partner_trump", "rank", "recommend", "settled"]
