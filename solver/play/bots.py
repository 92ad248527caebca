"""Players for the arena and for games: each bot calls, declares, discards and plays.

Every bot serves one seat: the games and arenas make a fresh bot for each seat
(`SeatBots`, seeded by the game and the seat: `seat_seed`), so that what a bot keeps
(its advice, its generator) is what its seat saw and did, never its partner's.
Every bot but ``cheat`` sees that seat only. For a play it is handed the seat's
`View` (`seat_view`): its own hand, the contract, the plays and the auction,
parsed as any JSON view is. For a call, a declaration or (three-player Moon's
declarer) a discard it is handed the seat's `CallView` (`solver.game.call_view`):
its own seven tiles, the rules, the shaker, the calls so far and the score (and the
widow for the Moon declarer). Neither object holds anything of the other hands, so a
bot cannot peek even by mistake. ``cheat`` alone (``sees_deal = True``) is handed the
true deal: a `Position` to play, an `OpenTable` (the call view and every hand) to call.

The interface (`Bot`): ``call(view) -> int | str`` (``pass``, a bid, ``plunge`` or
``splash``), ``declare(view) -> Declaration`` (the trump and the doubles option),
``discard(view) -> int`` (a tile of the eight) and ``choose(view) -> int`` (a tile).

* ``random``: a uniformly random legal call, declaration, discard and tile (seeded).
* ``rule``: a casual player: bids from a table (see `RuleBot`), plays by rules of thumb.
* ``advice``: calls with bid advice (`solver.hidden.bidding.advise`), names the
  declaration the advice chose, plays the move that makes on the most deals (the
  defenders: the fewest) by `solver.hidden.quick_play.quick_play`.
* ``hint`` (the play-only arena's name): calls as ``advice`` does and plays the full
  hint's best move (`solver.hidden.hint.hint`, objective make).
* ``advice-auction``, ``advice-plays``, ``advice-both``: ``advice`` whose bid advice
  and plays weigh their deals by inference (`solver.hidden.inference`) from the calls,
  the plays or both.
* ``advice-lead``: ``advice`` whose bid advice holds the declarer to one opening lead
  for every deal, calibrated by the map measured on such figures.
* ``seat-view``: ``advice``'s calls, and plays by the seat-view search
  (`solver.hidden.seat_view`: the bot's next play made once for the deals it cannot
  tell apart), `SeatViewBot`.
* ``cheat``: double-dummy calls and plays on the true deal (an upper bound).
* a program bot (`solver.play.program_bot.ProgramBot`): a program of its own that
  speaks the bot protocol (docs/reference/bot-protocol.md), named by the arena
  (``cmd:COMMAND``, ``--bot NAME=COMMAND``) or the server's configuration.

A plunge or splash partner (every bot but ``random``) names trump with
`solver.hidden.bidding.partner_trump` from its own seven tiles.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, NamedTuple, Protocol, Sequence, Union

from ..game import tiles as T
from ..game.call_view import CallView, Declaration
from ..game.position import Position
from ..game.rules import LEAD, TRUMP
from ..game.view import View, seat_view  # noqa: F401 - seat_view: still named here
from ..hidden.hint import hint
from ..hidden.quick_play import quick_play
from ..hidden.seat_view import DEFAULT_DEPTH, seat_view_hint
from ..search.solve import DealSolver
from . import calling, program_bot
from .program_bot import ProgramSpec


@dataclass(frozen=True)
class OpenTable:
    """What ``cheat`` is handed to call, declare or discard: the seat's call view and the
    true deal.

    Attributes:
        view: The seat's `CallView`.
        hands: Seat index -> its tiles (numbers) as dealt.
        widow: The three-player Moon widow (a number), else None.

    >>> from solver import GameRules
    >>> from solver.game.call_view import call_view
    >>> view = call_view(GameRules(), 1, "6-6 6-5 6-4 6-3 6-2 5-5 4-4".split(), 0)
    >>> OpenTable(view, {1: view.hand_ids}).widow is None
    True
    """

    view: CallView
    hands: Mapping[int, tuple[int, ...]]
    widow: int | None = None


class Bot(Protocol):
    """What the arenas and games ask of a bot: a call, a declaration, a discard, a play.

    Attributes:
        name: The bot's name, as `make_bot` takes it.

    >>> isinstance(make_bot("random").name, str)
    True
    """

    name: str
    #: True for a bot handed the true deal (cheat only: a `Position` to play, an
    #: `OpenTable` to call); the others are handed the seat's `View` / `CallView`.
    sees_deal: bool

    def call(self, seen: Union[CallView, OpenTable]) -> int | str: ...

    def declare(self, seen: Union[CallView, OpenTable]) -> Declaration: ...

    def discard(self, seen: Union[CallView, OpenTable]) -> int: ...

    def choose(self, seen: Union[View, Position]) -> int: ...


def _is_kind(view: CallView) -> bool:
    """Whether the seat names trump for its partner's plunge or splash."""
    auction = view.auction()
    return auction.kind != "standard" and auction.winner != view.seat


