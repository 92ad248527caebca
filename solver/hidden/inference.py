"""Inference: weighing the hidden deals by what the auction and the plays reveal
(docs/guides/players.md, "Inference").

Without inference every consistent deal weighs the same. With it, a deal weighs as
much as the other seats were likely to make the calls and plays they made holding the
hands that deal gives them:

* ``auction``: the calls of every other seat (`solver.hidden.call_model`: how the
  ``advice`` bot bids, softened and fitted by maximum likelihood on game records) and
  the declarer's declaration, when the declarer is another seat;
* ``plays``: the plays of the other seats since the viewer's own last play, where the
  seat had a choice (`solver.hidden.play_model`: a softmax over the double-dummy loss
  of each legal move);
* ``both``: the product.

How the weights are used: a sampled view draws deals uniformly into a pool with their
auction weights and picks the deals to search from it in proportion to the weights
(importance resampling: `solver.hidden._pool.DealPool`, a hint's pool and bid advice's;
`Resampler` is the same in Python), so no search is spent on deals the auction rules
out; the play weights, which need searches, weigh the deals picked. An enumerated view weighs every consistent
deal by the product, exactly. The answer names the models and gives the effective
number of deals ``(sum w)^2 / sum w^2``.

When the models give every deal probability zero (every weight drawn or scored is
zero), the answer falls back to uniform weights and says so
(`InferenceReport.fallback`).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence, Union

from ..game.auction import ONE_MARK, POINT_BIDS, SPECIAL_CALLS, read_call, read_call_value
from ..game.errors import PositionError, quoted
from ..game.position import SEATS
from ._pool import LOG_WEIGHT_FLOOR, systematic_picks

if TYPE_CHECKING:  # the models are imported when a mode needs them
    from ..game.view import View
    from .call_model import CallModel
    from .play_model import PlayModel

MODES = ("off", "auction", "plays", "both")
#: A sampled view draws into its pool at most this many deals per deal asked for (and
#: at least `MIN_DRAW_BUDGET` in all), whatever the pool is worth by then.
#: A draw and its weight took 20 to 50 us in Python (`Resampler`): 2,000 draws, 40 to
#: 100 ms; the pool in C (`DealPool`, a hint's and bid advice's) takes under 1 us a draw.
DRAWS_PER_DEAL = 50
MIN_DRAW_BUDGET = 2_000
#: ... and it draws at least `min_pool` deals: this many per deal asked, and this many.
POOL_PER_DEAL = 2
MIN_POOL = 200


@dataclass(frozen=True)
class Inference:
    """What a call's deals are weighted by: the mode and the models it uses.

    Attributes:
        mode: ``"off"``, ``"auction"``, ``"plays"`` or ``"both"``.
        calls: The call model (`solver.hidden.call_model.CallModel`) for
            ``auction`` and ``both``, else None.
        plays: The play model (`solver.hidden.play_model.PlayModel`) for
            ``plays`` and ``both``, else None.
    """

    mode: str
    calls: CallModel | None = None      # ``auction``, ``both``
    plays: PlayModel | None = None      # ``plays``, ``both``

    @property
    def uses_auction(self) -> bool:
        return self.calls is not None

    @property
    def uses_plays(self) -> bool:
        return self.plays is not None

    def describe(self) -> dict:
        """``{"mode"}`` and each model's name and provenance."""
        out: dict[str, Any] = {"mode": self.mode}
        if self.calls is not None:
            out["calls"] = self.calls.to_json()
        if self.plays is not None:
            out["plays"] = self.plays.to_json()
        return out


#: What an ``inference`` argument may be: a mode name (``off``, ``auction``, ``plays``,
#: ``both``), an `Inference` with models of one's own, or None (off).
InferenceLike = Union[str, Inference, None]


