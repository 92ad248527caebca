"""Inference through every face: `t42 hint` and `t42 bid` as real processes, the Hint,
BidAdvice and NextAction RPCs on a real server (gRPC and Connect on 127.0.0.1). The same
view (hand) and seed give the figures of the Python API on each; inference off gives no
inference at all; a bad value is refused naming ``inference``."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
from google.protobuf import json_format
from grpc_helpers import assert_invalid, connect_json, connect_violations

from server.convert import ENUM_OF_SEAT, inference_to_proto, view_from_json
from server.game_convert import next_action_to_proto, record_from_json
from solver.game.game_record import read_game
from solver.hidden.bidding import advise
from solver.hidden.hint import hint
from solver.hidden.inference import InferenceReport, read_inference
from solver.play.bots import INFERENCE_BOT_NAMES, make_bot
from solver.play.game_play import next_action_figures
from texas42.v1 import bidding_pb2 as bid_pb
from texas42.v1 import game_pb2 as game_pb
from texas42.v1 import hand_analysis_pb2 as hand_pb
from texas42.v1 import hint_pb2
from texas42.v1 import hint_service_pb2 as hs
from texas42.v1 import position_pb2 as pb
from view_cases import read_cases

TIMEOUT = 120  # a guard against a hung process or server, not a speed check
CASES = {c["id"]: c for c in read_cases("views.jsonl")}
# E to move after 12 plays; S and W passed, N bid 36 in fives: the auction tells
# deals apart (rejection keeps some), and each deal takes microseconds.
AUCTION_VIEW = CASES["views-2026-pip-fives-5"]["view"]
# N to move after 12 plays, E, S and W bid: plays by the others to weigh.
PLAYS_VIEW = CASES["views-2026-pip-sixes-5"]["view"]
MOON_VIEW = CASES["views-2026-moon4-0"]["view"]          # Moon: no call model
#: Sampled (enumerate limit 0), 30 deals asked for, one seed: the same deals on every face.
HINT_OPTIONS = {"deals": 30, "seed": 5, "enumerate_limit": 0}
CLI_HINT = ("--deals", "30", "--seed", "5", "--enumerate-limit", "0")
#: (view, mode) of the hints compared across the faces.
HINTS = [(AUCTION_VIEW, "auction"), (PLAYS_VIEW, "plays"), (AUCTION_VIEW, "both")]
HINT_IDS = ["auction", "plays", "both"]

HAND = ["6-6", "6-4", "5-5", "4-4", "3-3", "2-0", "1-1"]
#: N advised after E bid 30 and S and W passed; 30 deals from seed 3.
AUCTION = [{"seat": "E", "bid": 30}, {"seat": "S", "bid": "pass"},
           {"seat": "W", "bid": "pass"}]
ADVICE = {"deals": 30, "seed": 3, "declarations": ["fours", "doubles"]}
DECLARATION_ENUM = {"fours": pb.DECLARATION_FOURS, "doubles": pb.DECLARATION_DOUBLES}


def t42(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *args], input=stdin,
                          capture_output=True, text=True, timeout=TIMEOUT)


def roundtrip(obj: dict) -> dict:
    """An answer as its printed JSON reads back."""
    return json.loads(json.dumps(obj))


def api_hint(view: dict, mode: str | None):
    return hint(view, inference=mode, **HINT_OPTIONS)


def api_advice(mode: str | None):
    return advise(HAND, "N", auction=AUCTION, inference=mode, **ADVICE)


def assert_inference_proto(message, report) -> None:
    """An `Inference` message says what the API's `InferenceReport` says."""
    want = report.to_json()
    assert message.mode == want["mode"]
    assert message.calls_model == want.get("calls", {}).get("name", "")
    assert message.plays_model == want.get("plays", {}).get("name", "")
    assert (message.drawn, message.kept) == (want["drawn"], want["kept"])
    assert message.effective_deals == want["effective_deals"]
    assert message.fallback == (want["fallback"] or "")
    assert list(message.notes) == want.get("notes", [])