def _partner_declaration(view: CallView) -> Declaration:
    return Declaration(calling.partner_choice(view.hand_ids))


class RandomBot:
    """A uniformly random legal call, declaration, discard and tile.

    Args:
        seed: Seeds its choices (the same seed, the same choices).

    >>> from solver import View
    >>> RandomBot(seed=3).choose(View.from_json(open("examples/view.json").read())) in range(28)
    True
    """

    name = "random"
    sees_deal = False

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def call(self, view: CallView) -> int | str:
        return self.rng.choice(view.legal_calls())

    def declare(self, view: CallView) -> Declaration:
        trump = self.rng.choice(view.legal_declarations())
        return Declaration(trump, self.rng.choice(view.doubles_options(trump)))

    def discard(self, view: CallView) -> int:
        return self.rng.choice(sorted(view.eight_ids(), reverse=True))

    def choose(self, view: View) -> int:
        return self.rng.choice(view.legal_ids())


class RuleBot:
    """What a casual player does, from its own hand, the calls and the plays only.

    Calling (`solver.play.calling.rule_call`): the best suit is the pip suit with the
    most tiles (ties: holding its double, then more other doubles, then the higher
    pip); its strength is the tiles of that suit plus the other doubles held, one
    less without the suit's double (at most 7). The bid from the strength:

    ========  =================  ===================================
    strength  42                 Moon
    ========  =================  ===================================
    <= 4      pass               pass
    5         30                 4 (``min_bid`` when that is higher)
    6         34                 5
    7         42 (1 mark)        6
    ========  =================  ===================================

    With four doubles and no bid yet: plunge (when the rules allow it). The bot
    bids its number when it is higher than the bid so far and legal, else passes;
    forced to bid, it bids the lowest bid. It never bids nello, sevens or 21.
    Declaring: its best suit (the plunge partner: `partner_trump`). Three-player
    Moon's declarer picks the best suit of its eight tiles and lays away the
    weakest tile outside it (not a double, fewest pips).

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

    >>> from solver import View
    >>> from solver.game.tiles import name_of
    >>> name_of(RuleBot().choose(View.from_json(open("examples/view.json").read())))
    '3-2'
    """

    name = "rule"
    sees_deal = False

    def call(self, view: CallView) -> int | str:
        return calling.rule_call(view)

    def declare(self, view: CallView) -> Declaration:
        if _is_kind(view):
            return _partner_declaration(view)
        return Declaration(calling.rule_trump(view.held_ids()))

    def discard(self, view: CallView) -> int:
        return calling.weakest(view.eight_ids(), calling.rule_trump(view.eight_ids()))

    def choose(self, view: View) -> int:
        p = view
        rules = p.rules
        seat = p.seat
        legal = p.legal_ids()
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
    """Plays the hint's best move (objective make) over ``deals`` deals from its own view;
    calls with bid advice (see `AdviceBot`, which it is under another name).

    Args:
        deals: The deals each hint scores.
        seed: Seeds the hints' deals.
        threads: The threads each hint scores with.

    >>> from solver import View
    >>> from solver.game.tiles import name_of
    >>> bot = HintBot(deals=10, seed=1)
    >>> name_of(bot.choose(View.from_json(open("examples/view.json").read()))) in bot.last_hint.best
    True
    """

    sees_deal = False

    def __init__(self, deals: int = 100, seed: int = 0, threads: int = 1) -> None:
        self.name = f"hint{deals}" if deals != 100 else "hint"
        self.deals = deals
        self.rng = random.Random(seed)
        self.threads = threads
        #: a `CancelToken` the bot's searches look at (a service call's deadline), or None
        self.token: Any = None

    def choose(self, view: View) -> int:
        legal = view.legal_ids()
        if len(legal) == 1:
            return legal[0]
        h = hint(view, deals=self.deals, seed=self.rng.randrange(2 ** 31), threads=self.threads,
                 token=self.token)
        self.last_hint = h   # the figures of the last search (`next_action_figures`)
        return T.parse_tile(h.best[0], "best")


