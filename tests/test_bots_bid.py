"""Bots that bid: every bot calls, declares, discards and plays from its seat's view.

* Every call, declaration and discard of every bot is legal, over many seeded auctions
  of 42 (default and house rules) and Moon for 3 and 4 players.
* A bot handed two records that differ only in the hands its seat cannot see calls,
  declares, discards and plays the same (random with one seed, rule, advice with a
  fixed seed).
* A whole game (rule vs random; a short one of advice vs rule with few deals) is a
  record that `read_game` reads back equal and that ends exactly at the target.

Nothing here depends on the machine's speed.
"""

from __future__ import annotations

import random

import pytest

from solver.game import tiles as T
from solver.game.auction import SEATS, Auction, Call, read_rules
from solver.game.call_view import CallView, Declaration, call_view
from solver.game.game_record import read_game
from solver.game.position import Position
from solver.hidden.dealer import Dealer
from solver.play.bots import OpenTable, make_bot, seat_bots, seat_seed
from solver.play.game_play import (call_view_of, next_action, play_game, play_view_of)

GAMES = [("42", 4, None), ("42", 4, {"splash": True, "nello_min_marks": 1,
                                      "all_pass": "reshake"}),
         ("moon", 3, None), ("moon", 4, None), ("moon", 3, {"min_bid": 3})]


def _bot(name: str, seed: int = 0):
    if name == "advice":
        return make_bot("advice", seed=seed, advice_deals=12, hint_deals=6)
    return make_bot(name, seed=seed)


def run_auction(bot, game: str, players: int, rules_raw, seed: int) -> int:
    """One seeded auction (and declaration, discard) with ``bot`` in every seat, every
    action checked against the view's legal ones. Returns how many calls it made."""
    rules = read_rules(rules_raw, game, players)
    rng = random.Random(seed)
    deal = Dealer(game, players).deal(rng)
    shaker = rng.randrange(players)
    score = {key: rng.choice((0, 0, -3, 5)) for key in rules.score_keys}
    no_shoot = [s for s in rules.seats if game == "moon" and score[rules.key_of(s)] < 0]
    auction = Auction(rules, shaker, deal.hand_ids, no_shoot)

    def seen(view: CallView):
        return OpenTable(view, deal.hand_ids, deal.widow_id) if bot.sees_deal else view

    while not auction.is_over:
        seat = auction.next_seat
        view = call_view(rules, seat, deal.hand_ids[seat], shaker, tuple(auction.calls), score)
        assert view.action == "call"
        legal = view.legal_calls()
        assert legal == auction.legal_calls()
        call = bot.call(seen(view))
        assert call in legal, (call, legal)
        auction.call(Call(seat, call))
    if auction.thrown_in:
        return len(auction.calls)
    winner, namer = auction.winner, auction.declarer_names_trump
    discard = None
    if rules.three_handed:
        view = call_view(rules, winner, deal.hand_ids[winner], shaker, tuple(auction.calls), score,
                         deal.widow_id)
        assert view.action == "discard"
        discard = bot.discard(seen(view))
        assert discard in view.eight_ids()
    view = call_view(rules, namer, deal.hand_ids[namer], shaker, tuple(auction.calls), score,
                     deal.widow_id if rules.three_handed else None, discard)
    assert view.action == "declare"
    declaration = bot.declare(seen(view))
    assert isinstance(declaration, Declaration)
    assert declaration.trump in view.legal_declarations()
    assert declaration.doubles in view.doubles_options(declaration.trump)
    return len(auction.calls)


@pytest.mark.parametrize("name", ["random", "rule", "cheat"])
@pytest.mark.parametrize("game,players,rules", GAMES)
def test_calls_are_legal(name, game, players, rules):
    bot = _bot(name, 3)
    runs = 6 if name == "cheat" else 40
    assert sum(run_auction(bot, game, players, rules, seed) for seed in range(runs)) > 0


@pytest.mark.parametrize("game,players,rules", GAMES)
def test_advice_calls_are_legal(game, players, rules):
    bot = _bot("advice", 3)
    for seed in range(3):
        run_auction(bot, game, players, rules, seed)


