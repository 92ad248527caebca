"""Coaching from the seat's view (`solver.hidden.coaching`, `t42 analyze --seat-view`):
every decision graded by what its seat knew, mistakes apart from luck.

The grades are checked against computations written here from scratch: the deals a seat
could hold enumerated by trying every way to hand out the tiles it cannot see (a deal is
consistent when the recorded plays are legal on it), each solved with `solve`; a call's
figures read off the bid advice it was graded by. The skill and luck of every hand add up
exactly to the change of its double-dummy value, and a seat's grades do not move when the
tiles it could not see lie elsewhere.
"""

from __future__ import annotations

import itertools
import json
import os
import pty
import random
import select
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest

from solver import GameRecord, Position, count_deals, hint, play_game, solve
from solver.game import tiles as T
from solver.game.call_view import call_view
from solver.game.auction import marks_of
from solver.game.position import MOON3_SET, SEATS
from solver.game.quick import view_of
from solver.hidden.bidding import advise
from solver.hidden.coaching import (MISTAKE_MARKS, MISTAKE_POINTS, DecisionGrade, grade_call,
                                    grade_game, grade_hand, grade_moon_discard, grade_play,
                                    information_price)
from solver.hidden.stats import mean_of
from solver.search.discard import MOON_DECLARATIONS

ROOT = Path(__file__).resolve().parent.parent
HANDS = [json.loads(line) for line in (ROOT / "examples" / "hands.jsonl").read_text()
         .splitlines()]
GAME = json.loads((ROOT / "examples" / "game.json").read_text())
#: The fields of a grade that read the deal itself (its double-dummy side).
DEAL_FIELDS = ("dd_before", "dd_after", "dd_cost", "skill", "information", "luck")


def t42(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *args], input=stdin,
                          capture_output=True, text=True, timeout=600)


# ------------------------------------------------------------ exhaustive check


def consistent_deals(p: Position) -> list[Position]:
    """Every deal the seat to move of ``p`` cannot tell from ``p``: the tiles it has not
    seen (not its own, not played) handed out in every way to the other seats, each
    keeping as many as it still holds, and kept when every recorded play is legal."""
    viewer = p.to_move_index
    played = set(p.plays)
    unseen = sorted(t for s, hand in p.hands.items() if s != viewer for t in hand
                    if t not in played)
    others = [s for s in sorted(p.hands) if s != viewer]
    sizes = [sum(1 for t in p.hands[s] if t not in played) for s in others]
    base = p.to_json()
    found = []

    def hand_out(rest: list[int], k: int, hands: dict[int, list[int]]):
        if k == len(others):
            yield dict(hands)
            return
        for chosen in itertools.combinations(rest, sizes[k]):
            left = [t for t in rest if t not in chosen]
            yield from hand_out(left, k + 1, {**hands, others[k]: list(chosen)})

    for given in hand_out(unseen, 0, {}):
        hands = {SEATS[viewer]: [T.name_of(t) for t in p.hands[viewer]]}
        for s in others:
            held = [t for t in p.hands[s] if t in played] + given[s]
            hands[SEATS[s]] = [T.name_of(t) for t in held]
        try:
            found.append(Position({**base, "hands": hands}))
        except Exception:   # a play that the deal makes illegal: not consistent
            continue
    return found


def exhaustive_losses(p: Position, tile: str) -> tuple[Fraction, Fraction, int, dict, list]:
    """(points loss, loss in the chance of the side's goal, consistent deals, each
    tile's mean for the side that plays, each deal's tile values) of playing ``tile``
    at ``p``, every consistent deal solved."""
    deals = consistent_deals(p)
    seat = p.to_move_index
    sign = 1 if p.maximizer[seat] else -1
    declaring = bool(p.scorer[seat])
    totals: dict[str, int] = {}
    goals: dict[str, int] = {}
    per_deal = []
    for deal in deals:
        moves = solve(deal, with_line=False, threads=1).moves
        per_deal.append(dict(moves))
        for move, value in moves.items():
            totals[move] = totals.get(move, 0) + sign * value
            goals[move] = goals.get(move, 0) + (deal.makes(value) == declaring)
    n = len(deals)
    points = Fraction(max(totals.values()) - totals[tile], n)
    chance = Fraction(max(goals.values()) - goals[tile], n)
    means = {m: Fraction(t, n) for m, t in totals.items()}   # for the side that plays
    return points, chance, n, means, per_deal


