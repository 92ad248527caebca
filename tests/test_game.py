"""Games: the auction, the score and game records (SPEC "Auction, hands and games").

* every shared case (cases/games.jsonl) through the Python API and a real `t42 game`;
* random legal games (random calls, declarations, discards and plays under random
  house rules) read back equal, add up, and end exactly when a side reaches the target;
* every illegal call, declaration and record of the list is refused, naming the field;
* every house option.
"""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver import Auction, Call, GameRecord, GameRules, PositionError, legal_declarations
from solver.game import tiles as T
from solver.game.contract_layout import MOON3_SET
from solver.game.position import Position

CASES = Path(__file__).parent / "cases" / "games.jsonl"
with open(CASES, encoding="utf-8") as _f:
    GAME_CASES = [json.loads(line) for line in _f if line.strip()]
SEATS = "NESW"


def t42(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def expected_view(summary: dict) -> dict:
    """The parts of a `t42 game --json` answer that a case's ``expect`` gives."""
    return {"hands": [{"shaker": h["shaker"], "made": h["made"], "score": h["score"]}
                      for h in summary["hands"]],
            "score": summary["score"], "winner": summary["winner"]}


# ------------------------------------------------------------------ the shared cases

def test_the_cases_are_all_there():
    assert len(GAME_CASES) == 48
    games = [(c["record"].get("game", "42"), c["record"].get("players", 4)) for c in GAME_CASES]
    assert games.count(("42", 4)) == 36
    assert games.count(("moon", 3)) == 6 and games.count(("moon", 4)) == 6


@pytest.mark.parametrize("case", GAME_CASES, ids=[c["id"] for c in GAME_CASES])
def test_case_through_the_api(case):
    game = GameRecord(case["record"])
    expect = case["expect"]
    assert len(game.hands) == len(expect["hands"])
    for hand, want in zip(game.hands, expect["hands"]):
        assert SEATS[hand.shaker] == want["shaker"]
        assert hand.made == want["made"]
        assert hand.score == want["score"]
    assert game.score == expect["score"]
    assert game.winner == expect["winner"]
    assert expected_view(game.summary_json()) == expect
    # Written back and read again: the same record, the same score.
    again = GameRecord(json.dumps(game.to_json()))
    assert again == game and again.summary_json() == game.summary_json()
    # A game won has nothing next; a game in progress has a seat to act.
    assert (game.next_action() is None) == (game.winner is not None)


def test_every_case_through_t42_game(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(c["record"]) + "\n" for c in GAME_CASES))
    done = t42("game", "--json", str(path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(GAME_CASES)
    for case, line in zip(GAME_CASES, lines):
        answer = json.loads(line)
        assert set(answer) == {"hands", "score", "winner", "next"}
        assert expected_view(answer) == case["expect"], case["id"]
        assert answer == GameRecord(case["record"]).summary_json()
        for hand in answer["hands"]:
            assert set(hand) == {"shaker", "contract", "made", "score"}


def test_t42_game_prints_the_score_pad(tmp_path):
    case = GAME_CASES[0]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(case["record"], indent=2))
    done = t42("game", str(path))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("42, to 7 marks; first shaker N")
    assert "W plunge, N 210, E pass, S 252" in out and "S sevens 252" in out
    assert "Score: NS 2, EW 7. EW wins." in out
    moon = next(c for c in GAME_CASES if c["record"].get("players") == 3)
    done = t42("game", stdin=json.dumps(moon["record"]))
    assert done.returncode == 0 and "Moon, 3 players, to 21 points" in done.stdout
    assert ", discard " in done.stdout


def test_t42_game_refuses_a_bad_record_in_one_line(tmp_path):
    record = copy.deepcopy(GAME_CASES[0]["record"])
    record["hands"][0]["auction"][2]["bid"] = 34  # W 34 over S 35
    done = t42("game", stdin=json.dumps(record))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert lines == ["t42: error: hands[0].auction[2].bid: bid 34 is not higher than the bid 35"]
    # JSON Lines: the bad record's error in its place, the others answered.
    good = json.dumps(GAME_CASES[1]["record"])
    done = t42("game", "--json", stdin=good + "\n" + json.dumps(record) + "\n" + good + "\n")
    assert done.returncode == 2
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[0] == answers[2] and "hands" in answers[0]
    assert answers[1] == {"error": {"field": "hands[0].auction[2].bid", "code": "BID_NOT_HIGHER",
                                    "reason": "bid 34 is not higher than the bid 35"}}
    assert done.stderr.startswith("t42: error: line 2: hands[0].auction[2].bid")


# ---------------------------------------------------------------- helpers for records

def deal(seed: int, players: int = 4, doubles: dict[str, int] | None = None,
         moon: bool = False) -> tuple[dict, str | None]:
    """A random deal (and the widow of three-player Moon); ``doubles`` gives some seats
    exactly that many doubles."""
    rng = random.Random(seed)
    tiles = sorted(MOON3_SET) if players == 3 else list(range(T.N_TILES))
    doubles = doubles or {}
    dbl = [t for t in tiles if T.is_double(t)]
    rest = [t for t in tiles if not T.is_double(t)]
    rng.shuffle(dbl)
    rng.shuffle(rest)
    hands: dict[str, list[int]] = {}
    for seat, k in doubles.items():
        hands[seat] = [dbl.pop() for _ in range(k)] + [rest.pop() for _ in range(7 - k)]
    others = [seat for seat in SEATS[:players] if seat not in hands]
    if doubles:  # the other doubles round the other seats: at most 2 each, quotas stay exact
        for seat in others:
            hands[seat] = []
        for i, t in enumerate(dbl):
            hands[others[i % len(others)]].append(t)
        dbl = []
    pool = dbl + rest
    rng.shuffle(pool)
    for seat in others:
        hand = hands.get(seat, [])
        while len(hand) < 7:
            hand.append(pool.pop())
        hands[seat] = hand
    widow = T.name_of(pool[0]) if players == 3 else None
    return {s: [T.name_of(t) for t in h] for s, h in hands.items()}, widow


def play_out(rng: random.Random, position: dict, upto: int | None = None) -> list[str]:
    """Random legal plays of a position from its start (all of them, or ``upto``)."""
    pos = Position(position)
    plays: list[int] = []
    while pos.to_move is not None and (upto is None or len(plays) < upto):
        plays.append(rng.choice(pos.legal_ids()))
        pos = pos.with_plays(plays)
    return [T.name_of(t) for t in plays]


def hand42(hands: dict, auction: list, contract: dict | None = None,
           plays: list | None = None) -> dict:
    out: dict = {"hands": hands, "auction": [{"seat": s, "bid": b} for s, b in auction]}
    if contract is not None:
        out["contract"] = contract
        out["plays"] = plays or []
    return out


def refused(record: dict, field: str, code: str) -> PositionError:
    with pytest.raises(PositionError) as err:
        GameRecord(record)
    assert (err.value.field, err.value.code) == (field, code), str(err.value)
    return err.value


HANDS, _ = deal(1)


def rec(*hands: dict, rules: dict | None = None, shaker: str = "N", **top) -> dict:
    out = {"game": "42", "first_shaker": shaker, "hands": list(hands), **top}
    if rules is not None:
        out["rules"] = rules
    return out


# ------------------------------------------------------------ illegal calls and records

def test_a_bid_not_higher_is_refused():
    refused(rec(hand42(HANDS, [("E", 35), ("S", 35)])), "hands[0].auction[1].bid",
            "BID_NOT_HIGHER")
    refused(rec(hand42(HANDS, [("E", 84), ("S", 41)])), "hands[0].auction[1].bid",
            "BID_NOT_HIGHER")


def test_a_second_call_by_one_seat_is_refused():
    err = refused(rec(hand42(HANDS, [("E", 30), ("E", 31)])), "hands[0].auction[1].seat",
                  "OUT_OF_TURN")
    assert "E already called" in err.reason
    refused(rec(hand42(HANDS, [("S", 30)])), "hands[0].auction[0].seat", "OUT_OF_TURN")
    # a fifth call: every seat has called
    four = [("E", "pass"), ("S", "pass"), ("W", "pass"), ("N", 30)]
    refused(rec(hand42(HANDS, four + [("E", 31)])), "hands[0].auction[4]", "AUCTION_OVER")


def test_mark_bids_go_one_mark_at_a_time():
    refused(rec(hand42(HANDS, [("E", 42), ("S", 126)])), "hands[0].auction[1].bid", "MARK_JUMP")
    refused(rec(hand42(HANDS, [("E", 126)])), "hands[0].auction[0].bid", "MARK_JUMP")
    refused(rec(hand42(HANDS, [("E", 84), ("S", 168)])), "hands[0].auction[1].bid", "MARK_JUMP")
    refused(rec(hand42(HANDS, [("E", 29)])), "hands[0].auction[0].bid", "BID_OUT_OF_RANGE")
    refused(rec(hand42(HANDS, [("E", 43)])), "hands[0].auction[0].bid", "BID_OUT_OF_RANGE")
    # allowed: 41 -> 84, 42 -> 84, 84 -> 126 -> 168
    GameRecord(rec(hand42(HANDS, [("E", 41), ("S", 84), ("W", 126), ("N", 168)])))
    GameRecord(rec(hand42(HANDS, [("E", 42), ("S", 84)])))


def test_plunge_only_first_and_with_four_doubles():
    four, _ = deal(2, doubles={"S": 4})
    three, _ = deal(3, doubles={"S": 3})
    refused(rec(hand42(four, [("E", 30), ("S", "plunge")])), "hands[0].auction[1].bid",
            "PLUNGE_AFTER_BID")
    refused(rec(hand42(three, [("E", "pass"), ("S", "plunge")])), "hands[0].auction[1].bid",
            "PLUNGE_NEEDS_FOUR_DOUBLES")
    game = GameRecord(rec(hand42(four, [("E", "pass"), ("S", "plunge"), ("W", "pass"),
                                        ("N", "pass")])))
    # the plunger's partner names the trump
    assert game.next_action() == {"seat": "N", "action": "declare"}
    assert "nello" not in game.legal_declarations() and "sevens" not in game.legal_declarations()
    # raised one mark at a time after it
    auction = Auction(GameRules(), 0, {s: [T.SPELLINGS[t] for t in four[SEATS[s]]]
                                       for s in range(4)})
    auction.call(Call(1, "pass"))
    auction.call(Call(2, "plunge"))
    assert auction.legal_calls() == ("pass", 210)
    contract = {"declarer": "S", "trump": "sixes", "bid": 168, "kind": "plunge"}
    hand = hand42(four, [("E", "pass"), ("S", "plunge"), ("W", "pass"), ("N", "pass")],
                  contract)
    hand["plays"] = play_out(random.Random(4), {"hands": four, "contract": contract})
    game = GameRecord(rec(hand))
    assert game.hands[0].made is not None and sum(game.score.values()) == 4
    # the contract of a plunge names its kind
    bad = copy.deepcopy(hand)
    del bad["contract"]["kind"]
    refused(rec(bad), "hands[0].contract.kind", "CONTRACT_MISMATCH")


def test_nello_needs_two_marks_and_sevens_one():
    auction = [("E", "pass"), ("S", "pass"), ("W", "pass"), ("N", 42)]
    nello = {"declarer": "N", "trump": "nello", "bid": 42}
    err = refused(rec(hand42(HANDS, auction, nello)), "hands[0].contract.trump",
                  "DECLARATION_NOT_ALLOWED")
    assert "2 marks" in err.reason
    sevens = {"declarer": "N", "trump": "sevens", "bid": 41}
    refused(rec(hand42(HANDS, [("E", "pass"), ("S", "pass"), ("W", "pass"), ("N", 41)],
                       sevens)), "hands[0].contract.trump", "DECLARATION_NOT_ALLOWED")
    # at 2 marks, and at 1 mark with the option
    GameRecord(rec(hand42(HANDS, [("E", "pass"), ("S", "pass"), ("W", "pass"), ("N", 84)],
                          {**nello, "bid": 84})))
    GameRecord(rec(hand42(HANDS, auction, nello), rules={"nello_min_marks": 1}))
    GameRecord(rec(hand42(HANDS, auction, {**nello, "trump": "sevens"})))
    rules = GameRules()
    assert "nello" not in legal_declarations(rules, 42)
    assert "sevens" in legal_declarations(rules, 42) and "sevens" not in legal_declarations(rules, 41)
    assert "nello" in legal_declarations(GameRules(nello_min_marks=1), 42)
    assert "nello" not in legal_declarations(GameRules(nello_min_marks=3), 84)


def test_all_pass_forces_the_shaker_unless_reshake():
    passes = [("E", "pass"), ("S", "pass"), ("W", "pass"), ("N", "pass")]
    err = refused(rec(hand42(HANDS, passes)), "hands[0].auction[3].bid", "FORCED_BID")
    assert "shaker N" in err.reason
    game = GameRecord(rec(hand42(HANDS, passes[:3])))
    assert "pass" not in game.legal_calls() and game.legal_calls()[0] == 30
    # reshake: thrown in, no score, the shake passes to the left
    game = GameRecord(rec(hand42(HANDS, passes), rules={"all_pass": "reshake"}))
    assert game.hands[0].thrown_in and game.hands[0].made is None
    assert game.summary_json()["hands"][0]["contract"] is None
    assert game.score == {"NS": 0, "EW": 0}
    assert game.next_action() == {"seat": "S", "action": "call"}  # E shakes, S calls first
    assert "pass" in GameRecord(rec(hand42(HANDS, passes[:3]),
                                    rules={"all_pass": "reshake"})).legal_calls()
    refused(rec(hand42(HANDS, passes, {"declarer": "N", "trump": "sixes", "bid": 30}),
                rules={"all_pass": "reshake"}), "hands[0].contract", "THROWN_IN")


def test_a_contract_must_be_the_auctions():
    auction = [("E", 30), ("S", 31), ("W", "pass"), ("N", "pass")]
    good = {"declarer": "S", "trump": "sixes", "bid": 31}
    GameRecord(rec(hand42(HANDS, auction, good)))
    refused(rec(hand42(HANDS, auction, {**good, "declarer": "E"})),
            "hands[0].contract.declarer", "CONTRACT_MISMATCH")
    refused(rec(hand42(HANDS, auction, {**good, "bid": 30})), "hands[0].contract.bid",
            "CONTRACT_MISMATCH")
    refused(rec(hand42(HANDS, auction[:3], good)), "hands[0].contract", "AUCTION_NOT_OVER")
    refused(rec(hand42(HANDS, auction, {**good, "kind": "splash"})), "hands[0].contract.kind",
            "CONTRACT_MISMATCH")
    refused(rec(hand42(HANDS, auction, {**good, "bid": 84, "trump": "sevens"})),
            "hands[0].contract.bid", "CONTRACT_MISMATCH")


def test_a_record_that_goes_on_after_the_game_is_won():
    case = next(c for c in GAME_CASES if c["expect"]["winner"] is not None
                and c["record"]["game"] == "42")
    record = copy.deepcopy(case["record"])
    record["hands"].append(copy.deepcopy(record["hands"][0]))
    last = len(record["hands"]) - 1
    err = refused(record, f"hands[{last}]", "GAME_OVER")
    assert case["expect"]["winner"] in err.reason


def test_a_hand_that_is_not_over_cannot_be_followed():
    case = GAME_CASES[0]["record"]
    record = copy.deepcopy(case)
    record["hands"][0]["auction"] = record["hands"][0]["auction"][:2]
    del record["hands"][0]["contract"], record["hands"][0]["plays"]
    refused(record, "hands[0].auction", "HAND_NOT_FINISHED")
    record = copy.deepcopy(case)
    del record["hands"][0]["contract"], record["hands"][0]["plays"]
    refused(record, "hands[0].contract", "HAND_NOT_FINISHED")


def test_a_hand_may_stop_once_decided():
    """42: a hand that stops once its outcome is decided scores as played out; one that
    stops before is refused when another hand follows."""
    rng = random.Random(7)
    checked = 0
    for case in GAME_CASES:
        record = case["record"]
        if record["game"] != "42" or len(record["hands"]) < 2:
            continue
        full = GameRecord(record)
        for i, hand in enumerate(full.hands[:-1]):
            plays = record["hands"][i]["plays"]
            cut = rng.randrange(len(plays))
            short = copy.deepcopy(record)
            short["hands"][i]["plays"] = plays[:cut]
            pos = hand.position.with_plays(hand.position.plays[:cut])
            # decided, by the rule of SPEC: made, or unreachable whatever is played
            c = hand.contract
            if c.declaration.name == "nello":
                decided = pos.points >= 1 or pos.tricks_left == 0
            else:
                target = min(c.bid, 42)
                decided = pos.points >= target or pos.points + pos.available < target
            if decided:
                again = GameRecord(short)
                assert again.summary_json() == full.summary_json()
                checked += 1
            else:
                refused(short, f"hands[{i}].plays", "HAND_NOT_FINISHED")
    assert checked > 20


def test_illegal_plays_and_bad_fields_are_named():
    record = copy.deepcopy(GAME_CASES[0]["record"])
    record["hands"][1]["plays"][1] = record["hands"][1]["plays"][5]
    err = refused(record, "hands[1].plays[1]", err_code(record))
    assert err.field.startswith("hands[1].plays[")
    refused({**GAME_CASES[0]["record"], "colour": 1}, "colour", "UNKNOWN_FIELD")
    bad = copy.deepcopy(GAME_CASES[0]["record"])
    bad["hands"][0]["note"] = "x"
    refused(bad, "hands[0].note", "UNKNOWN_FIELD")
    bad = copy.deepcopy(GAME_CASES[0]["record"])
    bad["hands"][0]["auction"][0]["bdi"] = 1
    refused(bad, "hands[0].auction[0].bdi", "UNKNOWN_FIELD")
    bad = copy.deepcopy(GAME_CASES[0]["record"])
    bad["hands"][0]["auction"][0]["bid"] = "double"
    refused(bad, "hands[0].auction[0].bid", "INVALID_VALUE")
    bad = copy.deepcopy(GAME_CASES[0]["record"])
    bad["hands"][0]["hands"]["N"][0] = bad["hands"][0]["hands"]["E"][0]
    refused(bad, "hands[0].hands.E[0]", "DUPLICATE_TILE")
    refused({**GAME_CASES[0]["record"], "hands": {}}, "hands", "INVALID_TYPE")
    refused({**GAME_CASES[0]["record"], "first_shaker": "X"}, "first_shaker", "UNKNOWN_SEAT")
    refused({"game": "42", "hands": []}, "first_shaker", "MISSING_FIELD")
    refused({**GAME_CASES[0]["record"], "players": 3}, "players", "INVALID_VALUE")
    refused({**GAME_CASES[0]["record"], "rules": {"splash": "yes"}}, "rules.splash",
            "INVALID_OPTION")
    refused({**GAME_CASES[0]["record"], "rules": {"min_bid": 3}}, "rules.min_bid",
            "UNKNOWN_FIELD")
    bad = copy.deepcopy(GAME_CASES[0]["record"])
    bad["hands"][0]["widow"] = "6-6"
    refused(bad, "hands[0].widow", "UNEXPECTED_FIELD")


def err_code(record: dict) -> str:
    try:
        GameRecord(record)
    except PositionError as exc:
        return exc.code
    raise AssertionError("accepted")


# ------------------------------------------------------------------------ house options

def test_splash_is_an_option():
    three, _ = deal(5, doubles={"S": 3})
    auction = [("E", "pass"), ("S", "splash"), ("W", "pass"), ("N", "pass")]
    refused(rec(hand42(three, auction)), "hands[0].auction[1].bid", "INVALID_CALL")
    game = GameRecord(rec(hand42(three, auction), rules={"splash": True}))
    assert game.next_action() == {"seat": "N", "action": "declare"}
    contract = {"declarer": "S", "trump": "doubles", "bid": 84, "kind": "splash"}
    hand = hand42(three, auction, contract)
    hand["plays"] = play_out(random.Random(1), {"hands": three, "contract": contract})
    game = GameRecord(rec(hand, rules={"splash": True}))
    assert sum(game.score.values()) == 2
    assert game.hands[0].position.first_leader == 0  # N, the partner, leads
    auction_obj = Auction(GameRules(splash=True), 0)
    assert auction_obj.legal_calls()[-2:] == ("plunge", "splash")
    assert "splash" not in Auction(GameRules(), 0).legal_calls()
    assert GameRecord(json.dumps(game.to_json())) == game


def moon_hand(seed: int, players: int, auction: list, trump: str | None = None,
              declarer: str | None = None, bid: int | None = None) -> dict:
    hands, widow = deal(seed, players)
    out: dict = {"hands": hands, "auction": [{"seat": s, "bid": b} for s, b in auction]}
    if widow is not None:
        out["widow"] = widow
    if trump is not None:
        contract: dict = {"declarer": declarer, "trump": trump, "bid": bid}
        position: dict = {"game": "moon", "hands": copy.deepcopy(hands), "contract":
                          {**contract, "bid": max(bid, 4)}}  # a position's bids start at 4
        if widow is not None:
            contract["discard"] = widow
            position["widow"] = position["discard"] = widow
        out["contract"] = contract
        out["plays"] = play_out(random.Random(seed), position)
    return out


def test_moon_min_bid():
    auction = [("E", 3), ("S", "pass"), ("N", "pass")]
    moon = {"game": "moon", "players": 3, "first_shaker": "N"}
    refused({**moon, "hands": [moon_hand(1, 3, auction)]}, "hands[0].auction[0].bid",
            "BID_OUT_OF_RANGE")
    game = GameRecord({**moon, "rules": {"min_bid": 3},
                       "hands": [moon_hand(1, 3, auction, "sixes", "E", 3)]})
    hand = game.hands[0]
    assert hand.contract.bid == 3 and hand.made == (hand.position.tricks_won[1] >= 3)
    assert game.to_json()["hands"][0]["contract"]["bid"] == 3
    assert GameRecord(game.to_json()) == game
    refused({**moon, "rules": {"min_bid": 5}, "hands": [moon_hand(1, 3, [("E", 4)])]},
            "hands[0].auction[0].bid", "BID_OUT_OF_RANGE")
    assert Auction(GameRules("moon", 3, min_bid=5), 0).legal_calls() == ("pass", 5, 6, 7, 21)


def test_moon_shoot_ends_the_auction_and_needs_a_score_not_below_zero():
    moon = {"game": "moon", "players": 3, "first_shaker": "N"}
    game = GameRecord({**moon, "hands": [moon_hand(2, 3, [("E", 21)])]})
    assert game.hands[0].auction.is_over
    assert game.next_action() == {"seat": "E", "action": "discard"}
    refused({**moon, "hands": [moon_hand(2, 3, [("E", 21), ("S", "pass")])]},
            "hands[0].auction[1]", "AUCTION_OVER")
    # a player below zero may not shoot
    for seed in range(40):
        first = moon_hand(seed, 3, [("E", 7), ("S", "pass"), ("N", "pass")], "follow-me", "E", 7)
        game = GameRecord({**moon, "hands": [first]})
        if game.score["E"] < 0:
            break
    assert game.score["E"] < 0
    assert 21 not in game.legal_calls() or game.next_action()["seat"] != "E"
    second = moon_hand(99, 3, [("S", "pass"), ("N", "pass"), ("E", 21)])
    refused({**moon, "hands": [first, second]}, "hands[1].auction[2].bid", "SHOOT_BELOW_ZERO")


def test_moon_scored_in_marks():
    moon = {"game": "moon", "players": 4, "first_shaker": "N", "rules": {"score": "marks"}}
    record = {**moon, "hands": []}
    shaker = 0
    for seed in range(30):
        caller = SEATS[(shaker + 1) % 4]
        auction = [(SEATS[(shaker + 1 + k) % 4], 4 if k == 0 else "pass") for k in range(4)]
        record["hands"].append(moon_hand(seed, 4, auction, "doubles", caller, 4))
        game = GameRecord(record)
        hand = game.hands[-1]
        assert sum(hand.awarded.values()) == 1
        mine = game.rules.key_of(hand.contract.declarer)
        assert (hand.awarded[mine] == 1) == hand.made
        shaker = (shaker + 1) % 4
        if game.winner:
            assert game.score[game.winner] == 7
            break
    assert game.winner is not None


def test_moon_three_players_scored_in_marks_gives_each_defender_a_mark():
    rules = {"score": "marks"}
    record = {"game": "moon", "players": 3, "first_shaker": "N", "rules": rules,
              "hands": [moon_hand(3, 3, [("E", 7), ("S", "pass"), ("N", "pass")],
                                  "blanks", "E", 7)]}
    game = GameRecord(record)
    assert game.hands[0].made is False
    assert game.score == {"N": 1, "E": 0, "S": 1}


def test_next_actions():
    game = GameRecord(rec())
    assert game.next_action() == {"seat": "E", "action": "call"}
    assert game.legal_calls()[:3] == ("pass", 30, 31) and "plunge" in game.legal_calls()
    game = GameRecord(rec(hand42(HANDS, [("E", 42)])))
    assert game.next_action() == {"seat": "S", "action": "call"}
    assert game.legal_calls() == ("pass", 84)
    game = GameRecord(rec(hand42(HANDS, [("E", 84), ("S", 126)])))
    assert game.legal_calls() == ("pass", 168)
    auction = [("E", 30), ("S", "pass"), ("W", "pass"), ("N", "pass")]
    game = GameRecord(rec(hand42(HANDS, auction)))
    assert game.next_action() == {"seat": "E", "action": "declare"}
    assert game.legal_declarations() == ("blanks", "ones", "deuces", "treys", "fours",
                                         "fives", "sixes", "doubles", "follow-me")
    contract = {"declarer": "E", "trump": "sixes", "bid": 30}
    game = GameRecord(rec(hand42(HANDS, auction, contract)))
    assert game.next_action() == {"seat": "E", "action": "play"}
    assert set(game.legal_plays()) == set(HANDS["E"])
    plays = play_out(random.Random(2), {"hands": HANDS, "contract": contract})
    game = GameRecord(rec(hand42(HANDS, auction, contract, plays)))
    assert game.next_action() == {"seat": "S", "action": "call"}
    moon = GameRecord({"game": "moon", "players": 3, "first_shaker": "S",
                       "hands": [moon_hand(4, 3, [("N", 5), ("E", "pass"), ("S", "pass")])]})
    assert moon.next_action() == {"seat": "N", "action": "discard"}
    assert moon.legal_declarations() == ("blanks", "ones", "deuces", "treys", "fours",
                                         "fives", "sixes", "doubles", "follow-me")


# ---------------------------------------------------------------------- random games

def independent_awards(rules: GameRules, hand) -> dict[str, int]:
    """SPEC's score of a finished hand, worked out here again."""
    c, tricks = hand.contract, hand.position.tricks_won
    keys = rules.score_keys
    key = rules.key_of
    out = dict.fromkeys(keys, 0)
    mine = key(c.declarer)
    if rules.game == "42":
        marks = 1 if c.bid <= 42 else c.bid // 42
        out[mine if hand.made else next(k for k in keys if k != mine)] = marks
    elif rules.score == "marks":
        if hand.made:
            out[mine] = 1
        else:
            for k in keys:
                out[k] += k != mine
    else:
        side = [s for s in rules.seats if key(s) == mine]
        taken = sum(tricks[s] for s in side)
        out[mine] = (c.bid if rules.players == 3 else taken) if hand.made else -c.bid
        for s in rules.seats:
            if key(s) != mine:
                out[key(s)] += tricks[s]
    return out


def independent_winner(rules: GameRules, score: dict, declarer_key: str) -> str | None:
    target = 7 if rules.game == "42" or rules.score == "marks" else 21
    top = [k for k in score if score[k] >= target]
    if len(top) > 1 and declarer_key in top:
        return declarer_key
    best = [k for k in top if score[k] == max(score[j] for j in top)]
    return best[0] if len(best) == 1 else None


def random_game(rng: random.Random, game: str, players: int, rules: dict,
                max_hands: int = 60) -> dict:
    """A game of random legal calls, declarations, discards and plays, to its end (or
    ``max_hands``), as a record; 42 hands sometimes stop once decided."""
    record: dict = {"game": game, "first_shaker": rng.choice(SEATS[:players]), "hands": []}
    if game == "moon":
        record["players"] = players
    if rules:
        record["rules"] = rules
    state = GameRecord(record)
    for _ in range(max_hands):
        if state.winner is not None:
            break
        shaker = state.shaker_of_next_hand()
        plunger = {rng.choice(SEATS): 4} if game == "42" and rng.random() < 0.15 else None
        hands, widow = deal(rng.randrange(1 << 30), players, plunger)
        held = {SEATS.index(s): [T.SPELLINGS[t] for t in h] for s, h in hands.items()}
        no_shoot = [s for s in state.rules.seats if state.score[state.rules.key_of(s)] < 0] \
            if game == "moon" else []
        auction = Auction(state.rules, shaker, held, no_shoot)
        while not auction.is_over:
            auction.call(Call(auction.next_seat, random_call(rng, auction.legal_calls())))
        hand: dict = {"hands": hands}
        if widow is not None:
            hand["widow"] = widow
        hand["auction"] = auction.to_json()
        if not auction.thrown_in:
            name = rng.choice(legal_declarations(state.rules, auction.bid, auction.kind))
            contract: dict = {"declarer": SEATS[auction.winner], "trump": name,
                              "bid": auction.bid}
            if auction.kind != "standard":
                contract["kind"] = auction.kind
            if game == "42" and name in ("follow-me", "nello"):
                contract["doubles"] = rng.choice(("high", "low", "suit"))
            position = {"game": game, "hands": copy.deepcopy(hands), "contract": dict(contract)}
            if game == "moon" and contract["bid"] < 4:
                position["contract"]["bid"] = 4
            if widow is not None:
                seat = SEATS[auction.winner]
                discard = rng.choice(hands[seat] + [widow])
                contract["discard"] = discard
                position["hands"][seat] = [widow if t == discard else t for t in hands[seat]]
                position["widow"], position["discard"] = widow, discard
            hand["contract"] = contract
            hand["plays"] = play_out(rng, position)
        record["hands"].append(hand)
        state = GameRecord(record)
        if game == "42" and "plays" in hand and state.winner is None and rng.random() < 0.4:
            # stop the hand once decided: it scores as played out (when a hand follows)
            hand["plays"] = hand["plays"][:first_decided(state.hands[-1])]
    return cut_short(rng, record)


def random_call(rng: random.Random, calls: tuple) -> int | str:
    """Mostly pass or the lowest bid (uniform calls shoot the moon and jump to marks
    too often for a game ever to end), sometimes any legal call; plunge when it can."""
    if "plunge" in calls and rng.random() < 0.5:
        return "plunge"
    roll = rng.random()
    if roll < 0.5 and "pass" in calls:
        return "pass"
    bids = [c for c in calls if isinstance(c, int)]
    if roll < 0.85 and bids:
        return bids[0]
    return rng.choice(calls)


def first_decided(hand) -> int:
    """The fewest plays after which the hand's outcome is decided (SPEC's rule: the
    declaring side has its bid, or cannot reach it whatever is played)."""
    c, pos = hand.contract, hand.position
    for n in range(len(pos.plays) + 1):
        p = pos.with_plays(pos.plays[:n])
        if c.declaration.name == "nello":
            if p.points >= 1 or p.tricks_left == 0:
                return n
        elif p.points >= min(c.bid, 42) or p.points + p.available < min(c.bid, 42):
            return n
    return len(pos.plays)


def cut_short(rng: random.Random, record: dict) -> dict:
    """Sometimes cut the game short, mid-hand or mid-auction."""
    if record["hands"] and rng.random() < 0.3:
        last = record["hands"][-1]
        if "plays" in last and rng.random() < 0.5:
            last["plays"] = last["plays"][:rng.randrange(len(last["plays"]) + 1)]
        else:
            last.pop("contract", None)
            last.pop("plays", None)
            last["auction"] = last["auction"][:rng.randrange(len(last["auction"]) + 1)]
    return record


RULE_CHOICES = {
    "42": {"all_pass": ("forced", "reshake"), "splash": (False, True),
           "nello_min_marks": (1, 2, 3)},
    "moon": {"all_pass": ("forced", "reshake"), "min_bid": (3, 4, 5),
             "score": ("points", "marks")},
}


def check_random_game(seed: int, game: str, players: int) -> None:
    rng = random.Random(seed)
    rules = {name: rng.choice(values) for name, values in RULE_CHOICES[game].items()
             if rng.random() < 0.5}
    record = random_game(rng, game, players, rules)
    read = GameRecord(record)
    # reads back equal, through its JSON text too
    assert GameRecord(json.dumps(read.to_json())) == read
    assert GameRecord(read.to_json()).to_json() == read.to_json()
    # the scores add up, hand by hand
    r = read.rules
    total = dict.fromkeys(r.score_keys, 0)
    for i, hand in enumerate(read.hands):
        if hand.made is not None:
            gained = independent_awards(r, hand)
            assert hand.awarded == gained
            if r.game == "42":
                assert sum(gained.values()) == (1 if hand.contract.bid <= 42
                                                else hand.contract.bid // 42)
            total = {k: total[k] + gained[k] for k in total}
            won = independent_winner(r, total, r.key_of(hand.contract.declarer))
            # the game ends exactly when a side reaches the target
            if i < len(read.hands) - 1:
                assert won is None
            else:
                assert won == read.winner
        else:
            assert hand.awarded == {} and i == len(read.hands) - 1 or hand.thrown_in
        assert hand.score == total
    assert read.score == total
    if read.winner is not None:
        extra = copy.deepcopy(record)
        extra["hands"].append(copy.deepcopy(record["hands"][-1]))
        refused(extra, f"hands[{len(record['hands'])}]", "GAME_OVER")
        assert read.next_action() is None
    else:
        assert read.next_action() is not None


SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.integers(0, 2**32))
def test_random_games_of_42(seed):
    check_random_game(seed, "42", 4)


@SETTINGS
@given(st.integers(0, 2**32))
def test_random_games_of_moon_for_three(seed):
    check_random_game(seed, "moon", 3)


@SETTINGS
@given(st.integers(0, 2**32))
def test_random_games_of_moon_for_four(seed):
    check_random_game(seed, "moon", 4)


def test_a_views_auction_is_read_as_a_records_calls():
    """A seat's view in a game is its hand's view plus the auction: plunge and splash calls
    are calls there too; a call that is no call is refused as before."""
    from solver import View
    four, _ = deal(2, doubles={"S": 4})
    view = {"seat": "E", "hands": {"E": four["E"]},
            "contract": {"declarer": "S", "trump": "sixes", "kind": "plunge"},
            "auction": [{"seat": "E", "bid": "pass"}, {"seat": "S", "bid": "plunge"},
                        {"seat": "W", "bid": "pass"}, {"seat": "N", "bid": "pass"}]}
    assert View(view).to_json()["auction"] == view["auction"]
    with pytest.raises(PositionError) as err:
        View({**view, "auction": [{"seat": "E", "bid": "double"}]})
    assert (err.value.field, err.value.code) == ("auction[0].bid", "INVALID_VALUE")
