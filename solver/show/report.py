"""A coaching report over analysed hands (`t42 analyze --json` lines, or a batch of them).

Per player (the ``meta.players`` name of the seat, else the seat): hands
played, plays, costly plays, total and mean cost per hand. Per declaration:
how often the contract makes double dummy at the opening lead against how
often it made at the table. Per trick number: the cost of the plays made in
it. Costs add up in each hand's own unit (points; tricks for nello and Moon).
The text form is for the terminal; the HTML page holds the same tables and
matplotlib charts inlined as SVG, so it needs nothing beside it to open.

Each line is checked as strictly as any input of the package: a line that is
not JSON, not an object, or holds a field of the wrong type, an unknown field
or a value out of the game's range stops the report with a `ReportLineError`
naming the line and the field (``line 3: seats.N.plays: ...``).
"""

from __future__ import annotations

import html
import io
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping, TextIO

from ..game.contract_layout import SEATS
from ..game.errors import PositionError, key_text, quoted
from ..game.jsondoc import blank_line, check_keys, parse_json
from ..game.rules import parse_declaration


@dataclass
class PlayerFigures:
    hands: int = 0
    plays: int = 0
    costly_plays: int = 0
    total_cost: int = 0

    @property
    def cost_per_hand(self) -> float:
        return self.total_cost / self.hands if self.hands else 0.0


@dataclass
class DeclarationFigures:
    hands: int = 0
    dd_makes: int = 0   # the contract makes double dummy at the opening lead
    decided: int = 0    # hands whose tricks played decided the contract
    made: int = 0

    @property
    def dd_rate(self) -> float:
        return self.dd_makes / self.hands if self.hands else 0.0

    @property
    def made_rate(self) -> float | None:
        return self.made / self.decided if self.decided else None


@dataclass
class TrickFigures:
    plays: int = 0
    costly_plays: int = 0
    total_cost: int = 0


@dataclass
class Report:
    hands: int = 0
    errors: int = 0     # {"error": ...} lines of the input (bad records)
    players: dict[str, PlayerFigures] = field(default_factory=dict)
    declarations: dict[str, DeclarationFigures] = field(default_factory=dict)
    tricks: dict[int, TrickFigures] = field(default_factory=dict)

    def add(self, analysis: Mapping[str, Any]) -> None:
        """Count one hand (a `t42 analyze --json` object). Raises `PositionError`
        naming the field at fault (`check_analysis`); then nothing is counted."""
        check_analysis(analysis)
        self.hands += 1
        names = (analysis.get("meta") or {}).get("players") or {}
        for seat, s in analysis["seats"].items():
            player = self.players.setdefault(names.get(seat, seat), PlayerFigures())
            player.hands += 1
            player.plays += s["plays"]
            player.costly_plays += s["costly_plays"]
            player.total_cost += s["total_cost"]
        trump = parse_declaration(analysis["contract"]["trump"]).name
        game = analysis.get("game", "42")
        name = trump if game == "42" else f"{game} {trump}"
        declaration = self.declarations.setdefault(name, DeclarationFigures())
        declaration.hands += 1
        declaration.dd_makes += analysis["makes"]
        if analysis["made"] is not None:
            declaration.decided += 1
            declaration.made += analysis["made"]
        for play in analysis["plays"]:
            trick = self.tricks.setdefault(play["trick"], TrickFigures())
            trick.plays += 1
            trick.costly_plays += play["cost"] > 0
            trick.total_cost += play["cost"]


class ReportLineError(PositionError):
    """A bad line of a report's input: its 1-based ``line`` number, and the field
    (a path into that line's JSON), reason and ``code`` of `PositionError`."""

    def __init__(self, line: int, field: str, reason: str, code: str = "INVALID_VALUE") -> None:
        super().__init__(field, reason, code)
        self.line = line

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return type(self), (self.line, self.field, self.reason, self.code), self.__dict__