def bare(record: dict) -> dict:
    """A hand record as a position: without its ``id`` and ``meta``."""
    return {k: v for k, v in record.items() if k not in ("id", "meta")}


def late_plays(record: dict, most: int) -> list[int]:
    """Places of plays whose seat had a choice and at most ``most`` deals to tell apart."""
    p = Position(bare(record))
    start = p.with_plays([])
    out = []
    for i in range(len(p.plays)):
        q = start.with_plays(p.plays[:i])
        # The package's count picks the plays; the test's own enumeration is checked
        # against the grade.
        if len(q.legal_ids()) > 1 and count_deals(view_of(q.to_json(), None)) <= most:
            out.append(i)
    return out


@pytest.mark.parametrize("record", [HANDS[0], HANDS[2], HANDS[3], HANDS[7]],
                         ids=lambda r: str(r.get("id")))
def test_every_loss_of_an_enumerated_view_is_the_exhaustive_one(record):
    grades = grade_hand(record, threads=1)
    checked = 0
    start = grades.analysis.position.with_plays([])
    for i in late_plays(record, most=400):
        grade = grades.decisions[i]
        p = start.with_plays(grades.analysis.position.plays[:i])
        points, chance, n, means, per_deal = exhaustive_losses(p, grade.choice)
        assert grade.method == "enumerated" and grade.count == grade.deals == n
        assert grade.loss.value == points and grade.loss.exact
        assert grade.loss.low == grade.loss.high == float(points)
        assert Fraction(grade.p_make_loss.value) == chance
        assert grade.marks_loss.value == chance * 2 * marks_of(p.contract.bid)
        # The best tile is the one of the best mean; its own loss is 0.
        assert means[grade.best] == max(means.values())
        sign = 1 if p.maximizer[p.to_move_index] else -1
        for option in grade.options:
            assert option.mean == pytest.approx(float(sign * means[option.option]))
        # The price of hidden information: the mean over the deals of the best tile on
        # each, less the best tile's mean (for the side that plays).
        price = Fraction(sum(max(sign * v for v in deal.values()) for deal in per_deal), n) \
            - max(means.values())
        assert grade.information_price == price >= 0
        # Skill is the loss for the side that played, information minus the price, luck
        # the rest of the change.
        assert grade.skill == -sign * points
        assert grade.information == -sign * price
        assert grade.skill + grade.information + grade.luck == \
            grade.dd_after - grade.dd_before
        # Luck has mean 0 by construction: were the true deal any one of the deals the
        # seat could not tell apart, its luck (each deal solved here) averages to 0.
        lucks = [(deal[grade.choice] - max(deal.values(), key=lambda v: sign * v))
                 - grade.skill - grade.information for deal in per_deal]
        assert sum(lucks) == 0
        assert grade.luck in lucks
        checked += 1
    assert checked >= 1


def test_the_best_option_loses_nothing_and_figures_are_the_hints():
    view = (ROOT / "examples" / "view.json").read_text()
    legal = ["0-0", "3-2", "4-1", "5-0", "6-4", "6-5", "6-6"]
    grades = {t: grade_play(view, t, deals=40, seed=5, threads=1) for t in legal}
    first = grades[legal[0]]
    best, best_for_make = first.best, first.best_for_make
    assert grades[best].loss.value == 0 and grades[best].loss.low == 0 == grades[best].loss.high
    assert grades[best_for_make].p_make_loss.value == 0
    assert grades[best_for_make].marks_loss.value == 0
    for tile, g in grades.items():
        assert (g.best, g.best_for_make) == (best, best_for_make)
        assert g.loss.value >= 0 and g.p_make_loss.value >= 0
        assert g.loss.low <= g.loss.value <= g.loss.high
        assert g.method == "sampled" and g.deals == 40
    # The options are valued on the hint's deals: the same seed, the same figures.
    h = hint(view, deals=40, seed=5, threads=1)
    for option in first.options:
        assert option.mean == pytest.approx(h.moves[option.option].mean)
        assert option.p_make == pytest.approx(h.moves[option.option].p_make)
    # The paired interval is that of the per-deal differences: narrower than the two
    # moves' own intervals side by side would say.
    worst = max(grades.values(), key=lambda g: g.loss.value)
    gap = h.moves[best].mean - h.moves[worst.choice].mean
    assert worst.loss.value == pytest.approx(gap)
    assert worst.loss.high - worst.loss.low < (h.moves[best].mean_ci[1] - h.moves[best].mean_ci[0]
                                               + h.moves[worst.choice].mean_ci[1]
                                               - h.moves[worst.choice].mean_ci[0])


