"""The table RPCs on a real server (gRPC and Connect on 127.0.0.1): a person plays one
seat of a game against bots, and the table (kept in the server's table database) is
the authority: DealHand, NextAction and CheckGame with ``sealed``, TakeWidow,
RevealHand, ResumeTable.

Whole hands of 42, four-player and three-player Moon are driven through the API as a
client would: every answer is scanned for tiles the person has not seen (the truth is
read from the server's database file, which the test owns); a rule bot's answer at the
table is the same bot's answer on the full record; at the end the revealed deal is the
table's. Then each way a person could learn or change what it must not (the issue's
items 1-6) is tried, at every turn of a whole game, and refused.
"""

from __future__ import annotations

import json
import os
import random
import re
import sqlite3
import stat
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from grpc_helpers import bad_request, connect_json

from server.convert import ENUM_OF_SEAT
from server.game_convert import record_from_json, record_to_json
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
             "TakeWidow": table_pb.TakeWidowResponse,
             "ResumeTable": table_pb.ResumeTableResponse,
             "ListBots": table_pb.ListBotsResponse}


@pytest.fixture(scope="module")
def table_db(tmp_path_factory):
    return str(tmp_path_factory.mktemp("tables") / "tables.sqlite")


@pytest.fixture(scope="module")
def table_server(table_db):
    with ServerProcess("--workers", "2", "--http-port", "0", "--table-db", table_db) as proc:
        yield proc


@pytest.fixture(scope="module")
def table_stub(table_server):
    with grpc.insecure_channel(table_server.address) as channel:
        yield service_grpc.HintServiceStub(channel)


class Failed(Exception):
    """A refused call, the same over both transports: (status name, field, code)."""

    def __init__(self, status: str, field: str, code: str, text: str) -> None:
        super().__init__(f"{status} {field} {code}: {text}")
        self.status, self.field, self.code, self.text = status, field, code, text


_CONNECT_STATUS = {"invalid_argument": "INVALID_ARGUMENT",
                   "failed_precondition": "FAILED_PRECONDITION"}


class Client:
    """One transport's calls; a refusal is raised as `Failed`."""

    def __init__(self, server, stub, transport: str) -> None:
        self.server, self.stub, self.transport = server, stub, transport

    def __call__(self, method: str, request: Any) -> Any:
        if self.transport == "grpc":
            try:
                return getattr(self.stub, method)(request, timeout=TIMEOUT)
            except grpc.RpcError as err:
                if err.code() == grpc.StatusCode.INVALID_ARGUMENT:
                    violations, code = bad_request(err)
                    raise Failed("INVALID_ARGUMENT", violations[0][0], code,
                                 err.details()) from None
                raise Failed(err.code().name, "", "", err.details()) from None
        status, body = connect_json(self.server, method, request)
        if status != 200:
            details = {d.get("type", ""): d for d in body.get("details", [])}
            info = next((d.get("debug", {}) for t, d in details.items() if "ErrorInfo" in t),
                        {})
            raise Failed(_CONNECT_STATUS.get(body["code"], body["code"]),
                         info.get("metadata", {}).get("field", ""), info.get("reason", ""),
                         body.get("message", ""))
        return json_format.ParseDict(body, RESPONSES[method]())

    def refused(self, method: str, request: Any) -> Failed:
        with pytest.raises(Failed) as err:
            self(method, request)
        return err.value


@pytest.fixture(params=["grpc", "connect"])
def client(request, table_server, table_stub):
    return Client(table_server, table_stub, request.param)


def table_truth(db: str, token: str) -> dict[str, Any]:
    """The table's state as stored (the test's view behind the server's back)."""
    with sqlite3.connect(db) as con:
        row = con.execute("SELECT state FROM tables WHERE id = ?",
                          (token.split(".")[0],)).fetchone()
    return json.loads(row[0])


_QUOTED_TILE = re.compile(r'"([0-6]-[0-6])"')