@dataclass(frozen=True)
class _AdviceCall:
    """An advice bot's call for one seat's hand: the hand (`calling.hand_key`), the call,
    the declaration its bid was judged by (None: a pass or a forced bid) and the advice."""

    key: tuple
    call: int | str
    declaration: str | None
    advice: Any


class AdviceBot(HintBot):
    """Calls with bid advice, declares what the advice chose, plays with hints.

    A call: `solver.hidden.bidding.advise` on the seat's seven tiles over ``deals``
    deals (seeded from the bot's generator; ``adaptive``: in rounds of 50, stopping
    once the recommendation is settled), with the calibrated P(make) for 42
    (``calibrated``; Moon has no calibration) and ``threshold``; of the bids the
    advice scores, only those the auction allows with a declaration the rules allow
    at that bid are offered (nello from ``nello_min_marks``, 2 marks by default;
    plunge and splash only as the auction's first bid): the highest that reaches
    the threshold, else pass, or forced, the lowest bid in the declaration most
    likely to make it (`solver.play.calling.advice_choice`). A bid is judged only by
    the P(make) of a declaration the seat may name at it, and the bot remembers, per
    seat, that declaration: an overcall of a plunge (5 marks) or a bid of 84 for
    nello is made for the declaration that reaches the threshold, and that is the one
    named. With ``prune`` (default) the advice is asked only about declarations the
    hand could bid at all (`solver.play.calling._worth_asking`), which halves its
    time. Declaring: the declaration the winning bid was made for, while it is legal;
    else the best legal one at the winning bid by the advice of the seat's call; a
    bot that did not make the seat's call asks afresh, about the declarations of the
    bid won (nello at 84 too). The plunge partner: `partner_trump`. Three-player
    Moon: that declaration, and the weakest tile outside it laid away.

    A play (`solver.hidden.quick_play.quick_play`) over ``hint_deals`` deals, drawn as
    the hint draws them: the move after which the contract makes on the most deals (the
    defenders: the fewest), each deal asking one null-window search per move instead of
    every move's exact value; moves tied on makes go to the best mean value over the
    first 16 deals, then to the highest tile. Its P(make) of every move is the hint's
    (objective make) for the same seed, at a fifth to a tenth of the cost (median about
    0.1 s at the opening lead on one thread against 0.8 s). ``full_hint`` plays the full
    hint's best move instead, as the bot named ``hint`` does.

    Args:
        deals: The deals bid advice deals for a call.
        seed: Seeds the advice's and the plays' deals.
        threads: The threads of the searches (None: one per core).
        hint_deals: The deals a play is decided over.
        threshold: The P(make) a bid needs.
        calibrated: Recommend by the calibrated P(make) (42 only).
        prune: Ask the advice only about declarations the hand could bid.
        adaptive: Advice in rounds of 50, stopping once settled.
        name: The bot's name (``advice``, ``hint``, ``advice-auction``, ...).
        full_hint: Play the full hint's best move instead of the quick play's.
        inference: ``off``, ``auction``, ``plays`` or ``both``: what the advice
            and the plays weigh their deals by.
        fixed_lead: Bid by advice that holds the declarer to one opening lead for
            every deal (`solver.hidden.bidding.advise`; three-player Moon: as
            without); ``calibrated`` then applies the map measured on fixed-lead
            figures.

    >>> AdviceBot(deals=20, seed=1, hint_deals=10, name="advice-plays", inference="plays").name
    'advice-plays'
    """

    def __init__(self, deals: int = 100, seed: int = 0, threads: int | None = 1, *,
                 hint_deals: int = 100, threshold: float = calling.DEFAULT_THRESHOLD,
                 calibrated: bool = True, prune: bool = True, adaptive: bool = True,
                 name: str = "advice", full_hint: bool = False, inference: str = "off",
                 fixed_lead: bool = False) -> None:
        super().__init__(hint_deals, seed, threads)
        self.name = name
        self.full_hint = full_hint
        #: what the bot's advice and plays weigh their deals by (`solver.hidden.inference`)
        self.inference = inference
        #: whether the bot's bid advice holds the declarer to one opening lead
        self.fixed_lead = fixed_lead
        self.advice_deals = deals
        self.threshold = threshold
        self.calibrated = calibrated
        self.prune = prune
        self.adaptive = adaptive
        self.call_rng = random.Random(seed * 2 + 1)
        #: the last advice asked, by the hand it was asked for (`next_action_figures`)
        self._advice: dict[tuple, Any] = {}
        #: per seat, the hand's last call: its advice and the declaration behind the bid
        self._calls: dict[int, _AdviceCall] = {}

    def choose(self, view: View) -> int:
        if self.full_hint:
            return super().choose(view)
        legal = view.legal_ids()
        if len(legal) == 1:
            return legal[0]
        play = quick_play(view, deals=self.deals, seed=self.rng.randrange(2 ** 31),
                          threads=self.threads, token=self.token,
                          inference=self._play_inference(view))
        self.last_hint = play   # the figures of the last search (`next_action_figures`)
        return T.parse_tile(play.best, "best")

    def _play_inference(self, view: View) -> str:
        """The bot's inference for a play: Moon has no call model, so it reads plays only."""
        if view.game == "moon" and self.inference in ("auction", "both"):
            return "plays" if self.inference == "both" else "off"
        return self.inference

    def _advise(self, view: CallView, highest: int | None, options: Sequence[str]) -> Any:
        advice = calling.advice_for(view, highest, options, deals=self.advice_deals,
                                    seed=self.call_rng.randrange(2 ** 31),
                                    threshold=self.threshold, calibrated=self.calibrated,
                                    threads=self.threads, adaptive=self.adaptive,
                                    token=self.token, inference=self.inference,
                                    fixed_lead=self.fixed_lead)
        self._advice = {calling.hand_key(view): advice}   # one hand at a time
        return advice

    def call(self, view: CallView) -> int | str:
        legal = view.legal_calls()
        if len(legal) == 1:
            return legal[0]
        call, declaration = calling.advice_choice(
            view, lambda highest, options: self._advise(view, highest, options),
            self.threshold, self.prune)
        key = calling.hand_key(view)
        self._calls[view.seat] = _AdviceCall(key, call, declaration, self._advice[key])
        return call

    def _declaration(self, view: CallView) -> str:
        """The declaration of the seat of ``view`` at the bid it won: the one its bid was
        made for, while legal; else the best legal one by the advice of its call, or by
        advice asked afresh (at the bid won) when that scores the bid in none."""
        key = calling.hand_key(view)
        mine = self._calls.get(view.seat)
        allowed = view.legal_declarations()
        if mine is not None and mine.key == key:
            if mine.declaration is not None and mine.call == view.auction().bid and \
                    mine.declaration in allowed:
                return mine.declaration
            best = calling.ranked_at_bid(view, mine.advice)
            if best is not None:
                return best
        advice = self._advise(view, calling.declaring_highest(view),
                              calling.declaration_options(view, None, self.prune))
        return calling.advice_declaration(view, advice)

    def declare(self, view: CallView) -> Declaration:
        if _is_kind(view):
            return _partner_declaration(view)
        return Declaration(self._declaration(view))

    def discard(self, view: CallView) -> int:
        return calling.weakest(view.eight_ids(), self._declaration(view))


