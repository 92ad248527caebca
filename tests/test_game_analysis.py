"""`t42 analyze` on game records (`solver.hidden.game_analysis.analyze_game`): every hand
with a contract analysed as a hand record, every call beside seeded bid advice; hand
records are analysed as before."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from solver import GameRecord
from solver.hidden.bidding import advise
from solver.hidden.game_analysis import analyze_game
from solver.search.analysis import analyze_hand

ROOT = Path(__file__).resolve().parent.parent
CASES = {c["id"]: c["record"] for c in map(json.loads, (ROOT / "tests" / "cases" /
                                                          "games.jsonl").read_text().splitlines())}
#: Short games: 42 (one hand, 15 plays; two hands), three- and four-player Moon.
SHORT = ["game-2026-5", "game-2026-8", "game-2026-11", "game-2026-23"]
DEALS = 4


def t42(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *args], input=stdin,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("name", SHORT)
def test_every_hand_and_call_of_a_game(name):
    record = CASES[name]
    game = GameRecord(record)
    analysis = analyze_game(record, deals=DEALS, seed=7)
    out = analysis.to_json()
    assert out["advice"] == {"deals": DEALS, "seed": 7, "p_make": "calibrated"
                             if game.game == "42" else "double-dummy"}
    assert out["score"] == game.score and out["winner"] == game.winner
    assert out["next"] == game.next_action()
    assert len(out["hands"]) == len(game.hands)
    calibrated = game.game == "42"
    for hand, got in zip(game.hands, out["hands"]):
        summary = hand.summary_json()
        assert {k: got[k] for k in ("shaker", "contract", "made", "score")} == summary
        # The play: the hand's position analysed as a hand record.
        if hand.position is None:
            assert got["play"] is None
        else:
            alone = analyze_hand({**hand.position.to_json(), "id": f"#{hand.index + 1}"})
            assert got["play"] == alone.to_json()
        # Each call: the caller's tiles and the calls before it, the seeded advice.
        calls = hand.auction.calls
        assert [c["seat"] for c in got["calls"]] == ["NESW"[c.seat] for c in calls]
        for i, (call, figures) in enumerate(zip(calls, got["calls"])):
            advice = advise(hand.deal[call.seat], "NESW"[call.seat],
                            game=game.game, players=game.players, deals=DEALS, seed=7,
                            auction=[{"seat": "NESW"[c.seat],
                                      "bid": "pass" if c.is_pass else c.amount}
                                     for c in calls[:i]], calibrated=calibrated)
            rec = advice.recommendation
            advised = figures["advised"]
            if rec.bid is None:
                assert advised == {"call": "pass", "declaration": None, "p_make": None,
                                   "e_marks": 0.0}
            else:
                p = rec.chance.p_used
                assert advised["declaration"] == rec.declaration
                assert advised["call"] in (rec.bid, rec.declaration)
                assert advised["p_make"] == round(p, 6)
                assert advised["e_marks"] == round(rec.chance.marks * (2 * p - 1), 6)
            made = figures["made"]
            assert made["call"] == call.bid
            if call.is_pass:
                assert made["p_make"] is None and made["e_marks"] == 0.0
            elif made["p_make"] is not None:
                row = advice.declaration(made["declaration"])
                assert made["p_make"] == round(row.chance(call.amount).p_used, 6)
            if hand.contract is not None and call.seat == hand.auction.winner \
                    and call.kind == "standard":
                assert made["declaration"] == hand.contract.declaration.name
            assert figures["agrees"] == (made["call"] == advised["call"] and (
                made["call"] == "pass" or made["declaration"] == advised["declaration"]))


def test_t42_analyze_a_game_repeats_and_matches_the_api(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(CASES[n]) + "\n" for n in SHORT[:2]))
    args = ("analyze", "--json", "--no-progress", "--advice-deals", str(DEALS), str(path))
    first, again = t42(*args), t42(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == again.stdout
    lines = [json.loads(line) for line in first.stdout.splitlines()]
    assert len(lines) == 2

    def strip(obj):  # timings differ from run to run
        if isinstance(obj, dict):
            return {k: strip(v) for k, v in obj.items() if k not in ("seconds", "nodes")}
        if isinstance(obj, list):
            return [strip(v) for v in obj]
        return obj
    for name, line in zip(SHORT, lines):
        assert strip(line) == strip(analyze_game(CASES[name], deals=DEALS).to_json())
    text = t42("analyze", "--no-progress", "--advice-deals", str(DEALS), str(path))
    assert text.returncode == 0, text.stderr
    assert text.stdout.count("Auction beside bid advice") == 3  # 1 + 2 hands
    assert "Score: " in text.stdout and "Double-dummy value at the opening lead" in text.stdout


def test_a_game_without_a_contract_yet_has_calls_and_no_play(tmp_path):
    record = json.loads(json.dumps(CASES["game-2026-5"]))
    hand = record["hands"][0]
    hand["auction"] = hand["auction"][:2]
    del hand["contract"], hand["plays"]
    out = analyze_game(record, deals=DEALS).to_json()
    assert out["next"] == {"seat": "N", "action": "call"}
    assert len(out["hands"][0]["calls"]) == 2 and out["hands"][0]["play"] is None
    done = t42("analyze", "--no-progress", "--advice-deals", str(DEALS), stdin=json.dumps(record))
    assert done.returncode == 0, done.stderr
    assert "Double-dummy value" not in done.stdout


def test_a_bad_game_record_names_the_field():
    record = json.loads(json.dumps(CASES["game-2026-5"]))
    record["hands"][0]["auction"][2]["bid"] = 29
    done = t42("analyze", "--advice-deals", str(DEALS), stdin=json.dumps(record))
    assert done.returncode == 2
    assert done.stderr.startswith("t42: error: hands[0].auction[2].bid: ")
    bad = t42("analyze", "--advice-deals", "0", stdin=json.dumps(CASES["game-2026-5"]))
    assert bad.returncode == 2 and "--advice-deals" in bad.stderr


def test_hand_records_are_analysed_as_before():
    path = ROOT / "examples" / "hands.jsonl"
    done = t42("analyze", "--json", "--no-progress", str(path))
    assert done.returncode == 0, done.stderr
    for line, raw in zip(done.stdout.splitlines(), path.read_text().splitlines()):
        got, want = json.loads(line), analyze_hand(json.loads(raw)).to_json()
        got.pop("seconds", None), want.pop("seconds", None)
        assert got == want
