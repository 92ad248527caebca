"""The BidAdvice RPC on a real server: the same advice as the Python API and the CLI for
a seed, bad hands as INVALID_ARGUMENT with field violations, deadlines honoured."""

from __future__ import annotations

import json
import subprocess
import sys

import grpc
import pytest
from grpc_helpers import assert_invalid, scrape, wait_for

from solver.hidden.bidding import advise
from texas42.v1 import bidding_pb2 as bid_pb
from texas42.v1 import hand_analysis_pb2 as hand_pb
from texas42.v1 import position_pb2 as pb

TIMEOUT = 60
SERVICE = "/texas42.v1.HintService/"
HAND = ["6-6", "6-4", "5-5", "4-4", "3-3", "2-0", "1-1"]
DECLARATIONS = {"fours": pb.DECLARATION_FOURS, "sixes": pb.DECLARATION_SIXES,
                "sevens": pb.DECLARATION_SEVENS}
SEAT = {pb.SEAT_NORTH: "N", pb.SEAT_EAST: "E", pb.SEAT_SOUTH: "S", pb.SEAT_WEST: "W"}
DECL_NAME = {v: k for k, v in DECLARATIONS.items()}
KIND_NAME = {pb.CONTRACT_KIND_PLUNGE: "plunge", pb.CONTRACT_KIND_SPLASH: "splash"}


def request(**fields) -> bid_pb.BidAdviceRequest:
    base = dict(hand=HAND, seat=pb.SEAT_WEST, deals=6, seed=21,
                declarations=[bid_pb.BidDeclaration(declaration=DECLARATIONS["fours"]),
                              bid_pb.BidDeclaration(declaration=DECLARATIONS["sevens"]),
                              bid_pb.BidDeclaration(kind=pb.CONTRACT_KIND_SPLASH)],
                auction=[hand_pb.AuctionCall(seat=pb.SEAT_SOUTH, bid=30),
                         hand_pb.AuctionCall(seat=pb.SEAT_WEST, bid=0)])
    base.update(fields)
    return bid_pb.BidAdviceRequest(**base)


def name(choice: bid_pb.BidDeclaration) -> str:
    return KIND_NAME.get(choice.kind) or DECL_NAME[choice.declaration]


def chance_json(c: bid_pb.BidChance) -> dict:
    out = {"bid": c.bid, "made": c.made, "p_make": round(c.p_make, 6), "low": round(c.low, 6),
           "high": round(c.high, 6), "e_marks": round(c.e_marks, 6)}
    if c.HasField("p_make_calibrated"):
        out["p_make_calibrated"] = round(c.p_make_calibrated, 6)
        out["e_marks_calibrated"] = round(c.e_marks_calibrated, 6)
    return out


def advice_json(a: bid_pb.BidAdvice) -> dict:
    """The message in the form of `BidAdvice.to_json` (time and nodes left out)."""
    rec = a.recommendation
    units = {hand_pb.VALUE_UNIT_POINTS: "points", hand_pb.VALUE_UNIT_TRICKS: "tricks"}
    return {
        "game": {pb.GAME_FORTY_TWO: "42", pb.GAME_MOON: "moon"}[a.game], "players": a.players,
        "seat": SEAT[a.seat], "hand": list(a.hand),
        "doubles": {pb.DOUBLES_OPTION_HIGH: "high", pb.DOUBLES_OPTION_LOW: "low",
                    pb.DOUBLES_OPTION_SUIT: "suit"}[a.doubles],
        "highest_bid": a.highest_bid if a.HasField("highest_bid") else None,
        "threshold": a.threshold, "deals": a.deals, "seed": a.seed, "adaptive": a.adaptive,
        "p_make_used": "calibrated" if a.calibrated else (a.search or "double-dummy"),
        "recommendation": {"bid": "pass"} if rec.is_pass else
        {"declaration": name(rec.declaration), **chance_json(rec.chance)},
        "declarations": [{
            "declaration": name(d.declaration),
            "kind": KIND_NAME.get(d.declaration.kind, "standard"),
            "unit": units.get(d.unit),
            "mean": round(d.mean, 6) if d.HasField("mean") else None,
            "distribution": list(d.distribution) or None,
            "made": d.made if d.HasField("made") else None,
            "bids": [chance_json(c) for c in d.bids]} for d in a.declarations],
        **({"calibration": calibration_json(a.calibration)} if a.HasField("calibration") else {}),
        **({"fixed_lead": True} if a.fixed_lead else {}),
        **({"search": a.search, "inner_deals": a.inner_deals, "lead_deals": a.lead_deals,
            "defence": a.defence,
            "screened": [name(d) for d in a.screened]}
           if a.search not in ("", "double-dummy") else {}),
    }