#: The plays' deals by default: at depth 1 a search costs three to four double-dummy
#: hints of the same deals, so 40 deals cost 1.5 to 2 times the advice bot's 100
#: (bench/test_seat_view_bench.py: 496 against 332 ms CPU at the opening lead, 21.6
#: against 11.1 ms at trick 3, medians of 30 views).
DEFAULT_SEAT_VIEW_DEALS = 40
#: Deals per declaration of the seat-view bot's playout calls (``playout_calls``).
DEFAULT_PLAYOUT_DEALS = 30


class SeatViewBot(AdviceBot):
    """Bid advice for its calls (as ``advice``), a seat-view search for its plays.

    Args:
        deals: Deals of a call's bid advice.
        seed: Seeds the bid advice's deals and the plays' deals.
        hint_deals: Deals a play's seat-view search values the moves on.
        depth: The postponed reasoning's depth (0: the double-dummy hint's values).
        method: ``postponed`` or ``playout``.
        playout_calls: 0 (the default): calls and declarations by double-dummy bid
            advice, as ``advice``. k > 0: the k declarations double-dummy advice ranks
            first are valued again from the seat's view (every deal played out by
            seat-view players, `solver.hidden.seat_view_bidding`, ``playout_deals``
            deals), and the call and declaration follow those figures (three-player
            Moon, whose declarer lays a tile away first: double dummy).
        playout_deals: Deals of those playouts, per declaration.
        **options: `AdviceBot`'s other options.

    >>> bot = SeatViewBot(seed=1, hint_deals=10)
    >>> bot.name, bot.depth
    ('seat-view', 1)
    """

    def __init__(self, deals: int = 100, seed: int = 0, *,
                 hint_deals: int = DEFAULT_SEAT_VIEW_DEALS, depth: int = DEFAULT_DEPTH,
                 method: str = "postponed", playout_calls: int = 0,
                 playout_deals: int = DEFAULT_PLAYOUT_DEALS, **options: Any) -> None:
        options.setdefault("name", "seat-view")
        super().__init__(deals, seed, hint_deals=hint_deals, **options)
        self.depth = depth
        self.method = method
        self.playout_calls = playout_calls
        self.playout_deals = playout_deals

    def _advise(self, view: CallView, highest: int | None, options: Sequence[str]) -> Any:
        advice = super()._advise(view, highest, options)
        if not self.playout_calls or view.rules.players == 3:
            return advice
        # Double dummy screens (its order is right far more often than its P(make));
        # the declarations it ranks first are valued by what the seats can know.
        top = [row.declaration for row in advice.declarations[:self.playout_calls]]
        played = calling.playout_advice_for(view, highest, top, deals=self.playout_deals,
                                            seed=self.call_rng.randrange(2 ** 31),
                                            threshold=self.threshold, threads=self.threads,
                                            token=self.token)
        self._advice = {calling.hand_key(view): played}
        return played

    def choose(self, view: View) -> int:
        legal = view.legal_ids()
        if len(legal) == 1:
            return legal[0]
        found = seat_view_hint(view, method=self.method, deals=self.deals, depth=self.depth,
                               seed=self.rng.randrange(2 ** 31), token=self.token)
        self.last_seat_view = found   # the figures of the last search
        return T.parse_tile(found.best_move, "best")