def test_a_mistake_is_a_loss_clear_of_the_threshold():
    grades = grade_hand(HANDS[0], deals=60, threads=1)
    for g in grades.decisions:
        clear = (g.loss.low is not None and g.loss.low > MISTAKE_POINTS) or \
            (g.marks_loss.low is not None and g.marks_loss.low > MISTAKE_MARKS["42"])
        assert g.mistake == clear
    assert any(g.mistake for g in grades.decisions)
    # A costly play double dummy need not be a mistake, and a mistake need not cost.
    assert any(g.dd_cost and not g.mistake for g in grades.decisions)
    assert any(g.mistake and not g.dd_cost for g in grades.decisions)


def test_postponed_search_at_depth_zero_is_the_double_dummy_grade():
    record = HANDS[0]
    start = Position(bare(record)).with_plays([])
    plays = start.with_plays(record["plays"]).plays
    for i in late_plays(record, most=400)[:2] + [4]:
        view = view_of(start.with_plays(plays[:i]).to_json(), None)
        tile = T.name_of(plays[i])
        dd = grade_play(view, tile, deals=20, seed=3, threads=1)
        flat = grade_play(view, tile, deals=20, seed=3, search="postponed", depth=0)
        if dd.method == "enumerated":
            assert (flat.loss, flat.p_make_loss, flat.best) == (dd.loss, dd.p_make_loss, dd.best)
        deeper = grade_play(view, tile, deals=20, seed=3, search="postponed", depth=1)
        assert deeper.loss.value >= 0 and "postponed" in deeper.note


# ------------------------------------------------- what the seat could not see


def swapped(record: dict, upto: int) -> dict:
    """The record's first ``upto + 1`` plays on another deal that gives the seat making
    play ``upto`` the same view: two tiles that neither holder has played by then change
    hands between two other seats."""
    p = Position(record)
    cut = p.with_plays(p.plays[:upto + 1])
    viewer = p.with_plays(p.plays[:upto]).to_move_index
    played = set(cut.plays)
    others = [s for s in sorted(p.hands) if s != viewer]
    for a, b in itertools.combinations(others, 2):
        for x in p.hands[a]:
            for y in p.hands[b]:
                if x in played or y in played:
                    continue
                hands = {SEATS[s]: [T.name_of(t) for t in p.hands[s]] for s in p.hands}
                hands[SEATS[a]] = [T.name_of(y if t == x else t) for t in p.hands[a]]
                hands[SEATS[b]] = [T.name_of(x if t == y else t) for t in p.hands[b]]
                data = {**cut.to_json(), "hands": hands}
                try:
                    Position(data)
                except Exception:
                    continue
                return data
    raise AssertionError("no swap keeps the plays legal")


def without_deal(grade: DecisionGrade) -> dict:
    out = grade.to_json()
    for key in DEAL_FIELDS:
        out.pop(key, None)
    return out


@pytest.mark.parametrize("upto", [0, 5, 13])
def test_a_play_grade_ignores_where_the_unseen_tiles_lie(upto):
    record = bare(HANDS[0])
    cut = {**record, "plays": record["plays"][:upto + 1]}
    other = swapped(record, upto)
    assert other["hands"] != cut["hands"]
    one = grade_hand(cut, deals=30, threads=1).decisions[upto]
    two = grade_hand(other, deals=30, threads=1).decisions[upto]
    assert without_deal(one) == without_deal(two)
    # ... while what it cost double dummy may differ: it reads the deal.
    assert one.dd_before is not None and two.dd_before is not None


