"""The public API speaks in tile names ("6-4") and seat letters, as the JSON does; the
tile-number forms (`legal_ids`, `Deal.hand_ids`, `View.hand_ids`, `CallView.hand_ids`,
`HandRecord.deal_ids`, ...) are separate names. The docstring examples of the position,
view, dealer, call view and game record modules run."""

from __future__ import annotations

import doctest
import json
import random
from pathlib import Path

import pytest

from solver import (ArgumentError, DealSolver, GameRules, Position, PositionError, View,
                    legal_moves, read_game)
from solver.game import call_view as call_view_module
from solver.game import game_record as game_record_module
from solver.game import position as position_module
from solver.game import tiles as T
from solver.game import view as view_module
from solver.hidden import dealer as dealer_module
from solver.game.call_view import call_view
from solver.hidden.dealer import Dealer
from solver.play.game_play import call_view_of

ROOT = Path(__file__).resolve().parent.parent
DEAL = json.loads((ROOT / "examples" / "deal.json").read_text())
VIEW = json.loads((ROOT / "examples" / "view.json").read_text())


def _random_positions(seed: int, count: int):
    """Positions along random legal lines of seeded deals (42 and both Moons)."""
    rng = random.Random(seed)
    games = [("42", 4, {"declarer": "N", "trump": "sixes", "bid": 30}),
             ("moon", 3, {"declarer": "E", "trump": "fours", "bid": 5}),
             ("moon", 4, {"declarer": "S", "trump": "doubles", "bid": 5})]
    for k in range(count):
        game, players, contract = games[k % len(games)]
        p = Dealer(game, players).deal(rng).position(contract)
        while True:
            yield p
            if p.to_move is None:
                break
            p = p.with_plays(list(p.plays) + [rng.choice(p.legal_ids())])


def test_legal_tiles_are_the_names_of_legal_ids():
    seen = 0
    for p in _random_positions(3, 6):
        ids = p.legal_ids()
        assert p.legal_tiles() == [T.name_of(t) for t in ids]
        assert all(isinstance(t, int) for t in ids) and ids == sorted(ids)
        assert legal_moves(p) == p.legal_tiles()
        seen += len(ids)
    assert seen > 100
    assert Position(DEAL).legal_tiles() == ["1-1", "2-0", "3-3", "4-0", "4-3", "5-1", "5-5"]


def test_view_legal_tiles_are_the_names_of_legal_ids():
    view = View(VIEW)
    assert view.legal_tiles() == [T.name_of(t) for t in view.legal_ids()]
    assert view.legal_tiles() == ["0-0", "3-2", "4-1", "5-0", "6-4", "6-5", "6-6"]
    assert view.held() == VIEW["hands"]["E"]
    # Not the viewer's turn: nothing is legal, in either form.
    waiting = View(dict(VIEW, seat="E", plays=["1-1"]))
    assert waiting.legal_tiles() == [] and waiting.legal_ids() == []


def test_hand_and_held_are_tile_names_by_seat_letter_or_index():
    p = Position(DEAL)
    for k, seat in enumerate("NESW"):
        assert p.hand(seat) == DEAL["hands"][seat] == p.hand(k) == p.hand(seat.lower())
        assert p.held(seat) == DEAL["hands"][seat]
    later = p.with_plays(["5-5", "5-3"])
    assert later.held("W") == [t for t in DEAL["hands"]["W"] if t != "5-5"]
    assert later.held("N") == ["6-3", "6-2", "6-0", "5-4", "5-2", "2-2"]
    assert later.hand("W") == DEAL["hands"]["W"]
    for bad in ("X", 4, -1, None, 1.0):
        with pytest.raises(ArgumentError) as info:
            p.hand(bad)
        assert info.value.argument == "seat"
    three = Dealer("moon", 3).deal(seed=1).position({"declarer": "N", "trump": "sixes",
                                                     "bid": 5})
    with pytest.raises(ArgumentError, match="holds no hand"):
        three.held("W")


def test_with_plays_takes_names_numbers_or_both():
    p = Position(DEAL)
    by_name = p.with_plays(["5-5", "5-3", "5-0"])
    assert by_name.to_json()["plays"] == ["5-5", "5-3", "5-0"]
    assert p.with_plays([20, 18, 15]) == by_name
    assert p.with_plays(["5-5", 18, "05"]) == by_name  # any JSON spelling of a name
    for bad, code in ((28, "UNKNOWN_TILE"), (-1, "UNKNOWN_TILE"), (True, "UNKNOWN_TILE"),
                      (64, "UNKNOWN_TILE"), ("9-9", "UNKNOWN_TILE"), ("6-6", "ILLEGAL_PLAY")):
        with pytest.raises(PositionError) as info:
            p.with_plays(["5-5", 18, bad])
        assert (info.value.field, info.value.code) == ("plays[2]", code)


def test_deal_solver_plays_a_name_as_its_number():
    p = Position(DEAL)
    by_name, by_number = DealSolver(p), DealSolver(p)
    by_name.play("5-5")
    by_number.play(T.parse_tile("5-5", "tile"))
    assert by_name.value() == by_number.value() == DealSolver(p.with_plays(["5-5"])).value()


