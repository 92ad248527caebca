"""Advice calibration: hands dealt, advised, played out by hint bots; the table of the pairs.

Tiny deal counts (advice over 6 deals, hint bots over 3): this checks the
bookkeeping (the recorded prediction is the advice's, the result is that of
the recorded play, the table is built from the records), not that the advice
is any good. About 5 s of CPU (more wall clock on a loaded machine).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from solver.game.position import Position
from solver.hidden.bidding import advise
from solver.hidden.calibration import calibrated_p_make, calibration_table
from solver.hidden.dealer import Dealer
from solver.play.calibration_run import (CALIBRATION_BID, POINT_DECLARATIONS, CalibrationRecord,
                                         bid_chances, pairs_of, pairs_over_bids,
                                         play_calibration_hand, run_calibration)

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = str(ROOT / "bench" / "calibration.py")
SMALL = {"advice_deals": 6, "hint_deals": 3}


@pytest.fixture(scope="module")
def records() -> list[CalibrationRecord]:
    return run_calibration(4, seed=3, **SMALL)


def test_each_hand_records_the_advice_prediction_and_the_played_result(records):
    assert [r.hand for r in records] == [0, 1, 2, 3]
    assert [r.declarer for r in records] == ["N", "E", "S", "W"]
    for r in records:
        hand = r.hands[r.declarer]
        advice = advise(hand, r.declarer, deals=SMALL["advice_deals"],
                        seed=r.seed * 1_000_003 + r.hand,
                        declarations=list(POINT_DECLARATIONS), threads=1)
        best = max(c.chance(CALIBRATION_BID).p_make for c in advice.declarations)
        assert r.bid == CALIBRATION_BID
        assert r.predicted == best == advice.declaration(r.declaration).chance(30).p_make
        assert r.recommendation == advice.recommendation.to_json()
        end = Position({"hands": r.hands, "plays": r.plays,
                        "contract": {"declarer": r.declarer, "trump": r.declaration, "bid": 30}})
        assert end.is_complete and len(r.plays) == 28
        assert (r.points, r.made) == (end.points, end.points >= 30)


def test_the_table_is_built_from_the_recorded_pairs(records):
    table = calibration_table(pairs_of(records))
    assert sum(b.count for b in table) == len(records)
    assert sum(b.made for b in table) == sum(r.made for r in records)
    for b in table:
        inside = [r for r in records if b.low <= r.predicted < b.high
                  or (b.high == 1.0 and r.predicted == 1.0)]
        assert b.count == len(inside)
        assert b.made == sum(r.made for r in inside)


def test_every_bid_reads_the_points_against_the_advice_of_that_bid(records):
    pairs = pairs_over_bids(records[:2], bids=(30, 35, 42))
    assert len(pairs) == 6
    for r, chunk in zip(records[:2], (pairs[:3], pairs[3:])):
        chances = bid_chances(r)
        assert chances[30] == r.predicted      # the same deals as the recorded advice
        assert chunk == [(chances[b], r.points >= b) for b in (30, 35, 42)]
        assert chances[30] >= chances[35] >= chances[42]


def test_a_prediction_maps_to_the_observed_rate_of_its_bin():
    table = calibration_table([(0.95, True), (0.92, False), (0.97, False), (0.41, True)])
    assert calibrated_p_make(0.99, table) == pytest.approx(1 / 3)
    assert calibrated_p_make(1.0, table) == pytest.approx(1 / 3)
    assert calibrated_p_make(0.45, table) == 1.0
    assert calibrated_p_make(0.25, table) == 0.25      # empty bin: unchanged
    with pytest.raises(ValueError):
        calibrated_p_make(-0.1, table)


def test_records_survive_json_and_do_not_depend_on_the_number_of_workers(records):
    again = run_calibration(2, seed=3, workers=2, first_hand=2, **SMALL)
    assert again == records[2:]
    assert [CalibrationRecord.from_json(json.loads(json.dumps(r.to_json())))
            for r in records] == records


def test_advised_mode_plays_the_recommendation_or_skips_a_pass():
    deal = Dealer().deal(seed=3 * 1_000_003)
    advice = advise(deal.hands["N"], "N", deals=6, seed=3 * 1_000_003,
                    declarations=list(POINT_DECLARATIONS), threads=1)
    rec = play_calibration_hand(0, 3, mode="advised", **SMALL)
    if advice.recommendation.is_pass:
        assert rec is None      # nothing to play, no pair
    else:
        assert (rec.declaration, rec.bid, rec.predicted) == (
            advice.recommendation.declaration, advice.recommendation.bid,
            advice.recommendation.chance.p_make)


def test_the_bench_script_runs_and_reports(tmp_path):
    out = tmp_path / "cal.jsonl"
    done = subprocess.run([sys.executable, SCRIPT, "run", "--hands", "2", "--seed", "3",
                           "--advice-deals", "6", "--hint-deals", "3", "--workers", "1",
                           "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "calibration: 2/2" in done.stderr
    assert len(out.read_text().splitlines()) == 2
    shown = subprocess.run([sys.executable, SCRIPT, "report", "--out", str(out)],
                           capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("2 hands;")
    assert sum(int(line.split("|")[2]) for line in shown.stdout.splitlines()
               if line.startswith("| 0.") or line.startswith("| 1.")) == 2


# ------------------------------------------------------------- measured in games


@pytest.fixture(scope="module")
def games() -> list[dict]:
    # rule bids from its tiles and plays fast; the bookkeeping is what is checked here
    from solver.play.game_arena import GameArenaRun, run_game_arena
    return run_game_arena(GameArenaRun("rule", "rule", seed=4), 1)


def test_a_game_hand_pairs_the_winning_call_advice_with_the_result(games):
    from solver.game.game_record import read_game
    from solver.game.position import SEATS
    from solver.play.calibration_run import run_game_calibration
    pairs = run_game_calibration(games, advice_deals=6, seed=5)
    expected = 0
    for data in games:
        game = read_game(data)
        for i, hand in enumerate(game.hands):
            c = hand.contract
            if c is None or c.kind != "standard":
                continue
            expected += 1
            rec = next(r for r in pairs if r.game == game.id and r.hand == i)
            calls = [{"seat": SEATS[x.seat], "bid": "pass" if x.is_pass else x.amount}
                     for x in hand.auction.calls]
            last = max(k for k, x in enumerate(calls) if x["seat"] == SEATS[c.declarer]
                       and x["bid"] != "pass")
            assert rec.calls_before == calls[:last] and calls[last]["bid"] == rec.bid == c.bid
            advice = advise(hand.deal[c.declarer], SEATS[c.declarer],
                            auction=calls[:last], deals=6, seed=5 * 1_000_003 + i,
                            declarations=[c.declaration.name], threads=1)
            assert rec.predicted == advice.declaration(c.declaration.name).chance(c.bid).p_make
            assert rec.made == hand.made and rec.declaration == c.declaration.name
    assert len(pairs) == expected > 0
    assert run_game_calibration(games, advice_deals=6, seed=5, workers=2) == pairs


@pytest.fixture
def measured(tmp_path, games) -> tuple:
    """The games' records and their pairs (double dummy, 6 deals) measured by the bench
    script: (records file, pairs file, pairs)."""
    records = tmp_path / "games.jsonl"
    records.write_text("".join(json.dumps(g) + "\n" for g in games))
    out = tmp_path / "pairs.jsonl"
    done = subprocess.run([sys.executable, SCRIPT, "games", "--records", str(records),
                           "--advice-deals", "6", "--workers", "1", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return records, out, [json.loads(line) for line in out.read_text().splitlines()]


def test_the_bench_script_measures_games_and_writes_the_package_table(tmp_path, measured):
    _, out, pairs = measured
    table = tmp_path / "table.json"
    shown = subprocess.run([sys.executable, SCRIPT, "report", "--games", "--out", str(out),
                            "--package-table", str(table), "--provenance", "a test"],
                           capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    data = json.loads(table.read_text())
    assert (data["hands"], data["mode"], data["command"]) == (len(pairs), "games", "a test")
    assert sum(b["count"] for b in data["bins"]) == len(pairs)
    assert sum(b["made"] for b in data["bins"]) == sum(p["made"] for p in pairs)


def test_the_bench_script_measures_the_luck_of_the_deals(tmp_path, games, measured):
    """``luck`` sets, beside each bin, how often the deals as dealt made double dummy
    (solved here move by move) against the double-dummy advice's expectation."""
    from solver import Position, solve
    from solver.game.game_record import read_game
    records, out, pairs = measured
    # The same pairs as the double-dummy file: each bin's expectation is its prediction.
    shown = subprocess.run([sys.executable, SCRIPT, "luck", "--records", str(records),
                            "--out", str(out), "--double-dummy", str(out)],
                           capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    rows = [line.split("|")[1:-1] for line in shown.stdout.splitlines()[2:]]
    assert sum(int(r[2]) for r in rows) == len(pairs) > 0
    by_id = {g["id"]: read_game(g) for g in games}
    for row in rows:
        low = float(row[1].split("-")[0])
        these = [p for p in pairs if min(int(p["predicted"] * 10), 9) == round(low * 10)]
        assert float(row[3]) == float(row[5]) == pytest.approx(
            sum(p["predicted"] for p in these) / len(these), abs=5e-4)
        dealt = []
        for p in these:
            hand = by_id[p["game"]].hands[p["hand"]]
            start = hand.position.to_json()
            start.pop("plays")
            assert p["declaration"] not in ("nello", "sevens")   # points decide these
            dealt.append(solve(Position(start)).value >= min(p["bid"], 42))
        assert float(row[6]) == pytest.approx(sum(dealt) / len(dealt), abs=5e-4)
    bad = subprocess.run([sys.executable, SCRIPT, "luck", "--records", str(records),
                          "--out", str(out), "--double-dummy", str(tmp_path / "none.jsonl")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "No such file" in bad.stderr and "Traceback" not in bad.stderr
