"""A coaching report over seat-view grades (`t42 analyze --seat-view --json` lines, or a
`t42 batch grade` run's results): per player, how each phase of the hand went.

The unit is a **seat-hand**: one seat in one hand (a player who holds two seats of a
partnership, as a bot in the arena does, plays two seat-hands a hand). Per player
(the ``meta.players`` name of the seat; the arena's ``meta.arena.NS``/``EW`` bot; else
the seat letter):

* decisions and mistakes per seat-hand by **phase**: the auction (calls), the
  declaration (and the three-player Moon discard), the opening lead, the later plays;
* the **marks lost** per seat-hand (every decision's loss in expected marks; Moon: the
  game's points) and the **points lost** per seat-hand (the plays' loss in the hand's
  unit: points, tricks in nello and Moon), each with its 95% t interval over the
  player's seat-hands;
* the **price of hidden information** per seat-hand (what its plays gave up, on average
  over their deals, for not seeing the other hands: minus `SeatGrades.information`, in
  the hand's unit), with its interval;
* the **luck** per seat-hand (its side's, in the hand's unit: `SeatGrades.luck`), with
  its interval;
* the **worst decisions**, by marks lost, each named by its record (the input line and
  its ``id``), its hand and its place in the hand.

The intervals are clustered by hand: the seat-hands of one hand (two partners, or a bot
that holds both seats of a side) share its deal and are not independent, so each
interval is a t interval of the mean with a cluster-robust standard error over the hands
(`solver.hidden.stats.clustered_mean`), on as many degrees of freedom as the player's
hands less one.

Each line is checked for what the report reads of it: a line that is not a grading
stops the report with a `ReportLineError` naming the line and the field.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, TextIO

from ..game.contract_layout import SEATS
from ..game.errors import PositionError, key_text, quoted
from ..game.jsondoc import check_keys
from ..hidden.coaching import KINDS
from ..hidden.stats import MeanEstimate, clustered_mean
from .report import (ERROR_FIELDS, TRICKS, ReportLineError, grid, html_table, report_lines,
                     svg_of)

#: The phases of a hand, in order, and what each holds.
PHASES = ("auction", "declaration", "opening lead", "later plays")
#: The worst decisions the report lists unless asked otherwise.
DEFAULT_WORST = 10
#: A record's ``id``: any JSON value.
JsonValue = "str | int | float | bool | list | dict | None"
#: What a grading line names itself in errors about the line as a whole.
LINE_FIELD = "grades"


def phase_of(decision: Mapping[str, Any]) -> str:
    """The phase of a decision's JSON: a call is the auction's, a declaration or a discard
    the declaration's, the play of index 0 the opening lead, any other play a later one."""
    kind = decision["kind"]
    if kind == "call":
        return "auction"
    if kind in ("declaration", "discard"):
        return "declaration"
    return "opening lead" if decision["index"] == 0 else "later plays"


@dataclass
class PhaseFigures:
    """A player's decisions in one phase, over its seat-hands."""

    decisions: int = 0
    mistakes: int = 0
    marks_lost: float = 0.0


@dataclass
class PlayerFigures:
    """A player's figures: one value per seat-hand of each of marks lost, points lost,
    the price of hidden information and luck (the intervals are over them, clustered by
    hand), and the decisions by phase.

    Attributes:
        marks_lost: Per seat-hand, the expected marks its decisions lost.
        points_lost: Per seat-hand, the points (tricks) its plays lost.
        luck: Per seat-hand, its side's luck.
        information: Per seat-hand, the price of hidden information its plays paid
            (None for a grading made before the price had a term of its own).
        hands_of: Per seat-hand, the hand it belongs to (its record's line and the
            hand's index): the clusters of the intervals.
        phases: Phase -> the `PhaseFigures` of the player's decisions in it.
    """

    marks_lost: list[float] = field(default_factory=list)
    points_lost: list[float] = field(default_factory=list)
    luck: list[float] = field(default_factory=list)
    information: list[float | None] = field(default_factory=list)
    hands_of: list[tuple[int, int | None]] = field(default_factory=list)
    phases: dict[str, PhaseFigures] = field(
        default_factory=lambda: {p: PhaseFigures() for p in PHASES})

    @property
    def hands(self) -> int:
        """Seat-hands played."""
        return len(self.marks_lost)

    @property
    def decisions(self) -> int:
        return sum(p.decisions for p in self.phases.values())

    @property
    def mistakes(self) -> int:
        return sum(p.mistakes for p in self.phases.values())

    def per_hand(self, count: int | float) -> float:
        return count / self.hands if self.hands else 0.0

    @property
    def marks(self) -> MeanEstimate:
        return clustered_mean(self.marks_lost, self.hands_of)

    @property
    def points(self) -> MeanEstimate:
        return clustered_mean(self.points_lost, self.hands_of)

    @property
    def luck_estimate(self) -> MeanEstimate:
        return clustered_mean(self.luck, self.hands_of)

    @property
    def information_estimate(self) -> MeanEstimate:
        """The price of hidden information per seat-hand, over the seat-hands that have
        it."""
        kept = [(x, h) for x, h in zip(self.information, self.hands_of) if x is not None]
        return clustered_mean([x for x, _ in kept], [h for _, h in kept])