#: What a report line names itself in errors about the line as a whole.
LINE_FIELD = "analysis"
#: The fields of a `t42 analyze --json` object, of one of its plays and of a seat's totals.
ANALYSIS_FIELDS = ("id", "meta", "game", "contract", "unit", "value", "makes", "result",
                   "complete", "final_value", "made", "plays", "seats")
PLAY_FIELDS = ("index", "trick", "seat", "tile", "value_before", "value_after", "cost",
               "optimal", "alternatives")
SEAT_FIELDS = ("plays", "costly_plays", "total_cost")
#: An error line (a bad record of the input of `t42 analyze`): its error, and an id.
ERROR_FIELDS = ("error", "id")
#: The game's bounds: 7 tricks; a play gives away at most the 42 points of a hand, so
#: a seat's 7 plays at most 7 * 42; a hand has at most 28 plays.
TRICKS, MAX_COST, MAX_PLAYS = 7, 42, 28


def report_lines(lines: Iterable[str | bytes], what: str, field: str = LINE_FIELD
                 ) -> Iterator[tuple[int, dict]]:
    """(line number, JSON object) of each line that is not blank; `ReportLineError` at a
    line that is not a JSON object (``what``: what a line should be, in words).

    Args:
        lines: The lines (text or bytes), read as a stream.
        what: What a line is, for the error (``an analysis of `t42 analyze --json```).
        field: The field a bad line's error names.
    """
    for number, line in enumerate(lines, 1):
        if isinstance(line, str):
            if not line.strip():
                continue
            line = line.rstrip("\r\n")
        else:
            if blank_line(line):
                continue
            line = line.rstrip(b"\r\n")
        try:
            obj = parse_json(line, field)
            if not isinstance(obj, dict):
                raise PositionError(field, f"a line must be a JSON object ({what})",
                                    "INVALID_TYPE")
        except PositionError as exc:
            raise ReportLineError(number, exc.field, exc.reason, exc.code) from None
        yield number, obj


def read_report(lines: Iterable[str | bytes]) -> Report:
    """The report of JSON Lines of analysed hands (read as a stream, a line at a time).

    ``{"error": ...}`` lines (bad records of the analysis) are counted as such.
    Raises `ReportLineError` at the first line that is not an analysis.
    """
    report = Report()
    for number, obj in report_lines(lines, "an analysis of `t42 analyze --json`"):
        try:
            if "error" in obj:
                check_keys(obj, ERROR_FIELDS, "", "an error line")
                _require(obj, "error", dict, "an object")
                report.errors += 1
            else:
                report.add(obj)
        except PositionError as exc:
            raise ReportLineError(number, exc.field, exc.reason, exc.code) from None
    report.tricks = dict(sorted(report.tricks.items()))
    return report


def _require(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str,
             where: str = "") -> Any:
    """``obj[key]``, which must be there and of type ``kind`` (``what`` in words; a
    bool is no number)."""
    path = f"{where}.{key}" if where else key
    if key not in obj:
        raise PositionError(path, "required", "MISSING_FIELD")
    value = obj[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in (
            kind if isinstance(kind, tuple) else (kind,))):
        raise PositionError(path, f"must be {what}, not {quoted(value)}", "INVALID_TYPE")
    return value


def _count(obj: Mapping[str, Any], key: str, low: int, high: int, where: str) -> int:
    value = _require(obj, key, int, "a whole number", where)
    if not low <= value <= high:
        raise PositionError(f"{where}.{key}", f"{quoted(value)} is out of range "
                            f"({low}..{high})", "OUT_OF_RANGE")
    return value