def assert_hint_proto(response: hint_pb2.HintResponse, expected) -> None:
    assert list(response.best) == expected.best
    best = response.moves[0]
    assert best.tile == expected.best[0] and best.best
    assert best.p_make == expected.moves[best.tile].p_make
    assert [(m.tile, m.mean, m.p_make, m.p_best) for m in response.moves] == \
        [(t, m.mean, m.p_make, m.p_best) for t, m in expected.moves.items()]
    assert response.deals == expected.deals and response.seed == expected.seed
    assert_inference_proto(response.inference, expected.inference)


# ------------------------------------------------------------------- the API


@pytest.mark.parametrize("view,mode", HINTS, ids=HINT_IDS)
def test_the_api_reports_its_models_and_deals(view, mode):
    h = api_hint(view, mode)
    report = h.to_json()["inference"]
    assert report["mode"] == mode
    assert ("calls" in report) == (mode != "plays") and ("plays" in report) == (mode != "auction")
    # The deals searched: 30 asked for, fewer when the calls pick some twice.
    assert report["kept"] == h.deals <= 30 and report["drawn"] >= report["kept"]
    assert 0 < report["effective_deals"] <= report["kept"]
    assert report["fallback"] is None
    if mode != "plays":
        assert report["drawn"] > report["kept"]  # the calls ruled some deals out
    assert "inference" not in api_hint(view, None).to_json()


# ----------------------------------------------------------------------- CLI


@pytest.mark.parametrize("view,mode", HINTS, ids=HINT_IDS)
def test_cli_hint_json_is_the_api_answer(tmp_path, view, mode):
    path = tmp_path / "view.json"
    path.write_text(json.dumps(view))
    done = t42("hint", "--json", *CLI_HINT, "--inference", mode, str(path))
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    expected = api_hint(view, mode)
    assert got == roundtrip(expected.to_json())
    assert got["inference"]["kept"] == expected.inference.kept and got["best"] == expected.best
    assert got["moves"][expected.best[0]]["p_make"] == expected.moves[expected.best[0]].p_make


def test_cli_hint_text_names_the_model_and_the_effective_deals(tmp_path):
    path = tmp_path / "view.json"
    path.write_text(json.dumps(AUCTION_VIEW))
    report = api_hint(AUCTION_VIEW, "both").inference.to_json()
    done = t42("hint", *CLI_HINT, "--inference", "both", str(path))
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("Inference")]
    assert lines == [f"Inference both (calls model {report['calls']['name']}, plays model "
                     f"{report['plays']['name']}): {report['effective_deals']:,.1f} effective "
                     f"deals of {report['kept']} kept ({report['drawn']:,} drawn)"]


def test_cli_hint_without_inference_is_as_before(tmp_path):
    path = tmp_path / "view.json"
    path.write_text(json.dumps(AUCTION_VIEW))
    for extra in ((), ("--inference", "off")):
        done = t42("hint", "--json", *CLI_HINT, *extra, str(path))
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == roundtrip(api_hint(AUCTION_VIEW, None).to_json())
        assert "inference" not in json.loads(done.stdout)
        text = t42("hint", *CLI_HINT, *extra, str(path))
        assert "Inference" not in text.stdout


def test_cli_bad_inference_is_one_line_and_exit_2(tmp_path):
    path = tmp_path / "view.json"
    path.write_text(json.dumps(AUCTION_VIEW))
    moon = tmp_path / "moon.json"
    moon.write_text(json.dumps(MOON_VIEW))
    for args in (("hint", "--inference", "psychic", str(path)),
                 ("hint", "--inference", "auction", str(moon)),
                 ("bid", *HAND, "--inference", "plays")):
        done = t42(*args)
        assert done.returncode == 2, args
        assert done.stdout == ""
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("t42: error: "), done.stderr
        assert "inference" in lines[0] and "Traceback" not in done.stderr