@dataclass(frozen=True)
class WorstDecision:
    """A decision among the costliest, and where to find it.

    Attributes:
        player: Who made it.
        line: The 1-based line of its record in the report's input.
        id: The record's ``id`` (any JSON value; None without one).
        hand: The hand's index in its game (0 first; None for a hand record).
        decision: The decision's JSON, as the grading wrote it.
    """

    player: str
    line: int
    id: JsonValue
    hand: int | None
    decision: Mapping[str, Any]

    @property
    def marks_lost(self) -> float:
        loss = self.decision.get("marks_loss")
        return loss["value"] if loss else 0.0

    @property
    def points_lost(self) -> float:
        loss = self.decision.get("loss")
        return loss["value"] if loss else 0.0

    def where(self) -> str:
        """``game ID (line N), hand H, play 5 (trick 2)``, hands and plays from 1."""
        record = (f"{self.id} (line {self.line})" if self.id is not None
                  else f"line {self.line}")
        d = self.decision
        place = {"call": f"call {d['index'] + 1}", "play": f"play {d['index'] + 1} "
                 f"(trick {d.get('trick')})"}.get(d["kind"], d["kind"])
        hand = "" if self.hand is None else f", hand {self.hand + 1}"
        return f"{record}{hand}, {place}"

    def to_json(self) -> dict:
        d = self.decision
        return {"player": self.player, "line": self.line, "id": self.id, "hand": self.hand,
                "kind": d["kind"], "index": d["index"], "trick": d.get("trick"),
                "seat": d["seat"], "choice": d["choice"], "best": d.get("best"),
                "best_for_make": d.get("best_for_make"),
                "marks_loss": d.get("marks_loss"), "loss": d.get("loss"),
                "unit": d.get("unit"), "mistake": d["mistake"]}