class CheatBot:
    """Double-dummy calls and plays on the true deal (an upper bound).

    A call (`solver.play.calling.cheat_call`): the highest bid the seat makes as
    declarer double dummy (42: `solver.search.table.solve_deal`; Moon: every
    declaration searched, three-player Moon with its best discard), if the auction
    allows it; it passes when its partner has the auction or calls later and makes
    more. Declaring: the declaration that makes the winning bid with the most points
    (tricks); the Moon declarer lays away the tile of its best discard. A play: the
    double-dummy best move (ties: the core's move order). Its searches stop at
    ``token`` (a service call's deadline) with `SearchCancelled`.

    >>> from solver import Position
    >>> from solver.game.tiles import name_of
    >>> name_of(CheatBot().choose(Position.from_json(open("examples/deal.json").read())))
    '3-3'
    """

    name = "cheat"
    sees_deal = True

    def __init__(self) -> None:
        self.solver: DealSolver | None = None
        self.tables = calling.CheatTables()

    @property
    def token(self) -> Any:
        """A `CancelToken` the bot's searches look at, or None."""
        return self.tables.token

    @token.setter
    def token(self, token: Any) -> None:
        self.tables.token = token
        if self.solver is not None:
            self.solver.token = token
            self.solver.engine.set_token(token)

    def call(self, table: OpenTable) -> int | str:
        return self.tables.call(table.view, table.hands, table.widow)

    def declare(self, table: OpenTable) -> Declaration:
        if _is_kind(table.view):
            return _partner_declaration(table.view)
        return Declaration(self.tables.declaration(table.view, table.hands, table.widow))

    def discard(self, table: OpenTable) -> int:
        return self.tables.discard(table.view, table.hands, table.widow)

    def choose(self, position: Position) -> int:
        p = position
        legal = p.legal_ids()
        if len(legal) == 1:
            return legal[0]
        if self.solver is None or self.solver.position.hands != p.hands or \
                self.solver.position.contract != p.contract:
            self.solver = DealSolver(p, self.token)
        else:
            self.solver.load(p)
        scored = self.solver.child_values()
        sign = 1 if p.maximizer[p.to_move_index] else -1
        return max(scored, key=lambda tv: sign * tv[1])[0]