def test_a_call_grade_ignores_the_other_hands():
    first = GAME["hands"][0]
    calls = first["auction"][:2]          # E passed, S to call... graded: both calls
    hands = first["hands"]
    other = dict(hands)
    # N and W swap hands: E's and S's views are the same.
    other["N"], other["W"] = hands["W"], hands["N"]
    records = [{"game": "42", "first_shaker": "N",
                "hands": [{"hands": h, "auction": calls}]} for h in (hands, other)]
    one, two = (grade_game(r, advice_deals=12, threads=1).hands[0].decisions for r in records)
    assert [d.to_json() for d in one] == [d.to_json() for d in two]
    assert [d.kind for d in one] == ["call", "call"]


# ------------------------------------------------------------ calls, declarations


def test_call_figures_are_bid_advices():
    hand = GAME["hands"][0]
    record = GameRecord({"game": "42", "first_shaker": "N", "hands": [hand]})
    h = record.hands[0]
    calls = h.auction.calls
    for i, call in enumerate(calls):
        view = call_view(record.rules, call.seat, h.deal_ids[call.seat], h.shaker,
                         tuple(calls[:i]))
        advice = advise(h.deal[call.seat], SEATS[call.seat], deals=30, seed=9,
                        calibrated=True, threads=1,
                        auction=[{"seat": SEATS[c.seat], "bid": "pass" if c.is_pass
                                  else c.amount} for c in calls[:i]])
        grade = grade_call(view, call.bid, deals=30, seed=9, threads=1)
        rec = advice.recommendation
        advised = "pass" if rec.bid is None else f"{rec.bid} {rec.declaration}"
        assert grade.best == advised
        figures = {o.option: o for o in grade.options}
        e_best = 0.0 if rec.bid is None else rec.chance.marks * (2 * rec.chance.p_used - 1)
        assert figures[advised].e_marks == pytest.approx(e_best)
        mine = figures[grade.choice]
        if call.is_pass:
            assert mine.e_marks == 0.0 and mine.p_make is None
        else:
            chance = advice.declaration(mine.declaration).chance(call.amount)
            assert mine.p_make == pytest.approx(chance.p_used)
            assert mine.e_marks == pytest.approx(chance.marks * (2 * chance.p_used - 1))
            # Its declaration is the one that makes the bid most often.
            assert chance.made == max(row.chance(call.amount).made
                                      for row in advice.declarations
                                      if row.kind == "standard" and
                                      row.chance(call.amount) is not None)
        loss = grade.marks_loss
        assert loss.value == pytest.approx(e_best - mine.e_marks)
        assert loss.low <= loss.value <= loss.high
        assert grade.mistake == (loss.low > MISTAKE_MARKS["42"])


def test_a_declaration_is_graded_against_the_likeliest_to_make():
    graded = grade_game(GAME, advice_deals=20, deals=10, threads=1)
    for hand in graded.hands:
        declaration = next(d for d in hand.decisions if d.kind == "declaration")
        ps = [o.p_make for o in declaration.options]
        assert declaration.options[0].option == declaration.best
        assert ps[0] == max(ps)
        mine = next(o for o in declaration.options if o.option == declaration.choice)
        assert declaration.p_make_loss.value == pytest.approx(ps[0] - mine.p_make)
        assert declaration.marks_loss.value >= 0


# ------------------------------------------------- skill, information and luck


def rule_games() -> list[GameRecord]:
    return [play_game("rule", "random", seed=11), play_game("rule", "rule", seed=4),
            play_game("rule", "rule", game="moon", players=3, seed=2),
            play_game("rule", "random", game="moon", players=4, seed=6)]


@pytest.mark.parametrize("record", [GameRecord(GAME)] + rule_games(),
                         ids=["example", "42-rule-random", "42-rule-rule", "moon3", "moon4"])