def test_advice_honours_the_auction_and_nello_marks():
    """Offered advice's best bids, the advice bot still calls only what the auction allows:
    no nello below 2 marks, no plunge after a bid, no jump of marks."""
    rules = read_rules(None, "42", 4)
    bot = _bot("advice", 1)
    rng = random.Random(11)
    for _ in range(6):
        deal = Dealer("42", 4).deal(rng)
        calls = (Call(1, 84), Call(2, 126))
        view = call_view(rules, 3, deal.hand_ids[3], 0, calls, {"NS": 0, "EW": 0})
        assert bot.call(view) in ("pass", 168)
        view = call_view(rules, 1, deal.hand_ids[1], 0, (), {"NS": 0, "EW": 0})
        call = bot.call(view)
        assert call in view.legal_calls()


def test_rule_table():
    rules = read_rules(None, "42", 4)
    hand = tuple(T.parse_tile(t, "t") for t in "6-6 6-5 6-4 6-3 6-2 5-5 4-4".split())
    view = call_view(rules, 1, hand, 0, (), {"NS": 0, "EW": 0})
    assert make_bot("rule").call(view) == 42          # 5 sixes with the double + 2 doubles
    six = tuple(T.parse_tile(t, "t") for t in "6-6 6-5 6-4 6-3 6-2 5-1 4-4".split())
    assert make_bot("rule").call(call_view(rules, 1, six, 0, (), {"NS": 0, "EW": 0})) == 34
    assert make_bot("rule").declare(
        call_view(rules, 1, hand, 0, (Call(1, 42), Call(2, "pass"), Call(3, "pass"),
                                      Call(0, "pass")), {"NS": 0, "EW": 0})
    ) == Declaration("sixes")
    weak = tuple(T.parse_tile(t, "t") for t in "6-5 5-3 4-2 3-1 2-0 1-0 6-0".split())
    assert make_bot("rule").call(call_view(rules, 1, weak, 0, (), {"NS": 0, "EW": 0})) == "pass"
    forced = (Call(1, "pass"), Call(2, "pass"), Call(3, "pass"))
    assert make_bot("rule").call(call_view(rules, 0, weak, 0, forced,
                                           {"NS": 0, "EW": 0})) == 30


def test_plunge_partner_names_trump_from_its_own_hand():
    rules = read_rules(None, "42", 4)
    from solver.hidden.bidding import partner_trump
    rng = random.Random(2)
    for _ in range(5):
        deal = Dealer("42", 4).deal(rng)
        calls = (Call(1, "pass"), Call(2, "pass"), Call(3, "pass"), Call(0, "pass"))
        # a made-up auction the partner of E can see: E plunged (the view does not check
        # E's doubles, it cannot see them)
        calls = (Call(1, "plunge"), Call(2, "pass"), Call(3, "pass"), Call(0, "pass"))
        view = call_view(rules, 3, deal.hand_ids[3], 0, calls, {"NS": 0, "EW": 0})
        assert view.action == "declare"
        for name in ("rule", "advice"):
            assert _bot(name).declare(view).trump == partner_trump(deal.hand_ids[3])


# ------------------------------------------------------------ hidden hands


def _other_deal(record_json: dict, seat: str, seed: int) -> dict:
    """The record with the last hand's tiles unseen by ``seat`` dealt again, consistently
    with every play (plays and auction kept)."""
    out = {**record_json, "hands": [dict(h) for h in record_json["hands"]]}
    hand = out["hands"][-1]
    rec = read_game(record_json)
    last = rec.hands[-1]
    rng = random.Random(seed)
    if last.position is not None and last.position.plays:
        view = play_view_of(rec) if rec.next_action()["seat"] == seat else None
        assert view is not None
        places = view.completions.sample(rng)
        new = {}
        laid = None
        for p, s in enumerate(view.place_seats):
            if s is None:
                laid = T.name_of(places[p][0])
                continue
            new[SEATS[s]] = [T.name_of(t) for t in
                             sorted(T.tiles_of(view.played_by[s]) + list(places[p]),
                                    reverse=True)]
        if laid is not None:
            # three-player Moon, a defender to play: the declarer laid the widow itself
            # away (the record's dealt hand is then its hand as played)
            hand["widow"] = laid
            hand["contract"] = {**hand["contract"], "discard": laid}
        hand["hands"] = {**hand["hands"], **{k: v for k, v in new.items() if k != seat}}
        return out
    mine = set(hand["hands"][seat])
    if "widow" in hand and rec.hands[-1].auction.winner == SEATS.index(seat):
        mine.add(hand["widow"])
    rest = [t for s, ts in hand["hands"].items() if s != seat for t in ts]
    if "widow" in hand and hand["widow"] not in mine:
        rest.append(hand["widow"])
    rng.shuffle(rest)
    new_hands = {}
    for s in hand["hands"]:
        if s == seat:
            new_hands[s] = hand["hands"][s]
        else:
            new_hands[s], rest = rest[:7], rest[7:]
    hand["hands"] = new_hands
    if "widow" in hand and hand["widow"] not in mine:
        hand["widow"] = rest[0]
    return out