def read_inference(value: InferenceLike, game: str = "42", *, plays: bool = True
                   ) -> Inference | None:
    """The ``inference`` option read: None when it is off.

    Args:
        value: ``off`` (or None), ``auction``, ``plays`` or ``both`` (any case),
            or an `Inference` (models of one's own).
        game: ``"42"`` or ``"moon"``.
        plays: False where nothing has been played (bid advice): a mode that
            reads plays is refused.

    Raises:
        PositionError: (field ``inference``) anything else, the auction in Moon
            (the call model was fitted on 42's auctions), or a mode that reads
            plays where ``plays`` is False.

    >>> read_inference("Auction").mode, read_inference("off")
    ('auction', None)
    """
    if isinstance(value, Inference):
        return None if value.mode == "off" else value
    if value is None:
        return None
    if not isinstance(value, str) or value.lower() not in MODES:
        raise PositionError("inference", f"unknown inference {quoted(value)} (off, auction, "
                            "plays or both)", "INVALID_OPTION")
    mode = value.lower()
    if mode == "off":
        return None
    if not plays and mode != "auction":
        raise PositionError("inference", f"{mode!r} reads the plays, and bid advice comes "
                            "before any: off or auction", "INVALID_OPTION")
    if game == "moon" and mode in ("auction", "both"):
        raise PositionError("inference", "the call model was fitted on 42's auctions; Moon "
                            "has none (off or plays)", "INVALID_OPTION")
    calls = play_model = None
    if mode in ("auction", "both"):
        from .call_model import shipped_call_model
        calls = shipped_call_model()
    if mode in ("plays", "both"):
        from .play_model import shipped_play_model
        play_model = shipped_play_model()
    return Inference(mode, calls, play_model)


# ------------------------------------------------------------------ the auction


@dataclass(frozen=True)
class CallSeen:
    """One call another seat made: the seat, the call, the highest bid before it."""

    seat: int
    bid: int | str
    highest: int | None


def calls_seen(auction: Sequence[Any] | None, viewer: int, players: int = 4
               ) -> list[CallSeen]:
    """The informative calls of the other seats in ``auction`` (a list of calls, each
    ``{"seat", "bid"}`` or a bare bid, in order; bare bids are the seats before the
    viewer's turn, counter-clockwise from it). A bid forced on the last seat (every
    other seat passed) says nothing about its hand and is left out.

    Args:
        auction: The calls, or None.
        viewer: The viewer's seat index.
        players: The seats at the table.

    Raises:
        PositionError: A bid that is not one of 42's or not above the one before
            (naming the call)."""
    if not auction:
        return []
    out: list[CallSeen] = []
    highest: int | None = None
    n = len(auction)
    for i, raw in enumerate(auction):
        where = f"auction[{i}]"
        if isinstance(raw, Mapping):
            call = read_call(raw, where, SEATS[:players])
            seat, bid = call.seat, call.bid
            amount = call.amount
            where += ".bid"
        else:
            seat = (viewer - n + i) % players
            bid = read_call_value(raw, where)
            amount = SPECIAL_CALLS[bid][0] if bid in SPECIAL_CALLS else \
                None if bid == "pass" else bid
        if isinstance(bid, int):
            # A view's auction is read for inference only: a bid the model cannot read is
            # an error of the inference asked for, named here.
            if bid < POINT_BIDS[0] or (bid > POINT_BIDS[-1] and bid % ONE_MARK):
                raise PositionError(where, f"{bid} is not a bid of 42 (30..41, or 42 per "
                                    "mark)", "INVALID_VALUE")
            if highest is not None and bid <= highest:
                raise PositionError(where, f"bid {bid} is not higher than the last bid "
                                    f"{highest}", "BID_NOT_HIGHER")
        forced = i == players - 1 and highest is None and bid != "pass"
        if seat != viewer and not forced:
            out.append(CallSeen(seat, bid, highest))
        if amount is not None and (highest is None or amount > highest):
            highest = amount
    return out


