"""Hand analysis: every play against separate solves of its positions, outcomes, bad records, CLI."""

from __future__ import annotations

import json
import os
import pty
import random
import subprocess
import sys
from pathlib import Path

import pytest

from solver import CancelToken, Position, PositionError, SearchCancelled, legal_moves, solve
from solver.search.analysis import analyze_hand

ROOT = Path(__file__).resolve().parent.parent
HANDS_FILE = ROOT / "examples" / "hands.jsonl"
RECORDS = [json.loads(line) for line in HANDS_FILE.read_text().splitlines() if line.strip()]
ALL_TILES = [f"{high}-{low}" for high in range(7) for low in range(high + 1)]


def tile_key(name: str) -> tuple[int, int]:
    high, low = name.split("-")
    return int(high), int(low)


def mover_maximises(record: dict, seat: str) -> bool:
    """SPEC: the declaring side maximises, except in nello, where the defenders do."""
    declarer = record["contract"]["declarer"]
    seats = "NES" if len(record["hands"]) == 3 else "NESW"
    partner = None if len(seats) == 3 else seats[(seats.index(declarer) + 2) % 4]
    declaring = seat in (declarer, partner)
    return declaring != (record["contract"]["trump"] == "nello")


def check_against_separate_solves(record: dict) -> None:
    """Each play's values, cost and better plays equal fresh solves of the positions."""
    analysis = analyze_hand(record)
    position = {k: v for k, v in record.items() if k not in ("id", "meta")}
    plays = position["plays"]
    players = 3 if len(record["hands"]) == 3 or record["contract"]["trump"] == "nello" else 4
    assert len(analysis.plays) == len(plays)
    assert analysis.value == solve(dict(position, plays=[]), with_line=False).value
    seats: dict[str, list[int]] = {}
    for i, play in enumerate(analysis.plays):
        before = solve(dict(position, plays=plays[:i]), with_line=False)
        assert (play.index, play.trick, play.tile) == (i, i // players + 1, plays[i])
        assert play.seat == before.to_move
        assert play.value_before == before.value
        assert play.value_after == before.moves[play.tile]
        gain = play.value_after - play.value_before
        assert play.cost == (-gain if mover_maximises(record, play.seat) else gain)
        assert play.cost >= 0
        if play.cost:
            better = sorted((t for t, v in before.moves.items() if v == before.value),
                            key=tile_key)
            assert list(play.alternatives) == better and play.tile not in better
        else:
            assert play.alternatives == ()
        seats.setdefault(play.seat, []).append(play.cost)
    final = solve(position, with_line=False)
    assert analysis.final_value == final.value
    assert analysis.complete == (final.to_move is None)
    if analysis.complete:
        assert analysis.result == final.value
        assert analysis.made == final.makes
    assert analysis.makes == Position(dict(position, plays=[])).makes(analysis.value)
    for seat, costs in seats.items():
        summary = analysis.seats[seat]
        assert (summary.plays, summary.costly_plays, summary.total_cost) == \
            (len(costs), sum(1 for c in costs if c), sum(costs))


@pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])
def test_recorded_hand_matches_separate_solves(record):
    check_against_separate_solves(record)


def test_recorded_hands_cover_nello_sevens_and_early_stops():
    trumps = {r["contract"]["trump"] for r in RECORDS}
    assert {"nello", "sevens", "doubles", "follow-me"} <= trumps
    assert any(r.get("game") == "moon" for r in RECORDS)
    stopped = [r for r in RECORDS if not analyze_hand(r).complete]
    assert {r["contract"]["trump"] for r in stopped} >= {"nello", "fours"}
    assert sum(len(analyze_hand(r).costly_plays) for r in RECORDS) >= 5


def random_hand(seed: int, trump: str, bid: int) -> dict:
    """A deal played out by picking uniformly among the legal tiles: many costly plays."""
    rng = random.Random(seed)
    tiles = list(ALL_TILES)
    rng.shuffle(tiles)
    record = {"hands": {s: tiles[7 * i:7 * i + 7] for i, s in enumerate("NESW")},
              "contract": {"declarer": "NESW"[seed % 4], "trump": trump, "bid": bid},
              "plays": []}
    while legal_moves(record):
        record["plays"].append(rng.choice(legal_moves(record)))
    return record