def calibration_json(c: bid_pb.BidCalibration) -> dict:
    return {"hands": c.hands, "seed": c.seed, "mode": c.mode, "advice_deals": c.advice_deals,
            "hint_deals": c.hint_deals, "measured": c.measured,
            **({"fixed_lead": True} if c.fixed_lead else {}),
            "knots": [[round(x, 6), round(y, 6)] for x, y in zip(c.predicted, c.observed)]}


def cli_advice(*options: str) -> dict:
    """`t42 bid --json` of HAND held by West with ``options`` (time and nodes left out)."""
    cli = subprocess.run([sys.executable, "-m", "solver", "bid", *HAND, "--seat", "W",
                          "--json", *options], capture_output=True, text=True, timeout=TIMEOUT)
    assert cli.returncode == 0, cli.stderr
    doc = json.loads(cli.stdout)
    doc.pop("seconds"), doc.pop("nodes")
    return doc


@pytest.mark.parametrize("defence", ["seat-view", "rule"])
def test_seat_view_advice_over_rpc_python_and_cli_agree(stub, defence):
    """search playout: every deal played out by seat-view players, against the defence
    named (the rule bot's play supplied by the server, as by the CLI)."""
    from solver.hidden.seat_view_bidding import bid_advice
    from solver.play.bots import defence_players
    answer = stub.BidAdvice(request(search="playout", inner_deals=2, defence=defence, deals=3,
                                    lead_deals=4, declarations=[bid_pb.BidDeclaration(
                                        declaration=DECLARATIONS["fours"])]),
                            timeout=TIMEOUT).advice
    api = bid_advice(HAND, "W", deals=3, seed=21, declarations=["fours"], search="playout",
                     inner_deals=2, defence=defence, defenders=defence_players(defence),
                     lead_deals=4,
                     auction=[{"seat": "S", "bid": 30}, {"seat": "W", "bid": "pass"}]
                     ).to_json()
    cli_json = cli_advice("--deals", "3", "--seed", "21", "--declarations", "fours",
                          "--auction", "30,pass", "--search", "playout", "--inner-deals", "2",
                          "--defence", defence, "--lead-deals", "4")
    api.pop("seconds"), api.pop("nodes")
    assert advice_json(answer) == api == cli_json
    assert (answer.search, answer.inner_deals, answer.lead_deals, answer.defence) == \
        ("playout", 2, 4, defence)
    assert api["p_make_used"] == "playout"


def test_a_screened_playout_over_rpc_python_and_cli_agree(stub):
    """The double-dummy screen: of fours, sevens and sixes (the request's, unset screen:
    the default 3) or two of them (screen 2), the others named as screened."""
    from solver.hidden.seat_view_bidding import bid_advice
    asked = [bid_pb.BidDeclaration(declaration=DECLARATIONS[d]) for d in ("fours", "sevens",
                                                                         "sixes")]
    answer = stub.BidAdvice(request(search="playout", inner_deals=1, deals=2, screen=2,
                                    declarations=asked), timeout=TIMEOUT).advice
    api = bid_advice(HAND, "W", deals=2, seed=21, declarations=["fours", "sevens", "sixes"],
                     search="playout", inner_deals=1, screen=2,
                     auction=[{"seat": "S", "bid": 30}, {"seat": "W", "bid": "pass"}]).to_json()
    cli_json = cli_advice("--deals", "2", "--seed", "21", "--declarations",
                          "fours,sevens,sixes", "--auction", "30,pass", "--search", "playout",
                          "--inner-deals", "1", "--screen", "2")
    api.pop("seconds"), api.pop("nodes")
    assert advice_json(answer) == api == cli_json
    assert len(api["declarations"]) == 2 and len(api["screened"]) == 1
    assert api["lead_deals"] == 20    # unset: the default
    assert {d["declaration"] for d in api["declarations"]} | set(api["screened"]) == \
        {"fours", "sevens", "sixes"}
    every = stub.BidAdvice(request(search="playout", inner_deals=1, deals=2,
                                   declarations=asked), timeout=TIMEOUT).advice
    assert len(every.declarations) == 3 and not every.screened


