"""Program bots behind the service: a real `t42 serve --bot NAME=COMMAND`.

* the server starts each configured bot and reads its hello before it listens (a bot that
  cannot start, or a name of the project's own bots, stops it with one line);
* NextAction without a table token takes a configured bot's name, and answers as the same
  program asked in this process with the same seed, over gRPC and Connect, at calls,
  declarations, three-player Moon discards and plays;
* a client never names a command; a bot that plays only is refused a call;
* the bot is sent only what its seat sees, though the client sent the whole deal, and every
  line is valid by the protocol's JSON Schema.
"""

from __future__ import annotations

import shlex
import subprocess

import grpc
import pytest
from google.protobuf import json_format
from grpc_helpers import assert_invalid, connect_json
from test_program_bots import RANDOM_PY, ROGUE, check_seen, check_traffic
from test_service_next_action import RECORDS, request_of

from server.launcher import ServerProcess, t42_command
from server.game_convert import next_action_from_proto
from solver.game.game_record import read_game
from solver.play.game_play import next_action
from solver.play.program_bot import ProgramBot, ProgramSpec
from texas42.v1 import hint_service_pb2_grpc as service_grpc

TIMEOUT = 120


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    log = tmp_path_factory.mktemp("spy") / "spy.jsonl"
    with ServerProcess("--workers", "1", "--http-port", "0",
                       "--bot", f"pyrandom={RANDOM_PY}", "--bot", f"solo={ROGUE} plays-only",
                       "--bot", f"spy={ROGUE} good --log {log}") as server:
        with grpc.insecure_channel(server.address) as channel:
            yield server, service_grpc.HintServiceStub(channel), log


def test_the_server_starts_its_bots_before_it_listens(served):
    server, _, _ = served
    [listening] = server.log("listening")
    bots = listening["bots"]
    assert list(bots) == ["pyrandom", "solo", "spy"]
    assert (bots["pyrandom"]["name"], bots["pyrandom"]["calls"]) == ("random-py", True)
    assert (bots["solo"]["name"], bots["solo"]["calls"]) == ("rogue-plays-only", False)


@pytest.mark.parametrize("option, line", [
    ("bad=/nonexistent/bot", "t42: error: --bot bad: cannot start '/nonexistent/bot': No such "
                             "file or directory"),
    (f"rule={RANDOM_PY}", "t42: error: --bot: rule is the name of a bot of the project's own"),
    (f"old={ROGUE} protocol-2", "t42: error: --bot old: its hello speaks protocol 2; this "
                                "engine speaks 1"),
])
def test_a_bot_that_cannot_serve_stops_the_server_from_starting(option, line):
    proc = subprocess.run(t42_command() + ["serve", "--port", "0", "--bot", option],
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 2
    assert proc.stderr.strip() == line


def test_next_action_seats_a_configured_bot(served):
    server, stub, _ = served
    spec = ProgramSpec("pyrandom", tuple(shlex.split(RANDOM_PY)))
    kinds = set()
    for n, (rid, data) in enumerate(RECORDS):
        game = read_game(data)
        kinds.add(game.next_action()["action"])
        expected = next_action(game, ProgramBot(spec, seed=11 + n))
        request = request_of(data, "pyrandom", 11 + n)
        answer = stub.NextAction(request, timeout=TIMEOUT)
        assert next_action_from_proto(answer) == expected, rid
        assert not answer.HasField("figures")
        if n == 0:
            status, body = connect_json(server, "NextAction", request)
            assert status == 200 and body == json_format.MessageToDict(answer)
    assert kinds == {"call", "declare", "discard", "play"}


def test_a_client_never_names_a_command(served):
    _, stub, _ = served
    rid, data = RECORDS[0]
    for name in (f"cmd:{RANDOM_PY}", "python3"):
        assert_invalid(lambda: stub.NextAction(request_of(data, name, 1), timeout=TIMEOUT),
                       "bot", "UNKNOWN_BOT")


def test_a_play_only_bot_plays_and_is_refused_a_call(served):
    _, stub, _ = served
    spec = ProgramSpec("solo", tuple(shlex.split(f"{ROGUE} plays-only")))
    calls = [d for _, d in RECORDS if read_game(d).next_action()["action"] == "call"]
    plays = [d for _, d in RECORDS if read_game(d).next_action()["action"] == "play"]
    assert_invalid(lambda: stub.NextAction(request_of(calls[0], "solo", 1), timeout=TIMEOUT),
                   "bot", "BOT_PLAYS_ONLY")
    assert plays
    for data in plays:
        answer = stub.NextAction(request_of(data, "solo", 1), timeout=TIMEOUT)
        assert next_action_from_proto(answer) == \
            next_action(read_game(data), ProgramBot(spec, seed=1))


def test_the_bot_is_sent_only_what_its_seat_sees(served):
    _, stub, log = served
    deals = []
    for _, data in RECORDS:
        stub.NextAction(request_of(data, "spy", 3), timeout=TIMEOUT)
        hand = data["hands"][-1]
        deals.append({**hand["hands"], **({"widow": hand["widow"]} if "widow" in hand else {})})
    requests = check_traffic(log)
    assert {r["type"] for r in requests} == {"call", "declare", "discard", "play"}
    for request in requests:
        check_seen(request, deals)