def check_analysis(obj: Mapping[str, Any]) -> None:
    """Check what a report reads of a `t42 analyze --json` object ``obj``: no unknown field;
    the contract's declaration, the game, the verdicts, every play's trick and cost,
    every seat's totals, the players' names. Raises `PositionError` naming the field."""
    check_keys(obj, ANALYSIS_FIELDS, "", "an analysis")
    game = obj.get("game", "42")
    if game not in ("42", "moon"):
        raise PositionError("game", f"unknown game {quoted(game)} (\"42\" or \"moon\")",
                            "UNKNOWN_GAME")
    contract = _require(obj, "contract", dict, "an object")
    parse_declaration(_require(contract, "trump", (str, int), "a declaration", "contract"))
    _require(obj, "makes", bool, "true or false")
    _require(obj, "made", (bool, type(None)), "true, false or null")
    plays = _require(obj, "plays", list, "a list")
    if len(plays) > MAX_PLAYS:
        raise PositionError("plays", f"{len(plays)} plays (a hand has at most {MAX_PLAYS})",
                            "OUT_OF_RANGE")
    for i, play in enumerate(plays):
        where = f"plays[{i}]"
        if not isinstance(play, dict):
            raise PositionError(where, f"must be an object, not {quoted(play)}", "INVALID_TYPE")
        check_keys(play, PLAY_FIELDS, where, "a play")
        _count(play, "trick", 1, TRICKS, where)
        _count(play, "cost", 0, MAX_COST, where)
    seats = _require(obj, "seats", dict, "an object of seat -> totals")
    for seat, totals in seats.items():
        where = f"seats.{key_text(seat)}"
        if seat not in SEATS:
            raise PositionError(where, f"unknown seat {quoted(seat)} (one of "
                                f"{', '.join(SEATS)})", "UNKNOWN_SEAT")
        if not isinstance(totals, dict):
            raise PositionError(where, f"must be an object, not {quoted(totals)}",
                                "INVALID_TYPE")
        check_keys(totals, SEAT_FIELDS, where, "a seat's totals")
        plays_made = _count(totals, "plays", 0, TRICKS, where)
        _count(totals, "costly_plays", 0, plays_made, where)
        _count(totals, "total_cost", 0, TRICKS * MAX_COST, where)
    meta = obj.get("meta")
    if meta is not None:
        if not isinstance(meta, dict):
            raise PositionError("meta", f"must be an object, not {quoted(meta)}",
                                "INVALID_TYPE")
        players = meta.get("players")
        if players is not None:
            if not isinstance(players, dict):
                raise PositionError("meta.players", "must be an object of seat -> name, not "
                                    f"{quoted(players)}", "INVALID_TYPE")
            for seat, name in players.items():
                if not isinstance(name, str):
                    raise PositionError(f"meta.players.{key_text(seat)}", "a player's name "
                                        f"must be a string, not {quoted(name)}", "INVALID_TYPE")


def _percent(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.0f}%"


def player_rows(report: Report) -> list[list[str]]:
    """The report's table of players (a header row first), costliest per hand first."""
    rows = [["player", "hands", "plays", "costly", "total cost", "cost/hand"]]
    for name, p in sorted(report.players.items(), key=lambda kv: (-kv[1].cost_per_hand, kv[0])):
        rows.append([name, str(p.hands), str(p.plays), str(p.costly_plays), str(p.total_cost),
                     f"{p.cost_per_hand:.2f}"])
    return rows


def declaration_rows(report: Report) -> list[list[str]]:
    """The report's table of declarations (a header row first)."""
    rows = [["declaration", "hands", "DD makes", "decided", "made", "DD rate", "made rate"]]
    for name, d in report.declarations.items():
        rows.append([name, str(d.hands), str(d.dd_makes), str(d.decided), str(d.made),
                     _percent(d.dd_rate), _percent(d.made_rate)])
    return rows


def trick_rows(report: Report) -> list[list[str]]:
    """The report's table of tricks (a header row first)."""
    rows = [["trick", "plays", "costly", "total cost"]]
    for number, t in report.tricks.items():
        rows.append([str(number), str(t.plays), str(t.costly_plays), str(t.total_cost)])
    return rows


SECTIONS = (
    ("Players (cost: what their plays gave away, double dummy)", player_rows),
    ("Make rate by declaration: double dummy at the opening lead against the table",
     declaration_rows),
    ("Cost by trick", trick_rows),
)