def test_skill_information_and_luck_add_up_to_the_double_dummy_change(record):
    graded = grade_game(record, deals=8, advice_deals=4, enumerate_limit=60, threads=1)
    assert len(graded.hands) == len(record.hands)
    for hand, grades in zip(record.hands, graded.hands):
        if hand.position is None:
            assert grades.analysis is None and grades.dd_change == 0
            continue
        a = grades.analysis
        # To the point, in fractions: the identity of the hand ...
        assert grades.skill + grades.information + grades.luck == grades.dd_change == \
            grades.dd_final - grades.dd_start
        if a.complete:
            assert grades.dd_final == a.result == hand.position.points
        # ... and of every decision that moves the value.
        moved = [d for d in grades.decisions if d.dd_before is not None]
        assert [d.kind for d in moved if d.kind == "play"] == ["play"] * len(hand.plays)
        for d in moved:
            assert d.skill + d.information + d.luck == d.dd_after - d.dd_before
            assert all(isinstance(x, Fraction) for x in (d.skill, d.information, d.luck))
            # The price is never below 0; the term is its negative for the side that
            # wants the value high, as skill is the loss's.
            assert d.information_price >= 0
            assert d.information * d.loss.value == d.skill * d.information_price
            if d.method == "forced":
                assert d.information == d.skill == 0 and d.dd_after == d.dd_before
        for before, after in zip(moved, moved[1:]):
            assert before.dd_after == after.dd_before
        assert moved[0].dd_before == grades.dd_start and moved[-1].dd_after == grades.dd_final
        if record.rules.three_handed:
            discard = next(d for d in moved if d.kind == "discard")
            assert discard.dd_after == a.value and discard.dd_before >= a.value
        else:
            assert grades.dd_start == a.value
        # The seats' own sums, each for its side (the side that wants the value high
        # or low: in nello the declarer wants few tricks), add up to the hand's; a seat's
        # own skill and information are never above 0.
        side = {s: 1 if a.position.maximizer[SEATS.index(s)] else -1 for s in grades.seats}
        assert sum(side[s] * (g.skill + g.information + g.luck)
                   for s, g in grades.seats.items()) == grades.dd_change
        for g in grades.seats.values():
            assert g.skill <= 0 and g.information <= 0
    # A costly play's luck holds what the seat could not have known.
    plays = [d for h in graded.hands for d in h.decisions if d.kind == "play"]
    assert any(d.luck != 0 for d in plays)
    assert any(d.information != 0 for d in plays)


def test_hand_records_keep_the_identity_too():
    for record in HANDS:
        grades = grade_hand(record, deals=8, enumerate_limit=60, threads=1)
        assert grades.skill + grades.information + grades.luck == grades.dd_change
        assert grades.dd_start == grades.analysis.value


def test_nello_figures_are_the_declarers_side_that_wants_few_tricks():
    """In nello the value is the declarer's tricks: the declarer wants it low, so its own
    skill (minus what it gave up) is the hand's skill with the sign turned."""
    record = next(r for r in HANDS if r["contract"].get("trump") == "nello")
    grades = grade_hand(record, deals=20, threads=1)
    declarer = record["contract"]["declarer"]
    mine = [d for d in grades.decisions if d.seat == declarer and d.loss is not None]
    assert grades.seats[declarer].skill == -sum(Fraction(d.loss.value) for d in mine) <= 0
    assert grades.seats[declarer].skill == -sum(d.skill for d in mine)
    assert grades.seats[declarer].information == \
        -sum(Fraction(d.information_price) for d in mine)


def test_the_price_is_zero_with_one_deal_or_one_option():
    # One deal: the best option on it is the best over the deals.
    assert information_price([[12], [7], [30]]) == 0
    # One option: nothing to choose.
    assert information_price([[3, 9, 1]]) == 0
    # Each option best on a deal of its own: the price is what the per-deal best adds.
    assert information_price([[4, 0, 2], [0, 4, 2]]) == Fraction(4 + 4 + 2, 3) - 2
    # A real view with one consistent deal left (the voids shown pin every unseen
    # tile): the price is 0 whatever the choice, and so is the information term.
    record = random_hand(37)
    start = Position(record).with_plays([])
    before = start.with_plays(record["plays"][:22])
    assert count_deals(view_of(before.to_json(), None)) == 1 and len(before.legal_ids()) > 1
    grades = grade_hand(record, deals=8, threads=1)
    d = grades.decisions[22]
    assert d.method == "enumerated" and d.count == d.deals == 1
    assert d.information_price == d.information == 0
    assert d.luck == 0   # the one deal is the true one: the change is all skill
    assert d.skill == d.dd_after - d.dd_before
    # A forced play pays nothing either.
    forced = [d for d in grades.decisions if d.method == "forced"]
    assert forced and all(d.information_price == d.information == d.luck == 0
                          for d in forced)


