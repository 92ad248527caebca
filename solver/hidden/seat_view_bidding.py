"""Bid advice from the seat's view: each declaration's P(make) and E[marks] from hands
played out by players who each see only their own tiles (docs/guides/players.md,
"Seat-view search").

Double-dummy bid advice (`solver.hidden.bidding.advise`) solves each deal as if every
seat saw it: the declarer's side finds the best line for that deal, a line it could
not know to follow (strategy fusion), so its P(make) runs high (0.82 predicted where
the bidders made 0.65 in the project's games). Here the declaration is fixed across
the deals, as at the table, and every deal is *played out*: at each turn the seat to
move looks at what it can see (its own tiles, the calls and the plays so far), draws
``inner_deals`` deals consistent with that, and plays the move best over them
(`solver.hidden.seat_view.SeatViewPlayer`, recursive Monte Carlo after Furtak and
Buro, 2013). A bid's P(make) is the share of deals on which the played-out hand
makes it: what such players actually get, not what the best line for each deal gets.

Every declaration played out costs about 12 ms a deal, some 3.9 s of CPU for a hand's
eleven declarations at 30 deals. A *screen* plays out only the ``screen`` declarations
that double-dummy advice (`SCREEN_DEALS` deals) ranks first: double dummy's order of the
declarations is right far more often than its P(make). The answer names the declarations
the screen left out (``screened``); the kept ones have exactly the figures a playout of
every declaration gives them at the same seed.

The defenders play as the `defence` says: seat-view players like the declaring side
(``seat-view``, the default), or any player given as a function of its seat's view
(the rule bot: ``rule``, supplied by the layer of players). A P(make) depends on who
defends, so the answer names its defence.

The declarer's opening lead is one decision, taken once from its seat's view: before
the playouts, a seat-view player with ``lead_deals`` deals of its own (drawn apart from
the playouts' deals, so the lead is not chosen knowing them) picks the lead for the
declaration, and every deal is played out from that lead, as a declarer at the table
leads one tile whatever the deal (plunge and splash, which the partner leads from a
hand that differs by deal, keep each deal's own lead). ``lead_deals`` 0 lets each
deal's declarer choose its lead from its own ``inner_deals`` deals, as at every later
turn: a weaker lead (a few deals), and the costliest decision of the playout, taken 30
times over from the same view (48% of the CPU).

Point declarations are played for points (each side maximises its expected points,
Moon its tricks), which gives one value per deal and so every bid's chance from one
playout; nello, sevens, plunge and splash are played for the contract (take every
trick, or lose every one). Three-player Moon (a discard chosen from the widow) is not
offered.
"""

from __future__ import annotations

import dataclasses
import os
import random
import time
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Callable, Sequence
from typing import Any

from ..game import tiles as T
from ..game.bid_request import KIND_DECLARATIONS, POINT_DECLARATIONS, AuctionLike, \
    read_bid_request
from ..game.errors import PositionError, SearchCancelled
from ..game.position import SEATS, Position, partner
from ..game.view import View
from ..search._core import Aborted, CancelToken
from .bidding import (DEFAULT_THRESHOLD, BidAdvice, _position, _summarise, _template, advise,
                      deal_others, partner_trump, rank, recommend)
from .deals import ProgressCounter, check_deal_count, check_seconds, check_seed, \
    token_stopped
from .seat_view import DEFAULT_INNER_DEALS, MAX_INNER_DEALS, SeatViewPlayer, play_to_end

#: Deals per declaration by default: each is a whole hand played out.
DEFAULT_DEALS = 30
#: The defences a caller can name; other players come as a function (`defenders`).
DEFENCES = ("seat-view", "rule")
#: Declarations the command line and the service play out by default (the others are
#: screened out by double dummy); 0 plays out every declaration.
DEFAULT_SCREEN = 3
#: Deals of the double-dummy advice that screens the declarations.
SCREEN_DEALS = 50
#: Deals over which the declarer's opening lead is decided, once per declaration.
DEFAULT_LEAD_DEALS = 20