def test_view_hand_is_names_and_hand_ids_numbers():
    view = View(VIEW)
    assert view.hand == VIEW["hands"]["E"] == [T.name_of(t) for t in view.hand_ids]
    assert all(isinstance(t, int) for t in view.hand_ids)
    later = View(dict(VIEW, seat="E", plays=["1-1", "2-2", "6-6"]))
    assert later.hand == VIEW["hands"]["E"]  # as dealt: the play of 6-6 is in held() only
    assert later.held() == [t for t in VIEW["hands"]["E"] if t != "6-6"]


HAND = "6-6 6-5 6-4 6-3 6-2 5-5 4-4".split()


def test_call_view_tiles_are_names_and_ids_numbers():
    ids = tuple(T.parse_tile(t, "t") for t in HAND)
    four = call_view(GameRules(), 1, HAND, 0)
    assert four == call_view(GameRules(), 1, ids, 0)  # names or numbers: the same view
    assert four.hand == HAND and four.hand_ids == ids
    assert four.held() == four.eight() == HAND and four.held_ids() == four.eight_ids() == ids
    assert four.widow is None and four.discard is None
    assert four.to_json()["hands"] == {"E": HAND}
    moon = GameRules("moon", 3)
    took = call_view(moon, 0, HAND, 1, widow="1-1")
    assert took.widow == "1-1" and took.widow_id == T.parse_tile("1-1", "t")
    assert took.eight() == HAND + ["1-1"]
    assert took.eight_ids() == ids + (took.widow_id,)
    assert took.held() == HAND  # the widow taken, nothing laid away yet
    laid = call_view(moon, 0, HAND, 1, widow="1-1", discard="6-2")
    assert laid.discard == "6-2" and laid.discard_id == T.parse_tile("6-2", "t")
    assert laid.held() == ["6-6", "6-5", "6-4", "6-3", "5-5", "4-4", "1-1"]
    assert laid.held_ids() == tuple(T.parse_tile(t, "t") for t in laid.held())
    assert laid.to_json()["widow"] == "1-1" and laid.to_json()["discard"] == "6-2"
    for bad, field in (([*HAND[:6], "9-9"], "hand[6]"), ([*HAND[:6], 28], "hand[6]"),
                       ([*HAND[:6], True], "hand[6]")):
        with pytest.raises(PositionError) as info:
            call_view(GameRules(), 1, bad, 0)
        assert (info.value.field, info.value.code) == (field, "UNKNOWN_TILE")
    with pytest.raises(PositionError) as info:
        call_view(moon, 0, HAND, 1, widow="7-7")
    assert info.value.field == "widow"
    with pytest.raises(PositionError) as info:
        call_view(GameRules(), 1, HAND[:6], 0)
    assert info.value.code == "HAND_SIZE"


def test_hand_record_tiles_are_names_and_ids_numbers():
    record = read_game((ROOT / "examples" / "game.json").read_text())
    raw = json.loads((ROOT / "examples" / "game.json").read_text())
    for hand, given in zip(record.hands, raw["hands"]):
        assert hand.deal == {s: [T.name_of(t) for t in tiles]
                             for s, tiles in hand.deal_ids.items()}
        assert {"NESW"[s]: tiles for s, tiles in hand.deal.items()} == \
            hand.to_json()["hands"]
        assert hand.plays == [T.name_of(t) for t in hand.play_ids]
        assert hand.plays == hand.to_json()["plays"]
        assert all(isinstance(t, int) for t in hand.play_ids)
        assert hand.widow is None and hand.widow_id is None and hand.discard is None
        if "plays" in given:
            assert hand.plays == [T.name_of(T.parse_tile(t, "t")) for t in given["plays"]]


def test_moon_hand_record_widow_and_discard_are_names():
    deal = Dealer("moon", 3).deal(seed=5)
    declarer = deal.hands["N"]
    record = read_game({"game": "moon", "players": 3, "first_shaker": "S",
                        "hands": [{"hands": deal.hands, "widow": deal.widow,
                                   "auction": [{"seat": "N", "bid": 5},
                                               {"seat": "E", "bid": "pass"},
                                               {"seat": "S", "bid": "pass"}],
                                   "contract": {"declarer": "N", "trump": "doubles", "bid": 5,
                                                "discard": declarer[-1]}}]})
    hand = record.hands[0]
    assert hand.widow == deal.widow and hand.widow_id == deal.widow_id
    assert hand.discard == declarer[-1] and hand.discard_id == T.parse_tile(declarer[-1], "t")
    assert hand.plays == [] and hand.play_ids == ()
    # The declarer's call view: names, and the numbers under the _ids names.
    view = call_view_of(record, "N")
    assert view.widow == deal.widow and view.discard == declarer[-1]
    assert view.held() == [t for t in declarer + [deal.widow] if t != declarer[-1]]
    assert view.hand == declarer and view.hand_ids == deal.hand_ids[0]


@pytest.mark.parametrize("module", [position_module, view_module, dealer_module,
                                    call_view_module, game_record_module],
                         ids=lambda m: m.__name__)
def test_docstring_examples_run(module, monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples read examples/*.json
    result = doctest.testmod(module, verbose=False, report=False)
    assert result.attempted >= 5
    assert result.failed == 0, f"{result.failed} docstring examples of {module.__name__} fail"