@pytest.mark.parametrize("fields, path, code", [
    ({"search": "psychic"}, "search", "INVALID_VALUE"),
    ({"screen": 2}, "screen", "INVALID_OPTION"),
    ({"search": "playout", "fixed_lead": True}, "fixed_lead", "INVALID_OPTION"),
    ({"search": "playout", "defence": "lucky"}, "defence", "INVALID_VALUE"),
    ({"inner_deals": 2}, "inner_deals", "INVALID_OPTION"),
    ({"search": "playout", "inner_deals": 51}, "inner_deals", "INVALID_VALUE"),
    ({"lead_deals": 2}, "lead_deals", "INVALID_OPTION"),
    ({"search": "playout", "lead_deals": 51}, "lead_deals", "INVALID_VALUE"),
])
def test_bad_seat_view_options_name_their_field(stub, fields, path, code):
    assert_invalid(lambda: stub.BidAdvice(request(**fields), timeout=TIMEOUT), path, code)


def test_rpc_python_and_cli_agree_for_a_seed(stub):
    answer = stub.BidAdvice(request(), timeout=TIMEOUT).advice
    api = advise(HAND, "W", deals=6, seed=21, declarations=["fours", "sevens", "splash"],
                 auction=[{"seat": "S", "bid": 30}, {"seat": "W", "bid": "pass"}]).to_json()
    cli_json = cli_advice("--deals", "6", "--seed", "21", "--declarations",
                          "fours,sevens,splash", "--auction", "30,pass")
    api.pop("seconds"), api.pop("nodes")
    assert advice_json(answer) == api == cli_json
    assert answer.nodes > 0 and answer.seconds > 0
    assert sorted(name(d.declaration) for d in answer.declarations) == ["fours", "sevens",
                                                                        "splash"]


def test_calibrated_advice_agrees_over_rpc_python_and_cli(stub):
    # 20 deals of one hand, two declarations, asked twice: about 1 s of search in all.
    fields = dict(hand=HAND, seat=pb.SEAT_NORTH, deals=20, seed=3, auction=[],
                  declarations=[bid_pb.BidDeclaration(declaration=DECLARATIONS[d])
                                for d in ("fours", "sixes")])
    answer = stub.BidAdvice(request(calibrated=True, **fields), timeout=TIMEOUT).advice
    plain = stub.BidAdvice(request(**fields), timeout=TIMEOUT).advice
    api = advise(HAND, "N", deals=20, seed=3, declarations=["fours", "sixes"],
                 calibrated=True).to_json()
    cli = subprocess.run([sys.executable, "-m", "solver", "bid", *HAND, "--seat", "N",
                          "--deals", "20", "--seed", "3", "--declarations", "fours,sixes",
                          "--calibrated", "--json"], capture_output=True, text=True,
                         timeout=TIMEOUT)
    assert cli.returncode == 0, cli.stderr
    cli_json = json.loads(cli.stdout)
    for doc in (api, cli_json):
        doc.pop("seconds"), doc.pop("nodes")
    assert advice_json(answer) == api == cli_json
    assert answer.calibrated and not plain.calibrated and not plain.HasField("calibration")
    assert answer.calibration.hands == 881 and answer.calibration.seed == 7
    # The same deals and double-dummy figures; the calibrated figure is lower here
    # and the recommendation follows it.
    for calibrated, raw in zip(answer.declarations, plain.declarations):
        for c, r in zip(calibrated.bids, raw.bids):
            assert (c.bid, c.made, c.p_make) == (r.bid, r.made, r.p_make)
            assert c.p_make_calibrated < c.p_make or c.p_make == 0
            assert not r.HasField("p_make_calibrated")
    assert answer.recommendation.chance.p_make_calibrated >= 0.75
    assert answer.recommendation.chance.bid < plain.recommendation.chance.bid


