"""A whole game between two bots, written as a game record (docs/formats.md).

`play_game` deals each hand from one seeded generator (`solver.hidden.dealer`), runs
the auction call by call, has the winner (the plunge partner) declare, the
three-player Moon declarer discard, plays the hand out, and goes on until a side
(player) reaches the target: the record it returns is one `read_game` accepts,
and its `GameRecord.winner` is set by its last hand.

Every seat has a bot of its own, made for it at the start of the game (`SeatBots`),
and every bot is handed only its seat's view: a `CallView` to call, declare or discard
(`call_view_of`), a `View` with the auction to play (`play_view_of`); the bot that
``sees_deal`` (cheat) is handed an `OpenTable` and the `Position`. So a bot holds
nothing its seat did not see (an advice bot's memory of its bid is its seat's, not
its partner's). The two functions also read those views off any game record in
progress, so what a bot would do next in a record can be asked directly
(`next_action`).
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any, Callable, Mapping, Union

from ..game import tiles as T
from ..game.auction import SEATS, SPECIAL_CALLS, Auction, Call, GameRules, read_rules
from ..game.call_view import CallView, Declaration, call_view
from ..game.game_record import GameRecord, HandRecord, read_game
from ..game.jsondoc import JSONValue
from ..game.position import Position
from ..game.score import HandScore, add, awards, outcome, winner
from ..game.view import View
from ..hidden.dealer import Dealer
from . import calling
from .bots import Bot, OpenTable, bots_for_seats, seat_bots, seat_view

#: A side of a game: a bot name (`make_bot`), which makes a bot per seat seeded by the
#: game's seed and the seat (`seat_bots`), or a function of the seat (an index) that
#: makes the bot of that seat.
Side = Union[str, Callable[[int], Bot]]

#: A Moon position is checked at bid 4 at least (a house minimum may go lower).
_POSITION_MOON_LOW = 4


def _no_shoot(rules: GameRules, score: Mapping[str, int]) -> list[int]:
    if rules.game != "moon":
        return []
    return [s for s in rules.seats if score[rules.key_of(s)] < 0]


def _hand_call_view(rules: GameRules, hand: HandRecord, seat: int, score: Mapping[str, int]
                    ) -> CallView:
    widow = discard = None
    auction = hand.auction
    if rules.three_handed and auction.winner == seat:
        widow, discard = hand.widow_id, hand.discard_id
    return call_view(rules, seat, hand.deal_ids[seat], hand.shaker, tuple(auction.calls), score,
                     widow, discard)


def _score_before(record: GameRecord, index: int) -> dict[str, int]:
    if index == 0:
        return {key: 0 for key in record.rules.score_keys}
    return dict(record.hands[index - 1].score)


def call_view_of(record: GameRecord, seat: int | str | None = None) -> CallView:
    """The call view of ``seat`` (default: the seat to act) in the record's last hand,
    which must be dealt and not yet in play."""
    if not record.hands:
        raise ValueError("the record has no hand dealt")
    hand = record.hands[-1]
    if seat is None:
        action = record.next_action()
        if action is None:
            raise ValueError("the game is over")
        seat = action["seat"]
    index = SEATS.index(seat) if isinstance(seat, str) else seat
    return _hand_call_view(record.rules, hand, index, _score_before(record, len(record.hands) - 1))


def play_view_of(record: GameRecord) -> View:
    """The view of the seat to play in the record's last hand, with the auction."""
    hand = record.hands[-1] if record.hands else None
    if hand is None or hand.position is None or hand.position.to_move_index is None:
        raise ValueError("no play is next")
    return seat_view(hand.position, hand.auction.to_json())


