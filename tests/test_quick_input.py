"""The quick notation, diagrams read back and records read as positions
(`solver.game.quick`), and hands derived from complete plays (`solver.game.game_record`)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from solver.game import tiles as T
from solver.game.errors import PositionError
from solver.game.game_record import GameRecord, hands_from_plays
from solver.game.position import Position
from solver.game.quick import (QuickInput, fill_hands, parse_auction, parse_call_words,
                               parse_contract, parse_diagrams, parse_hands, parse_tile_list,
                               quick_position, quick_view, read_subject)
from solver.game.view import View

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DEAL = json.loads((EXAMPLES / "deal.json").read_text())
MOON = json.loads((EXAMPLES / "moon.json").read_text())
GAME = json.loads((EXAMPLES / "game.json").read_text())
RECORDS = [json.loads(line) for line in (EXAMPLES / "hands.jsonl").read_text().splitlines()
           if line.strip()]


def hand_options(position: dict) -> list[str]:
    """--hand values of a position, tiles written as two digits (63)."""
    return [f"{seat}={','.join(t.replace('-', '') for t in tiles)}"
            for seat, tiles in position["hands"].items()]


def sorted_hands(position: dict) -> dict:
    return {s: sorted(ts, reverse=True) for s, ts in position["hands"].items()}


def name(tile) -> str:
    return tile if isinstance(tile, str) else T.name_of(tile)


def play_out(data: dict, seed: int, plays: int | None = None) -> dict:
    """``data`` with random legal plays (all of them, or ``plays``)."""
    rng = random.Random(seed)
    position = Position(data)
    done: list[str] = []
    while position.to_move is not None and (plays is None or len(done) < plays):
        done.append(name(rng.choice(position.legal_tiles())))
        position = Position({**data, "plays": done})
    return {**data, "plays": done}


def error_of(call, *args, **kwargs) -> PositionError:
    with pytest.raises(PositionError) as info:
        call(*args, **kwargs)
    return info.value


# ------------------------------------------------------------------- words

def test_tiles_are_written_either_way_with_commas_or_blanks():
    assert parse_tile_list("63, 6-2 0-6,00", "--plays") == [T.INDEX[(6, 3)], T.INDEX[(6, 2)],
                                                           T.INDEX[(6, 0)], 0]
    assert error_of(parse_tile_list, "63,77", "--plays").field == "--plays[1]"


@pytest.mark.parametrize("text, expected", [
    ("W:fours:30", {"declarer": "W", "trump": "fours", "bid": 30}),
    ("n:Sixes:84", {"declarer": "N", "trump": "sixes", "bid": 84}),
    ("S:4:31", {"declarer": "S", "trump": "fours", "bid": 31}),
    ("E:follow-me:42:low", {"declarer": "E", "trump": "follow-me", "bid": 42, "doubles": "low"}),
    ("E:nello:84", {"declarer": "E", "trump": "nello", "bid": 84}),
    ("N:sixes:plunge", {"declarer": "N", "trump": "sixes", "bid": 168, "kind": "plunge"}),
    ("N:plunge-doubles", {"declarer": "N", "trump": "doubles", "bid": 168, "kind": "plunge"}),
    ("N:splash-sixes:126", {"declarer": "N", "trump": "sixes", "bid": 126, "kind": "splash"}),
])
def test_contract_notation(text, expected):
    assert parse_contract(text) == expected


@pytest.mark.parametrize("text, code, words", [
    ("W:fours", "MISSING_FIELD", "the bid is missing"),
    ("W:fourz:30", "UNKNOWN_DECLARATION", "unknown declaration"),
    ("X:fours:30", "UNKNOWN_SEAT", "unknown seat"),
    ("W:fours:pass", "INVALID_VALUE", "no pass"),
    ("W:fours:thirty", "INVALID_VALUE", "not a bid"),
    ("W:follow-me:42:sideways", "INVALID_OPTION", "doubles option"),
    ("N:plunge:168", "INVALID_VALUE", "N:sixes:plunge"),
    ("fours", "INVALID_VALUE", "DECLARER:DECLARATION:BID"),
])
def test_bad_contract_notation_names_the_option(text, code, words):
    exc = error_of(parse_contract, text)
    assert exc.field == "--contract" and exc.code == code and words in exc.reason


def test_hands_are_checked_before_anything_else():
    assert parse_hands(["N=63,62,60,54,53,52,22"]) == {"N": parse_tile_list(
        "6-3 6-2 6-0 5-4 5-3 5-2 2-2", "x")}
    cases = [(["N=63,62,60"], "--hand N", "HAND_SIZE"),
             (["Q=63,62,60,54,53,52,22"], "--hand", "UNKNOWN_SEAT"),
             (["N=63,62,60,54,53,52,22", "E=66,65,64,50,41,32,63"], "--hand E[6]",
              "DUPLICATE_TILE"),
             (["N=63,62,60,54,53,52,22", "n=66,65,64,50,41,32,00"], "--hand N",
              "DUPLICATE_SEAT"),
             (["N63,62"], "--hand", "INVALID_VALUE")]
    for values, field, code in cases:
        exc = error_of(parse_hands, values)
        assert (exc.field, exc.code) == (field, code), exc
    assert "also at --hand N[0]" in error_of(parse_hands, cases[2][0]).reason


def test_calls_read_as_t42_bid_reads_them():
    assert parse_call_words("30, pass,84,plunge", "auction") == [30, "pass", 84, "plunge"]
    assert error_of(parse_call_words, "30,9999", "auction").code == "BID_OUT_OF_RANGE"


def test_auction_seats_counted_back_from_the_declarer_or_named():
    contract = {"declarer": "W", "trump": "fours", "bid": 30}
    assert parse_auction("pass,pass,pass,30", contract, 4) == [
        {"seat": "N", "bid": "pass"}, {"seat": "E", "bid": "pass"},
        {"seat": "S", "bid": "pass"}, {"seat": "W", "bid": 30}]
    assert parse_auction("30,pass,pass,pass", contract, 4)[0] == {"seat": "W", "bid": 30}
    assert parse_auction("E:pass,S:31,pass", contract, 4) == [
        {"seat": "E", "bid": "pass"}, {"seat": "S", "bid": 31}, {"seat": "W", "bid": "pass"}]
    assert error_of(parse_auction, "pass,pass", contract, 4).code == "MISSING_FIELD"


# --------------------------------------------------------------- positions

def test_quick_position_is_the_json_position():
    q = QuickInput(hands=hand_options(DEAL), contract="W:fours:30", plays="11,22")
    assert quick_position(q) == {**DEAL, "plays": ["1-1", "2-2"]}


def test_a_contract_may_be_given_as_json_text():
    q = QuickInput(hands=hand_options(DEAL), contract=json.dumps(DEAL["contract"]))
    assert quick_position(q) == DEAL
    exc = error_of(quick_position, QuickInput(hands=hand_options(DEAL), contract="{"))
    assert exc.field == "--contract"


def test_quick_position_errors_name_the_option():
    hands = hand_options(DEAL)
    cases = [(QuickInput(hands=hands, contract="W:fours:29"), "--contract (bid)",
              "BID_OUT_OF_RANGE"),
             (QuickInput(hands=hands, contract="W:fours:30", plays="22"), "--plays[0]",
              "TILE_NOT_IN_HAND"),
             (QuickInput(hands=hands, contract="W:fours:30", plays="11,66"), "--plays[1]",
              "TILE_NOT_IN_HAND"),
             (QuickInput(hands=hands[:2], contract="W:fours:30"), "--hand S", "MISSING_FIELD"),
             (QuickInput(hands=hands), "--contract", "MISSING_FIELD"),
             (QuickInput(hands=hands, contract="W:fours:30", game="chess"), "--game",
              "UNKNOWN_GAME")]
    for q, field, code in cases:
        exc = error_of(quick_position, q)
        assert (exc.field, exc.code) == (field, code), exc


def test_three_hands_and_plays_give_the_fourth():
    q = QuickInput(hands=hand_options(DEAL)[:3], contract="W:fours:30",
                   plays=",".join(play_out(DEAL, 3)["plays"]))
    assert sorted_hands(quick_position(q)) == sorted_hands(DEAL)


def test_moon_quick_position():
    q = QuickInput(hands=hand_options(MOON), contract="N:fours:5", game="moon", widow="3-2",
                   discard="21")
    assert quick_position(q) == MOON


def test_quick_view_of_one_hand_and_of_a_full_deal():
    view = json.loads((EXAMPLES / "view.json").read_text())
    q = QuickInput(hands=["E=66,65,64,50,41,32,00"], contract="W:fours:30", plays="11,22",
                   seat="E")
    assert quick_view(q) == view
    full = QuickInput(hands=hand_options(DEAL), contract="W:fours:30", plays="11,22",
                      auction="pass,pass,pass,30")
    got = quick_view(full)  # the seat to move: E
    assert got["seat"] == "E" and got["hands"] == view["hands"] and got["plays"] == view["plays"]
    assert got["auction"][-1] == {"seat": "W", "bid": 30}
    View(got)
    assert error_of(quick_view, QuickInput(hands=["E=66,65,64,50,41,32,00"],
                                           contract="W:fours:30", seat="N")).field == "--hand N"


# ------------------------------------------------------- hands from plays

@pytest.mark.parametrize("record", RECORDS, ids=[str(r["id"]) for r in RECORDS])
def test_every_record_of_complete_plays_gives_its_hands(record):
    if len(record["plays"]) < 28:
        pytest.skip("stopped early")
    played = hands_from_plays("42", 4, record["contract"], record["plays"])
    assert {s: sorted(T.name_of(t) for t in ts) for s, ts in played.items()} == \
        {s: sorted(ts) for s, ts in record["hands"].items()}
    bare = {k: v for k, v in record.items() if k != "hands"}
    assert sorted_hands(fill_hands(bare)) == sorted_hands(record)


@pytest.mark.parametrize("seed", range(4))
def test_nello_and_moon_hands_from_plays(seed):
    nello = play_out({**DEAL, "contract": {"declarer": "N", "trump": "nello", "bid": 84}}, seed)
    assert len(nello["plays"]) == 21
    filled = fill_hands({k: v for k, v in nello.items() if k != "hands"})
    assert sorted_hands(filled) == sorted_hands(DEAL)  # the partner: the 7 tiles not played
    moon = play_out({k: v for k, v in MOON.items() if k not in ("widow", "discard")}, seed)
    filled = fill_hands({k: v for k, v in moon.items() if k != "hands"})
    assert sorted_hands(filled) == sorted_hands(MOON)
    Position(filled)


def test_incomplete_plays_without_hands_name_the_missing_hand():
    short = {k: v for k, v in play_out(DEAL, 1, plays=20).items() if k != "hands"}
    exc = error_of(fill_hands, short)
    assert exc.code == "MISSING_FIELD" and exc.field.startswith("hands.")
    assert "28 plays" in exc.reason


def test_a_game_record_may_leave_out_the_hands_of_hands_played_out():
    bare = json.loads(json.dumps(GAME))
    for hand in bare["hands"]:
        if len(hand.get("plays", [])) == 28:
            del hand["hands"]
    got, expected = GameRecord(bare), GameRecord(GAME)
    assert got.score == expected.score and got.winner == expected.winner
    for h, e in zip(got.hands, expected.hands):
        assert {s: sorted(ts) for s, ts in h.deal.items()} == \
            {s: sorted(ts) for s, ts in e.deal.items()}


# ----------------------------------------------------------------- records

def test_records_as_subjects():
    subject = read_subject(RECORDS[0])
    assert subject.extras == {"id": RECORDS[0]["id"], "meta": RECORDS[0]["meta"]}
    assert subject.auction == RECORDS[0]["meta"]["auction"]
    assert subject.with_extras({"value": 1}) == {"value": 1, **subject.extras}
    game = read_subject(GAME)
    assert game.hand == len(GAME["hands"]) - 1 and game.position is not None
    assert game.view_json("N")["auction"] == GAME["hands"][-1]["auction"]
    plain = read_subject(DEAL)
    assert plain.extras == {} and plain.with_extras({"value": 1}) == {"value": 1}
    assert error_of(read_subject, {**DEAL, "meta": 3}).field == "meta"


# ---------------------------------------------------------------- diagrams

#: A deal whose N holds four doubles: a plunge.
PLUNGE = {"hands": {"N": ["6-6", "6-2", "6-1", "5-5", "4-2", "3-3", "1-1"],
                    "E": ["5-3", "5-2", "5-0", "4-3", "4-1", "3-2", "3-0"],
                    "S": ["6-0", "5-4", "4-0", "3-1", "2-1", "2-0", "1-0"],
                    "W": ["6-5", "6-4", "6-3", "5-1", "4-4", "2-2", "0-0"]},
          "contract": {"declarer": "N", "trump": "sixes", "bid": 168, "kind": "plunge"},
          "plays": ["1-0"]}


def test_plunge_notation_is_the_json_contract():
    q = QuickInput(hands=hand_options(PLUNGE), contract="N:sixes:plunge", plays="10")
    assert quick_position(q) == PLUNGE


@pytest.mark.parametrize("data", [
    DEAL, {**DEAL, "plays": ["1-1", "2-2", "3-2"]}, MOON, {**MOON, "plays": ["6-6", "6-5"]},
    PLUNGE,
    {**DEAL, "contract": {"declarer": "N", "trump": "nello", "bid": 84}, "plays": ["6-3"]},
    {**DEAL, "contract": {"declarer": "W", "trump": "follow-me", "bid": 42, "doubles": "low"}},
], ids=["opening", "trick-1", "moon", "moon-trick-1", "plunge", "nello", "doubles-low"])
def test_a_diagram_during_trick_1_reads_back_to_its_position(data):
    position = Position(data)
    (back,) = parse_diagrams("Some text before\n" + str(position) + "\n\nDouble-dummy ...\n")
    expected = position.to_json()
    assert Position(back).to_json() == {**expected, "hands": sorted_hands(expected)}


def test_a_later_diagram_needs_its_plays():
    played = play_out(DEAL, 5, plays=9)
    text = str(Position(played))
    exc = error_of(parse_diagrams, text)
    assert exc.code == "AMBIGUOUS_DIAGRAM" and "--plays" in exc.reason
    (back,) = parse_diagrams(text, ",".join(played["plays"]))
    assert sorted_hands(back) == sorted_hands(DEAL) and back["plays"] == played["plays"]


def test_several_diagrams_and_no_diagram():
    text = str(Position(DEAL)) + "\n\n" + str(Position(MOON))
    assert [p.get("game", "42") for p in parse_diagrams(text)] == ["42", "moon"]
    assert error_of(parse_diagrams, "no diagram here").field == "diagram"