@pytest.mark.parametrize("seed, trump, bid, costly", [
    (1, "fives", 30, 2), (2, "nello", 42, 2), (7, "sevens", 42, 1)])
def test_randomly_played_hand_matches_separate_solves(seed, trump, bid, costly):
    # Sevens leaves few choices: random play rarely costs anything there.
    record = random_hand(seed, trump, bid)
    assert len(analyze_hand(record).costly_plays) >= costly
    check_against_separate_solves(record)


def count(tile: str) -> int:
    total = sum(tile_key(tile))
    return total if total in (5, 10) else 0


@pytest.mark.parametrize("record", [
    random_hand(7, "doubles", 30),   # the bid is reached with three tricks to go
    next(r for r in RECORDS if r["id"] == "club-3"),   # set with three tricks to go
    dict(RECORDS[0], contract=dict(RECORDS[0]["contract"], bid=84)),   # two marks
], ids=["made-early", "set-early", "marks"])
def test_outcome_decided_before_the_end(record):
    """Made once the bid is in, set once it is out of reach, open till then."""
    bid = record["contract"]["bid"]
    target = min(bid, 42)
    verdicts = []
    for n in range(0, 29, 4):
        analysis = analyze_hand(dict(record, plays=record["plays"][:n]))
        unplayed = [t for tiles in record["hands"].values() for t in tiles
                    if t not in record["plays"][:n]]
        still_to_win = sum(count(t) for t in unplayed) + len(unplayed) // 4
        expected = True if analysis.result >= target else \
            False if analysis.result + still_to_win < target else None
        assert analysis.made is expected, n
        assert analysis.complete == (n == 28)
        verdicts.append(expected)
    assert verdicts[0] is None and verdicts[-1] is not None
    assert verdicts[-3] is verdicts[-1], "decided at least two tricks before the end"


def test_no_plays_gives_the_opening_value_only():
    record = dict(RECORDS[0], plays=[])
    analysis = analyze_hand(record)
    assert analysis.plays == [] and analysis.final_value == analysis.value
    assert analysis.result == 0 and analysis.made is None
    assert all(s.plays == 0 for s in analysis.seats.values())


def test_metadata_and_id_are_passed_through():
    record = RECORDS[0]
    out = analyze_hand(json.dumps(record)).to_json()
    assert out["id"] == "club-1"
    assert out["meta"] == record["meta"] and out["meta"]["table"] == 3
    assert out["contract"]["declarer"] == "N" and out["unit"] == "points"
    assert [p["tile"] for p in out["plays"]] == record["plays"]
    assert set(out["seats"]) == {"N", "E", "S", "W"}
    nello = next(r for r in RECORDS if r["contract"]["trump"] == "nello")
    out = analyze_hand(nello).to_json()
    assert out["unit"] == "tricks" and "id" in out and len(out["seats"]) == 3


@pytest.mark.parametrize("change, field, code", [
    ({"play": []}, "play", "UNKNOWN_FIELD"),
    ({"meta": [1]}, "meta", "INVALID_TYPE"),
    ({"meta": {"players": {"X": "Ann"}}}, "meta.players.X", "UNKNOWN_SEAT"),
    ({"meta": {"players": {"N": 7}}}, "meta.players.N", "INVALID_TYPE"),
    ({"meta": {"date": 2024}}, "meta.date", "INVALID_TYPE"),
    ({"meta": {"auction": "30"}}, "meta.auction", "INVALID_TYPE"),
    ({"contract": {"declarer": "N", "trump": "sixes"}}, "contract.bid", "MISSING_FIELD"),
])
def test_bad_record_names_the_field(change, field, code):
    with pytest.raises(PositionError) as err:
        analyze_hand(dict(RECORDS[0], **change))
    assert (err.value.field, err.value.code) == (field, code)