@dataclass
class GradeReport:
    """The report over many gradings (`read_grade_report`).

    Attributes:
        records: Gradings read (a game or a hand record each).
        hands: Hands in them.
        errors: ``{"error": ...}`` lines (records that could not be graded).
        players: Player -> its `PlayerFigures`.
        worst: The costliest decisions, worst first.
        worst_count: How many of them are kept.
    """

    records: int = 0
    hands: int = 0
    errors: int = 0     # {"error": ...} lines (records that could not be graded)
    players: dict[str, PlayerFigures] = field(default_factory=dict)
    worst: list[WorstDecision] = field(default_factory=list)
    worst_count: int = DEFAULT_WORST

    def add(self, grades: Mapping[str, Any], line: int) -> None:
        """Count one grading (a game's or a hand record's). Raises `PositionError` naming
        the field at fault (`check_grades`); then nothing is counted."""
        check_grades(grades)
        self.records += 1
        names = player_names(grades.get("meta"))
        if isinstance(grades.get("hands"), list):
            for hand in grades["hands"]:
                self._add_hand(hand, names, line, grades.get("id"), hand.get("hand"))
        else:
            self._add_hand(grades, names, line, grades.get("id"), None)

    def _add_hand(self, hand: Mapping[str, Any], names: Mapping[str, str], line: int,
                  record_id: JsonValue, index: int | None) -> None:
        self.hands += 1
        seats: dict[str, list[float]] = {}     # seat -> [marks lost, points lost]
        for d in hand["decisions"]:
            if d["method"] == "ungraded":
                continue
            seat = d["seat"]
            player = self.players.setdefault(names.get(seat, seat), PlayerFigures())
            phase = player.phases[phase_of(d)]
            marks = d["marks_loss"]["value"] if d["marks_loss"] else 0.0
            points = d["loss"]["value"] if d["loss"] and d["kind"] != "call" else 0.0
            phase.decisions += 1
            phase.mistakes += d["mistake"]
            phase.marks_lost += marks
            sums = seats.setdefault(seat, [0.0, 0.0])
            sums[0] += marks
            sums[1] += points if d["unit"] is not None else 0.0
            self._consider(WorstDecision(names.get(seat, seat), line, record_id, index, d))
        for seat, (marks, points) in seats.items():
            player = self.players[names.get(seat, seat)]
            player.marks_lost.append(marks)
            player.points_lost.append(points)
            summary = (hand.get("seats") or {}).get(seat, {})
            player.luck.append(summary.get("luck") or 0.0)
            information = summary.get("information")
            player.information.append(None if information is None else -information)
            player.hands_of.append((line, index))

    def _consider(self, worst: WorstDecision) -> None:
        if worst.marks_lost <= 0 and worst.points_lost <= 0:
            return
        self.worst.append(worst)
        if len(self.worst) > 4 * self.worst_count + 64:
            self._trim()

    def _trim(self) -> None:
        self.worst.sort(key=lambda w: (-w.marks_lost, -w.points_lost, w.line,
                                       w.hand or 0, w.decision["index"]))
        del self.worst[self.worst_count:]

    def ranked_players(self) -> list[tuple[str, PlayerFigures]]:
        """The players, most marks lost per seat-hand first."""
        return sorted(self.players.items(), key=lambda kv: (-kv[1].marks.mean
                                                            if kv[1].hands else 0, kv[0]))

    def to_json(self) -> dict:
        """The report as JSON (`t42 report --json`)."""
        def estimate(e: MeanEstimate) -> dict:
            return {"mean": _finite(e.mean), "low": _finite(e.low), "high": _finite(e.high)}

        players = {}
        for name, p in self.ranked_players():
            players[name] = {
                "hands": p.hands, "decisions": p.decisions, "mistakes": p.mistakes,
                "marks_lost_per_hand": estimate(p.marks),
                "points_lost_per_hand": estimate(p.points),
                "information_price_per_hand": estimate(p.information_estimate),
                "luck_per_hand": estimate(p.luck_estimate),
                "phases": {phase: {"decisions": f.decisions, "mistakes": f.mistakes,
                                   "decisions_per_hand": _finite(p.per_hand(f.decisions)),
                                   "mistakes_per_hand": _finite(p.per_hand(f.mistakes)),
                                   "marks_lost_per_hand": _finite(p.per_hand(f.marks_lost))}
                           for phase, f in p.phases.items()}}
        return {"records": self.records, "hands": self.hands, "errors": self.errors,
                "players": players, "worst": [w.to_json() for w in self.worst]}


def _finite(x: float) -> float | None:
    return round(x, 6) if math.isfinite(x) else None


def player_names(meta: Mapping[str, Any] | None) -> dict[str, str]:
    """Seat -> player of a record's ``meta`` (anything else: no names): its ``players``
    (seat to name), else the arena's bots (``arena.NS``, ``arena.EW``); a seat not named
    is its letter."""
    if not isinstance(meta, dict):
        return {}
    players = meta.get("players")
    if isinstance(players, dict):
        return {s: n for s, n in players.items() if isinstance(n, str)}
    arena = meta.get("arena")
    if isinstance(arena, dict):
        names = {}
        for side in ("NS", "EW"):
            if isinstance(arena.get(side), str):
                names.update({side[0]: arena[side], side[1]: arena[side]})
        return names
    return {}


# ------------------------------------------------------------------ reading