#: A player: the tile (number) a seat plays, from its seat's view.
Player = Callable[[View], int]


def seat_view_advise(hand: Sequence[str] | str, seat: str, *, game: str = "42",
                     players: int = 4, auction: AuctionLike = None, doubles: str = "high",
                     deals: int = DEFAULT_DEALS, inner_deals: int = DEFAULT_INNER_DEALS,
                     seed: int | None = None, threshold: float = DEFAULT_THRESHOLD,
                     declarations: Sequence[str] | str | None = None,
                     defence: str = "seat-view", defenders: Player | None = None,
                     deadline: float | None = None, token: CancelToken | None = None,
                     threads: int | None = None, screen: int = 0,
                     lead_deals: int = DEFAULT_LEAD_DEALS,
                     progress: Callable[[int, int], None] | None = None) -> BidAdvice:
    """Bid advice for ``hand`` held by ``seat`` from hands played out by seat-view players.

    The arguments are `solver.hidden.bidding.advise`'s (``hand`` .. ``declarations``,
    ``deadline``, ``token``, ``progress``) and:

    Args:
        deals: Deals per declaration (each played out once per declaration).
        inner_deals: The deals each seat-view player draws per decision
            (1..`MAX_INNER_DEALS`).
        defence: The name of the defence the figures are for: ``seat-view`` (the
            defenders are seat-view players too) or ``rule`` (then ``defenders`` must
            be the rule bot's play).
        defenders: The defenders' play, a function of their seat's view; None: seat-view
            players. Required with a defence other than ``seat-view``. Called from
            several threads at once unless ``threads`` is 1.
        threads: Threads playing the deals out (None: one per core); the figures do
            not depend on it (each deal's players draw from a generator of their own).
        screen: Play out only the ``screen`` declarations double-dummy advice
            (`SCREEN_DEALS` deals) ranks first; 0 (the default): every declaration.
        lead_deals: The deals over which a seat-view player decides the declarer's
            opening lead, once per declaration, for every deal (0..`MAX_INNER_DEALS`;
            0: each deal's declarer decides its lead from its own ``inner_deals``).

    Returns:
        The `BidAdvice`, with ``search`` ``"playout"``, its ``inner_deals``, ``defence``
        and ``screened`` (the declarations the screen left out, double dummy's order);
        every bid's P(make) is the share of deals on which the hand, played out, made
        it.

    Raises:
        PositionError: Bad input (the field and the reason).
        SearchCancelled: ``deadline`` or ``token`` stopped the advice.

    >>> a = seat_view_advise("6-6 6-5 6-4 6-3 6-2 5-5 4-4", "N", deals=4, seed=1,
    ...                      declarations="sixes")
    >>> a.search, a.defence, a.declaration("sixes").chance(30).p_make
    ('playout', 'seat-view', 1.0)
    """
    started = time.perf_counter()
    setup = read_bid_request(hand, seat, game, players, auction, doubles, threshold,
                             declarations)
    if setup.moon3:
        raise PositionError("players", "seat-view bid advice plays 42 and four-player Moon; "
                            "three-player Moon's declarer first lays a tile away",
                            "INVALID_OPTION")
    n = check_deal_count("deals", deals)
    inner = check_deal_count("inner_deals", inner_deals, 1, MAX_INNER_DEALS)
    lead_deals = check_deal_count("lead_deals", lead_deals, 0, MAX_INNER_DEALS)
    deadline = check_seconds("timeout", deadline)
    if isinstance(screen, bool) or not isinstance(screen, int) or screen < 0:
        raise PositionError("screen", "must be a whole number >= 0 (0: play out every "
                            "declaration)", "INVALID_VALUE")
    if defence not in DEFENCES:
        raise PositionError("defence", f"unknown defence {str(defence)[:20]!r} "
                            f"({' or '.join(DEFENCES)})", "INVALID_VALUE")
    if (defenders is None) != (defence == "seat-view"):
        raise PositionError("defence", "the seat-view defence plays itself; another "
                            "defence needs its players", "INVALID_OPTION")
    seed = random.SystemRandom().randrange(2 ** 63) if seed is None else check_seed(seed)
    if token is None and deadline is not None:
        token = CancelToken(deadline=time.monotonic() + deadline)
    rng = random.Random(seed)
    dealt = [deal_others(rng, setup) for _ in range(n)]
    # Each deal's players draw from a generator of their own: a deal's playout does not
    # depend on the declarations asked nor on the order they are played in.
    inner_seeds = [rng.randrange(2 ** 63) for _ in dealt]
    screened: list[str] = []
    nodes = 0
    if 0 < screen < len(setup.declarations):
        # Drawn after the playouts' deals: the kept declarations' figures are those of a
        # playout of every declaration at this seed.
        ranked = advise(hand, seat, game=game, players=players, auction=auction,
                        doubles=doubles, deals=SCREEN_DEALS, seed=rng.randrange(2 ** 63),
                        threshold=threshold, declarations=list(setup.declarations),
                        token=token, threads=threads)
        order = [row.declaration for row in ranked.declarations]
        screened = order[screen:]
        nodes = ranked.nodes
        setup = dataclasses.replace(setup, declarations=tuple(
            d for d in setup.declarations if d not in screened))
    template = _template(setup)
    counter = ProgressCounter(progress, n * len(setup.declarations))
    pieces = [(d, i) for d in setup.declarations for i in range(n)]

    def position(d: str, i: int) -> Position:
        """Deal ``i`` at the start of the play of declaration ``d``."""
        hands = dealt[i][0]
        kind = d if d in KIND_DECLARATIONS else "standard"
        # Plunge and splash: the partner names trump from its own seven tiles.
        trump = partner_trump(hands[partner(setup.seat)], setup.doubles) \
            if kind != "standard" else d
        held = {s: tuple(T.tiles_of(hands[s])) for s in setup.seats()}
        return _position(setup, {**template, **held}, trump, kind)

    def opening_lead(d: str) -> tuple[int | None, int]:
        """The declarer's lead in ``d`` decided once from its view (None: when it does not
        lead, or ``lead_deals`` is 0) and the nodes searched for it."""
        p = position(d, 0)
        if not lead_deals or p.leader != setup.seat:
            return None, 0
        if token_stopped(token):
            raise SearchCancelled("bid advice stopped before it finished")
        player = SeatViewPlayer(lead_deals, "points" if d in POINT_DECLARATIONS else "make",
                                token)
        try:
            return player.choose(p, random.Random(f"{seed}/lead/{d}")), player.nodes
        except Aborted:
            raise SearchCancelled("bid advice stopped before it finished") from None

    def play_piece(piece: tuple[str, int]) -> tuple[int | bool, int]:
        d, i = piece
        if token_stopped(token):
            raise SearchCancelled("bid advice stopped before it finished")
        p = position(d, i)
        if leads[d] is not None:
            p = p.with_plays([leads[d]])
        found = play_out(p, inner, random.Random(f"{inner_seeds[i]}/{d}"), defenders, token,
                         points=d in POINT_DECLARATIONS)
        counter.tick()
        return found
    # The searches release the GIL: the playouts share the cores.
    workers = max(1, min(threads or os.cpu_count() or 1, len(pieces)))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        decided = list(pool.map(opening_lead, setup.declarations))
        leads = {d: lead for d, (lead, _) in zip(setup.declarations, decided)}
        results = list(pool.map(play_piece, pieces))
    nodes += sum(used for _, used in decided) + sum(used for _, used in results)
    scores = {d: [results[k * n + i][0] for i in range(n)]
              for k, d in enumerate(setup.declarations)}
    rows, _ = _summarise(setup, dealt, scores)
    recommendation = recommend(rows, setup.threshold, setup.highest, setup.order)
    rows = rank(rows, setup.threshold, setup.highest, setup.order)
    return BidAdvice(
        game=setup.game, players=setup.players, seat=SEATS[setup.seat],
        hand=[T.name_of(t) for t in setup.hand], doubles=setup.doubles,
        highest_bid=setup.highest, threshold=setup.threshold, deals=n, seed=int(seed),
        declarations=rows, recommendation=recommendation,
        seconds=time.perf_counter() - started, nodes=nodes,
        search="playout", inner_deals=inner, lead_deals=lead_deals, defence=defence,
        screened=screened)


