"""Best discard in three-player Moon: API against separate solves, CLI, bad input."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from solver import CancelToken, PositionError, SearchCancelled, solve
from solver.search.discard import MOON_DECLARATIONS, best_discards

#: The 22 tiles of three-player Moon (no 1-0 ... 6-0), written out here
#: rather than taken from the package.
ALL_TILES = [f"{high}-{low}" for high in range(7) for low in range(high + 1)]
MOON3_TILES = [t for t in ALL_TILES if not t.endswith("-0") or t == "0-0"]
ALL_DECLARATIONS = ["blanks", "ones", "deuces", "treys", "fours", "fives", "sixes", "doubles",
                    "follow-me"]


def moon_deal(seed: int, declarer: str = "N", **contract) -> dict:
    """A seeded three-player deal in the discard input form (declarer's 7 before the widow)."""
    tiles = list(MOON3_TILES)
    random.Random(seed).shuffle(tiles)
    hands = {seat: tiles[7 * i:7 * i + 7] for i, seat in enumerate("NES")}
    return {"game": "moon", "hands": hands, "widow": tiles[21],
            "contract": {"declarer": declarer, **contract}}


def discard_value(deal: dict, trump: str, discard: str) -> int:
    """The value of one discard, by an ordinary solve of the Moon position it gives."""
    declarer = deal["contract"]["declarer"]
    eight = deal["hands"][declarer] + [deal["widow"]]
    hands = dict(deal["hands"], **{declarer: [t for t in eight if t != discard]})
    position = {"game": "moon", "hands": hands, "widow": deal["widow"], "discard": discard,
                "contract": {"declarer": declarer, "trump": trump, "bid": 4}}
    return solve(position, best_only=True, with_line=False).value


@pytest.mark.parametrize("seed, declarer, trump", [
    (1, "N", "sixes"), (2, "E", "doubles"), (3, "S", "follow-me"), (4, "N", "blanks"),
    (5, "E", "treys"), (6, "S", "fives")])
def test_one_declaration_matches_eight_separate_solves(seed, declarer, trump):
    deal = moon_deal(seed, declarer, trump=trump, bid=5)
    table = best_discards(deal)
    eight = deal["hands"][declarer] + [deal["widow"]]
    assert sorted(r.discard for r in table.rows) == sorted(eight)
    assert {r.trump for r in table.rows} == {trump}
    for row in table.rows:
        assert row.value == discard_value(deal, trump, row.discard), row
        assert row.makes == (row.value >= 5)
    values = [r.value for r in table.rows]
    assert values == sorted(values, reverse=True)
    assert table.value == values[0]
    assert table.declarer == declarer and table.widow == deal["widow"] and table.bid == 5


@pytest.mark.parametrize("seed, declarer", [(11, "N"), (12, "S")])
def test_all_declarations_match_separate_solves_and_sort_overall(seed, declarer):
    deal = moon_deal(seed, declarer)
    table = best_discards(deal)
    assert len(table.rows) == 72
    assert sorted(table.declarations) == sorted(ALL_DECLARATIONS)
    for row in table.rows:
        assert row.value == discard_value(deal, row.trump, row.discard), row
        assert row.makes is None
    values = [r.value for r in table.rows]
    assert values == sorted(values, reverse=True)
    # Declarations are listed by their best discard, and each keeps its eight rows.
    bests = [table.for_trump(t)[0].value for t in table.declarations]
    assert bests == sorted(bests, reverse=True)
    for trump in ALL_DECLARATIONS:
        assert len(table.for_trump(trump)) == 8
    assert {(r.trump, r.discard) for r in table.best} == {
        (r.trump, r.discard) for r in table.rows if r.value == max(values)}


def test_declaration_argument_overrides_contract_and_takes_aliases():
    deal = moon_deal(21, trump="blanks")
    sixes = [(r.discard, r.value) for r in best_discards(deal, "sixes").rows]
    assert [(r.discard, r.value) for r in best_discards(deal, 6).rows] == sixes
    assert [(r.discard, r.value) for r in best_discards(deal, "SIXES").rows] == sixes
    everything = best_discards(moon_deal(21))
    assert [(r.discard, r.value) for r in everything.for_trump("6")] == sixes
    no_trump = best_discards(deal, "no-trump")
    assert {r.trump for r in no_trump.rows} == {"follow-me"}


def test_json_shape_and_string_input():
    deal = moon_deal(31, "E", trump="fours", bid=21)
    table = best_discards(json.dumps(deal))
    out = table.to_json()
    assert out["declarer"] == "E" and out["widow"] == deal["widow"] and out["bid"] == 21
    assert out["hand"] == deal["hands"]["E"]
    assert out["value"] == max(d["value"] for d in out["discards"])
    assert len(out["discards"]) == 8
    for row in out["discards"]:
        assert set(row) == {"trump", "discard", "value", "makes"}
        assert row["makes"] == (row["value"] == 7)      # 21 is all seven tricks
    without_bid = best_discards(moon_deal(31, "E", trump="fours")).to_json()
    assert "bid" not in without_bid
    assert all("makes" not in row for row in without_bid["discards"])
    assert [r["value"] for r in without_bid["discards"]] == \
        [r["value"] for r in out["discards"]]


def test_each_row_carries_its_position():
    deal = moon_deal(41, "S", trump="doubles")
    for row in best_discards(deal).rows:
        p = row.position
        assert p.discard is not None and p.to_json()["discard"] == row.discard
        assert p.to_json()["widow"] == deal["widow"] and p.to_move == "S"
        assert row.discard not in p.to_json()["hands"]["S"]


def test_spent_token_stops_the_search():
    token = CancelToken()
    token.cancel()
    with pytest.raises(SearchCancelled):
        best_discards(moon_deal(51, trump="sixes"), token=token)


def _with(deal: dict, **changes) -> dict:
    out = json.loads(json.dumps(deal))
    out.update(changes)
    return out


BASE = moon_deal(61, trump="sixes", bid=4)
E0 = BASE["hands"]["E"][0]


@pytest.mark.parametrize("data, declaration, field, code", [
    # the widow duplicates a tile of E's hand
    (_with(BASE, widow=E0), None, "widow", "DUPLICATE_TILE"),
    # blank-suit tiles other than 0-0 are not in the 22-tile set
    (_with(BASE, widow="3-0"), None, "widow", "NOT_IN_TILE_SET"),
    (_with(BASE, hands=dict(BASE["hands"], E=["5-0"] + BASE["hands"]["E"][1:])), None,
     "hands.E[0]", "NOT_IN_TILE_SET"),
    # declarations Moon does not have, or no declaration at all
    (_with(BASE, contract={"declarer": "N", "trump": "spades"}), None, "contract.trump",
     "UNKNOWN_DECLARATION"),
    (_with(BASE, contract={"declarer": "N", "trump": "nello"}), None, "contract.trump",
     "UNKNOWN_DECLARATION"),
    (BASE, "sevens", "trump", "UNKNOWN_DECLARATION"),
    (BASE, "hearts", "trump", "UNKNOWN_DECLARATION"),
    # a four-player deal has no widow
    (_with(BASE, hands={s: ALL_TILES[7 * i:7 * i + 7] for i, s in enumerate("NESW")}), None,
     "hands.W", "NOT_THREE_PLAYER"),
    (_with(BASE, game="42"), None, "game", "UNSUPPORTED_GAME"),
    ({k: v for k, v in BASE.items() if k != "game"}, None, "game", "UNSUPPORTED_GAME"),
    ({k: v for k, v in BASE.items() if k != "widow"}, None, "widow", "MISSING_FIELD"),
    (_with(BASE, discard=BASE["widow"]), None, "discard", "UNEXPECTED_FIELD"),
    (_with(BASE, plays=[BASE["hands"]["N"][0]]), None, "plays", "UNEXPECTED_FIELD"),
    (_with(BASE, contract={"declarer": "W"}), None, "contract.declarer", "UNKNOWN_SEAT"),
    (_with(BASE, contract={"declarer": "N", "bid": 8}), None, "contract.bid", "BID_OUT_OF_RANGE"),
    ({k: v for k, v in BASE.items() if k != "contract"}, None, "contract", "MISSING_FIELD"),
    (_with(BASE, hands=dict(BASE["hands"], N=BASE["hands"]["N"][:6])), None, "hands.N",
     "HAND_SIZE"),
    ("[1, 2]", None, "position", "INVALID_TYPE"),
    ("{not json", None, "position", "INVALID_JSON"),
])
def test_bad_input_names_field_and_code(data, declaration, field, code):
    with pytest.raises(PositionError) as info:
        best_discards(data, declaration)
    assert (info.value.field, info.value.code) == (field, code)
    assert info.value.reason


def test_bad_input_reasons_are_specific():
    with pytest.raises(PositionError, match=rf"{E0} is also in hands\.E\[0\]"):
        best_discards(_with(BASE, widow=E0))
    with pytest.raises(PositionError, match="only 0-0 stays"):
        best_discards(_with(BASE, widow="0-4"))
    with pytest.raises(PositionError, match="four-player deal has no widow"):
        best_discards(_with(BASE, hands=dict(BASE["hands"], W=["6-0"] * 7)))


# ------------------------------------------------------------------ the CLI

def t42(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def test_cli_json_matches_the_api(tmp_path):
    deal = moon_deal(71, "E", bid=5)
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(deal))
    done = t42("discard", str(path), "--trump", "doubles", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == best_discards(deal, "doubles").to_json()
    assert done.stderr == ""


def test_cli_human_tables_best_first():
    deal = moon_deal(72, "S", trump="fives", bid=4)
    one = t42("discard", "-", stdin=json.dumps(deal))
    assert one.returncode == 0, one.stderr
    table = best_discards(deal)
    lines = one.stdout.splitlines()
    assert lines[0].startswith("Moon, 3 players: S declares, bids 4; widow " + deal["widow"])
    header = lines.index("  discard  tricks  makes")
    rows = [line.split() for line in lines[header + 1:header + 9]]
    assert [(r[0], int(r[1])) for r in rows] == [(r.discard, r.value) for r in table.rows]
    assert f"Best: {table.value} tricks (fives, discard" in one.stdout

    del deal["contract"]["trump"]
    every = t42("discard", stdin=json.dumps(deal))
    assert every.returncode == 0, every.stderr
    table = best_discards(deal)
    lines = every.stdout.splitlines()
    header = lines.index("  trump       best  discards (tricks)")
    listed = [line.split()[:2] for line in lines[header + 1:header + 10]]
    assert [(t, int(v)) for t, v in listed] == [
        (t, table.for_trump(t)[0].value) for t in table.declarations]


def test_cli_bad_input_is_one_stderr_line_and_exit_2(tmp_path):
    bad = _with(BASE, widow=E0)
    done = t42("discard", stdin=json.dumps(bad))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [f"t42: error: widow: {E0} is also in hands.E[0]"]
    assert "Traceback" not in done.stderr

    done = t42("discard", "--trump", "nello", stdin=json.dumps(BASE))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith("t42: error: trump: nello is not a Moon declaration")

    done = t42("discard", str(tmp_path / "missing.json"))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_cli_json_lines_batch_keeps_going_after_a_bad_line():
    good = moon_deal(73, trump="sixes")
    four = _with(good, hands=dict(good["hands"], W=[]))
    lines = "\n".join(json.dumps(d) for d in (good, four, good)) + "\n"
    done = t42("discard", "--json", stdin=lines)
    assert done.returncode == 2
    out = [json.loads(line) for line in done.stdout.splitlines()]
    expected = best_discards(good).to_json()
    assert out[0] == expected and out[2] == expected
    assert out[1] == {"error": {"field": "hands.W", "code": "NOT_THREE_PLAYER",
                                "reason": out[1]["error"]["reason"]}}
    assert done.stderr.splitlines() == [
        "t42: error: line 2: hands.W: " + out[1]["error"]["reason"]]


def test_moon_declarations_constant_is_the_full_list():
    assert list(MOON_DECLARATIONS) == ALL_DECLARATIONS
