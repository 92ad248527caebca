"""The table RPCs on a real server (gRPC and Connect on 127.0.0.1): a person plays one
seat of a game against bots with the hidden hands sealed in a token (DealHand,
NextAction and CheckGame with ``sealed``, TakeWidow, RevealHand).

Whole hands of 42, four-player and three-player Moon are driven through the API as a
client would: every answer is scanned for tiles the person has not seen; each sealed
NextAction is the unsealed answer on the full record without its figures; at the end
the revealed deal is the seeded deal and the full record checks. Then the refusals
(tampered tokens, another key, another game or hand, disagreeing tiles, too early)
and the ``--table-key`` file shared by two servers."""

from __future__ import annotations

import json
import os
import random
import re
import stat
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from grpc_helpers import assert_invalid, bad_request, connect_json

from server.convert import ENUM_OF_SEAT, SEAT_OF_ENUM
from server.game_convert import record_from_json
from server.launcher import ServerProcess
from solver.game import tiles as T
from solver.game.game_record import read_game
from solver.hidden.dealer import Dealer
from texas42.v1 import game_pb2 as game_pb
from texas42.v1 import hint_service_pb2 as hs
from texas42.v1 import hint_service_pb2_grpc as service_grpc
from texas42.v1 import position_pb2 as pb
from texas42.v1 import table_pb2 as table_pb

TIMEOUT = 120
FIELD = {"N": "north", "E": "east", "S": "south", "W": "west"}
RESPONSES = {"DealHand": table_pb.DealHandResponse, "CheckGame": hs.CheckGameResponse,
             "NextAction": hs.NextActionResponse, "RevealHand": table_pb.RevealHandResponse,
             "TakeWidow": table_pb.TakeWidowResponse}


@pytest.fixture(scope="module")
def key_file(tmp_path_factory):
    return str(tmp_path_factory.mktemp("table-key") / "table.key")


@pytest.fixture(scope="module")
def table_server(key_file):
    with ServerProcess("--workers", "2", "--http-port", "0", "--table-key", key_file) as proc:
        yield proc


@pytest.fixture(scope="module")
def table_stub(table_server):
    with grpc.insecure_channel(table_server.address) as channel:
        yield service_grpc.HintServiceStub(channel)


class Client:
    """One transport's calls; every answer is kept as JSON (the token left out) for the
    leak scan."""

    def __init__(self, server, stub, transport: str) -> None:
        self.server, self.stub, self.transport = server, stub, transport

    def __call__(self, method: str, request: Any) -> Any:
        if self.transport == "grpc":
            return getattr(self.stub, method)(request, timeout=TIMEOUT)
        status, body = connect_json(self.server, method, request)
        assert status == 200, body
        return json_format.ParseDict(body, RESPONSES[method]())


def _json_without_token(message: Any) -> str:
    data = json_format.MessageToDict(message)
    data.pop("sealed", None)
    return json.dumps(data)


_QUOTED_TILE = re.compile(r'"([0-6]-[0-6])"')


def assert_no_leak(message: Any, hidden: set[str]) -> None:
    shown = set(_QUOTED_TILE.findall(_json_without_token(message)))
    assert not shown & hidden, f"hidden tiles {shown & hidden} in {message}"


def _winning_call(auction) -> game_pb.GameCall:
    bids = [c for c in auction if c.bid or c.kind in (pb.CONTRACT_KIND_PLUNGE,
                                                      pb.CONTRACT_KIND_SPLASH)]
    return bids[-1]


def _contract(auction, declaration: int, doubles: int) -> pb.Contract:
    top = _winning_call(auction)
    kind = top.kind or pb.CONTRACT_KIND_STANDARD
    bid = top.bid or {pb.CONTRACT_KIND_PLUNGE: 168, pb.CONTRACT_KIND_SPLASH: 84}[kind]
    return pb.Contract(declarer=top.seat, declaration=declaration, bid=bid, kind=kind,
                       doubles=doubles)


