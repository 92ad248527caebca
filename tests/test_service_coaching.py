"""GradeHand, GradeGame and ListFinishedGames through a real `t42 serve` process.

Every grade the service answers is the Python API's (`grade_hand`, `grade_game`:
`to_json()`, figures rounded alike) for the same record, options and seed, over gRPC and
Connect (HTTP/JSON); bad options and records are INVALID_ARGUMENT naming the request's
field; a deadline stops a grading held on its worker (the hold file: whatever the
machine's speed). ListFinishedGames answers the finished games of the tokens given and
no other, and refuses a token it cannot open.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format
from grpc_helpers import assert_invalid, connect_json, connect_violations, scrape, wait_for

from server import coaching_convert as cc
from server.convert import hand_record_from_json
from server.game_convert import record_from_json
from server.launcher import ServerProcess
from solver import grade_game, grade_hand
from solver.game.game_record import read_game
from solver.play.game_arena import GameArenaRun, play_table
from solver.play.table import Table, Tables
from solver.play.table_store import TableStore
from texas42.v1 import coaching_pb2 as coach_pb
from texas42.v1 import hint_service_pb2_grpc as service_grpc
from texas42.v1 import position_pb2 as pb

EXAMPLES = Path(__file__).parent.parent / "examples"
RECORDS = {r["id"]: r for r in map(json.loads, (EXAMPLES / "hands.jsonl").read_text()
                                     .splitlines()) if r}
GAME = json.loads((EXAMPLES / "game.json").read_text())
TIMEOUT = 120   # a guard against a hung server, not a speed check
SERVICE = "/texas42.v1.HintService/"


@pytest.fixture(scope="module")
def table_db(tmp_path_factory):
    return str(tmp_path_factory.mktemp("tables") / "tables.sqlite")


@pytest.fixture(scope="module")
def server(hold, table_db):
    with ServerProcess("--workers", "2", "--metrics-port", "0", "--http-port", "0",
                       "--table-db", table_db, env=hold.env) as proc:
        yield proc


@pytest.fixture(scope="module")
def stub(server):
    with grpc.insecure_channel(server.address) as channel:
        yield service_grpc.HintServiceStub(channel)


def call(server, stub, transport: str, method: str, request, response_type):
    """The RPC over ``transport``, its answer as a message either way."""
    if transport == "grpc":
        return getattr(stub, method)(request, timeout=TIMEOUT)
    status, body = connect_json(server, method, request)
    assert status == 200, body
    return json_format.ParseDict(body, response_type())


def hand_request(data: dict, **options) -> coach_pb.GradeHandRequest:
    record = hand_record_from_json(data)
    return coach_pb.GradeHandRequest(position=record.position, id=record.id, meta=record.meta,
                                     options=coach_pb.GradeOptions(**options))


def expected_hand(grades) -> dict:
    """`HandGrades.to_json()` as the response carries it: the settings apart, the record's
    game and meta not repeated, a hand record's index 0."""
    out = grades.to_json()
    settings = out.pop("seat_view")
    for key in ("game", "meta"):
        out.pop(key, None)
    out.setdefault("hand", 0)
    return out, settings


def answered_hand(message: coach_pb.HandGrades) -> tuple[dict, list[str]]:
    got = cc.hand_grades_from_proto(message)
    return got, got.pop("declaring", [])


# ------------------------------------------------------------------ GradeHand


@pytest.mark.parametrize("transport", ["grpc", "connect"])
@pytest.mark.parametrize("hand_id, declaring", [("club-1", ["N", "S"]), ("club-4", ["S"]),
                                                ("moon-1", ["E"])])
def test_grade_hand_is_the_python_apis(server, stub, transport, hand_id, declaring):
    data = RECORDS[hand_id]
    options = {"deals": 12, "seed": 5, "enumerate_limit": 300}
    answer = call(server, stub, transport, "GradeHand", hand_request(data, **options),
                  coach_pb.GradeHandResponse)
    expect, settings = expected_hand(grade_hand(data, threads=1, **options))
    got, seats = answered_hand(answer.grades)
    assert got == expect
    assert cc.settings_from_proto(answer.settings) == settings
    assert seats == declaring
    # Real figures: every play graded, the identity holds (to the rounding of doubles).
    g = answer.grades
    assert len([d for d in g.decisions if d.kind == coach_pb.DECISION_KIND_PLAY]) == \
        len(data["plays"])
    assert abs(g.skill + g.information + g.luck - g.dd_change) < 1e-5
    assert g.dd_change == g.final_value - g.dd_start
    plays = [d for d in g.decisions if d.kind == coach_pb.DECISION_KIND_PLAY]
    assert all(d.HasField("information_price") and d.information_price >= 0 for d in plays)
    assert abs(sum(d.information for d in plays) - g.information) < 1e-4
    assert any(d.information != 0 for d in plays)