def random_hand(seed: int) -> dict:
    """A hand record whose deal and plays are random: 30 in a random pip suit by North,
    every play a legal tile drawn at random. Nothing a seat sees then tells it where the
    other tiles lie beyond what its view rules out, so the true deal is a uniform draw
    from the deals of each view."""
    rng = random.Random(seed)
    tiles = list(T.NAMES)
    rng.shuffle(tiles)
    record = {"hands": {s: tiles[7 * i:7 * i + 7] for i, s in enumerate("NESW")},
              "contract": {"declarer": "N", "trump": rng.choice(
                  ["blanks", "ones", "deuces", "treys", "fours", "fives", "sixes"]),
                  "bid": 30}}
    p = Position(record)
    while p.legal_ids():
        p = p.with_plays(list(p.plays) + [rng.choice(p.legal_ids())])
    return {**record, "plays": [T.name_of(t) for t in p.plays]}


def test_luck_has_mean_zero_once_the_price_of_information_is_apart():
    """Over random hands, each play's luck for the side that made it averages to 0 (its
    95% interval holds 0), while luck with the price of information in it, as it was
    before the price had a term of its own, stays below 0."""
    new, old = [], []
    for seed in range(24):
        grades = grade_hand(random_hand(seed), deals=24, seed=seed, threads=1)
        p = grades.analysis.position
        for d in grades.decisions:
            if d.method in ("forced", "ungraded"):
                continue
            side = 1 if p.maximizer[SEATS.index(d.seat)] else -1
            new.append(float(side * d.luck))
            old.append(float(side * (d.luck + d.information)))
    assert len(new) > 300
    now, before = mean_of(new), mean_of(old)
    assert now.low < 0 < now.high
    assert before.high < 0


# ----------------------------------------------------------- three-player Moon


def test_moon_discard_losses_are_the_solved_ones():
    record = play_game("rule", "rule", game="moon", players=3, seed=2)
    hand = next(h for h in record.hands if h.contract is not None)
    declarer = hand.contract.declarer
    view = call_view(record.rules, declarer, hand.deal_ids[declarer], hand.shaker,
                     tuple(hand.auction.calls), widow=hand.widow_id)
    trump, discard = hand.contract.declaration.name, hand.discard
    bid = max(hand.contract.bid, 4)
    declaration, graded = grade_moon_discard(view, trump, discard, bid, deals=12, seed=7)
    # The same deals, drawn as the grade documents, solved here position by position.
    eight = sorted(view.eight_ids(), reverse=True)
    unseen = sorted(t for t in MOON3_SET if t not in eight)
    assert len(unseen) == 14
    rng = random.Random(7)
    others = [s for s in record.rules.seats if s != declarer]
    values: dict[tuple[str, str], list[int]] = {}
    for _ in range(12):
        first = rng.sample(unseen, 7)
        rest = [t for t in unseen if t not in first]
        for name in MOON_DECLARATIONS:
            for d in eight:
                kept = [T.name_of(t) for t in eight if t != d]
                p = Position({"game": "moon", "hands": {
                    SEATS[declarer]: kept, SEATS[others[0]]: [T.name_of(t) for t in first],
                    SEATS[others[1]]: [T.name_of(t) for t in rest]},
                    "widow": hand.widow, "discard": T.name_of(d),
                    "contract": {"declarer": SEATS[declarer], "trump": name, "bid": bid}})
                values.setdefault((name, T.name_of(d)), []).append(
                    solve(p, with_line=False, threads=1).value)
    tricks = {d: Fraction(sum(values[(trump, d)]), 12) for d in map(T.name_of, eight)}
    assert graded.best == max(tricks, key=lambda d: (tricks[d], -list(tricks).index(d)))
    assert graded.loss.value == max(tricks.values()) - tricks[discard]
    own_best = {name: max(map(T.name_of, eight), key=lambda d: sum(values[(name, d)]))
                for name in MOON_DECLARATIONS}
    means = {name: Fraction(sum(values[(name, own_best[name])]), 12)
             for name in MOON_DECLARATIONS}
    assert declaration.loss.value == max(means.values()) - means[trump]


# -------------------------------------------------------------------- the CLI


