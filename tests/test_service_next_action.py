"""The NextAction RPC on a real server (gRPC and Connect on 127.0.0.1): for records in
progress cut from the shared game cases at calls, declarations, three-player Moon
discards and plays, each bot's answer (and figures) is the Python bot's with the same
seed (`solver.play.game_play.next_action`); for the bots that see one seat, redealing
the hands that seat cannot see does not change it; a bad request names the field."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest
from google.protobuf import json_format
from grpc_helpers import assert_invalid, connect_json
from test_bots_bid import _other_deal

from server.convert import ENUM_OF_SEAT
from server.game_convert import (next_action_from_proto, next_action_to_proto,
                                 record_from_json)
from solver.game import tiles as T
from solver.game.game_record import read_game
from solver.hidden.hint import hint
from solver.hidden.quick_play import quick_play
from solver.play.bots import make_bot
from solver.play.game_play import next_action, next_action_figures, play_view_of
from texas42.v1 import game_pb2 as game_pb
from texas42.v1 import hint_service_pb2 as hs
from texas42.v1 import position_pb2 as pb

CASES = Path(__file__).parent / "cases" / "games.jsonl"
with open(CASES, encoding="utf-8") as _f:
    GAME_CASES = {c["id"]: c for c in (json.loads(line) for line in _f if line.strip())}
TIMEOUT = 120
ADVICE_DEALS, HINT_DEALS = 12, 6


def _cuts(case_id: str, hand_index: int) -> list[dict]:
    """The record cut in hand ``hand_index`` at calls, at the declaration (three-player
    Moon: the discard) and at plays."""
    data = GAME_CASES[case_id]["record"]
    base = {**data, "hands": data["hands"][:hand_index]}
    hand = data["hands"][hand_index]
    assert not any(c["bid"] in ("plunge", "splash") for c in hand["auction"])
    dealt = {"hands": hand["hands"], **({"widow": hand["widow"]} if "widow" in hand else {})}
    out = [{**base, "hands": base["hands"] + [{**dealt, "auction": hand["auction"][:k]}]}
           for k in (0, 2)]
    out.append({**base, "hands": base["hands"] + [{**dealt, "auction": hand["auction"]}]})
    for k in (0, 5, 13):
        out.append({**base, "hands": base["hands"] + [{**hand, "plays": hand["plays"][:k]}]})
    return copy.deepcopy(out)


def _records() -> list[tuple[str, dict]]:
    out = []
    for case_id, hand_index in (("game-2026-0", 0), ("game-2026-1", 1), ("game-2026-3", 0),
                                ("game-2026-7", 1)):
        for n, data in enumerate(_cuts(case_id, hand_index)):
            game = read_game(data)
            if game.next_action() is None or game.hands[-1].finished:
                continue
            out.append((f"{case_id}-h{hand_index}-{n}", data))
    return out


RECORDS = _records()
BOTS = ("random", "rule", "cheat", "advice")


def _bot(name: str, seed: int):
    return make_bot(name, seed=seed, advice_deals=ADVICE_DEALS, hint_deals=HINT_DEALS)


def request_of(data: dict, name: str, seed: int, seat: str | None = None
               ) -> hs.NextActionRequest:
    seat = seat or read_game(data).next_action()["seat"]
    request = hs.NextActionRequest(record=record_from_json(data), bot=name, seed=seed,
                                   seat=ENUM_OF_SEAT[seat])
    if name in ("advice", "hint"):
        request.advice_deals, request.hint_deals = ADVICE_DEALS, HINT_DEALS
    return request


def test_the_cuts_wait_for_every_kind_of_action():
    kinds = {(read_game(d).rules.players, read_game(d).next_action()["action"])
             for _, d in RECORDS}
    assert {a for _, a in kinds} == {"call", "declare", "discard", "play"}
    assert (3, "discard") in kinds


@pytest.mark.parametrize("name", BOTS)
def test_grpc_and_connect_answer_as_the_python_bot(http_server, http_stub, name):
    for n, (rid, data) in enumerate(RECORDS):
        seed = 11 + n
        found = next_action_figures(read_game(data), _bot(name, seed))
        assert found["answer"] == next_action(read_game(data), _bot(name, seed)), rid
        request = request_of(data, name, seed)
        answer = http_stub.NextAction(request, timeout=TIMEOUT)
        assert answer == next_action_to_proto(found), rid
        assert next_action_from_proto(answer) == found["answer"], rid
        status, body = connect_json(http_server, "NextAction", request)
        assert status == 200, body
        assert body == json_format.MessageToDict(answer), rid
        if name == "advice" and found["figures"] is not None:
            assert answer.HasField("figures") and 0 <= answer.figures.p_make <= 1
            assert answer.figures.deals > 0


@pytest.mark.parametrize("name", ["random", "rule", "advice"])
def test_redealt_hidden_hands_give_the_same_answer(http_stub, name):
    for n, (rid, data) in enumerate(RECORDS):
        seat = read_game(data).next_action()["seat"]
        other = _other_deal(data, seat, 100 + n)
        a = http_stub.NextAction(request_of(data, name, 5), timeout=TIMEOUT)
        b = http_stub.NextAction(request_of(other, name, 5), timeout=TIMEOUT)
        assert a == b, rid


def test_the_first_cut_is_a_call(http_stub):
    _, data = RECORDS[0]
    answer = http_stub.NextAction(request_of(data, "cheat", 0), timeout=TIMEOUT)
    assert answer.action == game_pb.GAME_ACTION_CALL and answer.call.seat == answer.seat


def test_a_discard_comes_with_its_declaration(http_stub):
    data = next(d for _, d in RECORDS if read_game(d).next_action()["action"] == "discard")
    answer = http_stub.NextAction(request_of(data, "rule", 0), timeout=TIMEOUT)
    assert answer.action == game_pb.GAME_ACTION_DISCARD
    assert answer.tile and answer.declaration != pb.DECLARATION_UNSPECIFIED


def _bad() -> list[tuple[str, hs.NextActionRequest, str, str]]:
    _, data = RECORDS[1]
    seat = read_game(data).next_action()["seat"]
    wrong = next(s for s in "NESW" if s != seat)
    out = [("out-of-turn", request_of(data, "rule", 0, wrong), "seat", "OUT_OF_TURN")]
    request = request_of(data, "rule", 0)
    request.ClearField("seat")
    out.append(("no-seat", request, "seat", "MISSING_FIELD"))
    over = GAME_CASES["game-2026-0"]["record"]
    assert read_game(over).next_action() is None
    out.append(("game-over", request_of(over, "rule", 0, "N"), "seat", "GAME_OVER"))
    out.append(("bot", request_of(data, "smart", 0), "bot", "UNKNOWN_BOT"))
    for field, value in (("advice_deals", 0), ("advice_deals", 100_001), ("hint_deals", 0),
                         ("hint_deals", 2 ** 32 - 1)):
        request = request_of(data, "advice", 0)
        setattr(request, field, value)
        out.append((f"{field}={value}", request, field, "OUT_OF_RANGE"))
    request = request_of(data, "rule", 0)
    request.record.ClearField("first_shaker")
    out.append(("record", request, "record.first_shaker", "MISSING_FIELD"))
    return out


BAD = _bad()


@pytest.mark.parametrize("name,request_message,field,code", BAD, ids=[b[0] for b in BAD])
def test_a_bad_request_names_the_field(http_server, http_stub, name, request_message, field, code):
    assert_invalid(lambda: http_stub.NextAction(request_message, timeout=TIMEOUT), field, code)
    status, error = connect_json(http_server, "NextAction", request_message)
    assert status == 400 and error["code"] == "invalid_argument"
    assert field in error["message"]


def test_seat_view_calls_bids_by_the_playout(http_server, http_stub):
    """seat-view-calls answers a call and a declaration through gRPC and Connect as the
    Python bot with the same seed, with the figures of seat-view bid advice (its 30 deals
    played out, not the 12 of double dummy); three-player Moon calls by double dummy."""
    from solver.play.bots import DEFAULT_PLAYOUT_DEALS
    cuts = {rid: (n, data) for n, (rid, data) in enumerate(RECORDS)}
    for rid, deals in (("game-2026-0-h0-0", DEFAULT_PLAYOUT_DEALS),
                       ("game-2026-0-h0-2", DEFAULT_PLAYOUT_DEALS),
                       ("game-2026-3-h0-0", ADVICE_DEALS)):
        n, data = cuts[rid]
        found = next_action_figures(read_game(data), _bot("seat-view-calls", 11 + n))
        assert found["action"] in ("call", "declare") and found["figures"]["deals"] == deals
        request = request_of(data, "seat-view-calls", 11 + n)
        request.advice_deals, request.hint_deals = ADVICE_DEALS, HINT_DEALS
        answer = http_stub.NextAction(request, timeout=TIMEOUT)
        assert answer == next_action_to_proto(found), rid
        assert answer.figures.deals == deals and 0 <= answer.figures.p_make <= 1
        status, body = connect_json(http_server, "NextAction", request)
        assert status == 200 and body == json_format.MessageToDict(answer), rid


def _play_cuts() -> list[tuple[int, str, dict]]:
    return [(n, rid, data) for n, (rid, data) in enumerate(RECORDS)
            if read_game(data).next_action()["action"] == "play"
            and len(play_view_of(read_game(data)).legal_tiles()) > 1]


def test_hint_calls_as_the_advice_bot(http_stub):
    calls = [d for _, d in RECORDS if read_game(d).next_action()["action"] != "play"]
    assert calls
    for data in calls:
        a = http_stub.NextAction(request_of(data, "hint", 3), timeout=TIMEOUT)
        b = http_stub.NextAction(request_of(data, "advice", 3), timeout=TIMEOUT)
        assert a == b


def test_play_figures_are_the_quick_plays_for_advice_and_the_hints_for_hint(http_stub):
    cuts = _play_cuts()
    assert len(cuts) >= 3
    for n, rid, data in cuts:
        view = play_view_of(read_game(data))
        seed = random.Random(11 + n).randrange(2 ** 31)   # the bot's first draw
        q = quick_play(view, deals=HINT_DEALS, seed=seed)
        h = hint(view, deals=HINT_DEALS, seed=seed, threads=1)
        found = next_action_figures(read_game(data), _bot("advice", 11 + n))
        tile = T.name_of(found["answer"])
        assert tile == q.best, rid
        assert q.deals == h.deals == (HINT_DEALS if q.method == "sampled" else q.count)
        assert found["figures"] == {"p_make": q.moves[tile].p_make, "mean": q.moves[tile].mean,
                                    "deals": q.deals}, rid
        assert found["figures"]["p_make"] == h.moves[tile].p_make, rid
        answer = http_stub.NextAction(request_of(data, "advice", 11 + n), timeout=TIMEOUT)
        assert answer.figures.p_make == pytest.approx(q.moves[tile].p_make)
        assert answer.figures.deals == q.deals
        assert answer.figures.HasField("mean") == (q.moves[tile].mean is not None)
        full = next_action_figures(read_game(data), _bot("hint", 11 + n))
        best = h.best[0]
        assert T.name_of(full["answer"]) == best, rid
        assert full["figures"] == {"p_make": h.moves[best].p_make, "mean": h.moves[best].mean,
                                   "deals": h.deals}, rid


def test_the_cheat_bot_stops_at_its_token_and_answers_after():
    # A service call's deadline reaches cheat's searches (its deal table, Moon rows and
    # plays): a spent token stops each at once; the bot then answers as a fresh one.
    # (A play with one legal tile searches nothing.)
    from solver.game.errors import SearchCancelled
    from solver.search._core import CancelToken
    stopped = 0
    for _, data in RECORDS:
        game = read_game(data)
        if game.next_action()["action"] == "play" and \
                len(play_view_of(game).legal_tiles()) == 1:
            continue
        stopped += 1
        bot = make_bot("cheat")
        spent = CancelToken()
        spent.cancel()
        bot.token = spent
        with pytest.raises(SearchCancelled):
            next_action(game, bot)
        bot.token = None
        assert next_action(game, bot) == next_action(game, make_bot("cheat"))
    assert stopped >= 20