def assert_no_leak(message: Any, hidden: set[str]) -> None:
    data = json_format.MessageToDict(message)
    data.pop("sealed", None)
    shown = set(_QUOTED_TILE.findall(json.dumps(data)))
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


def _copy(record: game_pb.GameRecord) -> game_pb.GameRecord:
    out = game_pb.GameRecord()
    out.CopyFrom(record)
    return out


def new_table(call: Client, game: str, players: int, seat: str, bot: str = "rule",
              first_shaker: str = "N") -> tuple[game_pb.GameRecord, table_pb.DealHandResponse]:
    header = record_from_json({"game": game, "first_shaker": first_shaker,
                               **({"players": players} if game == "moon" else {})})
    bots = [table_pb.TableBot(seat=ENUM_OF_SEAT[s], bot=bot, advice_deals=8, hint_deals=4)
            for s in "NESW"[:players] if s != seat]
    dealt = call("DealHand", table_pb.DealHandRequest(record=header, seat=ENUM_OF_SEAT[seat],
                                                      bots=bots))
    page = _copy(header)
    getattr(page.hands.add().hands, FIELD[seat]).extend(dealt.hand)
    return page, dealt


class Person:
    """The person's side of a hand: its page (the record as it sees it), its token, and
    what the test knows behind its back."""

    def __init__(self, call: Client, db: str, page: game_pb.GameRecord, token: str,
                 seat: str, rng: random.Random, style: str = "random") -> None:
        self.call, self.db, self.page, self.token = call, db, page, token
        self.seat, self.rng, self.style = seat, rng, style
        self.hand = page.hands[-1]
        state = table_truth(db, token)
        dealt = state["record"]["hands"][-1]
        self.truth = dealt["hands"]
        self.widow = dealt.get("widow")
        self.took_widow = self.bot_discarded = False
        self.discard: str | None = None

    @property
    def hidden(self) -> set[str]:
        unseen = {t for s, tiles in self.truth.items() if s != self.seat for t in tiles}
        if self.widow and not self.took_widow:
            unseen.add(self.widow)
        return unseen - set(self.hand.plays)

    def check(self) -> hs.CheckGameResponse:
        answer = self.call("CheckGame", hs.CheckGameRequest(record=self.page, sealed=self.token))
        won = answer.next.action == game_pb.GAME_ACTION_DISCARD and \
            answer.next.seat == ENUM_OF_SEAT[self.seat]
        if not answer.progress.over:   # once over, the deal may be shown (RevealHand)
            assert_no_leak(answer, self.hidden - ({self.widow} if won else set()))
        return answer

    def act(self, check: hs.CheckGameResponse) -> None:
        """The person's own action, chosen from the legal ones."""
        legal, turn, rng = check.legal, check.next, self.rng
        if turn.action == game_pb.GAME_ACTION_CALL:
            calls = list(legal.calls)
            if self.style == "pass":
                passes = [c for c in calls if not c.bid and not c.kind]
                choice = (passes or calls[:2])[-1]
            elif self.style == "bid":
                choice = max((c for c in calls if c.bid and c.bid < 21),
                             key=lambda c: c.bid, default=calls[0])
            else:
                choice = rng.choice(calls)
            self.hand.auction.add().CopyFrom(choice)
        elif turn.action == game_pb.GAME_ACTION_DECLARE:
            self.hand.contract.CopyFrom(_contract(self.hand.auction,
                                                  rng.choice(legal.declarations), 0))
        elif turn.action == game_pb.GAME_ACTION_DISCARD:
            took = self.call("TakeWidow", table_pb.TakeWidowRequest(record=self.page,
                                                                     sealed=self.token))
            assert took.widow == self.widow
            self.took_widow = True
            self.hand.widow = took.widow
            assert sorted(legal.tiles) == sorted(self.truth[self.seat] + [self.widow])
            self.discard = rng.choice(list(legal.tiles))
            self.hand.contract.CopyFrom(_contract(self.hand.auction,
                                                  rng.choice(legal.declarations), 0))
            self.hand.discard = self.discard
        else:
            self.hand.plays.append(rng.choice(list(legal.tiles)))

    def bot(self, check: hs.CheckGameResponse, compare: bool) -> hs.NextActionResponse:
        """The bot to act acts (asked twice: the same answer, the same token)."""
        assert not check.HasField("legal")
        request = hs.NextActionRequest(record=self.page, seat=check.next.seat,
                                       sealed=self.token)
        answer = self.call("NextAction", request)
        assert self.call("NextAction", request) == answer
        assert not answer.HasField("figures") and answer.sealed == self.token
        if compare:   # a rule bot at the table answers as on the full record
            full = self.full_record()
            plain = self.call("NextAction", hs.NextActionRequest(
                record=full, seat=check.next.seat, bot="rule"))
            if answer.action == game_pb.GAME_ACTION_DISCARD:
                self.discard = plain.tile
                plain.tile = ""
            plain.ClearField("figures")
            plain.sealed = self.token
            assert answer == plain
        assert_no_leak(answer, self.hidden - ({answer.tile} if answer.tile else set()))
        if answer.action == game_pb.GAME_ACTION_CALL:
            self.hand.auction.add().CopyFrom(answer.call)
        elif answer.action in (game_pb.GAME_ACTION_DECLARE, game_pb.GAME_ACTION_DISCARD):
            self.bot_discarded = answer.action == game_pb.GAME_ACTION_DISCARD
            self.hand.contract.CopyFrom(_contract(self.hand.auction, answer.declaration,
                                                  answer.doubles))
        else:
            self.hand.plays.append(answer.tile)
        return answer

    def full_record(self) -> game_pb.GameRecord:
        full = _copy(self.page)
        hand = full.hands[-1]
        for s, tiles in self.truth.items():
            del getattr(hand.hands, FIELD[s])[:]
            getattr(hand.hands, FIELD[s]).extend(tiles)
        if self.widow:
            hand.widow = self.widow
        state = table_truth(self.db, self.token)
        discard = (state["record"]["hands"][-1].get("contract") or {}).get("discard")
        if discard and hand.HasField("contract"):
            hand.discard = discard
        return full

    def reveal(self) -> table_pb.RevealHandResponse:
        revealed = self.call("RevealHand", table_pb.RevealHandRequest(record=self.page,
                                                                      sealed=self.token))
        assert {s: list(getattr(revealed.hands, FIELD[s])) for s in self.truth} == self.truth
        assert revealed.widow == (self.widow or "")
        for s in self.truth:
            del getattr(self.hand.hands, FIELD[s])[:]
            getattr(self.hand.hands, FIELD[s]).extend(getattr(revealed.hands, FIELD[s]))
        self.hand.widow = revealed.widow
        if self.hand.HasField("contract"):
            self.hand.discard = revealed.discard
        return revealed