def test_illegal_play_names_its_index():
    record = dict(RECORDS[0])
    plays = list(record["plays"])
    plays[5] = plays[0]  # already played
    with pytest.raises(PositionError) as err:
        analyze_hand(dict(record, plays=plays))
    assert err.value.field == "plays[5]" and err.value.code == "TILE_NOT_IN_HAND"
    for bad in ("{", "[1, 2]"):
        with pytest.raises(PositionError) as err:
            analyze_hand(bad)
        assert err.value.field == "record"


def test_cancel_token_stops_the_analysis():
    token = CancelToken()
    token.cancel()
    with pytest.raises(SearchCancelled):
        analyze_hand(RECORDS[0], token=token)


# ---------------------------------------------------------------- command line

def t42(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_cli_json_batch_with_a_bad_line(tmp_path):
    bad = dict(RECORDS[1], plays=list(RECORDS[1]["plays"]))
    bad["plays"][5] = "9-9"
    lines = [json.dumps(RECORDS[0]), "", json.dumps(bad), json.dumps(RECORDS[3])]
    path = tmp_path / "hands.jsonl"
    path.write_text("\n".join(lines) + "\n")
    done = t42("analyze", "--json", str(path))
    assert done.returncode == 2
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(out) == 3
    assert out[0] == analyze_hand(RECORDS[0]).to_json()
    assert out[1] == {"error": {"field": "plays[5]", "code": "UNKNOWN_TILE",
                                "reason": out[1]["error"]["reason"]}}
    assert out[2]["id"] == RECORDS[3]["id"] and out[2]["value"] == analyze_hand(RECORDS[3]).value
    assert done.stderr.strip().splitlines() == [
        f"t42: error: line 3: plays[5]: {out[1]['error']['reason']}"]


def test_cli_text_marks_costly_plays_and_sums_up_each_seat():
    done = t42("analyze", str(HANDS_FILE))
    assert done.returncode == 0 and done.stderr == ""
    analyses = [analyze_hand(r) for r in RECORDS]
    blocks = done.stdout.strip().split("\nHand ")
    assert len(blocks) == len(RECORDS)
    for block, analysis in zip(blocks, analyses):
        lines = block.splitlines()
        assert str(analysis.id) in lines[0]
        marked = [line for line in lines if line.startswith("*")]
        assert len(marked) == len(analysis.costly_plays)
        for line, play in zip(marked, analysis.costly_plays):
            cells = line[1:].split()
            assert cells[:7] == [str(play.index + 1), str(play.trick), play.seat, play.tile,
                                 str(play.value_before), str(play.value_after), str(play.cost)]
            assert cells[7:] == list(play.alternatives)
        for seat, summary in analysis.seats.items():
            row = next(line.split() for line in lines if line.split()[:1] == [seat]
                       and len(line.split()) >= 4 and line.split()[1].isdigit())
            assert row[1:4] == [str(summary.plays), str(summary.costly_plays),
                                str(summary.total_cost)]
        unit = analysis.unit[:-1] if analysis.value == 1 else analysis.unit
        assert f"opening lead: {analysis.value} {unit} (" in block


def test_cli_single_record_from_stdin_and_unreadable_input():
    done = t42("analyze", "--json", stdin=json.dumps(RECORDS[4], indent=2))
    assert done.returncode == 0
    assert json.loads(done.stdout) == analyze_hand(RECORDS[4]).to_json()
    missing = t42("analyze", "no-such-file.jsonl")
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.startswith("t42: error: cannot read no-such-file.jsonl")
    assert "Traceback" not in missing.stderr


def _stderr_on_terminal(*args: str) -> tuple[int, str, str]:
    """Run t42 with stderr on a pseudo-terminal: (status, stdout, what the terminal showed)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "solver", *args], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the terminal closes when the process exits
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    stdout, _ = proc.communicate(timeout=120)
    return proc.returncode, stdout, shown.decode()


def test_progress_bar_on_a_terminal_only():
    status, stdout, shown = _stderr_on_terminal("analyze", "--json", str(HANDS_FILE))
    assert status == 0 and len(stdout.splitlines()) == len(RECORDS)
    assert f"{len(RECORDS)}/{len(RECORDS)}" in shown and "analysing [" in shown
    status, _, shown = _stderr_on_terminal("analyze", "--json", "--no-progress", str(HANDS_FILE))
    assert status == 0 and shown == ""
