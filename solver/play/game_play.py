"""A whole game between two bots, written as a SPEC game record.

`play_game` deals each hand from one seeded generator (`solver.hidden.dealer`), runs
the auction call by call, has the winner (the plunge partner) declare, the
three-player Moon declarer discard, plays the hand out, and goes on until a side
(player) reaches the target: the record it returns is one `read_game` accepts,
and its `GameRecord.winner` is set by its last hand.

Every bot is handed only its seat's view: a `CallView` to call, declare or discard
(`call_view_of`), a `View` with the auction to play (`play_view_of`); the bot that
``sees_deal`` (cheat) is handed an `OpenTable` and the `Position`. The two
functions also read those views off any game record in progress, so what a bot
would do next in a record can be asked directly (`next_action`).
"""

from __future__ import annotations

import random
from typing import Any, Mapping, Sequence

from ..game import tiles as T
from ..game.auction import SEATS, Auction, Call, GameRules, read_rules
from ..game.call_view import CallView, Declaration, call_view
from ..game.game_record import GameRecord, HandRecord, read_game
from ..game.position import Position
from ..game.view import View
from ..hidden.dealer import Dealer
from .bots import Bot, OpenTable, seat_view

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
        widow, discard = hand.widow, hand.discard
    return call_view(rules, seat, hand.deal[seat], hand.shaker, tuple(auction.calls), score,
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


def next_action(record: GameRecord, bot: Bot, deal_seen: bool = False) -> Any:
    """What ``bot`` does next in ``record`` for the seat to act: a call, a `Declaration`,
    a discard tile or a play tile, from that seat's view alone (cheat: the record's deal)."""
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
    seen: Any = OpenTable(view, hand.deal, hand.widow) if bot.sees_deal else view
    return getattr(bot, action["action"])(seen)


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


def _play_hand(hand: _Hand, bots: Sequence[Bot]) -> None:
    rules = hand.rules

    def bot_of(seat: int) -> Bot:
        return bots[seat % 2]

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
        seat = p.to_move_index
        assert seat is not None
        bot = bot_of(seat)
        plays.append(bot.choose(p if bot.sees_deal else seat_view(p, calls)))
        p = start.with_plays(plays)
    hand.position = p


def play_game(ns: Bot, ew: Bot, *, game: str = "42", players: int = 4,
              rules: Mapping[str, Any] | None = None, first_shaker: int | str = 0,
              seed: int = 0, max_hands: int = 1000, game_id: Any = None) -> GameRecord:
    """Play a game to its end: ``ns`` at N and S, ``ew`` at E and W (three-player Moon:
    ``ns`` at N and S, ``ew`` at E). Deals come from ``seed``; the first hand is shaken
    by ``first_shaker``. Returns the record, read back (`read_game`)."""
    game = "moon" if str(game).lower() == "moon" else "42"
    players = 4 if game == "42" else players
    game_rules = read_rules(dict(rules) if rules else None, game, players)
    dealer = Dealer(game, players)
    rng = random.Random(seed)
    shaker = SEATS.index(first_shaker) if isinstance(first_shaker, str) else first_shaker
    data: dict[str, Any] = {}
    if game_id is not None:
        data["id"] = game_id
    data["game"] = game
    if game == "moon":
        data["players"] = players
    if rules:
        data["rules"] = dict(rules)
    data["first_shaker"] = SEATS[shaker]
    data["hands"] = []
    score = {key: 0 for key in game_rules.score_keys}
    bots = (ns, ew)
    for _ in range(max_hands):
        deal = dealer.deal(rng)
        hand = _Hand(game_rules, shaker, dict(deal.hands), deal.widow, score)
        _play_hand(hand, bots)
        data["hands"].append(hand.to_json())
        record = read_game(data)
        if record.winner is not None:
            return record
        score = dict(record.score)
        shaker = game_rules.next_seat(shaker)
    raise RuntimeError(f"no winner after {max_hands} hands")


__all__ = ["call_view_of", "next_action", "play_game", "play_view_of"]