def _prefixes(record) -> list[dict]:
    """Records cut at every call, declaration and play of the first hand with no plunge or
    splash (their doubles would tie the hidden hands)."""
    data = record.to_json()
    out = []
    for i, hand in enumerate(data["hands"]):
        if any(c["bid"] in ("plunge", "splash") for c in hand["auction"]):
            continue
        base = {**data, "hands": data["hands"][:i]}
        for k in range(len(hand["auction"])):
            out.append({**base, "hands": base["hands"] + [{"hands": hand["hands"],
                        **({"widow": hand["widow"]} if "widow" in hand else {}),
                        "auction": hand["auction"][:k]}]})
        if "contract" in hand:
            out.append({**base, "hands": base["hands"] + [{"hands": hand["hands"],
                        **({"widow": hand["widow"]} if "widow" in hand else {}),
                        "auction": hand["auction"]}]})
            for k in range(0, len(hand["plays"]), 3):
                out.append({**base, "hands": base["hands"] + [{**hand, "plays":
                                                               hand["plays"][:k]}]})
        break
    return out


@pytest.mark.parametrize("game,players", [("42", 4), ("moon", 3), ("moon", 4)])
@pytest.mark.parametrize("name", ["random", "rule", "advice"])
def test_hidden_hands_do_not_change_a_bot(name, game, players):
    record = play_game("rule", seat_bots("random", 4), game=game,
                       players=players, seed=7)
    cases = _prefixes(record)
    if name == "advice":
        cases = cases[::4]
    assert cases
    for n, data in enumerate(cases):
        rec = read_game(data)
        seat = rec.next_action()["seat"]
        other = read_game(_other_deal(data, seat, n))
        assert other.next_action() == rec.next_action()
        if rec.next_action()["action"] != "play":
            assert call_view_of(other) == call_view_of(rec)
        else:
            assert play_view_of(other).to_json() == play_view_of(rec).to_json()
        a = next_action(rec, _bot(name, 9))
        b = next_action(other, _bot(name, 9))
        assert a == b, (data, seat)


def test_the_call_view_holds_only_the_seat():
    record = play_game("rule", "random", seed=3)
    data = record.to_json()
    hand = data["hands"][0]
    cut = {**data, "hands": [{"hands": hand["hands"], "auction": hand["auction"][:2]}]}
    view = call_view_of(read_game(cut))
    shown = view.to_json()
    assert list(shown["hands"]) == [shown["seat"]]
    assert shown["auction"] == hand["auction"][:2]


# ----------------------------------------------------------------- games


def _check_game(record, target_side_reached: bool = True):
    again = read_game(record.to_json())
    assert again == record
    assert again.to_json() == record.to_json()
    assert record.winner is not None
    assert record.score[record.winner] >= record.rules.target
    assert record.next_action() is None
    # it ends exactly at the target: without its last hand nobody had won
    cut = {**record.to_json(), "hands": record.to_json()["hands"][:-1]}
    assert read_game(cut).winner is None
    # every hand but a thrown-in one is played out, its contract made or set
    for hand in record.hands:
        assert hand.finished
        assert hand.thrown_in or hand.made in (True, False)


@pytest.mark.parametrize("game,players,rules", GAMES)
def test_rule_vs_random_game(game, players, rules):
    for seed in range(3):
        record = play_game("rule", "random", game=game,
                           players=players, rules=rules, seed=seed, first_shaker=seed % players)
        _check_game(record)
        assert record.first_shaker == seed % players