def play_hand(person: Person, compare: bool = True,
              every_turn: Any = None) -> hs.CheckGameResponse:
    """Play the hand to its end (or until it is decided); returns the last check."""
    for _ in range(200):
        check = person.check()
        if every_turn is not None:
            every_turn(person, check)
        if check.progress.over:
            return check
        if check.next.seat == ENUM_OF_SEAT[person.seat]:
            person.act(check)
        else:
            person.bot(check, compare)
    raise AssertionError("the hand did not end")


@pytest.mark.parametrize("game,players,seat,style", [
    ("42", 4, "S", "random"), ("moon", 4, "W", "random"), ("moon", 3, "E", "bid"),
    ("moon", 3, "E", "pass")])
def test_a_hand_at_the_table(client, table_db, game, players, seat, style):
    """A whole hand through the API: no hidden tile in any answer, the rule bot's answers
    those of the same bot on the full record, the revealed deal the table's, the record
    then a valid game, and the next hand dealt once (asked twice: the same)."""
    page, dealt = new_table(client, game, players, seat)
    assert not dealt.practice and dealt.carried == 0
    person = Person(client, table_db, page, dealt.sealed, seat, random.Random(7), style)
    assert list(dealt.hand) == person.truth[seat]
    assert_no_leak(dealt, person.hidden)
    play_hand(person)
    if style == "bid":   # the person outbids the bots, takes the widow, discards
        assert person.took_widow and not person.bot_discarded and person.discard
    if style == "pass":
        assert person.bot_discarded and person.discard
    revealed = person.reveal()
    if person.discard:
        assert revealed.discard == person.discard
    seats = [d.seat for d in revealed.decisions]
    assert seats and ENUM_OF_SEAT[seat] not in seats   # every bot decision, none of the person's
    read_game(record_to_json(page))   # the page's record, revealed, is a valid game
    nxt = client("DealHand", table_pb.DealHandRequest(record=page, sealed=dealt.sealed))
    again = client("DealHand", table_pb.DealHandRequest(record=page, sealed=dealt.sealed))
    assert (list(again.hand), again.sealed) == (list(nxt.hand), nxt.sealed)
    assert nxt.sealed != dealt.sealed
    assert list(nxt.hand) == table_truth(table_db, nxt.sealed)["record"]["hands"][1][
        "hands"][seat]


