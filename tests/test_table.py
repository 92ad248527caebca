"""Double-dummy tables: every entry against a separate solve, best bids, bad deals, CLI."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from solver import CancelToken, PositionError, SearchCancelled, make_or_set, solve
from solver.search.table import SeatBest, best_for_seat, bid_made, solve_deal

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "deal.json"
ALL_TILES = [f"{high}-{low}" for high in range(7) for low in range(high + 1)]
POINT_TRUMPS = ["blanks", "ones", "deuces", "treys", "fours", "fives", "sixes", "doubles",
                "follow-me"]
SEATS = "NESW"


def random_hands(seed: int) -> dict:
    tiles = list(ALL_TILES)
    random.Random(seed).shuffle(tiles)
    return {seat: tiles[7 * i:7 * i + 7] for i, seat in enumerate(SEATS)}


def separate_points(hands: dict, seat: str, trump: str, doubles: str) -> int:
    contract = {"declarer": seat, "trump": trump, "bid": 30}
    if trump == "follow-me":
        contract["doubles"] = doubles
    return solve({"hands": hands, "contract": contract}, best_only=True, with_line=False).value


def separate_makes(hands: dict, seat: str, trump: str, doubles: str) -> bool:
    contract = {"declarer": seat, "trump": trump, "bid": 42}
    if trump == "nello":
        contract["doubles"] = doubles
    return make_or_set({"hands": hands, "contract": contract}).makes


DEALS = [
    (json.loads(EXAMPLE.read_text())["hands"], "high"),
    (random_hands(5), "low"),
    (random_hands(8), "suit"),
]


@pytest.mark.parametrize("hands, doubles", DEALS, ids=["example", "seed5-low", "seed8-suit"])
def test_every_entry_matches_a_separate_solve(hands, doubles):
    table = solve_deal({"hands": hands, "doubles": doubles})
    assert table.doubles == doubles
    for trump in POINT_TRUMPS:
        for seat in SEATS:
            assert table.points[trump][seat] == separate_points(hands, seat, trump, doubles), \
                (trump, seat)
    for trump in ("nello", "sevens"):
        for seat in SEATS:
            assert table.makes[trump][seat] == separate_makes(hands, seat, trump, doubles), \
                (trump, seat)
    for seat in SEATS:
        best = table.best[seat]
        bids = [bid_made(table.points[t][seat]) or 0 for t in POINT_TRUMPS]
        bids += [42 for t in ("nello", "sevens") if table.makes[t][seat]]
        assert (best.bid or 0) == max(bids)
        if best.points is not None:
            assert best.points == table.points[best.trump][seat]
            assert best.points == max(table.points[t][seat] for t in POINT_TRUMPS
                                      if (bid_made(table.points[t][seat]) or 0) == max(bids))
        else:
            assert table.makes[best.trump][seat] and best.bid == 42


def test_example_deal_has_every_kind_of_best():
    table = solve_deal({"hands": DEALS[0][0]})
    # East takes every point with blanks (a mark); North makes sevens (a mark).
    assert table.points["blanks"]["E"] == 42
    assert table.best["E"] == SeatBest("blanks", 42, 42)
    assert table.makes["sevens"]["N"] and table.best["N"] == SeatBest("sevens", None, 42)


def test_bid_made():
    assert [bid_made(v) for v in (0, 29, 30, 35, 41, 42)] == [None, None, 30, 35, 41, 42]


def test_best_for_seat_without_a_bid_names_the_most_points():
    points = {t: {"N": 20} for t in POINT_TRUMPS}
    points["treys"]["N"] = 29
    points["fours"]["N"] = 29
    makes = {"nello": {"N": False}, "sevens": {"N": False}}
    assert best_for_seat("N", points, makes) == SeatBest("treys", 29, None)
    points["sixes"]["N"] = 31
    assert best_for_seat("N", points, makes) == SeatBest("sixes", 31, 31)
    makes["nello"]["N"] = True
    assert best_for_seat("N", points, makes) == SeatBest("nello", None, 42)
    points["doubles"]["N"] = 42
    assert best_for_seat("N", points, makes) == SeatBest("doubles", 42, 42)


def test_json_rows_and_pass_through():
    hands = DEALS[0][0]
    table = solve_deal(json.dumps({"hands": hands, "id": 7, "meta": {"event": "x"}}))
    out = table.to_json()
    assert out["id"] == 7 and out["meta"] == {"event": "x"} and out["doubles"] == "high"
    assert [row["trump"] for row in out["rows"]] == POINT_TRUMPS + ["sevens", "nello"]
    for row in out["rows"]:
        key = "points" if row["trump"] in POINT_TRUMPS else "makes"
        assert set(row) == {"trump", key}
        assert row[key] == (table.points if key == "points" else table.makes)[row["trump"]]
    assert out["best"]["E"] == {"trump": "blanks", "points": 42, "bid": 42}


def test_a_position_before_the_lead_is_tabled_with_its_contract_ignored():
    position = json.loads(EXAMPLE.read_text())
    assert solve_deal(position).points == solve_deal({"hands": position["hands"]}).points
    # Tiles in any accepted notation come back as H-L.
    reversed_hands = {s: [t[::-1] for t in tiles] for s, tiles in position["hands"].items()}
    assert solve_deal({"hands": reversed_hands}).hands == position["hands"]


@pytest.mark.parametrize("deal, field, code", [
    ({"hands": None}, "hands", "MISSING_FIELD"),
    ({"hands": {**DEALS[0][0], "E": DEALS[0][0]["E"][:6]}}, "hands.E", "HAND_SIZE"),
    ({"hands": {**DEALS[0][0], "S": ["6-6"] + DEALS[0][0]["S"][1:]}}, "hands.S[0]",
     "DUPLICATE_TILE"),
    ({"hands": DEALS[0][0], "doubles": "middle"}, "doubles", "INVALID_OPTION"),
    ({"hands": DEALS[0][0], "plays": ["5-5"]}, "plays", "UNEXPECTED_FIELD"),
    ({"hands": DEALS[0][0], "game": "moon"}, "game", "UNSUPPORTED_GAME"),
    ({"hands": DEALS[0][0], "trump": "sixes"}, "trump", "UNKNOWN_FIELD"),
    ({"hands": DEALS[0][0], "meta": "x"}, "meta", "INVALID_TYPE"),
    ("[]", "deal", "INVALID_TYPE"),
    ("{", "deal", "INVALID_JSON"),
])
def test_bad_deal_names_the_field(deal, field, code):
    with pytest.raises(PositionError) as err:
        solve_deal(deal)
    assert (err.value.field, err.value.code) == (field, code)


def test_cancel_token_stops_the_table():
    token = CancelToken()
    token.cancel()
    with pytest.raises(SearchCancelled):
        solve_deal({"hands": DEALS[0][0]}, token=token)


# ---------------------------------------------------------------- command line

def t42(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_cli_json_lines_with_a_bad_line():
    good = {"hands": DEALS[1][0], "doubles": "low", "id": "b"}
    bad = {"hands": {**DEALS[0][0], "E": ["7-7"] + DEALS[0][0]["E"][1:]}}
    lines = [json.dumps({"hands": DEALS[0][0], "id": "a"}), json.dumps(bad), json.dumps(good)]
    done = t42("table", "--json", stdin="\n".join(lines) + "\n")
    assert done.returncode == 2
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert out[0] == solve_deal(json.loads(lines[0])).to_json()
    assert out[1]["error"]["field"] == "hands.E[0]" and out[1]["error"]["code"] == "UNKNOWN_TILE"
    assert out[2] == solve_deal(good).to_json()
    assert done.stderr.strip().splitlines() == [
        f"t42: error: line 2: hands.E[0]: {out[1]['error']['reason']}"]


def test_cli_grid():
    done = t42("table", str(EXAMPLE))
    assert done.returncode == 0 and done.stderr == ""
    table = solve_deal(json.loads(EXAMPLE.read_text()))
    rows = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines()
            if line.startswith("  ") and line.split()}
    assert rows["declaration"] == list(SEATS)
    for trump in POINT_TRUMPS:
        assert rows[trump] == [str(table.points[trump][s]) for s in SEATS]
    for trump in ("sevens", "nello"):
        assert rows[trump] == ["makes" if table.makes[trump][s] else "set" for s in SEATS]
    assert rows["E"] == ["blanks", "42", "points", "bids", "1", "mark"]
    assert rows["N"] == ["sevens", "makes", "bids", "1", "mark"]