def test_fixed_lead_advice_agrees_over_rpc_and_python(stub):
    fields = dict(deals=8, seed=4, auction=[],
                  declarations=[bid_pb.BidDeclaration(declaration=DECLARATIONS["fours"])])
    answer = stub.BidAdvice(request(fixed_lead=True, **fields), timeout=TIMEOUT).advice
    plain = stub.BidAdvice(request(**fields), timeout=TIMEOUT).advice
    api = advise(HAND, "W", deals=8, seed=4, declarations=["fours"], fixed_lead=True).to_json()
    api.pop("seconds"), api.pop("nodes")
    assert advice_json(answer) == api and answer.fixed_lead and not plain.fixed_lead
    for fixed, dd in zip(answer.declarations[0].bids, plain.declarations[0].bids):
        assert fixed.made <= dd.made
    # Calibrated: through the map measured on fixed-lead figures, which says so.
    calibrated = stub.BidAdvice(request(fixed_lead=True, calibrated=True, **fields),
                                timeout=TIMEOUT).advice
    api = advise(HAND, "W", deals=8, seed=4, declarations=["fours"], fixed_lead=True,
                 calibrated=True).to_json()
    api.pop("seconds"), api.pop("nodes")
    assert advice_json(calibrated) == api
    assert calibrated.calibrated and calibrated.calibration.fixed_lead
    three = request(fixed_lead=True, game=pb.GAME_MOON, players=3, seat=pb.SEAT_NORTH,
                    hand=["6-6", "6-4", "5-5", "4-4", "3-3", "1-1", "0-0"], auction=[],
                    declarations=[])
    assert_invalid(lambda: stub.BidAdvice(three, timeout=TIMEOUT), "fixed_lead", "INVALID_OPTION")


def test_without_a_seed_the_answer_names_the_seed_that_repeats_it(stub):
    first = stub.BidAdvice(request(seed=None, deals=3), timeout=TIMEOUT).advice
    again = stub.BidAdvice(request(seed=first.seed, deals=3), timeout=TIMEOUT).advice
    assert advice_json(first) == advice_json(again)


@pytest.mark.parametrize("fields, field, code", [
    (dict(hand=HAND[:6]), "hand", "HAND_SIZE"),
    (dict(hand=HAND[:6] + ["4-4"]), "hand[6]", "DUPLICATE_TILE"),
    (dict(hand=HAND[:6] + ["9-9"]), "hand[6]", "UNKNOWN_TILE"),
    (dict(game=pb.GAME_MOON, players=3, seat=pb.SEAT_EAST, declarations=[]), "hand[5]",
     "NOT_IN_TILE_SET"),
    (dict(auction=[hand_pb.AuctionCall(bid=31), hand_pb.AuctionCall(bid=31)]),
     "auction[1].bid", "BID_NOT_HIGHER"),
    (dict(seat=pb.SEAT_UNSPECIFIED), "seat", "MISSING_FIELD"),
    (dict(threshold=0.0), "threshold", "INVALID_VALUE"),
    (dict(declarations=[bid_pb.BidDeclaration()]), "declarations[0].declaration",
     "UNKNOWN_DECLARATION"),
    (dict(hand=["6-5", "6-4", "5-4", "4-3", "3-2", "2-1", "1-0"],
          declarations=[bid_pb.BidDeclaration(kind=pb.CONTRACT_KIND_PLUNGE)]),
     "declarations[0]", "PLUNGE_NEEDS_FOUR_DOUBLES"),
])
def test_bad_hand_is_invalid_argument_with_the_field(stub, fields, field, code):
    assert_invalid(lambda: stub.BidAdvice(request(**fields), timeout=TIMEOUT), field, code)


def test_deadline_stops_the_advice(server, stub):
    def cancelled() -> float:
        return scrape(server.metrics_port).get('t42_solver_jobs_total{outcome="cancelled"}', 0.0)

    before = cancelled()
    with pytest.raises(grpc.RpcError) as err:
        # 100,000 deals take minutes; the call allows half a second.
        stub.BidAdvice(request(deals=100_000, declarations=[]), timeout=0.5)
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    wait_for(lambda: cancelled() == before + 1
             and scrape(server.metrics_port).get("t42_solver_busy_workers") == 0)
    assert wait_for(lambda: [e for e in server.log("rpc") if e["method"] == SERVICE + "BidAdvice"
                             and e["code"] == "DEADLINE_EXCEEDED"])
    # The server goes on answering.
    assert stub.BidAdvice(request(deals=2), timeout=TIMEOUT).advice.deals == 2
