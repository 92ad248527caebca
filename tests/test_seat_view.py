"""Seat-view search (solver.hidden.seat_view) against independent computations.

- ``postponed`` at depth 0 is the double-dummy hint, move for move.
- ``postponed`` at depth 1 and 2 on a view whose deals are few enough to enumerate
  equals a brute force written here from the definition (Position.with_plays and
  solve(), no engine walking): the viewer's later decisions are one choice for all the
  deals that agree on the plays so far, the others' are double dummy deal by deal.
- A maximizing viewer never gains by postponing: every move's mean at depth 1 is at
  most its double-dummy mean.
- ``playout`` with one trick left is double dummy (every play is forced or valued on
  the deal itself), and the same seed gives the same answer.
"""

from __future__ import annotations

import json

import pytest

from solver import hint, solve
from solver.game import tiles as T
from solver.game.errors import PositionError
from solver.game.position import Position
from solver.hidden.deals import enumerate_deals
from solver.hidden.seat_view import seat_view_hint
from solver.play.bots import seat_view

DEAL = json.load(open("examples/deal.json"))


def view_after(plays: int):
    """West's deal played ``plays`` plays by double dummy; the view of the seat to move."""
    p = Position(DEAL)
    while len(p.plays) < plays:
        line = solve(p).line
        p = p.with_plays(list(p.plays) + [line[0]])
    return seat_view(p)


def dd_value(p: Position) -> int:
    return solve(p, with_line=False).value if not p.is_complete else p.points


def brute(worlds: list[Position], viewer: int, depth: int, key) -> list[int]:
    """Each world's final value under the postponed policy, from the definition."""
    if depth == 0 or worlds[0].is_complete:
        return [dd_value(p) for p in worlds]
    mover = worlds[0].to_move_index
    if mover == viewer:
        best, chosen = None, None
        for tile in sorted(worlds[0].legal_ids()):
            values = brute([p.with_plays(list(p.plays) + [tile]) for p in worlds], viewer,
                           depth - 1, key)
            k = key(values)
            if best is None or k > best:
                best, chosen = k, values
        return chosen
    out: list[int | None] = [None] * len(worlds)
    parts: dict[int, list[int]] = {}
    for i, p in enumerate(worlds):
        scored = {T.parse_tile(t, "t"): v for t, v in solve(p).moves.items()}
        pick = max if p.maximizer[mover] else min
        top = pick(scored.values())
        parts.setdefault(min(t for t, v in scored.items() if v == top), []).append(i)
    for tile, idx in parts.items():
        values = brute([worlds[i].with_plays(list(worlds[i].plays) + [tile]) for i in idx],
                       viewer, depth, key)
        for i, v in zip(idx, values):
            out[i] = v
    return out  # type: ignore[return-value]


@pytest.mark.parametrize("plays", [17, 19])
def test_postponed_depth_0_is_the_double_dummy_hint(plays):
    v = view_after(plays)
    dd = hint(v, threads=1)
    assert dd.method == "enumerated"
    sv = seat_view_hint(v, depth=0)
    assert sv.enumerated and sv.deals == dd.deals
    for tile, m in dd.moves.items():
        assert (sv.moves[tile].mean, sv.moves[tile].p_make, sv.moves[tile].p_best) == \
            pytest.approx((m.mean, m.p_make, m.p_best))
    assert sorted(sv.best) == sorted(dd.best)


