"""`t42 deal` run as a real process: random deals, constraints, views, errors."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from solver import Position
from solver.game import tiles as T
from solver.game.view import View
from solver.hidden.dealer import Dealer
from solver.hidden.deals import count_deals, sample_deals, tile_probabilities
from view_cases import assert_probabilities_match, read_cases

VIEW_CASES = read_cases("views.jsonl")


def t42(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def lines(done: subprocess.CompletedProcess) -> list[dict]:
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def assert_one_error_line(done: subprocess.CompletedProcess, *parts: str) -> None:
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    errors = done.stderr.splitlines()
    assert len(errors) == 1 and errors[0].startswith("t42: error: "), done.stderr
    for part in parts:
        assert part in errors[0]


def test_random_deals_are_seeded_and_match_the_api():
    got = lines(t42("deal", "--seed", "9", "--count", "5"))
    assert got == [d.to_json() for d in Dealer().deals(5, 9)]
    assert got == lines(t42("deal", "--seed", "9", "--count", "5"))
    assert got != lines(t42("deal", "--seed", "10", "--count", "5"))
    for deal in got:
        tiles = [t for hand in deal["hands"].values() for t in hand]
        assert sorted(tiles) == sorted(T.NAMES) and len(deal["hands"]) == 4


def test_constrained_deals_hold_what_was_asked():
    got = lines(t42("deal", "--seed", "1", "--count", "40", "--hand", "N=6-6,5-5",
                    "--trump", "sixes", "--min-trumps", "N=4", "--max-doubles", "E=0"))
    assert len(got) == 40
    for deal in got:
        north, east = deal["hands"]["N"], deal["hands"]["E"]
        assert {"6-6", "5-5"} <= set(north)
        assert sum("6" in t for t in north) >= 4
        assert not any(t[0] == t[2] for t in east)


def test_deals_as_positions_under_a_contract():
    contract = {"declarer": "S", "trump": "fours", "bid": 31}
    got = lines(t42("deal", "--seed", "2", "--count", "3", "--contract", json.dumps(contract)))
    for data in got:
        position = Position(data)
        assert position.contract.bid == 31 and position.to_move == "S"


def test_three_player_moon_deals_have_a_widow():
    got = lines(t42("deal", "--game", "moon", "--seed", "3", "--count", "4"))
    for deal in got:
        assert deal["game"] == "moon" and sorted(deal["hands"]) == ["E", "N", "S"]
        tiles = [t for hand in deal["hands"].values() for t in hand] + [deal["widow"]]
        assert len(set(tiles)) == 22 and not any(t[2] == "0" and t != "0-0" for t in tiles)


def test_view_stats_match_the_api_and_the_case(tmp_path):
    case = VIEW_CASES[0]
    path = tmp_path / "view.json"
    path.write_text(json.dumps(case["view"], indent=2))
    [stats] = lines(t42("deal", "--view", str(path), "--stats"))
    assert stats["count"] == case["expect"]["count"] == count_deals(case["view"])
    assert_probabilities_match(stats["tile_probabilities"], case["expect"]["tile_probabilities"])
    assert stats["tile_probabilities"] == tile_probabilities(case["view"])


def test_view_deals_drawn_and_all(tmp_path):
    case = VIEW_CASES[0]
    path = tmp_path / "view.json"
    path.write_text(json.dumps(case["view"]))
    drawn = lines(t42("deal", "--view", str(path), "--count", "6", "--seed", "5"))
    assert drawn == [d.to_json() for d in sample_deals(case["view"], 6, random.Random(5))]
    view = View(case["view"])
    for data in drawn:
        assert sorted(Position(data).hands[view.seat]) == sorted(view.hand_ids)
    every = lines(t42("deal", "--view", str(path), "--all"))
    assert len(every) == len({json.dumps(d) for d in every}) == case["expect"]["count"]


def test_json_lines_of_views_a_bad_line_costs_only_itself():
    good, bad = VIEW_CASES[1]["view"], read_cases("views_bad.jsonl")[0]["view"]
    stdin = json.dumps(good) + "\n" + json.dumps(bad) + "\n" + json.dumps(good) + "\n"
    done = t42("deal", "--view", "-", "--stats", stdin=stdin)
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert [("error" in o) for o in out] == [False, True, False]
    assert out[0]["count"] == VIEW_CASES[1]["expect"]["count"] == out[2]["count"]
    assert out[1]["error"]["code"] == "NELLO_PARTNER_VIEW"
    assert_one_error_line(done, "line 2: seat:")


@pytest.mark.parametrize("args, parts", [
    (("--hand", "N=xx"), ("--hand N[0]: unknown tile 'xx'",)),
    (("--hand", "N=6-6", "--hand", "E=6-6"), ("--hand E[0]", "6-6")),
    (("--hand", "N"), ("--hand", "SEAT=VALUE")),
    (("--min-trumps", "N=3"), ("trump",)),
    (("--trump", "sixes", "--min-trumps", "N=many"), ("--min-trumps",)),
    (("--trump", "sixes", "--min-trumps", "N=6", "--min-trumps", "E=6"),
     ("--min/--max-trumps: no deal",)),
    (("--game", "moon", "--players", "4", "--hand", "W=1-0", "--players", "3"), ("W",)),
    (("--stats",), ("--view",)),
    (("--count", "-1"), ("--count",)),
    (("--view", "/no/such/file", "--stats"), ("cannot read",)),
    (("--contract", "{"), ("--contract",)),
])
def test_bad_arguments_give_one_error_line(args, parts):
    assert_one_error_line(t42("deal", *args), *parts)


def test_all_refuses_views_over_the_limit(tmp_path):
    case = VIEW_CASES[0]
    path = tmp_path / "view.json"
    path.write_text(json.dumps(case["view"]))
    done = t42("deal", "--view", str(path), "--all", "--limit", "10")
    assert_one_error_line(done, "more than --limit 10")


def test_readme_example_view():
    path = Path(__file__).resolve().parents[1] / "examples" / "view.json"
    [stats] = lines(t42("deal", "--view", str(path), "--stats"))
    assert stats["count"] == count_deals(path.read_text())
    # W led 1-1 and N answered 2-2: N holds no one (fours are trumps, not ones).
    ones = [t for t in stats["tile_probabilities"] if "1" in t and "4" not in t]
    assert ones and all(stats["tile_probabilities"][t]["N"] == 0.0 for t in ones)
    assert all(sum(p.values()) == pytest.approx(1) for p in stats["tile_probabilities"].values())