# ------------------------------------------------ the items 1-6, at every turn


def _other_tiles(person: Person) -> list[str]:
    return sorted(person.hidden)


def hostile(person: Person, check: hs.CheckGameResponse) -> None:
    """At this turn, try each way to learn or change what the person must not; each is
    refused, and the refusal is the same whatever the hidden tiles are."""
    call, page, token = person.call, person.page, person.token
    hand = person.hand
    # 1. The deal is the table's: a seed is refused at a sealed table.
    failed = call.refused("DealHand", table_pb.DealHandRequest(record=page, sealed=token,
                                                               seed=12345))
    assert failed.code == "SEED_AT_SEALED_TABLE"
    # 2. A bot's turn cannot be re-rolled: another bot or seed for it is refused.
    if not check.progress.over and check.next.seat != ENUM_OF_SEAT[person.seat]:
        for change in ({"bot": "random"}, {"seed": 99}, {"hint_deals": 5}):
            failed = call.refused("NextAction", hs.NextActionRequest(
                record=page, seat=check.next.seat, sealed=token, **change))
            assert failed.code == "TABLE_BOT_FIXED", change
    # 3. No take-back: the person's last recorded action, changed, is refused.
    mine = [i for i, c in enumerate(hand.auction) if c.seat == ENUM_OF_SEAT[person.seat]]
    if mine:
        changed = _copy(page)
        target = changed.hands[-1].auction[mine[-1]]
        target.bid, target.kind = (0, 0) if target.bid or target.kind else (41, 0)
        assert call.refused("CheckGame", hs.CheckGameRequest(
            record=changed, sealed=token)).code == "TAKEN_BACK"
    # 4/6. A bot's action the table did not make is refused alike for every tile: a
    # guessed play for the bot to play, and (three-player Moon, before the auction is
    # over) a made-up contract naming the person as declarer with a guessed play.
    answers = set()
    if check.next.action == game_pb.GAME_ACTION_PLAY and \
            check.next.seat != ENUM_OF_SEAT[person.seat]:
        for tile in _other_tiles(person)[:6]:
            forged = _copy(page)
            forged.hands[-1].plays.append(tile)
            failed = call.refused("CheckGame", hs.CheckGameRequest(record=forged, sealed=token))
            assert tile not in failed.text
            answers.add((failed.status, failed.field, failed.code, failed.text))
        assert len(answers) == 1 and next(iter(answers))[2] == "NOT_THE_BOTS_ACTION"
    if check.next.action == game_pb.GAME_ACTION_CALL and not hand.HasField("contract"):
        answers = set()
        for tile in _other_tiles(person)[:6] + ([person.widow] if person.widow else []):
            forged = _copy(page)
            fh = forged.hands[-1]
            fh.contract.CopyFrom(pb.Contract(declarer=ENUM_OF_SEAT[person.seat],
                                             declaration=pb.DECLARATION_SIXES, bid=30
                                             if fh.hands else 4,
                                             kind=pb.CONTRACT_KIND_STANDARD))
            fh.plays.append(tile)
            failed = call.refused("CheckGame", hs.CheckGameRequest(record=forged, sealed=token))
            answers.add((failed.status, failed.field, failed.code, failed.text))
        assert len(answers) == 1, answers
    # 4. Forged history: an earlier hand with a bot's call changed is refused.
    if len(page.hands) > 1:
        forged = _copy(page)
        earlier = forged.hands[0]
        bot_call = next(c for c in earlier.auction if c.seat != ENUM_OF_SEAT[person.seat])
        bot_call.bid, bot_call.kind = (84, 0) if bot_call.bid != 84 else (0, 0)
        failed = call.refused("CheckGame", hs.CheckGameRequest(record=forged, sealed=token))
        assert failed.code in ("RECORD_MISMATCH", "ILLEGAL_CALL", "CONTRACT_MISMATCH",
                               "BID_TOO_LOW", "AUCTION_MISMATCH") or failed.field.startswith(
                                   "record.hands[0]"), failed
        assert failed.field.startswith("record.hands[0]") or failed.field == "record"