@pytest.mark.parametrize("plays,depth", [(17, 1), (18, 1), (17, 2), (20, 2)])
def test_postponed_equals_the_brute_force(plays, depth):
    v = view_after(plays)
    worlds = list(enumerate_deals(v))
    assert 1 < len(worlds) <= 1000
    viewer = worlds[0].to_move_index
    threshold, at_least = worlds[0].make_target()
    declaring = bool(worlds[0].scorer[viewer])
    sign = 1 if worlds[0].maximizer[viewer] else -1

    def key(values):
        made = sum(1 for x in values if (x >= threshold if at_least else x < threshold))
        return ((1 if declaring else -1) * made, sign * sum(values))
    sv = seat_view_hint(v, depth=depth)
    if (plays, depth) == (18, 1):   # here postponing changes every move's value
        dd = seat_view_hint(v, depth=0)
        assert all(sv.moves[t].total != m.total for t, m in dd.moves.items())
    for tile in worlds[0].legal_ids():
        values = brute([p.with_plays(list(p.plays) + [tile]) for p in worlds], viewer,
                       depth, key)
        m = sv.moves[T.name_of(tile)]
        assert m.total == sum(values), (tile, depth)
        assert m.makes == sum(1 for x in values if (x >= threshold if at_least
                                                    else x < threshold))


def test_postponing_never_gains_for_a_maximizing_viewer():
    v = view_after(4)
    d0 = seat_view_hint(v, depth=0, deals=25, seed=5)
    d1 = seat_view_hint(v, depth=1, deals=25, seed=5)
    maximizing = d0.declaring   # the declaring side wants its points high here
    assert maximizing
    for tile, m in d0.moves.items():
        assert d1.moves[tile].total <= m.total
        assert d1.moves[tile].makes <= m.makes
    assert any(d1.moves[t].total < m.total for t, m in d0.moves.items())


def test_a_playout_at_the_last_trick_is_double_dummy_and_seeded():
    v = view_after(24)
    dd = hint(v, threads=1)
    sv = seat_view_hint(v, method="playout", inner_deals=2, seed=9)
    for tile, m in dd.moves.items():
        assert sv.moves[tile].total == m.total
    mid = view_after(12)
    a = seat_view_hint(mid, method="playout", deals=4, inner_deals=2, seed=11)
    b = seat_view_hint(mid, method="playout", deals=4, inner_deals=2, seed=11)
    assert a.to_json() == b.to_json() and a.method == "playout" and a.inner_deals == 2


def test_bad_options_are_named():
    v = view_after(4)
    for kwargs, field in (({"method": "alpha"}, "method"), ({"depth": 9}, "depth"),
                          ({"deals": 0}, "deals"),
                          ({"method": "playout", "inner_deals": 0}, "inner_deals"),
                          ({"objective": "win"}, "objective")):
        with pytest.raises(PositionError) as err:
            seat_view_hint(v, **kwargs)
        assert err.value.field == field


def test_the_seat_view_bot_plays_the_searchs_best_move():
    from solver.play.bots import make_bot
    v = view_after(8)
    bot = make_bot("seat-view", seed=3, hint_deals=20)   # 2/5 of 20: 8 deals a play
    tile = bot.choose(v)
    found = bot.last_seat_view
    assert (found.method, found.depth, found.deals) == ("postponed", 1, 8)
    assert T.name_of(tile) == found.best_move and T.name_of(tile) in v.legal_tiles()


@pytest.mark.parametrize("name, method, depth, deals, playout_calls", [
    ("seat-view-d0", "postponed", 0, 30, 0), ("seat-view-d2", "postponed", 2, 7, 0),
    ("seat-view-playout", "playout", 0, 1, 0), ("seat-view-half", "postponed", 1, 4, 0),
    ("seat-view-double", "postponed", 1, 16, 0),
    ("seat-view-calls-d0", "postponed", 0, 20, 2)])
def test_the_ablation_variants_search_their_share_of_the_deals(name, method, depth, deals,
                                                                playout_calls):
    """Each variant of the arena's ablations plays its search's best move on its share of
    hint_deals (20 here), calls as it is named to, and the arena knows it by name."""
    from solver.play.bots import make_bot
    from solver.play.game_arena import ARENA_BOTS
    assert name in ARENA_BOTS
    v = view_after(8)
    bot = make_bot(name, seed=3, hint_deals=20)
    tile = bot.choose(v)
    found = bot.last_seat_view
    assert (bot.name, found.method, found.depth, found.deals) == (name, method, depth, deals)
    assert T.name_of(tile) == found.best_move
    assert bot.playout_calls == playout_calls