def next_action(record: GameRecord, bot: Bot,
                deal_seen: bool = False) -> int | str | Declaration:
    """What ``bot`` does next in ``record`` for the seat to act, from that seat's view
    alone (a bot that ``sees_deal``, cheat, gets the record's deal).

    Args:
        record: A game in progress whose next hand is dealt.
        bot: The bot to ask (`make_bot`).
        deal_seen: Unused; a bot that sees the deal says so itself (``sees_deal``).

    Returns:
        A call (a bid, ``"pass"``, ``"plunge"`` or ``"splash"``), a
        `Declaration`, a discard tile or a play tile (tile numbers 0..27).

    Raises:
        ValueError: The game is over, or the next hand is not dealt yet.

    >>> import json
    >>> from solver import make_bot, next_action, read_game
    >>> data = json.load(open("examples/game.json"))
    >>> first = data["hands"][0]
    >>> data["hands"] = [{"hands": first["hands"], "auction": first["auction"][:2]}]
    >>> record = read_game(data)
    >>> record.next_action(), next_action(record, make_bot("rule"))
    ({'seat': 'W', 'action': 'call'}, 'pass')
    """
    action = record.next_action()
    if action is None:
        raise ValueError("the game is over")
    hand = record.hands[-1] if record.hands else None
    if action["action"] == "play":
        assert hand is not None and hand.position is not None
        return bot.choose(hand.position if bot.sees_deal else play_view_of(record))
    if hand is None or hand.finished:
        raise ValueError("the next hand is not dealt yet")
    view = call_view_of(record)
    seen: Any = OpenTable(view, hand.deal_ids, hand.widow_id) if bot.sees_deal else view
    return getattr(bot, action["action"])(seen)


def next_action_figures(record: GameRecord, bot: Bot) -> dict[str, Any]:
    """`next_action` of ``bot`` in ``record``, with what a client needs to act on it,
    and the bot's figures.

    Returns ``{"seat", "action", "answer", "declaration", "figures"}``: ``answer`` is
    `next_action`'s (a call, a `Declaration`, a discard tile or a play tile);
    ``declaration`` is the `Declaration` that goes with a three-player Moon discard
    (the bot's, from the view with that discard laid away), else None. ``figures`` is
    None unless the bot searched for this answer (advice): for a call, declaration or
    discard ``{"declaration", "bid", "p_make", "deals"}`` (the advice's P(make),
    calibrated as it used it, of the answer's bid in the declaration it ranks best);
    for a play ``{"p_make", "mean", "deals"}`` of the played tile in the bot's search
    (``hint``: the hint; ``advice``: its `quick_play`, whose ``mean`` is None unless the
    tile was tied for the best makes). A pass or a forced answer has none.
    """
    action = record.next_action()
    if action is None:
        raise ValueError("the game is over")
    before = getattr(bot, "_advice", None)
    if hasattr(bot, "last_hint"):
        bot.last_hint = None  # type: ignore[attr-defined]
    answer = next_action(record, bot)
    declaration = None
    if action["action"] == "discard":
        view = dataclasses.replace(call_view_of(record), discard_id=answer)
        hand = record.hands[-1]
        declaration = bot.declare(OpenTable(view, hand.deal_ids, hand.widow_id) if bot.sees_deal
                                  else view)
    figures = None
    if action["action"] == "play":
        h = getattr(bot, "last_hint", None)
        if h is not None:
            move = h.moves[T.name_of(answer)]
            figures = {"p_make": move.p_make, "mean": move.mean, "deals": h.deals}
    else:
        advice = getattr(bot, "_advice", None)
        if advice is not None and advice is not before:
            figures = _advice_figures(record, action["action"], answer, declaration,
                                      next(iter(advice.values())))
    return {"seat": action["seat"], "action": action["action"], "answer": answer,
            "declaration": declaration, "figures": figures}


def _advice_figures(record: GameRecord, action: str, answer: Any, declaration: Any,
                    advice: Any) -> dict[str, Any] | None:
    """The advice's figure behind a call (its bid in the best-ranked declaration that
    offers it) or a declaration (the declaration at the auction's bid)."""
    view = call_view_of(record)
    if action == "call":
        if answer == "pass":
            return None
        rows = [(r, r.chance(SPECIAL_CALLS[answer][0])) for r in advice.declarations
                if r.declaration == answer] if answer in SPECIAL_CALLS else \
            [(r, r.chance(answer)) for r in advice.declarations
             if r.declaration in calling.legal_declarations(view.rules, answer)]
    else:
        trump = (declaration if action == "discard" else answer).trump
        bid = view.auction().bid
        if view.rules.game == "moon":
            bid = max(bid, calling._ADVICE_MOON_LOW)
        rows = [(r, r.chance(bid)) for r in advice.declarations if r.declaration == trump]
    rows = [(r, c) for r, c in rows if c is not None]
    if not rows:
        return None
    order = calling.ORDER_MOON if view.rules.game == "moon" else calling.ORDER_42
    row, chance = max(rows, key=lambda rc: calling._rank_key(rc[0], rc[1], order))
    return {"declaration": row.declaration, "bid": chance.bid, "p_make": chance.p_used,
            "deals": chance.deals}