def grid(rows: list[list[str]]) -> list[str]:
    """The text lines of a table of ``rows`` (a header row first), each column as wide as
    its widest cell: the first to the left, the others to the right."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                             for i, (cell, w) in enumerate(zip(row, widths))) for row in rows]


def format_report(report: Report) -> str:
    """The ``report`` as text, as `t42 report` prints it."""
    lines = [f"{report.hands} hands" + (f", {report.errors} bad records left out"
                                        if report.errors else "")]
    for title, rows in SECTIONS:
        lines += ["", title] + grid(rows(report))
    return "\n".join(lines)


# ------------------------------------------------------------------ HTML

def svg_of(figure: "matplotlib.figure.Figure") -> str:  # noqa: F821
    """A matplotlib ``figure`` as an SVG element to inline in a page."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # drop the XML prologue and doctype to inline it


def charts(report: Report) -> list[tuple[str, str]]:
    """(title, inline SVG) of each chart of ``report`` (matplotlib, the ``batch`` extra)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    out = []
    players = sorted(report.players.items(), key=lambda kv: (-kv[1].cost_per_hand, kv[0]))
    fig = Figure(figsize=(7, 3.2))
    ax = fig.add_subplot()
    ax.bar([name for name, _ in players], [p.cost_per_hand for _, p in players],
           color="#c0504d")
    ax.set_ylabel("mean cost per hand")
    ax.set_title("Cost per hand by player")
    out.append(("Cost per hand by player", svg_of(fig)))

    names = list(report.declarations)
    fig = Figure(figsize=(7, 3.2))
    ax = fig.add_subplot()
    x = range(len(names))
    ax.bar([i - 0.2 for i in x], [100 * d.dd_rate for d in report.declarations.values()],
           width=0.4, label="double dummy", color="#4f81bd")
    ax.bar([i + 0.2 for i in x], [100 * (d.made_rate or 0) for d in report.declarations.values()],
           width=0.4, label="at the table", color="#9bbb59")
    ax.set_xticks(list(x), names, rotation=30, ha="right")
    ax.set_ylabel("contracts made (%)")
    ax.set_ylim(0, 100)
    ax.legend()
    ax.set_title("Make rate by declaration")
    out.append(("Make rate by declaration", svg_of(fig)))

    fig = Figure(figsize=(7, 3.2))
    ax = fig.add_subplot()
    ax.bar([str(n) for n in report.tricks], [t.total_cost for t in report.tricks.values()],
           color="#8064a2")
    ax.set_xlabel("trick")
    ax.set_ylabel("total cost")
    ax.set_title("Cost by trick")
    out.append(("Cost by trick", svg_of(fig)))
    return out


def html_table(rows: list[list[str]]) -> str:
    """An HTML table of ``rows`` (a header row first), every cell escaped."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in rows[0])
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
                   for row in rows[1:])
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def write_html(report: Report, out: TextIO, title: str = "Texas 42 hand analysis") -> None:
    """Write to ``out`` a self-contained page headed ``title``: the report's tables and its
    charts as inline SVG."""
    parts = [f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{html.escape(title)}"
             "</title><style>body{font-family:sans-serif;margin:2em;max-width:60em}"
             "table{border-collapse:collapse;margin:1em 0}td,th{padding:.2em .8em;"
             "border-bottom:1px solid #ccc;text-align:right}td:first-child,th:first-child"
             "{text-align:left}figure{margin:1em 0}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>",
             f"<p>{report.hands} hands" + (f", {report.errors} bad records left out"
                                           if report.errors else "") + "</p>"]
    for (section, rows), (chart_title, svg) in zip(SECTIONS, charts(report)):
        parts += [f"<h2>{html.escape(section)}</h2>", html_table(rows(report)),
                  f"<figure class=\"chart\" title=\"{html.escape(chart_title)}\">{svg}</figure>"]
    parts.append("</body></html>\n")
    out.write("\n".join(parts))