def test_a_whole_sealed_game_refuses_every_cheat(client, table_db):
    """A whole 42 game at S against rule bots over HTTP/JSON and gRPC, trying items 1-6
    at every turn: each is refused; an older hand's token is refused once the table moved
    on; the next hand is dealt once; and the game ends with the table's record."""
    call = client
    page, dealt = new_table(call, "42", 4, "S")
    token, rng = dealt.sealed, random.Random(3)
    old_tokens = []
    for k in range(40):
        person = Person(call, table_db, page, token, "S", rng)
        play_hand(person, compare=False, every_turn=hostile)
        person.reveal()
        # 5. Deal shopping: the same hand of the same game is dealt once.
        try:
            nxt = call("DealHand", table_pb.DealHandRequest(record=page, sealed=token))
        except Failed as failed:
            assert failed.status == "FAILED_PRECONDITION" and "game is over" in failed.text
            break
        again = call("DealHand", table_pb.DealHandRequest(record=page, sealed=token))
        assert list(again.hand) == list(nxt.hand)
        # 3. An older token with another action, once the table moved on: refused.
        old_tokens.append(token)
        stale = _copy(page)
        south = [i for i, t in enumerate(stale.hands[-1].plays) if t in person.truth["S"]]
        if south:   # the person's last play, another of its tiles
            plays = stale.hands[-1].plays
            left = [t for t in person.truth["S"] if t not in plays]
            if left:
                plays[south[-1]] = left[0]
            else:   # every tile played: the last two in the other order
                plays[south[-1]], plays[south[-2]] = plays[south[-2]], plays[south[-1]]
        for method, request in (("CheckGame", hs.CheckGameRequest(record=stale, sealed=token)),
                                ("NextAction", hs.NextActionRequest(
                                    record=stale, seat=pb.SEAT_EAST, sealed=token))):
            failed = call.refused(method, request)
            if south:
                assert failed.status == "INVALID_ARGUMENT" and \
                    failed.field.startswith(f"record.hands[{k}]"), failed
            else:
                assert failed.status == "FAILED_PRECONDITION" and \
                    "continue with the latest token" in failed.text, failed
        token = nxt.sealed
        getattr(page.hands.add().hands, "south").extend(nxt.hand)
    else:
        raise AssertionError("the game did not end")
    state = table_truth(table_db, token)
    assert state["finished"]
    stored = read_game(state["record"])
    assert stored.is_over or len(stored.hands) == len(page.hands)
    assert len(old_tokens) == len(page.hands) - 1 >= 2