class _Hand:
    """One hand being played: the deal, the auction, the contract, the position."""

    def __init__(self, rules: GameRules, shaker: int, hands: dict[int, tuple[int, ...]],
                 widow: int | None, score: Mapping[str, int]) -> None:
        self.rules, self.shaker, self.hands, self.widow = rules, shaker, hands, widow
        self.score = dict(score)
        self.auction = Auction(rules, shaker, hands, _no_shoot(rules, score))
        self.contract: dict[str, Any] | None = None
        self.discard: int | None = None
        self.position: Position | None = None
        #: The marks of a hand stopped once decided: the record scores such a hand
        #: only when another follows it.
        self.early_award: dict[str, int] | None = None

    def view(self, seat: int) -> CallView:
        widow = discard = None
        if self.rules.three_handed and self.auction.winner == seat:
            widow, discard = self.widow, self.discard
        return call_view(self.rules, seat, self.hands[seat], self.shaker,
                         tuple(self.auction.calls), self.score, widow, discard)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"hands": {SEATS[s]: [T.name_of(t) for t in h]
                                         for s, h in self.hands.items()}}
        if self.widow is not None:
            out["widow"] = T.name_of(self.widow)
        out["auction"] = self.auction.to_json()
        if self.contract is not None:
            out["contract"] = dict(self.contract)
            out["plays"] = [T.name_of(t) for t in self.position.plays] \
                if self.position is not None else []
        return out


def _seen(bot: Bot, view: CallView, hand: _Hand) -> Any:
    return OpenTable(view, hand.hands, hand.widow) if bot.sees_deal else view


def _early_award(hand: "_Hand", bid: int, p: Position) -> dict[str, int] | None:
    """The marks of a 42 hand that may stop here: its outcome is decided and does not
    end the game (docs/rules/texas42.md: it then scores the same; the game's last hand
    is played out).
    None to play on. Moon's other players score their tricks: always played out."""
    if hand.rules.game != "42":
        return None
    made = outcome("42", p.contract.declaration.name, bid, p.points, p.available)
    if made is None:
        return None
    awarded = awards(hand.rules, HandScore(p.contract.declarer, bid, made, p.tricks_won))
    if winner(hand.rules, add(hand.score, awarded),
              hand.rules.key_of(p.contract.declarer)) is not None:
        return None
    return awarded


def _play_hand(hand: _Hand, bots: Mapping[int, Bot], play_out: bool = True) -> None:
    rules = hand.rules

    def bot_of(seat: int) -> Bot:
        return bots[seat]

    while not hand.auction.is_over:
        seat = hand.auction.next_seat
        assert seat is not None
        bot = bot_of(seat)
        bid = bot.call(_seen(bot, hand.view(seat), hand))
        hand.auction.call(Call(seat, bid), f"{bot.name} at {SEATS[seat]}")
    if hand.auction.thrown_in:
        return
    auction = hand.auction
    declarer = auction.winner
    assert declarer is not None and auction.bid is not None
    namer = auction.declarer_names_trump
    assert namer is not None
    bot = bot_of(namer)
    if rules.three_handed:
        assert hand.widow is not None
        eight = hand.hands[declarer] + (hand.widow,)
        tile = bot.discard(_seen(bot, hand.view(declarer), hand))
        if tile not in eight:
            raise ValueError(f"{bot.name} discarded {T.name_of(tile)}, not one of its tiles")
        hand.discard = tile
    declaration: Declaration = bot.declare(_seen(bot, hand.view(namer), hand))
    contract: dict[str, Any] = {"declarer": SEATS[declarer], "bid": auction.bid,
                                **declaration.contract_fields()}
    if auction.kind != "standard":
        contract["kind"] = auction.kind
    position: dict[str, Any] = {"game": rules.game,
                                "hands": {SEATS[s]: [T.name_of(t) for t in h]
                                          for s, h in hand.hands.items()},
                                "contract": dict(contract, bid=max(auction.bid,
                                                                   _POSITION_MOON_LOW)
                                                 if rules.game == "moon" else auction.bid)}
    if rules.three_handed:
        assert hand.widow is not None and hand.discard is not None
        contract["discard"] = T.name_of(hand.discard)
        held = [hand.widow if t == hand.discard else t for t in hand.hands[declarer]]
        position["hands"][SEATS[declarer]] = [T.name_of(t) for t in held]
        position["widow"], position["discard"] = T.name_of(hand.widow), T.name_of(hand.discard)
    hand.contract = contract
    start = Position(position)
    calls = auction.to_json()
    plays: list[int] = []
    p = start
    while not p.is_complete:
        if not play_out:
            hand.early_award = _early_award(hand, auction.bid, p)
            if hand.early_award is not None:
                break
        seat = p.to_move_index
        assert seat is not None
        bot = bot_of(seat)
        plays.append(bot.choose(p if bot.sees_deal else seat_view(p, calls)))
        p = start.with_plays(plays)
    hand.position = p