def read_grade_report(lines: Iterable[str | bytes], worst: int = DEFAULT_WORST
                      ) -> GradeReport:
    """The report of JSON Lines of gradings (read as a stream, a line at a time), with the
    ``worst`` costliest decisions. ``{"error": ...}`` lines are counted as such. Raises
    `ReportLineError` at the first line that is not a grading."""
    report = GradeReport(worst_count=worst)
    for number, obj in report_lines(lines, "a grading of `t42 analyze --seat-view --json`",
                                    LINE_FIELD):
        try:
            if "error" in obj:
                check_keys(obj, ERROR_FIELDS, "", "an error line")
                _require(obj, "error", dict, "an object")
                report.errors += 1
            else:
                report.add(obj, number)
        except PositionError as exc:
            raise ReportLineError(number, exc.field, exc.reason, exc.code) from None
    report._trim()
    return report




def is_grading(obj: Mapping[str, Any]) -> bool:
    """Whether the JSON object ``obj`` is a grading (it names its ``seat_view`` settings),
    not a double-dummy analysis."""
    return "seat_view" in obj


def _require(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str,
             where: str = "") -> Any:
    path = f"{where}.{key}" if where else key
    if key not in obj:
        raise PositionError(path, "required", "MISSING_FIELD")
    value = obj[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in kinds):
        raise PositionError(path, f"must be {what}, not {quoted(value)}", "INVALID_TYPE")
    if isinstance(value, float) and not math.isfinite(value):
        raise PositionError(path, f"must be a finite number, not {quoted(value)}",
                            "INVALID_VALUE")
    return value


_NUMBER = (int, float)


def _check_loss(d: Mapping[str, Any], key: str, where: str) -> None:
    loss = _require(d, key, (dict, type(None)), "a loss object or null", where)
    if loss is None:
        return
    at = f"{where}.{key}"
    _require(loss, "value", _NUMBER, "a number", at)
    _require(loss, "low", (*_NUMBER, type(None)), "a number or null", at)
    _require(loss, "high", (*_NUMBER, type(None)), "a number or null", at)


def _check_decision(d: Any, where: str) -> None:
    if not isinstance(d, dict):
        raise PositionError(where, f"must be an object, not {quoted(d)}", "INVALID_TYPE")
    kind = _require(d, "kind", str, "a string", where)
    if kind not in KINDS:
        raise PositionError(f"{where}.kind", f"unknown kind {quoted(kind)} (one of "
                            f"{', '.join(KINDS)})", "INVALID_VALUE")
    seat = _require(d, "seat", str, "a seat", where)
    if seat not in SEATS:
        raise PositionError(f"{where}.seat", f"unknown seat {quoted(seat)} (one of "
                            f"{', '.join(SEATS)})", "UNKNOWN_SEAT")
    index = _require(d, "index", int, "a whole number", where)
    if index < 0:
        raise PositionError(f"{where}.index", f"must be 0 or more, not {index}",
                            "OUT_OF_RANGE")
    if "trick" in d:
        trick = _require(d, "trick", int, "a whole number", where)
        if not 1 <= trick <= TRICKS:
            raise PositionError(f"{where}.trick", f"{trick} is out of range (1..{TRICKS})",
                                "OUT_OF_RANGE")
    _require(d, "choice", str, "a string", where)
    _require(d, "method", str, "a string", where)
    unit = _require(d, "unit", (str, type(None)), "a string or null", where)
    if unit not in (None, "points", "tricks"):
        raise PositionError(f"{where}.unit", f"unknown unit {quoted(unit)}", "INVALID_VALUE")
    _require(d, "mistake", bool, "true or false", where)
    _check_loss(d, "loss", where)
    _check_loss(d, "marks_loss", where)


def _check_hand(hand: Any, where: str) -> None:
    if not isinstance(hand, dict):
        raise PositionError(where or LINE_FIELD, f"must be an object, not {quoted(hand)}",
                            "INVALID_TYPE")
    decisions = _require(hand, "decisions", list, "a list", where)
    for i, d in enumerate(decisions):
        _check_decision(d, f"{where}.decisions[{i}]" if where else f"decisions[{i}]")
    seats = _require(hand, "seats", dict, "an object of seat -> summary", where)
    for seat, summary in seats.items():
        at = f"{where}.seats.{key_text(seat)}" if where else f"seats.{key_text(seat)}"
        if seat not in SEATS:
            raise PositionError(at, f"unknown seat {quoted(seat)}", "UNKNOWN_SEAT")
        if not isinstance(summary, dict):
            raise PositionError(at, f"must be an object, not {quoted(summary)}",
                                "INVALID_TYPE")
        _require(summary, "luck", (*_NUMBER, type(None)), "a number or null", at)
        if "information" in summary:
            _require(summary, "information", (*_NUMBER, type(None)), "a number or null", at)