def test_random_games_are_seeded():
    a = play_game(seat_bots("random", 1), seat_bots("random", 2), seed=5)
    b = play_game(seat_bots("random", 1), seat_bots("random", 2), seed=5)
    assert a.to_json() == b.to_json()
    _check_game(a)
    # bots named are seeded by the game's seed and the seat
    named = play_game("random", "random", seed=5)
    assert named.to_json() == play_game(seat_bots("random", 5), seat_bots("random", 5),
                                        seed=5).to_json()


def test_cheat_vs_rule_game():
    record = play_game("cheat", "rule", seed=2, first_shaker="E")
    _check_game(record)


def test_advice_vs_rule_short_game():
    record = play_game(seat_bots("advice", 1, advice_deals=12, hint_deals=6), "rule",
                       seed=4, rules={"all_pass": "forced"})
    _check_game(record)


def test_next_action_of_a_record_is_the_bots():
    record = play_game("rule", "rule", seed=8)
    data = record.to_json()
    hand = data["hands"][0]
    for k in range(len(hand["auction"])):
        cut = {**data, "hands": [{"hands": hand["hands"], "auction": hand["auction"][:k]}]}
        assert next_action(read_game(cut), make_bot("rule")) == hand["auction"][k]["bid"]
    position = Position({"hands": hand["hands"], "contract": hand["contract"],
                         "plays": hand["plays"]})
    assert position.is_complete


@pytest.mark.parametrize("game,players,rules", GAMES)
def test_fixed_lead_advice_calls_are_legal(game, players, rules):
    bot = make_bot("advice-lead", seed=3, advice_deals=12, hint_deals=6)
    assert (bot.name, bot.fixed_lead, bot.calibrated, bot.threshold) == \
        ("advice-lead", True, True, 0.75)
    for seed in range(2):
        run_auction(bot, game, players, rules, seed)


def test_fixed_lead_bot_calls_by_the_fixed_lead_figures():
    """The bot asks its advice with one opening lead for every deal: on a seeded opening
    call it bids the highest bid whose fixed-lead P(make) reaches its threshold."""
    from solver.play import calling
    rules = read_rules(None, "42", 4)
    deal = Dealer("42", 4).deal(random.Random(5))
    view = call_view(rules, 1, deal.hand_ids[1], 0, (), {"NS": 0, "EW": 0})
    bot = make_bot("advice", seed=2, advice_deals=40, fixed_lead=True, calibrated=False,
                   threshold=0.6)
    seed = random.Random(2 * 2 + 1).randrange(2 ** 31)     # the bot's first call seed
    options = calling.declaration_options(view, None)

    def ask(highest, declarations):
        return calling.advice_for(view, highest, declarations, deals=40, seed=seed,
                                  threshold=0.6, calibrated=False, threads=1,
                                  fixed_lead=True)
    advice = ask(None, options)
    assert advice.fixed_lead
    assert bot.call(view) == calling.advice_call(view, ask, 0.6)
    # The advice the bot kept for its declaration is the fixed-lead one.
    assert [a.fixed_lead for a in bot._advice.values()] == [True]
    # Calibrated (advice-lead): by the map measured on fixed-lead figures.
    lead = make_bot("advice-lead", seed=2, advice_deals=40)
    lead.call(view)
    assert [a.calibration.source.get("fixed_lead") for a in lead._advice.values()] == [True]


# ------------------------------------------------- one bot a seat, its own bid's declaration


class _OneSeat:
    """A bot made for one seat: it fails on anything handed to it of another seat, so a
    game that hands it only its seat's views and true deals is one in which it holds
    nothing its seat did not see."""

    def __init__(self, inner, seat: int) -> None:
        self.inner, self.seat = inner, seat
        self.name, self.sees_deal = inner.name, inner.sees_deal
        self.handed = 0

    def _check(self, seen) -> None:
        if isinstance(seen, OpenTable):
            seat = seen.view.seat
        elif isinstance(seen, Position):
            seat = seen.to_move_index
        else:
            seat = seen.seat
        assert seat == self.seat, f"the bot of {SEATS[self.seat]} handed {SEATS[seat]}'s view"
        self.handed += 1

    def call(self, seen):
        self._check(seen)
        return self.inner.call(seen)

    def declare(self, seen):
        self._check(seen)
        return self.inner.declare(seen)

    def discard(self, seen):
        self._check(seen)
        return self.inner.discard(seen)

    def choose(self, seen):
        self._check(seen)
        return self.inner.choose(seen)