def test_grade_hand_of_club_1_names_its_mistakes(stub):
    """The guide's hand (docs/guides/coaching.md): 29 at the opening lead, 35 made; at
    100 deals of seed 42 the mistakes are N's 4-2, W's 3-3 and E's 5-1, and W's 5-0 that
    cost 5 double dummy is none."""
    answer = stub.GradeHand(hand_request(RECORDS["club-1"]), timeout=TIMEOUT)
    g = answer.grades
    assert (g.value, g.final_value, g.dd_change, g.made) == (29, 35, 6, True)
    mistakes = [(pb.Seat.Name(d.seat), d.choice, d.best) for d in g.decisions if d.mistake]
    assert mistakes == [("SEAT_NORTH", "4-2", "1-1"), ("SEAT_WEST", "3-3", "6-2"),
                        ("SEAT_EAST", "5-1", "6-4")]
    west = g.decisions[3]
    assert (west.choice, west.dd_cost, round(west.loss.value, 2), west.mistake) == \
        ("5-0", 5, 1.66, False)
    # The opening lead: a small loss, a larger price of not seeing the other hands (the
    # declaring side's points: minus it), and the luck the rest of what the lead did.
    north = g.decisions[0]
    assert (north.choice, round(north.information_price, 2), round(north.information, 2),
            round(north.luck, 2)) == ("0-0", 3.44, -3.44, 3.5)
    assert (round(g.skill, 2), round(g.information, 2), round(g.luck, 2)) == \
        (1.3, -4.8, 9.5)
    assert (answer.settings.deals, answer.settings.seed, answer.settings.search) == \
        (100, 42, "double-dummy")


# ------------------------------------------------------------------ GradeGame


@pytest.mark.parametrize("transport, hands", [("grpc", []), ("connect", [2, 0])])
def test_grade_game_is_the_python_apis(server, stub, transport, hands):
    options = {"deals": 8, "seed": 3, "advice_deals": 8, "advice_seed": 4}
    request = coach_pb.GradeGameRequest(record=record_from_json(GAME),
                                        options=coach_pb.GradeOptions(**options), hands=hands)
    answer = call(server, stub, transport, "GradeGame", request, coach_pb.GradeGameResponse)
    expect = grade_game(GAME, threads=1, hands=hands or None, **options).to_json()
    assert cc.settings_from_proto(answer.settings) == expect["seat_view"]
    got = [answered_hand(h)[0] for h in answer.hands]
    want = [expected_hand_json(h) for h in expect["hands"]]
    assert got == want
    assert [h.hand for h in answer.hands] == (sorted(hands) if hands else [0, 1, 2])
    kinds = {d.kind for h in answer.hands for d in h.decisions}
    assert {coach_pb.DECISION_KIND_CALL, coach_pb.DECISION_KIND_DECLARATION,
            coach_pb.DECISION_KIND_PLAY} <= kinds
    calls = [d for h in answer.hands for d in h.decisions
             if d.kind == coach_pb.DECISION_KIND_CALL]
    assert all(d.HasField("marks_loss") and not d.HasField("loss") for d in calls)


def expected_hand_json(hand: dict) -> dict:
    out = {k: v for k, v in hand.items() if k not in ("game", "meta", "seat_view")}
    return out


# --------------------------------------------------------------- bad input


def _hand(**options):
    return lambda: hand_request(RECORDS["club-1"], **options)


def _edited_hand(edit):
    def build():
        request = hand_request(RECORDS["club-1"], deals=5)
        edit(request)
        return request
    return build


def _game(hands=(), edit=None, **options):
    def build():
        request = coach_pb.GradeGameRequest(record=record_from_json(GAME),
                                            options=coach_pb.GradeOptions(**options),
                                            hands=list(hands))
        if edit is not None:
            edit(request)
        return request
    return build