def check_grades(obj: Mapping[str, Any]) -> None:
    """Check what a report reads of a grading ``obj`` (a game's: its ``hands``; a hand
    record's: its ``decisions`` and ``seats``). Raises `PositionError` naming the field."""
    if not is_grading(obj):
        raise PositionError("seat_view", "required: a line must be a grading of `t42 "
                            "analyze --seat-view --json` (or `t42 batch grade`)",
                            "MISSING_FIELD")
    meta = obj.get("meta")
    if meta is not None and not isinstance(meta, dict):
        raise PositionError("meta", f"must be an object, not {quoted(meta)}", "INVALID_TYPE")
    if isinstance(obj.get("hands"), list):
        for i, hand in enumerate(obj["hands"]):
            _check_hand(hand, f"hands[{i}]")
            _require(hand, "hand", int, "a whole number", f"hands[{i}]")
    else:
        _check_hand(obj, "")


# ------------------------------------------------------------------ text


def _estimate(e: MeanEstimate, signed: bool = False) -> str:
    if not e.n:
        return "-"
    mean = f"{e.mean:+.2f}" if signed else f"{e.mean:.2f}"
    if not (math.isfinite(e.low) and math.isfinite(e.high)):
        return mean
    return f"{mean} ({e.low:.2f} .. {e.high:.2f})"


def player_rows(report: GradeReport) -> list[list[str]]:
    """Players (a header row first), most marks lost per seat-hand first."""
    rows = [["player", "hands", "decisions", "mistakes", "marks lost/hand (95%)",
             "points lost/hand (95%)", "information price/hand (95%)", "luck/hand (95%)"]]
    for name, p in report.ranked_players():
        rows.append([name, str(p.hands), str(p.decisions), str(p.mistakes),
                     _estimate(p.marks), _estimate(p.points),
                     _estimate(p.information_estimate),
                     _estimate(p.luck_estimate, signed=True)])
    return rows


def phase_rows(report: GradeReport) -> list[list[str]]:
    """Per player (a row) and phase (a column): decisions per seat-hand, and in brackets
    mistakes per seat-hand."""
    rows = [["player"] + list(PHASES)]
    for name, p in report.ranked_players():
        rows.append([name] + [f"{p.per_hand(f.decisions):.2f} ({p.per_hand(f.mistakes):.3f})"
                              for f in p.phases.values()])
    return rows


def worst_rows(report: GradeReport) -> list[list[str]]:
    """The worst decisions, by marks lost (a header row first): the best option by the mean
    (the points loss is against it) and, for plays, the one likeliest to reach the side's
    goal (the marks loss is against it), each when another than the choice."""
    rows = [["player", "where", "seat", "decision", "best", "for make", "marks lost",
             "points lost"]]
    for w in report.worst:
        d = w.decision
        what = d["choice"] if d["kind"] in ("call", "play") else f"{d['kind']} {d['choice']}"
        points = "-" if not d.get("loss") or d["kind"] == "call" else \
            f"{w.points_lost:.2f} {d.get('unit') or ''}".rstrip()
        best, for_make = d.get("best"), d.get("best_for_make")
        rows.append([("* " if d["mistake"] else "") + w.player, w.where(), d["seat"], what,
                     "" if best == d["choice"] else str(best or "-"),
                     "" if for_make in (d["choice"], best) or d["kind"] == "call"
                     else str(for_make or "-"),
                     f"{w.marks_lost:.2f}", points])
    return rows


SECTIONS = (
    ("Players (per seat-hand: marks lost by every decision, points lost by the plays, the "
     "price of hidden information their plays paid, their side's luck; 95% t intervals "
     "clustered by hand)", player_rows),
    ("Decisions per seat-hand by phase (mistakes per seat-hand in brackets)", phase_rows),
    ("Worst decisions (by marks lost; * a mistake)", worst_rows),
)


def _summary(report: GradeReport) -> str:
    return (f"{report.records} records graded, {report.hands} hands"
            + (f", {report.errors} records that could not be graded left out"
               if report.errors else ""))