#: The bots of the play-only arena (`solver.play.arena`), whose results stay as they were.
BOT_NAMES = ("random", "rule", "hint", "cheat")
#: ``advice`` with inference (`solver.hidden.inference`): its deals weighed by the
#: auction, the plays or both.
INFERENCE_BOT_NAMES = ("advice-auction", "advice-plays", "advice-both")
#: ``seat-view`` whose calls and declarations come from seat-view bid advice: the two
#: declarations double dummy ranks first, played out (`SeatViewBot`'s ``playout_calls``).
SEAT_VIEW_CALLS = "seat-view-calls"
#: The bots of games (every one calls and plays).
GAME_BOT_NAMES = ("random", "rule", "advice", "cheat") + INFERENCE_BOT_NAMES + (
    "advice-lead", "seat-view", SEAT_VIEW_CALLS)
class Ablation(NamedTuple):
    """A variant of ``seat-view`` for the arena's ablations (`SEAT_VIEW_ABLATIONS`).

    Attributes:
        method: Its plays' search, ``postponed`` or ``playout``.
        depth: The postponed reasoning's depth (0: the double-dummy hint's values).
        share: The share of ``hint_deals`` its plays search.
        playout_calls: `SeatViewBot`'s ``playout_calls`` (0: double-dummy calls).
    """

    method: str
    depth: int
    share: float
    playout_calls: int = 0


#: Variants of ``seat-view`` for the arena's ablations at equal time: name -> `Ablation`.
#: ``seat-view`` (postponed, depth 1, 2/5 of the deals) is the yardstick; each share gives
#: about its time per play (bench/test_seat_view_bench.py: at the lead a deal costs the
#: hint 3.3 ms, depth 1 6.6 ms, depth 2 7.7 ms, a playout 77 ms over every legal move).
#: ``seat-view-d0``'s share was set, and its run measured, when depth 1 cost 12.4 ms a
#: deal: it now searches about twice as long as ``seat-view`` at the lead, as long at
#: trick 3. ``seat-view-calls-d0`` is the calls alone: ``seat-view-calls``'s calls and
#: declarations, its plays by double dummy on ``advice``'s deals (depth 0, all of
#: ``hint_deals``; ``advice`` plays its quick play on them, the same search).
SEAT_VIEW_ABLATIONS: dict[str, Ablation] = {
    "seat-view-d0": Ablation("postponed", 0, 3 / 2),
    "seat-view-d2": Ablation("postponed", 2, 1 / 3),
    "seat-view-playout": Ablation("playout", 0, 3 / 100),
    "seat-view-half": Ablation("postponed", 1, 1 / 5),
    "seat-view-double": Ablation("postponed", 1, 4 / 5),
    "seat-view-calls-d0": Ablation("postponed", 0, 1, playout_calls=2),
}