@pytest.mark.parametrize("trump", ["fives", "nello", "follow-me"])
def test_the_double_dummy_pick_is_the_best_scored_move(trump):
    """The other seats' move in the postponed search (null-window tests around the
    node's value) is the lowest of the moves a fresh `score_moves` ranks best, with its
    value, at every node of a hand walked as the search walks it (one engine, the
    value found carried down)."""
    import random

    from solver.hidden.seat_view import _World
    rng = random.Random(trump)
    tiles = list(T.NAMES)
    rng.shuffle(tiles)
    p = Position({"hands": {s: tiles[7 * i:7 * i + 7] for i, s in enumerate("NESW")},
                  "plays": [], "contract": {"declarer": "E", "trump": trump,
                                            "bid": 42 if trump == "nello" else 30}})
    world = _World(p, None)
    plays: list[int] = []
    while not world.engine.finished:
        here = p.with_plays(plays)
        scored = dict(_World(here, None).engine.score_moves())
        top = (max if here.maximizer[here.to_move_index] else min)(scored.values())
        tile, value = world.double_dummy_pick()
        assert (tile, value) == (min(t for t, v in scored.items() if v == top), top)
        world.engine.play(tile)
        world.known = value
        plays.append(tile)
    assert p.with_plays(plays).is_complete and world.value() == p.with_plays(plays).points


def _every_value_choice(p: Position, inner_deals: int, objective: str, rng) -> int:
    """A seat-view player's choice from the definition: every legal move's exact value
    (a fresh solve) on each of its deals, the best by the viewer's order, ties to the
    lowest tile."""
    import solver.hidden.seat_view as sv
    from solver.game.view import seat_view as view_of
    from solver.hidden.deals import sample_deals
    legal = sorted(p.legal_ids())
    if len(legal) == 1:
        return legal[0]
    rank = sv._Rank(p, p.to_move_index, objective)
    sums: dict[int, list[int]] = {t: [] for t in legal}
    for deal in sample_deals(view_of(p), inner_deals, rng):
        for t in legal:
            sums[t].append(dd_value(deal.with_plays(list(deal.plays) + [t])))
    return max(legal, key=lambda t: rank.key(sums[t]))


@pytest.mark.parametrize("trump", ["fours", "blanks", "doubles", "follow-me", "nello",
                                   "sevens", "moon"])
def test_the_seat_view_player_chooses_as_every_moves_value_would(trump):
    """The inner player tests most moves on its last deal with one null window instead of
    valuing them: at every play of hands played out by it, for both objectives and
    several deal counts, it picks what every move's exact value on every deal picks."""
    import random

    from solver.hidden.seat_view import SeatViewPlayer
    rng = random.Random(trump)
    choices = 0
    for hand in range(3):
        tiles = list(T.NAMES)
        rng.shuffle(tiles)
        if trump == "moon":   # three players: tricks, the one deal of the example
            p = Position(json.load(open("examples/moon.json")))
        else:
            p = Position({"hands": {s: tiles[7 * i:7 * i + 7] for i, s in enumerate("NESW")},
                          "plays": [], "contract": {
                              "declarer": "S", "trump": trump,
                              "bid": 42 if trump in ("nello", "sevens") else 31}})
        while not p.is_complete:
            inner, objective = rng.choice([(1, "make"), (2, "points"), (3, "make"),
                                           (3, "points")])
            seed = rng.randrange(2 ** 32)
            player = SeatViewPlayer(inner, objective)
            tile = player.choose(p, random.Random(seed))
            assert tile == _every_value_choice(p, inner, objective, random.Random(seed))
            choices += len(p.legal_ids()) > 1
            p = p.with_plays(list(p.plays) + [tile])
    assert choices >= 12