class AuctionWeigher:
    """The log-likelihood of the other seats' calls (and a declaration) for one deal at
    a time, by hands as dealt; a seat's part is cached per hand, since many deals of a
    view give a seat the same hand.

    Args:
        model: The call model.
        calls: The other seats' calls (`calls_seen`).
        declaration: (declarer, declaration, bid) when another seat declared.
    """

    def __init__(self, model: CallModel, calls: Iterable[CallSeen],
                 declaration: tuple[int, str, int] | None = None) -> None:
        self.model = model
        self.by_seat: dict[int, list[CallSeen]] = {}
        for c in calls:
            self.by_seat.setdefault(c.seat, []).append(c)
        #: (declarer, declaration, bid) when another seat declared a standard contract
        self.declaration = declaration
        self.seats = tuple(sorted(set(self.by_seat) | ({declaration[0]} if declaration
                                                          else set())))
        self._cache: dict[tuple[int, int], float] = {}
        self._bounds: dict[tuple[int | str, int | None], float] = {}

    @property
    def informative(self) -> bool:
        return bool(self.seats)

    def _bound(self, bid: int | str, highest: int | None) -> float:
        bound = self._bounds.get((bid, highest))
        if bound is None:
            largest = getattr(self.model, "call_bound", None)
            bound = largest(bid, highest) if largest is not None else 1.0
            self._bounds[(bid, highest)] = bound
        return bound

    def seat_log_weight(self, seat: int, hand: int) -> float:
        key = (seat, hand)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        p = 1.0
        for c in self.by_seat.get(seat, ()):
            # Divided by the call's largest likelihood over every strength of hand, so
            # that the product is a probability to keep a deal with that is as large as
            # it may be (a bid of exactly 31 is unlikely for any hand: what tells deals
            # apart is the ratio).
            p *= self.model.call_likelihood(hand, c.bid, c.highest) / \
                self._bound(c.bid, c.highest)
        if self.declaration is not None and self.declaration[0] == seat:
            p *= self.model.declaration_likelihood(hand, self.declaration[1],
                                                   self.declaration[2])
        out = math.log(p) if p > 0 else -math.inf
        self._cache[key] = out
        return out

    def log_weight(self, dealt: Sequence[int]) -> float:
        """Sum over the seats that called of log P(their calls | their hand in ``dealt``),
        ``dealt`` a tile mask per seat index."""
        return sum(self.seat_log_weight(s, dealt[s]) for s in self.seats)


def view_weigher(view: View, model: CallModel) -> AuctionWeigher:
    """The `AuctionWeigher` of ``view`` under the call ``model``: its auction's calls by
    other seats, and the contract's declaration when another seat declared a standard
    contract."""
    calls = calls_seen(view.auction, view.seat, len(view.active_seats)
                       if view.game == "moon" else 4)
    contract = view.contract
    declaration = None
    if contract.kind == "standard" and contract.declarer != view.seat:
        declaration = (contract.declarer, contract.declaration.name, contract.bid)
    return AuctionWeigher(model, calls, declaration)


def min_pool(n: int) -> int:
    """The fewest deals a pool draws for ``n`` picks, however flat its weights look: a
    few first draws can all miss the deals the calls point to and weigh alike."""
    return max(MIN_POOL, POOL_PER_DEAL * n)