def seat_seed(seed: int, seat: int) -> int:
    """The seed of the bot at ``seat`` (a seat index) in a game or hand seeded ``seed``:
    ``4 * seed + seat``. Each seat's bot draws from a generator of its own, the bots of
    a game or hand are reproducible from its seed alone, and a seat's bot is seeded the
    same whoever sits there: at both tables of a duplicate game the bot in N has the
    same seed (a bot against itself plays both tables alike).

    >>> [seat_seed(5, seat) for seat in range(4)]
    [20, 21, 22, 23]
    """
    return 4 * seed + seat


@dataclass(frozen=True)
class SeatBots:
    """A maker of one bot per seat: ``maker(seat)`` is a fresh `make_bot` of ``name``
    seeded `seat_seed` (``seed``, ``seat``), which serves that seat alone (a bot keeps
    what it was handed: one object at two seats would hold what both saw).

    Attributes:
        name: The bot's name (`make_bot`).
        seed: The game's or hand's bot seed.
        hint_deals: Deals a hint of the advice bots scores for a play.
        advice_deals: Deals bid advice deals for a call.
        options: More `make_bot` options.

    >>> maker = SeatBots("random", seed=5)
    >>> maker(0) is not maker(2), maker(0).rng.random() == maker(0).rng.random()
    (True, True)
    """

    name: str
    seed: int = 0
    hint_deals: int = 100
    advice_deals: int = 100
    options: Mapping[str, Any] = field(default_factory=dict)

    def __call__(self, seat: int) -> Bot:
        return make_bot(self.name, seat_seed(self.seed, seat), self.hint_deals,
                        self.advice_deals, **dict(self.options))


def seat_bots(name: str, seed: int = 0, hint_deals: int = 100, advice_deals: int = 100,
              **options: Any) -> SeatBots:
    """`SeatBots` of ``name``: a fresh bot for each seat it is called with, seeded by
    ``seed`` and the seat (`seat_seed`); ``hint_deals``, ``advice_deals`` and the
    options as `make_bot` takes them.

    >>> ns = seat_bots("rule")
    >>> ns(0).name, ns(0) is ns(0)
    ('rule', False)
    """
    return SeatBots(name, seed, hint_deals, advice_deals, dict(options))


def bots_for_seats(ns: Callable[[int], Bot], ew: Callable[[int], Bot],
                   seats: Iterable[int]) -> dict[int, Bot]:
    """A bot object for each of ``seats``: ``ns(seat)`` at N and S, ``ew(seat)`` at E
    and W (three-player Moon: ``ns`` at N and S, who are opponents there).

    Raises:
        TypeError: A side given as a bot object: one object would play two seats and
            keep what both saw.
        ValueError: A side's function that gave one object for two seats.

    >>> bots = bots_for_seats(seat_bots("rule"), seat_bots("random", 1), range(4))
    >>> [bots[seat].name for seat in range(4)]
    ['rule', 'random', 'rule', 'random']
    """
    for name, side in (("ns", ns), ("ew", ew)):
        if not callable(side):
            raise TypeError(f"{name}: one bot object cannot play two seats (it would keep "
                            "what both saw); give a function of the seat that makes its "
                            "bot (solver.play.bots.seat_bots)")
    bots = {seat: (ns if seat % 2 == 0 else ew)(seat) for seat in seats}
    if len({id(bot) for bot in bots.values()}) < len(bots):
        raise ValueError("a side's function gave one bot object for two seats")
    return bots


def defence_players(defence: str | None) -> Callable[[View], int] | None:
    """The defenders' play for seat-view bid advice's defence (``search`` ``playout``):
    None for ``seat-view`` (or none named: the advice plays it itself), the rule bot's
    play for ``rule``; another name is left to the advice to refuse."""
    return RuleBot().choose if defence == "rule" else None