def test_cli_bid_json_is_the_api_answer_by_option_and_by_request():
    expected = roundtrip(api_advice("auction").to_json())
    request = {"hand": HAND, "seat": "N", "auction": AUCTION, **ADVICE}
    by_option = t42("bid", "--json", "--inference", "auction", stdin=json.dumps(request))
    by_request = t42("bid", "--json", stdin=json.dumps({**request, "inference": "auction"}))
    for done in (by_option, by_request):
        assert done.returncode == 0, done.stderr
        got = json.loads(done.stdout)
        for answer in (got, expected):
            answer.pop("seconds", None)
            answer.pop("nodes", None)
        assert got == expected
        assert got["inference"]["kept"] <= 30 < got["inference"]["drawn"]
        assert got["inference"]["fallback"] is None
    text = t42("bid", "--inference", "auction", stdin=json.dumps(request))
    assert text.returncode == 0, text.stderr
    assert sum(line.startswith("Inference auction (calls model ")
               for line in text.stdout.splitlines()) == 1
    off = t42("bid", "--json", stdin=json.dumps(request))
    assert "inference" not in json.loads(off.stdout)


def test_cli_bid_request_with_a_bad_inference_names_it():
    done = t42("bid", stdin=json.dumps({"hand": HAND, "seat": "N", "deals": 5,
                                        "inference": "plays"}))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("t42: error: inference: ")
    assert len(done.stderr.splitlines()) == 1


# ------------------------------------------------------------- gRPC and Connect


def hint_request(view: dict, mode: str = "") -> hint_pb2.HintRequest:
    return hint_pb2.HintRequest(view=view_from_json(view), inference=mode, **HINT_OPTIONS)


def bid_request(mode: str = "") -> bid_pb.BidAdviceRequest:
    calls = [hand_pb.AuctionCall(seat=ENUM_OF_SEAT[c["seat"]],
                                 bid=0 if c["bid"] == "pass" else c["bid"]) for c in AUCTION]
    return bid_pb.BidAdviceRequest(
        hand=HAND, seat=pb.SEAT_NORTH, auction=calls, deals=ADVICE["deals"],
        seed=ADVICE["seed"], inference=mode,
        declarations=[bid_pb.BidDeclaration(declaration=DECLARATION_ENUM[d])
                      for d in ADVICE["declarations"]])


def test_the_message_carries_a_fallback_and_notes():
    report = InferenceReport(read_inference("both"), drawn=20_030, kept=30,
                             effective_deals=27.5, fallback="uniform weights",
                             notes=["kept 30 of the 40 deals asked for"])
    message = inference_to_proto(report)
    assert_inference_proto(message, report)
    assert message.fallback == "uniform weights" and len(message.notes) == 1


@pytest.mark.parametrize("view,mode", HINTS, ids=HINT_IDS)
def test_grpc_and_connect_hint_give_the_api_figures(http_server, http_stub, view, mode):
    expected = api_hint(view, mode)
    response = http_stub.Hint(hint_request(view, mode), timeout=TIMEOUT)
    assert response.HasField("inference")
    assert_hint_proto(response, expected)
    status, body = connect_json(http_server, "Hint", hint_request(view, mode))
    assert status == 200, body
    assert body["inference"]["mode"] == mode
    assert body["inference"]["kept"] == expected.inference.kept
    assert_hint_proto(json_format.ParseDict(body, hint_pb2.HintResponse()), expected)


def test_grpc_and_connect_hint_without_inference_have_none(http_server, http_stub):
    expected = api_hint(AUCTION_VIEW, None)
    for mode in ("", "off"):
        response = http_stub.Hint(hint_request(AUCTION_VIEW, mode), timeout=TIMEOUT)
        assert not response.HasField("inference")
        assert list(response.best) == expected.best
        status, body = connect_json(http_server, "Hint", hint_request(AUCTION_VIEW, mode))
        assert status == 200 and "inference" not in body