class Resampler:
    """Inference's sampler for drawn deals (importance resampling): every deal drawn
    uniformly joins a pool with its auction weight (`add`) until the pool is worth the
    deals asked for, none of them picked twice (`enough`), and the deals are then
    picked from the pool in proportion to their weights (`pick`, systematic
    resampling). The picks are (nearly, for a pool of hundreds) draws from the
    auction-weighted distribution; searching only them spends nothing on deals the
    auction rules out. The pool in Python, for deals drawn elsewhere: a hint and bid
    advice use `solver.hidden._pool.DealPool`, the same in C, which draws its deals
    itself (and whose rule `enough` this is, tested against it).

    Args:
        weigher: The auction's `AuctionWeigher`.
        played_by: The seat index that played each play so far.
        seed: Seeds the picks, apart from the draws.
    """

    def __init__(self, weigher: AuctionWeigher, played_by: Sequence[int],
                 seed: int | None) -> None:
        self.weigher = weigher
        self.played_by = tuple(played_by)
        self.chance = random.Random(f"pick {seed}")
        self.pool: list[Any] = []
        self.log_weights: list[float] = []
        # Running sums of w and w^2, with w = exp(log-weight - top).
        self._top = -math.inf
        self._sum = self._squares = 0.0

    @property
    def drawn(self) -> int:
        return len(self.pool)

    @property
    def effective(self) -> float:
        """The pool's effective number of deals, (sum w)^2 / sum w^2."""
        return self._sum * self._sum / self._squares if self._squares > 0 else 0.0

    def add(self, deal: Any, held: Sequence[int]) -> None:
        """One deal drawn, given each seat's tiles still held (``held``)."""
        lw = self.weigher.log_weight(dealt_masks(held, self.played_by))
        self.pool.append(deal)
        self.log_weights.append(lw)
        if lw == -math.inf:
            return
        if lw > self._top:
            shift = math.exp(self._top - lw) if self._top > -math.inf else 0.0
            self._sum *= shift
            self._squares *= shift * shift
            self._top = lw
        w = math.exp(lw - self._top)
        self._sum += w
        self._squares += w * w

    def enough(self, n: int, min_pool: int) -> bool:
        """Whether the pool holds ``min_pool`` deals, is worth ``n`` picks, and holds a
        deal the calls make plausible at all.

        Worth ``n`` picks: its weights sum to ``n`` times the largest or more. Then no
        deal's share of ``n`` picks is above one, systematic picks take no deal twice,
        and the ``n`` picks are worth ``n`` deals. (An effective number of deals of ``n``
        is not enough: it allows a deal several picks, searched once and worth less.)

        Plausible: its weights (each at most 1, the calls' likelihood over its largest)
        sum to 1 or more, as many as rejection sampling would keep. Weights alike but all
        tiny say the draws have not met the deals the calls point to yet, not that every
        deal is as good as any."""
        if len(self.pool) < min_pool or self._top == -math.inf or self._sum < n:
            return False
        return self._top >= 0 or math.log(self._sum) + self._top >= 0

    def pick(self, n: int) -> list[tuple[Any, int]] | None:
        """``n`` picks from the pool by weight, as (deal, times picked), in the order
        drawn, and a fresh pool for the next round; None when every weight is zero."""
        weights = normalised(self.log_weights)
        pool = self.pool
        self.pool, self.log_weights = [], []
        self._top, self._sum, self._squares = -math.inf, 0.0, 0.0
        if weights is None:
            return None
        return [(pool[i], times)
                for i, times in systematic_picks(weights, n, self.chance.random())]


# ------------------------------------------------------------------- the answer


@dataclass
class InferenceReport:
    """What an answer with inference says of it (`Hint.inference`, `BidAdvice.inference`).

    Attributes:
        inference: The mode and models used.
        drawn: Deals drawn (into the pool).
        kept: Deals kept (picked from it).
        effective_deals: What the weighted deals are worth: (sum w)^2 / sum w^2.
        fallback: Why uniform weights were used instead, or None.
        notes: Remarks on the answer (fewer deals kept than asked, ...).
    """

    inference: Inference
    drawn: int = 0
    kept: int = 0
    effective_deals: float = 0.0
    fallback: str | None = None
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        out = self.inference.describe()
        out.update({"drawn": self.drawn, "kept": self.kept,
                    "effective_deals": round(self.effective_deals, 3),
                    "fallback": self.fallback})
        if self.notes:
            out["notes"] = list(self.notes)
        return out


def effective_deals(weights: Sequence[float]) -> float:
    """(sum w)^2 / sum w^2 of the ``weights`` (0 when every weight is 0): what many
    deals of unequal weights are worth in deals of equal weight."""
    total = math.fsum(weights)
    squares = math.fsum(w * w for w in weights)
    return total * total / squares if squares > 0 else 0.0


def normalised(log_weights: Sequence[float]) -> list[float] | None:
    """exp(log w - max log w) per deal of ``log_weights`` (the largest weight is 1);
    None when every deal has weight zero."""
    top = max(log_weights, default=-math.inf)
    if top == -math.inf:
        return None
    return [math.exp(max(lw - top, LOG_WEIGHT_FLOOR)) if lw > -math.inf else 0.0
            for lw in log_weights]


def dealt_masks(held: Sequence[int], played_by: Sequence[int]) -> tuple[int, ...]:
    """Each seat's tiles as dealt (masks by seat index): those it still holds (``held``)
    and those it played (``played_by``)."""
    return tuple(h | p for h, p in zip(held, played_by))


__all__ = ["DRAWS_PER_DEAL", "MODES", "AuctionWeigher", "CallSeen", "Inference",
           "InferenceReport", "Resampler", "calls_seen", "effective_deals", "min_pool",
           "normalised", "read_inference", "view_weigher"]
