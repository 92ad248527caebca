"""The transposition table's key of a trick-boundary state puts each hand in a canonical
form: a held tile is swapped for a played tile of the same seat when the two are
interchangeable. Each swap must be judged in the state the earlier swaps made: judged
on the tiles really held, two seats' swaps could each pass alone and together give the
key of a state with another value, whose table entry then answered for this one.

Both positions below are nello with doubles low, where the declarer's 5-5 and 5-1 and
a defender's 5-3 and 5-0 swap (the failure this file was written for: the double-dummy
hint valued 5-5 at 3 tricks on a deal where it takes 4)."""

from __future__ import annotations

from solver import Position
from solver.game import tiles as T
from solver.search._core import Engine

NELLO = {"declarer": "N", "trump": "nello", "bid": 42, "kind": "standard", "doubles": "low"}


def nello(hands: str, plays: str = "") -> Position:
    """N's nello, doubles low: ``hands`` the four hands N E S W, each seven tiles apart
    by spaces, the hands apart by ``|``."""
    return Position.from_json({"hands": {seat: hand.split() for seat, hand
                                         in zip("NESW", hands.split("|"))},
                               "contract": NELLO, "plays": plays.split()})


def engine_at(p: Position, tt_bits: int = 14) -> Engine:
    e = Engine(p.rules, p.active_seats, p.maximizer, p.scorer, tt_bits)
    e.set_state(list(p.remaining), p.leader, list(p.trick), p.points, p.available,
                p.tricks_left)
    return e


def minimax(p: Position) -> int:
    """The value by plain minimax over every line (no table, no bounds)."""
    if p.is_complete:
        return p.points
    values = [minimax(p.with_plays(list(p.plays) + [t])) for t in p.legal_ids()]
    return max(values) if p.maximizer[p.to_move_index] else min(values)


def test_a_table_warmed_by_another_line_answers_as_plain_minimax():
    p = nello("6-3 5-5 5-2 5-1 4-1 3-0 1-0 | 6-4 6-2 4-2 4-0 3-1 2-1 2-0 | "
              "6-6 6-5 6-0 5-4 4-4 3-3 0-0 | 6-1 5-3 5-0 4-3 3-2 2-2 1-1",
              "1-0 2-1 1-1 2-0 3-2 5-2")
    # One line leaves N holding 5-1 and W 5-0; the other N 5-5 and W 5-3. Each swap is
    # sound alone, but with N's 5-1 back in play W's 5-0 and 5-3 no longer are alike.
    warm = T.parse_tiles(["3-0", "3-1", "4-3"], "warm")
    asked = T.parse_tiles(["5-1", "3-1", "5-0", "3-0", "4-0", "4-3"], "asked")
    e = engine_at(p)
    for t in warm:
        e.play(t)
    e.at_least_moves(3)
    for _ in warm:
        e.undo()
    for t in asked:
        e.play(t)
    truth = minimax(p.with_plays(list(p.plays) + asked))
    assert truth - p.with_plays(list(p.plays) + asked).points == 1
    assert e.exact() == truth


def test_every_opening_lead_is_scored_as_its_own_search_finds_it():
    p = nello("6-3 5-5 5-2 5-1 4-1 3-0 1-0 | 6-2 6-1 5-3 5-0 4-3 3-2 2-1 | "
              "6-6 6-0 4-4 3-3 2-2 1-1 0-0 | 6-5 6-4 5-4 4-2 4-0 3-1 2-0")
    scored = dict(engine_at(p, 18).score_moves())
    alone = {t: engine_at(p.with_plays([t]), 18).exact() for t in p.legal_ids()}
    assert scored == alone
    assert scored[T.parse_tile("5-5", "tile")] == 4