@pytest.mark.parametrize("game,players,rules", GAMES)
@pytest.mark.parametrize("names", [("rule", "random"), ("cheat", "rule")])
def test_every_seat_has_a_bot_of_its_own(game, players, rules, names):
    """play_game makes one bot a seat, hands each only its seat's views, and never the
    same object two seats (three-player Moon's N and S are opponents)."""
    made: dict[int, _OneSeat] = {}

    def side(name: str):
        def maker(seat: int) -> _OneSeat:
            assert seat not in made, f"a second bot made for {SEATS[seat]}"
            made[seat] = _OneSeat(_bot(name, seat), seat)
            return made[seat]
        return maker

    if names[0] == "cheat" and game == "moon":
        return    # the cheat's Moon searches take a while; its 42 game covers it
    record = play_game(side(names[0]), side(names[1]), game=game, players=players,
                       rules=rules, seed=2)
    _check_game(record)
    assert sorted(made) == list(record.rules.seats)
    assert len({id(bot) for bot in made.values()}) == len(made)
    assert all(bot.handed > 0 for bot in made.values())


def test_an_advice_game_hands_each_bot_only_its_seat():
    made: dict[int, _OneSeat] = {}

    def advice(seat: int) -> _OneSeat:
        made[seat] = _OneSeat(_bot("advice", seat), seat)
        return made[seat]

    _check_game(play_game(advice, "rule", seed=4, rules={"all_pass": "forced"}))
    assert sorted(made) == [0, 2] and all(bot.handed > 0 for bot in made.values())


def test_one_bot_object_for_two_seats_is_refused():
    with pytest.raises(TypeError, match="one bot object"):
        play_game(make_bot("rule"), "random", seed=1)


def test_each_seat_draws_from_a_generator_of_its_own():
    assert len({seat_seed(seed, s) for seed in range(3) for s in range(4)}) == 12
    ns = seat_bots("random", 5)
    assert ns(0).rng.random() != ns(2).rng.random()
    assert ns(0).rng.random() == seat_bots("random", 5)(0).rng.random()


def _caller(seed: int):
    """An advice bot whose calls rest on enough deals for a settled answer."""
    return make_bot("advice", seed=seed, advice_deals=50, hint_deals=6)


def _ids(tiles: str) -> tuple[int, ...]:
    return tuple(T.parse_tile(t, "t") for t in tiles.split())


#: A very low hand that bid advice bids 84 nello with (N, calling first: W shakes).
NELLO_HAND = _ids("1-0 2-0 3-0 2-1 3-1 4-0 0-0")
NELLO_PARTNER = _ids("6-5 6-3 5-4 5-2 4-4 2-2 1-1")


def test_the_declaration_named_is_the_one_the_bid_was_for():
    """N bids 84 for nello; its partner S calls after it, with the same bot object (as
    the game once did) or its own; N declares nello, not a pip suit."""
    rules = read_rules(None, "42", 4)
    score = {"NS": 0, "EW": 0}
    for shared in (True, False):
        north = _caller(5)
        south = north if shared else _caller(6)
        calls = [Call(0, north.call(call_view(rules, 0, NELLO_HAND, 3, (), score)))]
        assert calls[0].bid == 84
        calls.append(Call(1, "pass"))
        calls.append(Call(2, south.call(call_view(rules, 2, NELLO_PARTNER, 3, tuple(calls),
                                                  score))))
        assert calls[-1].bid == "pass"
        calls.append(Call(3, "pass"))
        view = call_view(rules, 0, NELLO_HAND, 3, tuple(calls), score)
        assert view.action == "declare"
        assert north.declare(view).trump == "nello"


def test_a_bot_that_did_not_call_names_a_declaration_of_the_bid_won():
    """A bot asked to declare without having called (the table asks a fresh one each
    step) asks its advice about the declarations of the bid won: nello at 84 too."""
    rules = read_rules(None, "42", 4)
    calls = (Call(0, 84), Call(1, "pass"), Call(2, "pass"), Call(3, "pass"))
    view = call_view(rules, 0, NELLO_HAND, 3, calls, {"NS": 0, "EW": 0})
    assert _caller(7).declare(view).trump == "nello"