def drive_hand(call: Client, game: str, players: int, seat: str, seed: int, *,
               bot: str = "rule", person: str = "random", earlier: dict | None = None,
               compare: bool = True) -> dict:
    """Play one hand at ``seat`` through the API; returns what happened."""
    rng = random.Random(seed)
    header = earlier or {"game": game, "first_shaker": "N",
                         **({"players": players} if game == "moon" else {})}
    record = record_from_json(header)
    dealt = call("DealHand", table_pb.DealHandRequest(record=record, seat=ENUM_OF_SEAT[seat],
                                                      seed=seed))
    deal = Dealer(game, players).deal(seed=seed)
    truth = deal.hands
    widow = deal.widow
    assert list(dealt.hand) == truth[seat]
    again = call("DealHand", table_pb.DealHandRequest(record=record, seat=ENUM_OF_SEAT[seat],
                                                      seed=seed))
    assert list(again.hand) == truth[seat]
    token = dealt.sealed
    unseen = {t for s, tiles in truth.items() if s != seat for t in tiles}
    if widow:
        unseen.add(widow)
    assert_no_leak(dealt, unseen)
    page = game_pb.GameRecord()
    page.CopyFrom(record)
    hand = page.hands.add()
    getattr(hand.hands, FIELD[seat]).extend(dealt.hand)
    discard = None   # the hand's discard, once made (the test's knowledge, not the page's)
    took_widow = bot_discarded = False
    steps = 0
    while True:
        steps += 1
        assert steps < 200
        check = call("CheckGame", hs.CheckGameRequest(record=page, sealed=token))
        played = set(hand.plays)
        # The widow is the person's once it won the auction (its legal discards show it).
        won = check.next.action == game_pb.GAME_ACTION_DISCARD and check.next.seat == \
            ENUM_OF_SEAT[seat]
        hidden = unseen - played - ({widow} if took_widow or won else set())
        assert_no_leak(check, hidden)
        if check.progress.over:
            break
        turn = check.next
        who = SEAT_OF_ENUM[turn.seat]
        if who == seat:
            assert check.HasField("legal")
            legal = check.legal
            if turn.action == game_pb.GAME_ACTION_CALL:
                calls = list(legal.calls)
                if person == "pass":
                    passes = [c for c in calls if not c.bid and not c.kind]
                    choice = (passes or calls[:2])[-1]
                elif person == "bid":
                    choice = max((c for c in calls if c.bid and c.bid < 21),
                                 key=lambda c: c.bid, default=calls[0])
                else:
                    choice = rng.choice(calls)
                hand.auction.add().CopyFrom(choice)
            elif turn.action == game_pb.GAME_ACTION_DECLARE:
                hand.contract.CopyFrom(_contract(hand.auction, rng.choice(legal.declarations),
                                                 pb.DOUBLES_OPTION_UNSPECIFIED))
            elif turn.action == game_pb.GAME_ACTION_DISCARD:
                took = call("TakeWidow", table_pb.TakeWidowRequest(record=page, sealed=token))
                assert took.widow == widow
                took_widow = True
                hand.widow = took.widow   # the declarer may show the widow it took
                assert sorted(legal.tiles) == sorted(truth[seat] + [widow])
                discard = rng.choice(list(legal.tiles))
                hand.contract.CopyFrom(_contract(hand.auction, rng.choice(legal.declarations),
                                                 pb.DOUBLES_OPTION_UNSPECIFIED))
                hand.discard = discard
            else:
                hand.plays.append(rng.choice(list(legal.tiles)))
            continue
        assert not check.HasField("legal")
        request = hs.NextActionRequest(record=page, seat=turn.seat, bot=bot, seed=seed + steps,
                                       sealed=token, advice_deals=8, hint_deals=4)
        answer = call("NextAction", request)
        assert not answer.HasField("figures")
        if compare:   # the same bot on the full record: the same answer, with figures
            full = game_pb.GameRecord()
            full.CopyFrom(page)
            full_hand = full.hands[-1]
            for s, tiles in truth.items():
                del getattr(full_hand.hands, FIELD[s])[:]
                getattr(full_hand.hands, FIELD[s]).extend(tiles)
            if widow:
                full_hand.widow = widow
            if discard and full_hand.HasField("contract"):
                full_hand.discard = discard
            plain = hs.NextActionRequest()
            plain.CopyFrom(request)
            plain.record.CopyFrom(full)
            plain.sealed = ""
            open_answer = call("NextAction", plain)
            expected = hs.NextActionResponse()
            expected.CopyFrom(open_answer)
            expected.ClearField("figures")
            expected.sealed = answer.sealed
            if answer.action == game_pb.GAME_ACTION_DISCARD:
                discard = open_answer.tile
                expected.tile = ""
            assert answer == expected
        # Every bot action comes with a new token that records it.
        assert answer.sealed and answer.sealed != token
        token = answer.sealed
        after = played | ({answer.tile} if answer.tile else set())
        assert_no_leak(answer, unseen - after - ({widow} if took_widow else set()))
        if answer.action == game_pb.GAME_ACTION_CALL:
            hand.auction.add().CopyFrom(answer.call)
        elif answer.action == game_pb.GAME_ACTION_DECLARE:
            hand.contract.CopyFrom(_contract(hand.auction, answer.declaration, answer.doubles))
        elif answer.action == game_pb.GAME_ACTION_DISCARD:
            assert not answer.tile
            bot_discarded = True
            hand.contract.CopyFrom(_contract(hand.auction, answer.declaration, answer.doubles))
        else:
            hand.plays.append(answer.tile)
    revealed = call("RevealHand", table_pb.RevealHandRequest(record=page, sealed=token))
    assert {s: list(getattr(revealed.hands, FIELD[s])) for s in truth} == truth
    assert revealed.seed == seed and revealed.widow == (widow or "")
    if discard is not None:
        assert revealed.discard == discard
    # The full record: the page's plus the revealed hands, a valid game record.
    full = game_pb.GameRecord()
    full.CopyFrom(page)
    for s in truth:
        del getattr(full.hands[-1].hands, FIELD[s])[:]
        getattr(full.hands[-1].hands, FIELD[s]).extend(getattr(revealed.hands, FIELD[s]))
    full.hands[-1].widow = revealed.widow
    if full.hands[-1].HasField("contract"):
        full.hands[-1].discard = revealed.discard
    checked = call("CheckGame", hs.CheckGameRequest(record=full))
    assert checked.progress == check.progress
    game_json = read_game(_record_json(full)).to_json()
    assert game_json["hands"][-1]["hands"] == truth
    return {"page": page, "full": full, "token": token, "truth": truth, "widow": widow,
            "discard": discard, "bot_discarded": bot_discarded, "took_widow": took_widow,
            "check": checked}