def test_resume_gives_the_person_view_and_the_latest_token(client, table_db):
    page, dealt = new_table(client, "42", 4, "S")
    person = Person(client, table_db, page, dealt.sealed, "S", random.Random(1))
    for _ in range(9):
        check = person.check()
        if check.next.seat == pb.SEAT_SOUTH:
            person.act(check)
        else:
            person.bot(check, compare=False)
    over = person.check().progress.over   # the person's last action recorded
    where = client("ResumeTable", table_pb.ResumeTableRequest(sealed=dealt.sealed))
    assert where.sealed == dealt.sealed and where.seat == pb.SEAT_SOUTH
    assert not where.practice and {b.seat for b in where.bots} == {
        pb.SEAT_NORTH, pb.SEAT_EAST, pb.SEAT_WEST}
    mine = where.record.hands[-1]
    assert list(mine.auction) == list(page.hands[-1].auction)
    assert list(mine.plays) == list(page.hands[-1].plays)
    assert sorted(mine.hands.south) == sorted(person.truth["S"])
    if over:   # decided already (a random bid the person cannot make): all shown
        assert sorted(mine.hands.north) == sorted(person.truth["N"])
    else:
        assert_no_leak(where, person.hidden)
        assert not mine.hands.north and not mine.hands.east and not mine.hands.west


def test_a_practice_table_deals_from_the_seed_and_says_so(client):
    header = record_from_json({"game": "42", "first_shaker": "N"})
    dealt = client("DealHand", table_pb.DealHandRequest(record=header, seat=pb.SEAT_SOUTH,
                                                        seed=12345, practice=True))
    assert dealt.practice
    assert list(dealt.hand) == Dealer("42", 4).deal(seed=12345).hands["S"]
    failed = client.refused("DealHand", table_pb.DealHandRequest(
        record=header, seat=pb.SEAT_SOUTH, seed=12345))
    assert (failed.field, failed.code) == ("seed", "SEED_AT_SEALED_TABLE")
    sealed = client("DealHand", table_pb.DealHandRequest(record=header, seat=pb.SEAT_SOUTH))
    assert not sealed.practice
    assert list(sealed.hand) != list(dealt.hand)


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


# ------------------------------------------------------------------ tokens (item 10)


def test_tokens_have_one_canonical_form(client):
    page, dealt = new_table(client, "42", 4, "S")
    token = dealt.sealed
    client("CheckGame", hs.CheckGameRequest(record=page, sealed=token))
    table_id, hand, mac = token.split(".")
    standard = token.replace("-", "+").replace("_", "/")
    variants = [token + "=", " " + token, token + " ", token + token, token + "." + token,
                f"{table_id}.0{hand}.{mac}", f"{table_id}.{hand}.{mac}==",
                token[:-1] + ("A" if token[-1] != "A" else "B"),
                token[:5] + ("A" if token[5] != "A" else "B") + token[6:],
                "garbage", "é" * 10, "x" * 5000]
    if standard != token:
        variants.append(standard)
    for bad in variants:
        failed = client.refused("CheckGame", hs.CheckGameRequest(record=page, sealed=bad))
        assert (failed.status, failed.field, failed.code) == (
            "INVALID_ARGUMENT", "sealed", "SEALED_INVALID"), bad


def test_a_token_of_another_server_or_a_lost_table(table_stub, tmp_path):
    """Another key refuses the token; a server restarted on the same database honours
    it (the key is kept there); one without its database names the lost table."""
    db = str(tmp_path / "t.sqlite")
    with ServerProcess("--workers", "1", "--table-db", db) as first, \
            grpc.insecure_channel(first.address) as ch:
        stub = service_grpc.HintServiceStub(ch)
        call = Client(first, stub, "grpc")
        page, dealt = new_table(call, "42", 4, "S")
        failed = Client(None, table_stub, "grpc").refused(
            "CheckGame", hs.CheckGameRequest(record=page, sealed=dealt.sealed))
        assert failed.code == "SEALED_INVALID"
    with ServerProcess("--workers", "1", "--table-db", db) as again, \
            grpc.insecure_channel(again.address) as ch:
        answer = service_grpc.HintServiceStub(ch).CheckGame(
            hs.CheckGameRequest(record=page, sealed=dealt.sealed), timeout=TIMEOUT)
        assert answer.next.seat == pb.SEAT_EAST
    key = tmp_path / "k.key"
    with ServerProcess("--workers", "1", "--table-key", str(key)) as keyed, \
            grpc.insecure_channel(keyed.address) as ch:
        call = Client(keyed, service_grpc.HintServiceStub(ch), "grpc")
        page, dealt = new_table(call, "42", 4, "S")
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    with ServerProcess("--workers", "1", "--table-key", str(key)) as keyed, \
            grpc.insecure_channel(keyed.address) as ch:
        failed = Client(keyed, service_grpc.HintServiceStub(ch), "grpc").refused(
            "CheckGame", hs.CheckGameRequest(record=page, sealed=dealt.sealed))
        assert (failed.field, failed.code) == ("sealed", "TABLE_UNKNOWN")
        assert "deal the hand again" in failed.text