def make_bot(name: str, seed: int = 0, hint_deals: int = 100, advice_deals: int = 100,
             programs: Mapping[str, ProgramSpec] | None = None, **options: Any) -> Bot:
    """A bot by name, as the arenas and games name them.

    Args:
        name: ``random`` (a legal move at random), ``rule`` (a casual player's
            tables), ``advice`` (bid advice for its calls, a hint for its plays),
            ``hint`` (``advice`` playing the full hint's best move),
            ``advice-auction``, ``advice-plays`` or ``advice-both`` (``advice``
            with that inference), ``advice-lead`` (``advice`` bidding by bid advice
            with one opening lead for every deal, calibrated by the fixed-lead map),
            ``seat-view`` (``advice`` playing by a seat-view search,
            `SeatViewBot`; its variants for ablations in `SEAT_VIEW_ABLATIONS`),
            ``seat-view-calls`` (``seat-view`` calling and declaring by seat-view bid
            advice), or
            ``cheat`` (sees every hand: double dummy); or a program bot's name
            (in ``programs``, or configured in this process).
        seed: Seeds the random bot's moves and the deals of the advice bots.
        hint_deals: Deals a hint of the advice bots scores for a play.
        advice_deals: Deals bid advice deals for a call.
        programs: Program bots by name (`solver.play.program_bot.ProgramSpec`), as an
            arena names them (``cmd:COMMAND``, ``--bot NAME=COMMAND``); those this
            process was configured with (`solver.play.program_bot.configure`, a
            server's ``--bot``) are known without it. No other name is ever run as a
            command.
        **options: More `AdviceBot` options: ``threshold`` (the P(make) a bid
            needs), ``calibrated`` (recommend by the calibrated P(make)),
            ``fixed_lead`` (bid advice with one opening lead for every deal).

    Returns:
        The bot: it is handed a seat's view and answers a call, a declaration,
        a discard or a play.

    Raises:
        ValueError: An unknown name.

    >>> make_bot("advice-auction", seed=1, hint_deals=30).name
    'advice-auction'
    """
    spec = (programs or {}).get(name) or program_bot.registered(name)
    if spec is not None:
        return program_bot.ProgramBot(spec, seed)
    if name == "random":
        return RandomBot(seed)
    if name == "rule":
        return RuleBot()
    if name in ("hint", "advice"):
        if name == "hint" and hint_deals != 100:
            options.setdefault("name", f"hint{hint_deals}")
        if name == "hint":
            options.setdefault("full_hint", True)
        return AdviceBot(advice_deals, seed, hint_deals=hint_deals,
                         name=options.pop("name", name), **options)
    if name in INFERENCE_BOT_NAMES:
        return AdviceBot(advice_deals, seed, hint_deals=hint_deals, name=name,
                         inference=name.split("-", 1)[1], **options)
    if name == "advice-lead":
        return AdviceBot(advice_deals, seed, hint_deals=hint_deals, name=name,
                         fixed_lead=True, **options)
    if name == "seat-view":
        # Its plays' search (postponed reasoning, depth 1) costs three to four hints of
        # the same deals: at 2/5 of hint_deals it takes 1.5 to 2 times advice's CPU
        # time for the same options (bench/test_seat_view_bench.py).
        return SeatViewBot(advice_deals, seed, hint_deals=max(1, hint_deals * 2 // 5),
                           **options)
    if name == SEAT_VIEW_CALLS:
        return SeatViewBot(advice_deals, seed, hint_deals=max(1, hint_deals * 2 // 5),
                           playout_calls=2, name=name, **options)
    if name in SEAT_VIEW_ABLATIONS:
        variant = SEAT_VIEW_ABLATIONS[name]
        return SeatViewBot(advice_deals, seed,
                           hint_deals=max(1, round(hint_deals * variant.share)),
                           depth=variant.depth, method=variant.method,
                           playout_calls=variant.playout_calls, name=name, **options)
    if name == "cheat":
        return CheatBot()
    names = BOT_NAMES + GAME_BOT_NAMES[3:]
    raise ValueError(f"unknown bot {name!r} (one of {', '.join(names)})")