def test_grpc_and_connect_bid_advice_give_the_api_figures(http_server, http_stub):
    expected = api_advice("auction")
    rec = expected.recommendation
    for advice in (http_stub.BidAdvice(bid_request("auction"), timeout=TIMEOUT).advice,
                   json_format.ParseDict(connect_json(http_server, "BidAdvice",
                                                      bid_request("auction"))[1],
                                         bid_pb.BidAdviceResponse()).advice):
        assert_inference_proto(advice.inference, expected.inference)
        assert advice.inference.calls_model and not advice.inference.plays_model
        assert advice.deals == 30 and advice.inference.kept == expected.inference.kept <= 30
        assert advice.recommendation.chance.bid == rec.bid
        assert advice.recommendation.declaration.declaration == DECLARATION_ENUM[rec.declaration]
        assert advice.recommendation.chance.p_make == rec.chance.p_make
    off = http_stub.BidAdvice(bid_request(), timeout=TIMEOUT).advice
    assert not off.HasField("inference")


@pytest.mark.parametrize("method,message", [
    ("Hint", hint_request(AUCTION_VIEW, "psychic")),
    ("Hint", hint_request(MOON_VIEW, "auction")),
    ("BidAdvice", bid_request("plays")),
    ("BidAdvice", bid_request("psychic")),
], ids=["hint-unknown", "hint-moon-auction", "bid-plays", "bid-unknown"])
def test_a_bad_inference_is_invalid_argument_naming_it(http_server, http_stub, method, message):
    assert_invalid(lambda: getattr(http_stub, method)(message, timeout=TIMEOUT), "inference",
                   "INVALID_OPTION")
    status, body = connect_json(http_server, method, message)
    assert status == 400 and body["code"] == "invalid_argument"
    violations, reason = connect_violations(body)
    assert [field for field, _ in violations] == ["inference"]
    assert reason == "INVALID_OPTION"


def _cut(calls: int, plays: int = 0) -> dict:
    """The first hand of a game case cut after ``calls`` calls, or (all four calls made)
    after ``plays`` plays."""
    case = next(c for c in read_cases("games.jsonl") if c["id"] == "game-2026-0")
    data = copy.deepcopy(case["record"])
    hand = data["hands"][0]
    if calls < len(hand["auction"]):
        hand = {"hands": hand["hands"], "auction": hand["auction"][:calls]}
    else:
        hand = {**hand, "plays": hand["plays"][:plays]}
    data["hands"] = [hand]
    return data


# A play after 17 plays (the others' plays weighed), and N's call after three others'
# (advice-lead: bid advice with one opening lead for every deal).
@pytest.mark.parametrize("name,data,action", [
    *[(name, _cut(4, 17), "play") for name in INFERENCE_BOT_NAMES],
    ("advice-auction", _cut(3), "call"), ("advice-lead", _cut(3), "call")],
    ids=[*INFERENCE_BOT_NAMES, "advice-auction-call", "advice-lead-call"])
def test_next_action_asks_the_inference_bots(http_server, http_stub, name, data, action):
    game = read_game(data)
    seat = game.next_action()["seat"]
    assert game.next_action()["action"] == action
    found = next_action_figures(game, make_bot(name, seed=4, advice_deals=20, hint_deals=12))
    request = hs.NextActionRequest(record=record_from_json(data), bot=name, seed=4,
                                   seat=ENUM_OF_SEAT[seat], advice_deals=20, hint_deals=12)
    answer = http_stub.NextAction(request, timeout=TIMEOUT)
    assert answer == next_action_to_proto(found)
    assert answer.action == (game_pb.GAME_ACTION_PLAY if action == "play"
                             else game_pb.GAME_ACTION_CALL)
    status, body = connect_json(http_server, "NextAction", request)
    assert status == 200 and body == json_format.MessageToDict(answer)