BAD = {
    "no deals": ("GradeHand", _hand(deals=0), "options.deals", "INVALID_VALUE"),
    "a negative seed": ("GradeHand", _hand(seed=-1), "options.seed", "INVALID_VALUE"),
    "an unknown search": ("GradeHand", _hand(search="playout"), "options.search",
                          "INVALID_VALUE"),
    "too deep": ("GradeHand", _hand(search="postponed", depth=9), "options.depth",
                 "INVALID_VALUE"),
    "enumerating too many": ("GradeHand", _hand(enumerate_limit=10 ** 6),
                             "options.enumerate_limit", "INVALID_VALUE"),
    "advice for a hand record": ("GradeHand", _hand(advice_deals=10), "options.advice_deals",
                                 "INVALID_OPTION"),
    "an unknown tile": ("GradeHand", _edited_hand(
        lambda r: r.position.plays.__setitem__(5, "7-1")), "position.plays[5]", "UNKNOWN_TILE"),
    "no contract": ("GradeHand", _edited_hand(lambda r: r.position.ClearField("contract")),
                    "position.contract", "MISSING_FIELD"),
    "no advice deals": ("GradeGame", _game(advice_deals=0), "options.advice_deals",
                        "INVALID_VALUE"),
    "a hand not in the record": ("GradeGame", _game(hands=(0, 3), deals=5), "hands[1]",
                                 "OUT_OF_RANGE"),
    "an illegal play": ("GradeGame", _game(edit=lambda r: r.record.hands[1].plays.__setitem__(
        1, r.record.hands[1].plays[0])), "record.hands[1].plays[1]", None),
    "a hand's deal left out": ("GradeGame", _game(edit=lambda r: r.record.hands[0].hands
                                                  .ClearField("east")),
                               "record.hands[0].hands.east", None),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_names_the_field(server, stub, name):
    method, build, field, code = BAD[name]
    if code is None:   # the record's own reason: whichever code, the field is the point
        with pytest.raises(grpc.RpcError) as err:
            getattr(stub, method)(build(), timeout=TIMEOUT)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert err.value.details().startswith(field), err.value.details()
    else:
        assert_invalid(lambda: getattr(stub, method)(build(), timeout=TIMEOUT), field, code)
    status, body = connect_json(server, method, build())
    assert status == 400 and body["code"] == "invalid_argument"
    violations, reason = connect_violations(body)
    assert violations[0][0] == field and (code is None or reason == code)
    assert "Traceback" not in json.dumps(body)


# ---------------------------------------------------------------- deadlines


def _jobs(server, outcome: str) -> float:
    return scrape(server.metrics_port).get(f't42_solver_jobs_total{{outcome="{outcome}"}}', 0.0)


def _idle(server) -> bool:
    return scrape(server.metrics_port).get("t42_solver_busy_workers") == 0


@pytest.mark.parametrize("method, build", [
    ("GradeHand", _hand(deals=100)), ("GradeGame", _game(deals=100, advice_deals=100))])
def test_a_deadline_stops_the_grading(server, stub, hold, method, build):
    cancelled = _jobs(server, "cancelled")
    with hold:   # held on its worker past the deadline, however fast the machine
        with pytest.raises(grpc.RpcError) as err:
            getattr(stub, method)(build(), timeout=0.5)
        assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        wait_for(lambda: _jobs(server, "cancelled") == cancelled + 1 and _idle(server))
        # Over Connect, its timeout header is the deadline.
        status, body = connect_json(server, method, build(), {"Connect-Timeout-Ms": "500"})
        assert status != 200 and body["code"] == "deadline_exceeded"
        wait_for(lambda: _jobs(server, "cancelled") == cancelled + 2 and _idle(server))
    assert wait_for(lambda: [e for e in server.log("rpc") if e["method"] == SERVICE + method
                             and e["code"] == "DEADLINE_EXCEEDED"])
    # The next call is answered.
    answer = getattr(stub, method)(build() if method == "GradeHand" else
                                   _game(hands=[0], deals=4, advice_deals=4)(),
                                   timeout=TIMEOUT)
    assert answer.ByteSize() > 0


# --------------------------------------------------------------- finished games


def finished_table(db: str, seed: int, seat: str = "S") -> tuple[str, dict]:
    """A table whose game is over (a rule-bot game of the arena, carried whole), stored
    in the server's database behind its back; its token and record."""
    record = play_table(GameArenaRun("rule", "rule", seed=seed), 0, 0)
    header = {k: v for k, v in record.items() if k not in ("hands", "id", "meta")}
    table = Table.new(header, seat, {s: {"name": "rule", "advice_deals": 100,
                                         "hint_deals": 100} for s in "NESW" if s != seat},
                      carried=record["hands"])
    assert table.state["finished"]
    store = TableStore(db)
    try:
        tables = Tables(store)
        table_id = store.create(table.state)
        return tables.token(table_id, table.index), table.state["record"]
    finally:
        store.close()


def going_table(stub) -> str:
    """A table whose game goes on (its first hand just dealt): its token."""
    from texas42.v1 import table_pb2
    header = record_from_json({"game": "42", "first_shaker": "N"})
    dealt = stub.DealHand(table_pb2.DealHandRequest(
        record=header, seat=pb.SEAT_SOUTH,
        bots=[table_pb2.TableBot(seat=s, bot="rule")
              for s in (pb.SEAT_NORTH, pb.SEAT_EAST, pb.SEAT_WEST)]), timeout=TIMEOUT)
    return dealt.sealed


@pytest.mark.parametrize("transport", ["grpc", "connect"])
def test_finished_games_are_those_of_the_tokens_given(server, stub, table_db, transport):
    first, first_record = finished_table(table_db, 1)
    second, second_record = finished_table(table_db, 2, seat="E")
    other, _ = finished_table(table_db, 3)   # a game whose token is not given
    going = going_table(stub)
    request = coach_pb.ListFinishedGamesRequest(sealed=[first, going, second, first])
    answer = call(server, stub, transport, "ListFinishedGames", request,
                  coach_pb.ListFinishedGamesResponse)
    assert [g.sealed for g in answer.games] == [second, first]   # the latest first
    assert list(answer.pending) == [going]
    by_token = {g.sealed: g for g in answer.games}
    for token, record, seat in ((first, first_record, pb.SEAT_SOUTH),
                                (second, second_record, pb.SEAT_EAST)):
        game = by_token[token]
        assert game.record == record_from_json(record)
        assert game.seat == seat and game.carried == len(record["hands"])
        truth = read_game(record)
        assert game.winner == truth.winner and dict(game.score) == truth.score
        assert [h.made if h.HasField("made") else None for h in game.hands] == \
            [h.made for h in truth.hands]
        assert game.finished.seconds > 0
    assert other.split(".")[0] not in {g.sealed.split(".")[0] for g in answer.games}
    # Nothing given, nothing listed.
    empty = call(server, stub, transport, "ListFinishedGames",
                 coach_pb.ListFinishedGamesRequest(), coach_pb.ListFinishedGamesResponse)
    assert not empty.games and not empty.pending


def test_finished_games_refuse_a_token_they_cannot_open(server, stub, table_db):
    token, _ = finished_table(table_db, 4)
    table_id, hand, mac = token.split(".")
    forged = f"{table_id}.{int(hand) + 1}.{mac}"   # another hand under the same signature
    unknown = Tables(TableStore(), key=b"k" * 32).token(table_id[::-1], 0)
    for bad, code in ((forged, "SEALED_INVALID"), ("not a token", "SEALED_INVALID"),
                      (unknown, "SEALED_INVALID")):
        request = coach_pb.ListFinishedGamesRequest(sealed=[token, bad])
        assert_invalid(lambda: stub.ListFinishedGames(request, timeout=TIMEOUT), "sealed[1]",
                       code)
        status, body = connect_json(server, "ListFinishedGames", request)
        assert status == 400 and connect_violations(body) == (
            [("sealed[1]", connect_violations(body)[0][0][1])], code)
    too_many = coach_pb.ListFinishedGamesRequest(sealed=[token] * 501)
    assert_invalid(lambda: stub.ListFinishedGames(too_many, timeout=TIMEOUT), "sealed",
                   "TOO_MANY_TOKENS")


def test_a_token_of_a_table_the_server_lost(server, stub, table_db):
    """Signed by this server's key, but its table is not in the database (the file was
    replaced): TABLE_UNKNOWN, naming the token."""
    token, _ = finished_table(table_db, 5)
    store = TableStore(table_db)
    try:
        lost = Tables(store).token("A" * 22, 0)
    finally:
        store.close()
    request = coach_pb.ListFinishedGamesRequest(sealed=[lost, token])
    assert_invalid(lambda: stub.ListFinishedGames(request, timeout=TIMEOUT), "sealed[0]",
                   "TABLE_UNKNOWN")


def test_a_finished_games_record_grades(server, stub, table_db):
    """The record a finished game comes with is one GradeGame takes as it is."""
    token, record = finished_table(table_db, 6)
    game = stub.ListFinishedGames(coach_pb.ListFinishedGamesRequest(sealed=[token]),
                                  timeout=TIMEOUT).games[0]
    last = len(game.record.hands) - 1
    answer = stub.GradeGame(coach_pb.GradeGameRequest(
        record=game.record, options=coach_pb.GradeOptions(deals=4, advice_deals=4),
        hands=[last]), timeout=TIMEOUT)
    expect = grade_game(copy.deepcopy(record), deals=4, advice_deals=4, threads=1,
                        hands=[last]).to_json()
    assert [answered_hand(h)[0] for h in answer.hands] == \
        [expected_hand_json(h) for h in expect["hands"]]