def test_cli_grades_a_game_in_text_and_json():
    args = ("analyze", "--seat-view", "--deals", "10", "--advice-deals", "6",
            "--no-progress", "examples/game.json")
    text = t42(*args)
    assert text.returncode == 0, text.stderr
    assert "seat-view grades: plays over 10 deals (seed 42" in text.stdout
    assert text.stdout.count("Calls and declaration (bid advice") == 3
    assert "Skill " in text.stdout and "* a mistake:" in text.stdout
    assert " + information " in text.stdout and "price: of hidden information" in text.stdout
    out = t42(*args, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["seat_view"]["deals"] == 10 and data["seat_view"]["advice_deals"] == 6
    for hand in data["hands"]:
        kinds = [d["kind"] for d in hand["decisions"]]
        assert kinds[:5] == ["call"] * 4 + ["declaration"] and kinds.count("play") == 28
        assert hand["skill"] + hand["information"] + hand["luck"] == \
            pytest.approx(hand["dd_change"], abs=1e-5)
        assert hand["dd_change"] == hand["result"] - hand["dd_start"]
        plays = [d for d in hand["decisions"] if d["kind"] == "play"]
        assert all(d["information_price"] >= 0 for d in plays)
        assert sum(d["information"] for d in plays) == \
            pytest.approx(hand["information"], abs=1e-4)
        assert sum(s["information"] for s in hand["seats"].values()) <= 0


def test_cli_grades_a_hand_record_from_standard_input():
    line = (ROOT / "examples" / "hands.jsonl").read_text().splitlines()[0]
    result = t42("analyze", "--seat-view", "--deals", "12", "--json", stdin=line + "\n")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["id"] == "club-1" and len(data["decisions"]) == 28
    assert data["dd_start"] == 29 and data["result"] == 35
    text = t42("analyze", "--seat-view", "--deals", "12", stdin=line + "\n")
    assert text.stdout.startswith("Hand club-1 - Thursday club")
    assert "Double-dummy value at the opening lead: 29 points; result: 35 points" in text.stdout
    assert "Ann" in text.stdout


@pytest.mark.parametrize("args, message", [
    (("--seat-view", "--deals", "0"), "t42: error: --deals: must be a whole number 1..100000"),
    (("--deals", "5"), "t42: error: --deals: goes with --seat-view"),
    (("--seat-view", "--depth", "1"), "t42: error: --depth: goes with --search postponed"),
    (("--seat-view", "--seed", "-1"), "t42: error: --seed: must be a whole number"),
])
def test_cli_refuses_bad_options_in_one_line(args, message):
    result = t42("analyze", *args, "examples/game.json")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1


# ------------------------------------------------------------------ progress


def test_progress_counts_every_decision_against_the_plan():
    seen: list[tuple[int, int]] = []
    graded = grade_game(GAME, deals=6, advice_deals=4, threads=1,
                        progress=lambda done, planned: seen.append((done, planned)))
    decisions = sum(len(h.decisions) for h in graded.hands)
    assert seen == [(k, decisions) for k in range(1, decisions + 1)]
    # The same grades as without a callback.
    plain = grade_game(GAME, deals=6, advice_deals=4, threads=1)
    assert plain.to_json() == graded.to_json()


def test_cli_draws_a_progress_line_on_a_terminal_only():
    """stderr on a pseudo-terminal: the line names the record and counts decisions."""
    args = [sys.executable, "-m", "solver", "analyze", "--seat-view", "--deals", "8",
            "--advice-deals", "4", "examples/game.json"]
    master, slave = pty.openpty()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave, cwd=ROOT,
                            env={**os.environ, "T42_PROGRESS_DELAY": "0"})
    os.close(slave)
    seen, out = b"", b""
    stop = time.monotonic() + 300
    while time.monotonic() < stop:
        ready, _, _ = select.select([master, proc.stdout], [], [], 0.2)
        if master in ready:
            try:
                seen += os.read(master, 4096)
            except OSError:   # the other end closed
                pass
        if proc.stdout in ready:
            data = os.read(proc.stdout.fileno(), 65536)
            out += data
            if not data and proc.poll() is not None:
                break
    proc.wait(timeout=60)
    os.close(master)
    assert proc.returncode == 0 and b"Skill " in out
    terminal = seen.decode(errors="replace")
    assert "t42 analyze --seat-view: record 1" in terminal and "decisions" in terminal
    piped = t42("analyze", "--seat-view", "--deals", "8", "--advice-deals", "4",
                "examples/game.json")
    assert piped.returncode == 0 and piped.stderr == ""
