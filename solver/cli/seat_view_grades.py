"""`t42 analyze --seat-view`: the text of seat-view grades (`solver.hidden.coaching`),
every decision of a hand or game graded by what its seat knew, with skill, information
and luck."""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from ..game.game_record import GameRecord
from ..hidden.coaching import (MISTAKE_MARKS, MISTAKE_POINTS, MISTAKE_TRICKS, DecisionGrade,
                               GameGrades, HandGrades, Loss)
from .game_cmd import format_pad


def _number(x: float | Fraction | None, signed: bool = False, places: int = 2) -> str:
    if x is None:
        return "-"
    return f"{float(x):+.{places}f}" if signed else f"{float(x):.{places}f}"


def _interval(loss: Loss | None, method: str) -> str:
    """The loss's 95% interval: ``exact`` when every deal was used, ``forced`` for a lone
    option."""
    if method == "forced":
        return "forced"
    if loss is None:
        return "-"
    if loss.exact:
        return "exact"
    if loss.low is None or loss.high is None:
        return "-"
    return f"{loss.low:.2f} .. {loss.high:.2f}"


def _table(rows: Sequence[Sequence[str]], left: Sequence[int]) -> list[str]:
    """Columns padded to their widest cell: those in ``left`` to the left, else right."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [("  ".join(c.ljust(w) if i in left else c.rjust(w)
                       for i, (c, w) in enumerate(zip(r, widths)))).rstrip() for r in rows]


def _deals(d: DecisionGrade) -> str:
    if d.method == "forced":
        return "-"
    if d.method == "enumerated":
        return f"all {d.deals}"
    return str(d.deals)


def _marks_rows(decisions: Sequence[DecisionGrade]) -> list[str]:
    """Calls and declarations graded by bid advice: the figures of the choice and of the
    advice (calls) or the best declaration, and the loss in expected marks."""
    rows = [("", "seat", "decision", "P(make)", "E[marks]", "best", "P(make)", "E[marks]",
             "loss", "95%")]
    for d in decisions:
        if not d.graded:
            rows.append(("", d.seat, f"{d.kind} {d.choice}", "-", "-", "-", "-", "-", "-",
                         d.note or ""))
            continue
        figures = {o.option: o for o in d.options}
        mine = figures.get(d.choice)
        best = figures.get(d.best or "")
        what = d.choice if d.kind == "call" else f"declares {d.choice}"
        rows.append(("*" if d.mistake else "", d.seat, what,
                     _number(mine and mine.p_make), _number(mine and mine.e_marks, True),
                     ("= " if d.best == d.choice else "") + (d.best or "-"),
                     _number(best and best.p_make), _number(best and best.e_marks, True),
                     _number(d.marks_loss.value if d.marks_loss else None),
                     _interval(d.marks_loss, d.method)))
    return _table(rows, left=(0, 1, 2, 5, 9))


def _unit_rows(decisions: Sequence[DecisionGrade]) -> list[str]:
    """Plays (and the three-player Moon declaration and discard): the loss in points or
    tricks and in marks, the price of hidden information, the double-dummy cost, skill,
    information and luck."""
    rows = [("", "#", "trick", "seat", "decision", "best", "for make", "deals", "loss", "95%",
             "marks", "price", "cost", "skill", "info", "luck")]
    for d in decisions:
        what = d.choice if d.kind == "play" else f"{d.kind} {d.choice}"
        rows.append(("*" if d.mistake else "", str(d.index + 1) if d.kind == "play" else "",
                     str(d.trick) if d.trick is not None else "", d.seat, what,
                     "" if d.best == d.choice else d.best or "-",
                     "" if d.best_for_make == d.choice else d.best_for_make or "-", _deals(d),
                     _number(d.loss.value if d.loss else None), _interval(d.loss, d.method),
                     _number(d.marks_loss.value if d.marks_loss else None),
                     _number(d.information_price),
                     "" if d.dd_cost is None else str(d.dd_cost),
                     "" if d.skill is None else _number(d.skill, True),
                     "" if d.information is None else _number(d.information, True),
                     "" if d.luck is None else _number(d.luck, True)))
    return _table(rows, left=(0, 3, 4, 5, 6, 9))


def _amount(n: int, unit: str) -> str:
    return f"{n} {unit[:-1] if n == 1 else unit}"


def format_hand_grades(grades: HandGrades, players: dict | None = None) -> list[str]:
    """A hand's grades: its calls and declaration in marks, its plays in points (tricks)
    with skill, information and luck, the identity they keep, and a line per seat."""
    lines: list[str] = []
    marked = [d for d in grades.decisions if d.kind == "call" or
              (d.kind == "declaration" and d.unit is None)]
    in_unit = [d for d in grades.decisions if d not in marked]
    if marked:
        lines += ["", "Calls and declaration (bid advice from the seat's tiles and the calls "
                  "before; E[marks] for its side):"]
        lines += ["  " + row for row in _marks_rows(marked)]
    a = grades.analysis
    if a is not None:
        unit = a.unit
        start = ("before the discard" if any(d.kind == "discard" for d in in_unit)
                 else "at the opening lead")
        lines += ["", f"Double-dummy value {start}: {_amount(grades.dd_start or 0, unit)}; "
                  + (f"result: {_amount(a.result, unit)}" if a.complete else
                     f"after the last play: {_amount(a.final_value, unit)}")]
        lines += ["", f"Plays, each from its seat's view (loss in {unit} and expected marks "
                  f"for its side; price of hidden information in {unit} for its side; cost "
                  f"double dummy; skill, information and luck in the declaring side's "
                  f"{unit}):"]
        lines += ["  " + row for row in _unit_rows(in_unit)]
        lines += ["", f"Skill {_number(grades.skill, True)} + information "
                  f"{_number(grades.information, True)} + luck {_number(grades.luck, True)}"
                  f" = {grades.dd_change:+d}: the double-dummy value's change from the start "
                  f"to the end, in the declaring side's {unit}"]
    if grades.seats:
        names = players or {}
        rows = [("seat", "graded", "mistakes", "loss", "marks", "skill", "info", "luck",
                 "player")]
        for seat, s in grades.seats.items():
            rows.append((seat, str(s.decisions), str(s.mistakes), _number(s.loss),
                         _number(s.marks_loss), _number(s.skill, True),
                         _number(s.information, True), _number(s.luck, True),
                         names.get(seat, "")))
        lines += [""] + ["  " + row for row in _table(rows, left=(0, 8))]
    return lines


def _legend(game: str) -> list[str]:
    return [f"* a mistake: a loss whose 95% interval lies above {MISTAKE_POINTS:g} points "
            f"({MISTAKE_TRICKS:g} tricks in nello and Moon) or {MISTAKE_MARKS[game]:g} "
            "expected marks",
            "best: the option with the best mean, when another; for make: the one likeliest "
            "to reach the side's goal (make, or set), when another",
            "price: of hidden information, the mean over the deals of the best option on each "
            "less the best option's mean; info: minus the price, as skill is minus the loss",
            "a seat's skill, information and luck are its own side's"]


def _plays_setting(s: dict) -> str:
    search = "" if s["search"] == "double-dummy" else \
        f", {s['search']} search to depth {s['depth']}"
    return (f"plays over {s['deals']} deals (seed {s['seed']}; every one when at most "
            f"{s['enumerate_limit']:,}){search}")


def format_hand_record_grades(grades: HandGrades, header: Sequence[str]) -> str:
    """A hand record's grades under its header (`t42 analyze`'s)."""
    players = (grades.meta or {}).get("players") or {}
    lines = list(header) + ["", "Seat-view grades: " + _plays_setting(grades.settings)]
    lines += format_hand_grades(grades, players)
    lines += [""] + _legend(grades.analysis.position.game if grades.analysis else "42")
    return "\n".join(lines)


def format_game_grades(grades: GameGrades) -> str:
    """The score pad, then every hand's grades."""
    game: GameRecord = grades.game
    s = grades.settings
    title = "Game" + (f" {game.id}" if game.has_id else "")
    lines = [f"{title} - seat-view grades: {_plays_setting(s)}; calls by bid advice over "
             f"{s['advice_deals']} deals (seed {s['advice_seed']}, {s['p_make']} P(make))", "",
             format_pad(game)]
    for hand in grades.hands:
        shaker = "NESW"[game.hands[hand.index or 0].shaker]
        lines += ["", f"== Hand {(hand.index or 0) + 1} (shaker {shaker}) =="]
        lines += format_hand_grades(hand)
    lines += [""] + _legend(game.game)
    return "\n".join(lines)


__all__ = ["format_game_grades", "format_hand_grades", "format_hand_record_grades"]