def _record_json(message: game_pb.GameRecord) -> dict:
    from server.game_convert import record_to_json
    return record_to_json(message)


@pytest.fixture(params=["grpc", "connect"])
def client(request, table_server, table_stub):
    return Client(table_server, table_stub, request.param)


@pytest.mark.parametrize("seed", [3, 11])
def test_42_hand_and_the_next(client, seed):
    """A 42 hand at S with advice bots, then the next hand dealt after it."""
    out = drive_hand(client, "42", 4, "S", seed, bot="advice")
    page = out["page"]
    assert page.hands[-1].HasField("contract") or not out["check"].hands[-1].HasField(
        "contract")
    # The next hand: the record with the revealed hand whole.
    full = out["full"]
    nxt = client("DealHand", table_pb.DealHandRequest(record=full, seat=pb.SEAT_SOUTH,
                                                      seed=seed + 1))
    assert len(nxt.hand) == 7
    assert nxt.sealed != out["token"]


@pytest.mark.parametrize("seed", [5, 8])
def test_moon_four_players(client, seed):
    drive_hand(client, "moon", 4, "W", seed)


@pytest.mark.parametrize("person,seed", [("bid", 4), ("pass", 6), ("bid", 9), ("pass", 12)])
def test_moon_three_players(client, person, seed):
    out = drive_hand(client, "moon", 3, "E", seed, person=person)
    if person == "bid":   # the person outbids the bots here, takes the widow, discards
        assert out["took_widow"] and not out["bot_discarded"] and out["discard"]
    if person == "pass":
        assert out["bot_discarded"] and out["discard"]