def test_tiles_that_disagree_with_the_table(client, table_db):
    page, dealt = new_table(client, "42", 4, "S")
    truth = table_truth(table_db, dealt.sealed)["record"]["hands"][0]["hands"]
    empty = _copy(page)
    empty.hands[0].ClearField("hands")
    client("CheckGame", hs.CheckGameRequest(record=empty, sealed=dealt.sealed))
    wrong = _copy(page)
    del wrong.hands[0].hands.south[0]
    wrong.hands[0].hands.south.append(truth["E"][0])
    failed = client.refused("CheckGame", hs.CheckGameRequest(record=wrong, sealed=dealt.sealed))
    assert (failed.field, failed.code) == ("record.hands[0].hands.south",
                                           "SEALED_HAND_MISMATCH")
    other = _copy(page)
    other.hands[0].hands.east.extend(truth["E"])
    failed = client.refused("CheckGame", hs.CheckGameRequest(record=other, sealed=dealt.sealed))
    assert (failed.field, failed.code) == ("record.hands[0].hands.east", "HIDDEN_HAND_GIVEN")


def test_reveal_and_widow_refused_at_the_wrong_time(client, table_db):
    page, dealt = new_table(client, "42", 4, "S")
    failed = client.refused("RevealHand", table_pb.RevealHandRequest(record=page,
                                                                      sealed=dealt.sealed))
    assert failed.status == "FAILED_PRECONDITION" and "not over" in failed.text
    failed = client.refused("TakeWidow", table_pb.TakeWidowRequest(record=page,
                                                                    sealed=dealt.sealed))
    assert failed.status == "FAILED_PRECONDITION"
    # Three-player Moon, the person at S passes: a bot wins; no widow for the person, and
    # the page may not pass a widow or a discard it was never shown.
    page, dealt = new_table(client, "moon", 3, "S")
    person = Person(client, table_db, page, dealt.sealed, "S", random.Random(2), "pass")
    while True:
        check = person.check()
        if check.next.action != game_pb.GAME_ACTION_CALL:
            break
        if check.next.seat == pb.SEAT_SOUTH:
            person.act(check)
        else:
            person.bot(check, compare=False)
    failed = client.refused("TakeWidow", table_pb.TakeWidowRequest(record=page,
                                                                    sealed=dealt.sealed))
    assert failed.status == "FAILED_PRECONDITION" and "won the auction" in failed.text
    forged = _copy(page)
    forged.hands[0].widow = person.widow
    failed = client.refused("CheckGame", hs.CheckGameRequest(record=forged, sealed=dealt.sealed))
    assert (failed.field, failed.code) == ("record.hands[0].widow", "HIDDEN_TILE_GIVEN")
    # The cheat bot does not play the person's own seat (it sees the hidden hands).
    page, dealt = new_table(client, "42", 4, "N")
    failed = client.refused("NextAction", hs.NextActionRequest(
        record=page, sealed=dealt.sealed, seat=pb.SEAT_EAST, bot="cheat"))
    assert failed.code == "TABLE_BOT_FIXED"