# A deal whose E (a rule bot: four doubles) plunges; N shakes, so E calls first. S's hand
# takes every trick in sevens at 5 marks; W's and N's do not overcall.
PLUNGE_DEAL = {0: _ids("6-5 6-1 5-5 3-2 3-0 2-1 0-0"), 1: _ids("6-6 6-4 5-3 5-1 3-3 2-2 1-1"),
               2: _ids("6-3 6-2 6-0 5-4 5-2 4-3 3-1"), 3: _ids("5-0 4-4 4-2 4-1 4-0 2-0 1-0")}
WEAK_OVER_PLUNGE = _ids("5-3 5-2 4-2 4-1 3-0 2-1 0-0")


def test_an_overcall_of_a_plunge_is_made_for_a_declaration_that_makes_it():
    """Over the rule bot's plunge a weak hand passes; a hand whose advice makes 210 in
    sevens overcalls, and (its partner calling after it, with the same object or its
    own) declares sevens, which makes; so does a bot asked to declare afresh."""
    from solver.play import calling
    from solver.search.solve import make_or_set
    rules = read_rules(None, "42", 4)
    score = {"NS": 0, "EW": 0}
    plunge = (Call(1, calling.rule_call(call_view(rules, 1, PLUNGE_DEAL[1], 0, (), score))),)
    assert plunge[0].bid == "plunge"
    assert _caller(3).call(call_view(rules, 2, WEAK_OVER_PLUNGE, 0, plunge,
                                            score)) == "pass"
    for shared in (True, False):
        south = _caller(3)
        north = south if shared else _caller(4)
        calls = list(plunge)
        calls.append(Call(2, south.call(call_view(rules, 2, PLUNGE_DEAL[2], 0, tuple(calls),
                                                  score))))
        assert calls[-1].bid == 210
        advice = next(iter(south._advice.values()))
        assert advice.declaration("sevens").chance(210).p_used >= south.threshold
        calls.append(Call(3, calling.rule_call(call_view(rules, 3, PLUNGE_DEAL[3], 0,
                                                         tuple(calls), score))))
        calls.append(Call(0, north.call(call_view(rules, 0, PLUNGE_DEAL[0], 0, tuple(calls),
                                                  score))))
        assert [c.bid for c in calls[2:]] == ["pass", "pass"]
        view = call_view(rules, 2, PLUNGE_DEAL[2], 0, tuple(calls), score)
        declared = south.declare(view).trump
        assert declared == "sevens"
        start = Position({"hands": {SEATS[s]: [T.name_of(t) for t in h]
                                    for s, h in PLUNGE_DEAL.items()},
                          "contract": {"declarer": "S", "trump": declared, "bid": 210}})
        assert make_or_set(start).makes
    fresh = _caller(8).declare(view)
    assert fresh.trump == "sevens"


def test_seat_view_calls_follow_the_playout_advice_of_the_top_declarations():
    """seat-view-calls: double-dummy advice screens, the two declarations it ranks first are
    played out by seat-view players, and the call and the declaration follow those figures
    (the advice kept is the playout's, for the seat's hand)."""
    from solver.hidden.seat_view_bidding import seat_view_advise
    from solver.play.bots import make_bot
    rules = read_rules(None, "42", 4)
    bot = make_bot("seat-view-calls", seed=2, hint_deals=10, advice_deals=20)
    view = call_view(rules, 1, ["6-6", "6-4", "5-5", "5-3", "4-4", "2-1", "1-0"], 0, (),
                     {"NS": 0, "EW": 0})
    call = bot.call(view)
    assert call in view.legal_calls()
    advice = next(iter(bot._advice.values()))
    assert advice.search == "playout" and len(advice.declarations) == 2
    again = seat_view_advise(view.hand, "E", deals=30, seed=advice.seed,
                             declarations=[r.declaration for r in advice.declarations])
    assert [r.to_json() for r in again.declarations] == \
        [r.to_json() for r in advice.declarations]
    rec = advice.recommendation
    assert call == ("pass" if rec.bid is None else rec.bid)