def test_check_game_legal_and_progress_without_token(table_stub):
    """legal and progress for everyone, from the game layer: a whole played 42 hand."""
    deal = Dealer("42").deal(seed=1)
    hands = deal.hands
    record = {"game": "42", "first_shaker": "N",
              "hands": [{"hands": hands, "auction": []}]}
    answer = table_stub.CheckGame(hs.CheckGameRequest(record=record_from_json(record)),
                                  timeout=TIMEOUT)
    assert [c.bid for c in answer.legal.calls][:3] == [0, 30, 31]
    assert all(c.seat == pb.SEAT_EAST for c in answer.legal.calls)
    record["hands"][0]["auction"] = [{"seat": "E", "bid": 30}, {"seat": "S", "bid": "pass"},
                                     {"seat": "W", "bid": "pass"}, {"seat": "N", "bid": "pass"}]
    answer = table_stub.CheckGame(hs.CheckGameRequest(record=record_from_json(record)),
                                  timeout=TIMEOUT)
    assert pb.DECLARATION_FOLLOW_ME in answer.legal.declarations
    assert pb.DECLARATION_SEVENS not in answer.legal.declarations
    assert list(answer.legal.doubles) == [pb.DOUBLES_OPTION_HIGH, pb.DOUBLES_OPTION_LOW,
                                          pb.DOUBLES_OPTION_SUIT]
    record["hands"][0]["contract"] = {"declarer": "E", "trump": "sixes", "bid": 30}
    game = read_game(record)
    plays = []
    while len(plays) < 28:
        plays.append(game.legal_plays()[0])
        record["hands"][0]["plays"] = plays
        game = read_game(record)
    answer = table_stub.CheckGame(hs.CheckGameRequest(record=record_from_json(record)),
                                  timeout=TIMEOUT)
    pos = game.hands[0].position
    assert len(answer.progress.tricks) == 7 and answer.progress.over
    for trick, (winner, played) in zip(answer.progress.tricks, pos.completed_tricks):
        assert trick.winner == ENUM_OF_SEAT["NESW"[winner]]
        assert list(trick.tiles) == [T.name_of(t) for _, t in played]
        assert trick.taken_by == ("NS", "EW")[winner % 2]
    assert sum(t.points for t in answer.progress.tricks) == 42
    assert answer.progress.taken["EW"] == pos.points
    assert answer.progress.made == answer.hands[0].made
    assert not answer.HasField("legal") or not answer.legal.tiles


# ------------------------------------------------------------------ refusals


def _started(stub, seat=pb.SEAT_SOUTH, seed=21, first_shaker="N"):
    record = record_from_json({"game": "42", "first_shaker": first_shaker})
    dealt = stub.DealHand(table_pb.DealHandRequest(record=record, seat=seat, seed=seed),
                          timeout=TIMEOUT)
    page = game_pb.GameRecord()
    page.CopyFrom(record)
    hand = page.hands.add()
    getattr(hand.hands, FIELD[SEAT_OF_ENUM[seat]]).extend(dealt.hand)
    if first_shaker == "N":   # E calls first: the bot's call, as NextAction gives it
        bot = stub.NextAction(hs.NextActionRequest(record=page, seat=pb.SEAT_EAST, bot="rule",
                                                   seed=seed, sealed=dealt.sealed),
                              timeout=TIMEOUT)
        hand.auction.append(bot.call)
        dealt = table_pb.DealHandResponse(sealed=bot.sealed, hand=dealt.hand)
    return page, dealt


def _flip(token: str, at: int) -> str:
    c = token[at]
    return token[:at] + ("A" if c != "A" else "B") + token[at + 1:]