def test_the_persons_own_seat_may_ask_any_bot(client):
    """NextAction for the person's own seat is advice from its view: any bot and seed
    (not cheat), nothing recorded."""
    page, dealt = new_table(client, "42", 4, "E")   # E calls first
    answer = client("NextAction", hs.NextActionRequest(record=page, sealed=dealt.sealed,
                                                       seat=pb.SEAT_EAST, bot="random",
                                                       seed=4))
    assert answer.action == game_pb.GAME_ACTION_CALL and not answer.sealed
    failed = client.refused("NextAction", hs.NextActionRequest(
        record=page, sealed=dealt.sealed, seat=pb.SEAT_EAST, bot="cheat"))
    assert (failed.field, failed.code) == ("bot", "INVALID_VALUE")
    check = client("CheckGame", hs.CheckGameRequest(record=page, sealed=dealt.sealed))
    assert check.next.seat == pb.SEAT_EAST and check.HasField("legal")


def test_the_moon_widow_cannot_be_probed(client, table_db):
    """Item 6: before any call of a three-player Moon hand, a made-up contract naming the
    person as declarer with one guessed tile played gets the same refusal for the widow
    as for every other tile the person has not seen."""
    page, dealt = new_table(client, "moon", 3, "E")   # E calls first (N shakes)
    truth = table_truth(table_db, dealt.sealed)["record"]["hands"][0]
    guesses = sorted({t for s, tiles in truth["hands"].items() if s != "E" for t in tiles}
                     | {truth["widow"]})
    answers = set()
    for tile in guesses:
        forged = _copy(page)
        hand = forged.hands[0]
        hand.contract.CopyFrom(pb.Contract(declarer=pb.SEAT_EAST,
                                           declaration=pb.DECLARATION_SIXES, bid=4,
                                           kind=pb.CONTRACT_KIND_STANDARD))
        hand.plays.append(tile)
        failed = client.refused("CheckGame", hs.CheckGameRequest(record=forged,
                                                                 sealed=dealt.sealed))
        answers.add((failed.status, failed.field, failed.code, failed.text))
    assert len(guesses) == 15 and len(answers) == 1, answers


def test_a_program_bot_the_server_was_configured_with_sits_at_a_table(tmp_path):
    """A table seats a program bot by the name the server was started with (never by a
    command): it plays a whole hand, and a name the server does not know is refused."""
    import sys
    bot = f"{sys.executable} examples/bots/random_bot.py"
    db = str(tmp_path / "t.sqlite")
    with ServerProcess("--workers", "1", "--table-db", db, "--bot", f"pyrandom={bot}") as srv, \
            grpc.insecure_channel(srv.address) as ch:
        call = Client(srv, service_grpc.HintServiceStub(ch), "grpc")
        page, dealt = new_table(call, "42", 4, "S", bot="pyrandom")
        person = Person(call, db, page, dealt.sealed, "S", random.Random(4))
        play_hand(person, compare=False)
        assert {b["name"] for b in table_truth(db, dealt.sealed)["bots"].values()} == \
            {"pyrandom"}
        header = record_from_json({"game": "42", "first_shaker": "N"})
        failed = call.refused("DealHand", table_pb.DealHandRequest(
            record=header, seat=pb.SEAT_SOUTH,
            bots=[table_pb.TableBot(seat=pb.SEAT_NORTH, bot=f"cmd:{bot}")]))
        assert (failed.field, failed.code) == ("bots[0].bot", "UNKNOWN_BOT")


def test_list_bots_names_the_built_in_and_the_configured_program_bots(table_stub, tmp_path):
    from solver.play.table import TABLE_BOTS
    answer = table_stub.ListBots(table_pb.ListBotsRequest(), timeout=TIMEOUT)
    assert [(b.name, b.program) for b in answer.bots] == [(n, False) for n in TABLE_BOTS]
    import sys
    bot = f"{sys.executable} examples/bots/random_bot.py"
    with ServerProcess("--workers", "1", "--http-port", "0", "--bot", f"pyrandom={bot}") as srv:
        for game in (pb.GAME_FORTY_TWO, pb.GAME_MOON):
            status, body = connect_json(srv, "ListBots", table_pb.ListBotsRequest(game=game))
            assert status == 200
            assert [b["name"] for b in body["bots"] if b.get("program")] == ["pyrandom"]