def format_grade_report(report: GradeReport) -> str:
    """The ``report`` as text, as `t42 report` prints it."""
    lines = [_summary(report)]
    for title, rows in SECTIONS:
        table = rows(report)
        lines += ["", title] + (grid(table) if len(table) > 1 else ["  (none)"])
    return "\n".join(lines)


# ------------------------------------------------------------------ HTML


def charts(report: GradeReport) -> list[tuple[str, str]]:
    """(title, inline SVG) of each chart of ``report`` (matplotlib, the ``batch`` extra):
    marks lost, points lost, mistakes by phase, luck and the price of hidden information
    per seat-hand, by player, with 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    players = report.ranked_players()
    names = [name for name, _ in players]
    out = []

    def bars(title: str, ylabel: str, estimates: list[MeanEstimate], color: str) -> None:
        fig = Figure(figsize=(7, 3.2))
        ax = fig.add_subplot()
        means = [e.mean if e.n else 0.0 for e in estimates]
        errors = [[max(0.0, m - e.low) if math.isfinite(e.low) else 0.0
                   for m, e in zip(means, estimates)],
                  [max(0.0, e.high - m) if math.isfinite(e.high) else 0.0
                   for m, e in zip(means, estimates)]]
        ax.bar(names, means, yerr=errors, capsize=4, color=color)
        ax.axhline(0, color="#555", linewidth=0.6)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        out.append((title, svg_of(fig)))

    bars("Marks lost per hand by player", "expected marks lost per seat-hand",
         [p.marks for _, p in players], "#c0504d")
    bars("Points lost per hand by player", "points lost per seat-hand",
         [p.points for _, p in players], "#f79646")

    fig = Figure(figsize=(7, 3.2))
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(players))
    for k, (name, p) in enumerate(players):
        ax.bar([i + (k - (len(players) - 1) / 2) * width for i in range(len(PHASES))],
               [p.per_hand(p.phases[ph].mistakes) for ph in PHASES], width=width, label=name)
    ax.set_xticks(list(range(len(PHASES))), PHASES)
    ax.set_ylabel("mistakes per seat-hand")
    ax.set_title("Mistakes per hand by phase")
    if players:
        ax.legend()
    out.append(("Mistakes per hand by phase", svg_of(fig)))

    bars("Luck per hand by player", "luck per seat-hand (its side's)",
         [p.luck_estimate for _, p in players], "#4f81bd")
    bars("Price of hidden information per hand by player",
         "information price per seat-hand", [p.information_estimate for _, p in players],
         "#8064a2")
    return out


def write_grade_html(report: GradeReport, out: TextIO,
                     title: str = "Texas 42 seat-view coaching report") -> None:
    """Write to ``out`` a self-contained page headed ``title``: the report's tables and its
    charts as inline SVG."""
    parts = [f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{html.escape(title)}"
             "</title><style>body{font-family:sans-serif;margin:2em;max-width:64em}"
             "table{border-collapse:collapse;margin:1em 0}td,th{padding:.2em .8em;"
             "border-bottom:1px solid #ccc;text-align:right}td:first-child,th:first-child"
             "{text-align:left}figure{margin:1em 0}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>", f"<p>{html.escape(_summary(report))}</p>"]
    figures = charts(report)
    parts += [f"<h2>{html.escape(SECTIONS[0][0])}</h2>", html_table(player_rows(report))]
    for chart_title, svg in figures[:2] + figures[3:]:
        parts.append(f"<figure class=\"chart\" title=\"{html.escape(chart_title)}\">{svg}"
                     "</figure>")
    parts += [f"<h2>{html.escape(SECTIONS[1][0])}</h2>", html_table(phase_rows(report)),
              f"<figure class=\"chart\" title=\"{html.escape(figures[2][0])}\">"
              f"{figures[2][1]}</figure>",
              f"<h2>{html.escape(SECTIONS[2][0])}</h2>", html_table(worst_rows(report)),
              "</body></html>\n"]
    out.write("\n".join(parts))


__all__ = ["DEFAULT_WORST", "PHASES", "GradeReport", "PlayerFigures", "WorstDecision",
           "check_grades", "format_grade_report", "is_grading", "phase_of", "player_names",
           "read_grade_report", "write_grade_html"]