def test_bad_tokens_are_refused(table_stub):
    page, dealt = _started(table_stub)
    check = lambda token: table_stub.CheckGame(
        hs.CheckGameRequest(record=page, sealed=token), timeout=TIMEOUT)
    check(dealt.sealed)
    for bad in (_flip(dealt.sealed, len(dealt.sealed) // 2), _flip(dealt.sealed, 5),
                dealt.sealed[:-4], "garbage", "é" * 10, "x" * 5000):
        assert_invalid(lambda bad=bad: check(bad), "sealed", "SEALED_INVALID")
    with pytest.raises(grpc.RpcError) as err:
        check("garbage")
    assert "start a new hand" in bad_request(err.value)[0][0][1]
    # another key: a server without the key file
    with ServerProcess("--workers", "1") as other, grpc.insecure_channel(other.address) as ch:
        other_stub = service_grpc.HintServiceStub(ch)
        _, foreign = _started(other_stub)
        assert_invalid(lambda: check(foreign.sealed), "sealed", "SEALED_INVALID")
        assert_invalid(lambda: other_stub.CheckGame(hs.CheckGameRequest(
            record=page, sealed=dealt.sealed), timeout=TIMEOUT), "sealed", "SEALED_INVALID")


def test_token_of_another_game_or_hand(table_stub, client):
    out = drive_hand(client, "42", 4, "N", 31, compare=False)
    full = out["full"]
    # One more earlier hand: the token of the first hand with the second.
    second = client("DealHand", table_pb.DealHandRequest(record=full, seat=pb.SEAT_NORTH,
                                                         seed=32))
    longer = game_pb.GameRecord()
    longer.CopyFrom(full)
    longer.hands.add()
    call = lambda record, token: table_stub.CheckGame(
        hs.CheckGameRequest(record=record, sealed=token), timeout=TIMEOUT)
    call(longer, second.sealed)
    assert_invalid(lambda: call(longer, out["token"]), "sealed", "SEALED_MISMATCH")
    # One less: the second hand's token on the first hand.
    assert_invalid(lambda: call(out["page"], second.sealed), "sealed", "SEALED_MISMATCH")
    # Another game: another first shaker, or an earlier hand changed.
    _, dealt = _started(table_stub, first_shaker="E")
    other, _ = _started(table_stub, first_shaker="N")
    assert_invalid(lambda: call(other, dealt.sealed), "sealed", "SEALED_MISMATCH")
    changed = game_pb.GameRecord()
    changed.CopyFrom(longer)
    changed.id = "renamed"   # free data: still the same game
    call(changed, second.sealed)
    changed.rules.all_pass = game_pb.ALL_PASS_RULE_FORCED
    assert_invalid(lambda: call(changed, second.sealed), "sealed", "SEALED_MISMATCH")
    moon = record_from_json({"game": "moon", "first_shaker": "N"})
    moon.hands.add()
    assert_invalid(lambda: call(moon, dealt.sealed), "sealed", "SEALED_MISMATCH")


def test_tiles_that_disagree_with_the_token(table_stub):
    page, dealt = _started(table_stub)
    truth = Dealer("42").deal(seed=21).hand_ids
    call = lambda record: table_stub.CheckGame(
        hs.CheckGameRequest(record=record, sealed=dealt.sealed), timeout=TIMEOUT)
    empty = game_pb.GameRecord()
    empty.CopyFrom(page)
    empty.hands[0].ClearField("hands")
    call(empty)   # the person's tiles may be left out
    wrong = game_pb.GameRecord()
    wrong.CopyFrom(page)
    del wrong.hands[0].hands.south[0]
    wrong.hands[0].hands.south.append(T.name_of(truth[1][0]))
    assert_invalid(lambda: call(wrong), "record.hands[0].hands.south", "SEALED_HAND_MISMATCH")
    other = game_pb.GameRecord()
    other.CopyFrom(page)
    other.hands[0].hands.east.extend(T.name_of(t) for t in truth[1])
    assert_invalid(lambda: call(other), "record.hands[0].hands.east", "HIDDEN_HAND_GIVEN")


def test_reveal_and_widow_refused_at_the_wrong_time(table_stub):
    page, dealt = _started(table_stub)
    with pytest.raises(grpc.RpcError) as err:
        table_stub.RevealHand(table_pb.RevealHandRequest(record=page, sealed=dealt.sealed),
                              timeout=TIMEOUT)
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "not over" in err.value.details()
    with pytest.raises(grpc.RpcError) as err:
        table_stub.TakeWidow(table_pb.TakeWidowRequest(record=page, sealed=dealt.sealed),
                             timeout=TIMEOUT)
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    # Three-player Moon, the person at S passes: a bot wins, the person may not take the
    # widow.
    record = record_from_json({"game": "moon", "first_shaker": "N"})
    dealt = table_stub.DealHand(table_pb.DealHandRequest(record=record, seat=pb.SEAT_SOUTH,
                                                         seed=2), timeout=TIMEOUT)
    hand = record.hands.add()
    token = dealt.sealed

    def bot_call(seat):
        nonlocal token
        got = table_stub.NextAction(hs.NextActionRequest(record=record, seat=seat, bot="rule",
                                                         seed=2, sealed=token),
                                    timeout=TIMEOUT)
        hand.auction.append(got.call)
        token = got.sealed

    take = lambda: table_stub.TakeWidow(
        table_pb.TakeWidowRequest(record=record, sealed=token), timeout=TIMEOUT)
    bot_call(pb.SEAT_EAST)
    with pytest.raises(grpc.RpcError) as err:
        take()
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "auction is not over" in err.value.details()
    hand.auction.append(game_pb.GameCall(seat=pb.SEAT_SOUTH))
    bot_call(pb.SEAT_NORTH)
    winner = _winning_call(hand.auction).seat
    assert winner != pb.SEAT_SOUTH
    with pytest.raises(grpc.RpcError) as err:
        take()
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert f"{SEAT_OF_ENUM[winner]} won the auction" in err.value.details()
    dealt = table_pb.DealHandResponse(sealed=token, hand=dealt.hand)
    # The page may not pass a widow or discard it was never shown.
    widow = Dealer("moon", 3).deal(seed=2).widow_id
    hand.widow = T.name_of(widow)
    assert_invalid(lambda: table_stub.CheckGame(hs.CheckGameRequest(
        record=record, sealed=dealt.sealed), timeout=TIMEOUT), "record.hands[0].widow",
        "HIDDEN_TILE_GIVEN")
    hand.widow = ""
    hand.contract.CopyFrom(_contract(hand.auction, pb.DECLARATION_SIXES, 0))
    hand.discard = T.name_of(widow)
    assert_invalid(lambda: table_stub.CheckGame(hs.CheckGameRequest(
        record=record, sealed=dealt.sealed), timeout=TIMEOUT), "record.hands[0].discard",
        "HIDDEN_TILE_GIVEN")
    # The cheat bot does not play the person's own seat (it sees the sealed hands).
    page, dealt = _started(table_stub)
    assert_invalid(lambda: table_stub.NextAction(hs.NextActionRequest(
        record=page, sealed=dealt.sealed, seat=pb.SEAT_SOUTH, bot="cheat"), timeout=TIMEOUT),
        "bot", "INVALID_VALUE")


def test_table_key_file_shared_by_two_servers(table_stub, key_file):
    """Servers with the same key file accept each other's tokens; the file is 0600; the
    key in T42_TABLE_KEY works too; a server with another key refuses them."""
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    page, dealt = _started(table_stub)
    request = hs.CheckGameRequest(record=page, sealed=dealt.sealed)
    with open(key_file, encoding="ascii") as f:
        key = f.read().strip()
    for args, env in ((("--table-key", key_file), None), ((), {"T42_TABLE_KEY": key}),
                      ((), None)):
        with ServerProcess("--workers", "1", *args, env=env) as other, \
                grpc.insecure_channel(other.address) as ch:
            other_stub = service_grpc.HintServiceStub(ch)
            if args or env:
                answer = other_stub.CheckGame(request, timeout=TIMEOUT)
                assert answer.next.seat == pb.SEAT_SOUTH and answer.HasField("legal")
                their_page, theirs = _started(other_stub, seed=40)
                truth = Dealer("42").deal(seed=40).hands["S"]
                assert list(theirs.hand) == truth
                table_stub.CheckGame(hs.CheckGameRequest(record=their_page, sealed=theirs.sealed),
                                     timeout=TIMEOUT)
            else:
                assert_invalid(lambda stub=other_stub: stub.CheckGame(request, timeout=TIMEOUT),
                               "sealed", "SEALED_INVALID")


def test_new_key_file_is_created(tmp_path):
    path = tmp_path / "new.key"
    with ServerProcess("--workers", "1", "--table-key", str(path)):
        pass
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(path.read_text().strip()) == 44


def test_a_bot_action_the_server_did_not_give_is_refused(table_stub):
    """The record cannot try out guesses of a bot's tiles or calls: a play, call or
    declaration of a bot's seat that NextAction did not answer is refused alike, whether
    the bot holds the tile or not."""
    record = record_from_json({"game": "42", "first_shaker": "W"})
    dealt = table_stub.DealHand(table_pb.DealHandRequest(record=record, seat=pb.SEAT_SOUTH,
                                                         seed=50), timeout=TIMEOUT)
    truth = Dealer("42").deal(seed=50).hand_ids
    hand = record.hands.add()
    token = dealt.sealed
    check = lambda token: table_stub.CheckGame(
        hs.CheckGameRequest(record=record, sealed=token), timeout=TIMEOUT)
    # N calls first: a forged plunge (or a pass) for N is refused the same way.
    for forged in (game_pb.GameCall(seat=pb.SEAT_NORTH, kind=pb.CONTRACT_KIND_PLUNGE),
                   game_pb.GameCall(seat=pb.SEAT_NORTH)):
        hand.auction.append(forged)
        assert_invalid(lambda: check(token), "record.hands[0].auction[0]",
                       "NOT_THE_BOTS_ACTION")
        del hand.auction[:]
    answer = table_stub.NextAction(hs.NextActionRequest(record=record, seat=pb.SEAT_NORTH,
                                                        bot="rule", seed=1, sealed=token),
                                   timeout=TIMEOUT)
    assert answer.sealed and answer.sealed != token
    hand.auction.append(answer.call)
    assert_invalid(lambda: check(token), "record.hands[0].auction[0]", "NOT_THE_BOTS_ACTION")
    token = answer.sealed
    check(token)
    # The token's call may not be dropped either.
    del hand.auction[:]
    assert_invalid(lambda: check(token), "record.hands[0].auction", "NOT_THE_BOTS_ACTION")
    hand.auction.append(answer.call)
    # Play the hand to the first bot play, then forge it: a tile the bot holds and one it
    # does not are refused alike.
    def act(seat):
        nonlocal token
        got = table_stub.NextAction(hs.NextActionRequest(record=record, seat=seat, bot="rule",
                                                         seed=1, sealed=token),
                                    timeout=TIMEOUT)
        token = got.sealed or token
        return got
    while True:
        state = check(token)
        if state.next.action == game_pb.GAME_ACTION_PLAY and state.next.seat != pb.SEAT_SOUTH:
            break
        if state.next.seat == pb.SEAT_SOUTH:
            if state.next.action == game_pb.GAME_ACTION_CALL:
                hand.auction.append(state.legal.calls[0])
            elif state.next.action == game_pb.GAME_ACTION_DECLARE:
                hand.contract.CopyFrom(_contract(hand.auction, state.legal.declarations[0], 0))
            else:
                hand.plays.append(state.legal.tiles[0])
            continue
        got = act(state.next.seat)
        if got.action == game_pb.GAME_ACTION_CALL:
            hand.auction.append(got.call)
        elif got.action == game_pb.GAME_ACTION_DECLARE:
            hand.contract.CopyFrom(_contract(hand.auction, got.declaration, got.doubles))
    bot = "NESW"[state.next.seat - pb.SEAT_NORTH]
    index = len(hand.plays)
    held = T.name_of(truth["NESW".index(bot)][0])
    other = next(T.name_of(t) for s, tiles in truth.items() if s not in ("NESW".index(bot), 2)
                 for t in tiles)
    for forged in (held, other):
        hand.plays.append(forged)
        with pytest.raises(grpc.RpcError) as err:
            check(token)
        violations, code = bad_request(err.value)
        assert (violations[0][0], code) == (f"record.hands[0].plays[{index}]",
                                             "NOT_THE_BOTS_ACTION")
        assert forged not in violations[0][1]
        del hand.plays[-1]
    if hand.HasField("contract") and hand.contract.declarer != pb.SEAT_SOUTH and \
            hand.contract.kind in (0, pb.CONTRACT_KIND_STANDARD):
        changed = game_pb.GameRecord()
        changed.CopyFrom(record)
        decl = changed.hands[0].contract.declaration
        changed.hands[0].contract.declaration = pb.DECLARATION_BLANKS \
            if decl != pb.DECLARATION_BLANKS else pb.DECLARATION_ONES
        assert_invalid(lambda: table_stub.CheckGame(hs.CheckGameRequest(
            record=changed, sealed=token), timeout=TIMEOUT),
            "record.hands[0].contract.declaration", "NOT_THE_BOTS_ACTION")