def bid_advice(hand: Sequence[str] | str, seat: str, *, search: str = "double-dummy",
               inner_deals: int | None = None, defence: str | None = None,
               defenders: Player | None = None, screen: int | None = None,
               lead_deals: int | None = None, **options: Any) -> BidAdvice:
    """Bid advice by the search named, as the command line and the service ask for it.

    Args:
        hand: The seven tiles, as for `solver.hidden.bidding.advise`.
        seat: The seat holding them.
        search: ``double-dummy`` (the default: `advise`, every deal solved with every
            hand open) or ``playout`` (`seat_view_advise`: every deal played out by
            players who each see only their own tiles; ``deals`` per declaration,
            default 30; not with ``calibrated``, ``inference``, ``fixed_lead``,
            ``adaptive`` or ``return_deals``).
        inner_deals: ``playout``: each player's deals per decision (`seat_view_advise`).
        defence: ``playout``: the defence named (`seat_view_advise`).
        defenders: ``playout``: the defenders' play (`seat_view_advise`).
        screen: ``playout``: the declarations played out, those double dummy ranks
            first (`seat_view_advise`; None: `DEFAULT_SCREEN`, 0: every declaration).
        lead_deals: ``playout``: the deals the declarer's one opening lead is decided
            over (`seat_view_advise`; None: `DEFAULT_LEAD_DEALS`).
        **options: The other options of `advise` (``playout``: those
            `seat_view_advise` shares with it).

    Raises:
        PositionError: An unknown search, or an option the search has no meaning for
            (by name).
    """
    if search == "double-dummy":
        for name, given in (("inner_deals", inner_deals), ("defence", defence),
                            ("defenders", defenders), ("screen", screen),
                            ("lead_deals", lead_deals)):
            if given is not None:
                raise PositionError(name, "only for search playout", "INVALID_OPTION")
        return advise(hand, seat, **options)
    if search != "playout":
        raise PositionError("search", f"unknown search {str(search)[:20]!r} (double-dummy "
                            "or playout)", "INVALID_VALUE")
    for name in ("calibrated", "fixed_lead", "adaptive", "return_deals"):
        if options.pop(name, False):
            raise PositionError(name, "not with search playout", "INVALID_OPTION")
    if options.pop("inference", None) not in (None, "off"):
        raise PositionError("inference", "not with search playout", "INVALID_OPTION")
    if options.get("deals") is None:
        options["deals"] = DEFAULT_DEALS
    return seat_view_advise(hand, seat, defence=defence or "seat-view", defenders=defenders,
                            inner_deals=DEFAULT_INNER_DEALS if inner_deals is None
                            else inner_deals,
                            screen=DEFAULT_SCREEN if screen is None else screen,
                            lead_deals=DEFAULT_LEAD_DEALS if lead_deals is None else lead_deals,
                            **options)


def play_out(p: Position, inner_deals: int, rng: random.Random,
             defenders: Player | None = None, token: CancelToken | None = None, *,
             points: bool = True) -> tuple[int | bool, int]:
    """``p`` played to its end by seat-view players (the defenders by ``defenders`` when
    given): (the declaring side's points, Moon its tricks, with ``points``; else whether
    the contract made), and the nodes searched."""
    try:
        p, nodes = play_to_end(p, inner_deals, rng, token,
                               objective="points" if points else "make", defenders=defenders)
    except Aborted:
        raise SearchCancelled("bid advice stopped before it finished") from None
    if points:
        return p.points, nodes
    threshold, at_least = p.make_target()
    return (p.points >= threshold if at_least else p.points < threshold), nodes


__all__ = ["DEFAULT_DEALS", "DEFAULT_LEAD_DEALS", "DEFAULT_SCREEN", "DEFENCES", "SCREEN_DEALS",
           "bid_advice", "play_out", "seat_view_advise"]
