"""The public API speaks in tile names ("6-4") and seat letters, as the JSON does; the
tile-number forms (`legal_ids`, `Deal.hand_ids`) are separate names. The docstring
examples of the position, view and dealer modules run."""

from __future__ import annotations

import doctest
import json
import random
from pathlib import Path

import pytest

from solver import ArgumentError, DealSolver, Position, PositionError, View, legal_moves
from solver.game import position as position_module
from solver.game import tiles as T
from solver.game import view as view_module
from solver.hidden import dealer as dealer_module
from solver.hidden.dealer import Dealer

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


@pytest.mark.parametrize("module", [position_module, view_module, dealer_module],
                         ids=lambda m: m.__name__)
def test_docstring_examples_run(module, monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples read examples/*.json
    result = doctest.testmod(module, verbose=False, report=False)
    assert result.attempted >= 5
    assert result.failed == 0, f"{result.failed} docstring examples of {module.__name__} fail"