def play_game(ns: Side, ew: Side, *, game: str = "42", players: int = 4,
              rules: Mapping[str, Any] | None = None, first_shaker: int | str = 0,
              seed: int = 0, max_hands: int = 1000, game_id: JSONValue = None,
              meta: Mapping[str, Any] | None = None, play_out: bool = True) -> GameRecord:
    """Play a game to its end between two bots and return its record.

    Every seat has a bot object of its own, made once for the game, and every bot is
    handed only its seat's view (a bot that ``sees_deal`` excepted).

    Args:
        ns: The bots at N and S: a bot name (each seat's bot seeded by ``seed`` and
            the seat, `solver.play.bots.seat_seed`) or a function of the seat index
            that makes the bot of that seat (`solver.play.bots.seat_bots` makes one
            with other seeds and options).
        ew: The bots at E and W (three-player Moon: at E), as ``ns``.
        game: ``"42"`` or ``"moon"``.
        players: Moon: 3 or 4 (42 is always 4).
        rules: The house options (docs/formats.md, ``rules``); None: the
            standard rules.
        first_shaker: The seat that shakes the first hand (a letter or index).
        seed: The seed the deals come from (and the bots named).
        max_hands: The most hands before giving up (RuntimeError).
        game_id: The record's ``id``.
        meta: The record's ``meta``.
        play_out: False stops a 42 hand once its outcome is decided (it scores
            the same), but for the hand that ends the game.

    Returns:
        The record, read back (`read_game`); its ``winner`` is set.

    Raises:
        TypeError: A side given as one bot object (it would play two seats).
        ValueError: An unknown bot name, or a side's function that gave one bot
            object for two seats.

    >>> from solver import play_game
    >>> record = play_game("rule", "random", seed=3, play_out=False)
    >>> record.winner, record.score
    ('NS', {'NS': 7, 'EW': 1})
    """
    game = "moon" if str(game).lower() == "moon" else "42"
    players = 4 if game == "42" else players
    game_rules = read_rules(dict(rules) if rules else None, game, players)
    dealer = Dealer(game, players)
    rng = random.Random(seed)
    shaker = SEATS.index(first_shaker) if isinstance(first_shaker, str) else first_shaker
    data: dict[str, Any] = {}
    if game_id is not None:
        data["id"] = game_id
    if meta is not None:
        data["meta"] = meta
    data["game"] = game
    if game == "moon":
        data["players"] = players
    if rules:
        data["rules"] = dict(rules)
    data["first_shaker"] = SEATS[shaker]
    data["hands"] = []
    score = {key: 0 for key in game_rules.score_keys}
    bots = bots_for_seats(*(seat_bots(side, seed) if isinstance(side, str) else side
                            for side in (ns, ew)), game_rules.seats)
    for _ in range(max_hands):
        deal = dealer.deal(rng)
        hand = _Hand(game_rules, shaker, dict(deal.hand_ids), deal.widow_id, score)
        _play_hand(hand, bots, play_out)
        data["hands"].append(hand.to_json())
        record = read_game(data)
        if record.winner is not None:
            return record
        score = add(record.score, hand.early_award or {})
        shaker = game_rules.next_seat(shaker)
    raise RuntimeError(f"no winner after {max_hands} hands")


__all__ = ["call_view_of", "next_action", "next_action_figures", "play_game", "play_view_of"]
