"""The CheckGame RPC on a real server (gRPC and Connect on 127.0.0.1): every shared game
case gives the score pad of the Python API and of `t42 game --json`; a bad record is
INVALID_ARGUMENT naming the record's field, the same over both transports."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format
from grpc_helpers import assert_invalid, bad_request, connect_json, connect_violations

from server.game_convert import record_from_json, record_to_json, summary_from_proto
from solver import GameRecord
from texas42.v1 import game_pb2 as game_pb
from texas42.v1 import hint_service_pb2 as hs
from texas42.v1 import position_pb2 as pb

CASES = Path(__file__).parent / "cases" / "games.jsonl"
with open(CASES, encoding="utf-8") as _f:
    GAME_CASES = [json.loads(line) for line in _f if line.strip()]
TIMEOUT = 60


@pytest.fixture(scope="module")
def cli_answers(tmp_path_factory):
    """`t42 game --json` on every case, one answer a line."""
    path = tmp_path_factory.mktemp("games") / "games.jsonl"
    path.write_text("".join(json.dumps(c["record"]) + "\n" for c in GAME_CASES))
    done = subprocess.run([sys.executable, "-m", "solver", "game", "--json", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def request_of(record: dict) -> hs.CheckGameRequest:
    return hs.CheckGameRequest(record=record_from_json(record))


@pytest.mark.parametrize("case", GAME_CASES, ids=[c["id"] for c in GAME_CASES])
def test_record_message_reads_as_the_record(case):
    """The client conversion and the server's reading give back the same game."""
    again = record_to_json(record_from_json(case["record"]))
    assert GameRecord(again) == GameRecord(case["record"])


def test_every_case_over_grpc_and_connect_as_the_api_and_the_cli(http_server, http_stub,
                                                                 cli_answers):
    assert len(GAME_CASES) == len(cli_answers) == 48
    for case, cli in zip(GAME_CASES, cli_answers):
        api = GameRecord(case["record"]).summary_json()
        request = request_of(case["record"])
        answer = http_stub.CheckGame(request, timeout=TIMEOUT)
        assert summary_from_proto(answer) == api == cli, case["id"]
        status, body = connect_json(http_server, "CheckGame", request)
        assert status == 200
        assert body == json_format.MessageToDict(answer), case["id"]
        assert summary_from_proto(json_format.ParseDict(body, hs.CheckGameResponse())) == api
        want = case["expect"]
        assert [h["made"] for h in api["hands"]] == [h["made"] for h in want["hands"]]
        assert answer.HasField("winner") == (want["winner"] is not None)
        assert answer.HasField("next") == (want["winner"] is None)


def _first(game: str, players: int = 4) -> dict:
    return copy.deepcopy(next(c["record"] for c in GAME_CASES
                              if c["record"].get("game", "42") == game
                              and c["record"].get("players", 4) == players
                              and len(c["record"]["hands"]) > 1))


def _bad_cases() -> list[tuple[str, hs.CheckGameRequest, str, str]]:
    out = []

    def add(name, record, field, code, edit=None):
        request = request_of(record)
        if edit is not None:
            edit(request.record)
        out.append((name, request, field, code))

    r = _first("42")
    r["hands"][0]["auction"][1]["bid"] = 29
    add("bid-out-of-range", r, "record.hands[0].auction[1].bid", "BID_OUT_OF_RANGE")
    r = _first("42")
    r["hands"][0]["hands"]["N"][3] = r["hands"][0]["hands"]["E"][0]
    add("duplicate-tile", r, "record.hands[0].hands.east[0]", "DUPLICATE_TILE")
    r = _first("42")
    add("declaration", r, "record.hands[0].contract.declaration", "UNKNOWN_DECLARATION",
        lambda m: setattr(m.hands[0].contract, "declaration", 99))
    r = _first("42")
    add("no-first-shaker", r, "record.first_shaker", "MISSING_FIELD",
        lambda m: m.ClearField("first_shaker"))
    r = _first("42")
    add("call-seat", r, "record.hands[1].auction[0].seat", "UNKNOWN_SEAT",
        lambda m: m.hands[1].auction[0].ClearField("seat"))
    r = _first("42")
    add("plunge-with-bid", r, "record.hands[0].auction[0].bid", "INVALID_VALUE",
        lambda m: (setattr(m.hands[0].auction[0], "kind", pb.CONTRACT_KIND_PLUNGE),
                   setattr(m.hands[0].auction[0], "bid", 30)))
    r = _first("42")
    add("moon-rule-in-42", r, "record.rules.min_bid", "UNKNOWN_FIELD",
        lambda m: setattr(m.rules, "min_bid", 4))
    r = _first("moon", 3)
    hand = next(i for i, h in enumerate(r["hands"]) if h.get("contract"))
    add("moon-discard", r, f"record.hands[{hand}].discard", "UNKNOWN_TILE",
        lambda m: setattr(m.hands[hand], "discard", "9-9"))
    return out


BAD = _bad_cases()


@pytest.mark.parametrize("name,request_message,field,code", BAD, ids=[b[0] for b in BAD])
def test_bad_record_names_the_field_over_both_transports(http_server, http_stub, name,
                                                         request_message, field, code):
    assert_invalid(lambda: http_stub.CheckGame(request_message, timeout=TIMEOUT), field, code)
    with pytest.raises(grpc.RpcError) as err:
        http_stub.CheckGame(request_message, timeout=TIMEOUT)
    expected = bad_request(err.value)
    status, error = connect_json(http_server, "CheckGame", request_message)
    assert status == 400 and error["code"] == "invalid_argument"
    assert error["message"] == err.value.details()
    assert connect_violations(error) == expected


def test_an_empty_request_names_the_first_shaker(http_stub):
    assert_invalid(lambda: http_stub.CheckGame(hs.CheckGameRequest(), timeout=TIMEOUT),
                   "record.first_shaker", "MISSING_FIELD")


def test_a_game_in_progress_says_whose_turn(http_stub):
    record = _first("42")
    record["hands"] = record["hands"][:1]
    record["hands"][0]["auction"] = record["hands"][0]["auction"][:2]
    record["hands"][0].pop("contract", None)
    record["hands"][0].pop("plays", None)
    answer = http_stub.CheckGame(request_of(record), timeout=TIMEOUT)
    assert answer.next.action == game_pb.GAME_ACTION_CALL
    assert not answer.hands[0].HasField("made") and not answer.hands[0].HasField("contract")
    assert summary_from_proto(answer) == GameRecord(record).summary_json()
