"""A coaching report over analysed hands (`t42 analyze --json` lines, or a batch of them).

Per player (the ``meta.players`` name of the seat, else the seat): hands
played, plays, costly plays, total and mean cost per hand. Per declaration:
how often the contract makes double dummy at the opening lead against how
often it made at the table. Per trick number: the cost of the plays made in
it. Costs add up in each hand's own unit (points; tricks for nello and Moon).
The text form is for the terminal; the HTML page holds the same tables and
matplotlib charts inlined as SVG, so it needs nothing beside it to open.
"""

from __future__ import annotations

import html
import io
import json
from dataclasses import dataclass, field
from typing import Iterable, TextIO


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

    def add(self, analysis: dict) -> None:
        """Count one hand (a `t42 analyze --json` object)."""
        self.hands += 1
        names = (analysis.get("meta") or {}).get("players") or {}
        for seat, s in analysis["seats"].items():
            player = self.players.setdefault(names.get(seat, seat), PlayerFigures())
            player.hands += 1
            player.plays += s["plays"]
            player.costly_plays += s["costly_plays"]
            player.total_cost += s["total_cost"]
        trump = analysis["contract"]["trump"]
        name = trump if analysis.get("game", "42") == "42" else f"{analysis['game']} {trump}"
        declaration = self.declarations.setdefault(name, DeclarationFigures())
        declaration.hands += 1
        declaration.dd_makes += bool(analysis["makes"])
        if analysis["made"] is not None:
            declaration.decided += 1
            declaration.made += bool(analysis["made"])
        for play in analysis["plays"]:
            trick = self.tricks.setdefault(play["trick"], TrickFigures())
            trick.plays += 1
            trick.costly_plays += play["cost"] > 0
            trick.total_cost += play["cost"]


def read_report(lines: Iterable[str]) -> Report:
    """The report of JSON Lines of analysed hands (read as a stream)."""
    report = Report()
    for line in lines:
        if not line.strip():
            continue
        obj = json.loads(line)
        if "error" in obj:
            report.errors += 1
        else:
            report.add(obj)
    report.tricks = dict(sorted(report.tricks.items()))
    return report


def _percent(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.0f}%"


def player_rows(report: Report) -> list[list[str]]:
    rows = [["player", "hands", "plays", "costly", "total cost", "cost/hand"]]
    for name, p in sorted(report.players.items(), key=lambda kv: (-kv[1].cost_per_hand, kv[0])):
        rows.append([name, str(p.hands), str(p.plays), str(p.costly_plays), str(p.total_cost),
                     f"{p.cost_per_hand:.2f}"])
    return rows


def declaration_rows(report: Report) -> list[list[str]]:
    rows = [["declaration", "hands", "DD makes", "decided", "made", "DD rate", "made rate"]]
    for name, d in report.declarations.items():
        rows.append([name, str(d.hands), str(d.dd_makes), str(d.decided), str(d.made),
                     _percent(d.dd_rate), _percent(d.made_rate)])
    return rows


def trick_rows(report: Report) -> list[list[str]]:
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


def _grid(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                             for i, (cell, w) in enumerate(zip(row, widths))) for row in rows]


def format_report(report: Report) -> str:
    lines = [f"{report.hands} hands" + (f", {report.errors} bad records left out"
                                        if report.errors else "")]
    for title, rows in SECTIONS:
        lines += ["", title] + _grid(rows(report))
    return "\n".join(lines)


# ------------------------------------------------------------------ HTML

def _svg(figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # drop the XML prologue and doctype to inline it


def charts(report: Report) -> list[tuple[str, str]]:
    """(title, inline SVG) of each chart."""
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
    out.append(("Cost per hand by player", _svg(fig)))

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
    out.append(("Make rate by declaration", _svg(fig)))

    fig = Figure(figsize=(7, 3.2))
    ax = fig.add_subplot()
    ax.bar([str(n) for n in report.tricks], [t.total_cost for t in report.tricks.values()],
           color="#8064a2")
    ax.set_xlabel("trick")
    ax.set_ylabel("total cost")
    ax.set_title("Cost by trick")
    out.append(("Cost by trick", _svg(fig)))
    return out


def _html_table(rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in rows[0])
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
                   for row in rows[1:])
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def write_html(report: Report, out: TextIO, title: str = "Texas 42 hand analysis") -> None:
    """A self-contained page: the report's tables and its charts as inline SVG."""
    parts = [f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{html.escape(title)}"
             "</title><style>body{font-family:sans-serif;margin:2em;max-width:60em}"
             "table{border-collapse:collapse;margin:1em 0}td,th{padding:.2em .8em;"
             "border-bottom:1px solid #ccc;text-align:right}td:first-child,th:first-child"
             "{text-align:left}figure{margin:1em 0}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>",
             f"<p>{report.hands} hands" + (f", {report.errors} bad records left out"
                                           if report.errors else "") + "</p>"]
    for (section, rows), (chart_title, svg) in zip(SECTIONS, charts(report)):
        parts += [f"<h2>{html.escape(section)}</h2>", _html_table(rows(report)),
                  f"<figure class=\"chart\" title=\"{html.escape(chart_title)}\">{svg}</figure>"]
    parts.append("</body></html>\n")
    out.write("\n".join(parts))
