"""Pictures: the SVG of a position and of an analysed hand, read back with xml.etree.

About 3 s (a few small solves, one hand analysis, a few small hints and one
`t42 hint --svg` process).
"""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from collections import Counter
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from server.launcher import t42_command
from solver import Position, solve
from solver.game import tiles as T
from solver.game.view import View
from solver.hidden.hint import Hint, MoveFigures, hint
from solver.search.analysis import analyze_hand
from solver.show.svg import analysis_svg, hint_label, position_svg, solution_svg, view_svg

ROOT = Path(__file__).resolve().parent.parent
DEAL = json.loads((ROOT / "examples" / "deal.json").read_text())
RECORDS = (ROOT / "examples" / "hands.jsonl").read_text().splitlines()
NS = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)  # well-formed XML, or this raises
    assert root.tag == NS + "svg"
    return root


def dominoes(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(NS + "g") if "domino" in g.get("class", "").split()]


def check_pips(domino: ET.Element) -> None:
    """Each half of a domino holds as many pip circles as its end has pips."""
    high, low = T.ENDS[T.parse_tile(domino.get("data-tile"), "tile")]
    halves = [g for g in domino.iter(NS + "g") if g.get("class") == "half"]
    assert [int(h.get("data-pips")) for h in halves] == [high, low]
    counts = [sum(1 for c in h.iter(NS + "circle") if c.get("class") == "pip") for h in halves]
    assert counts == [high, low], domino.get("data-tile")


def labels(root: ET.Element) -> dict[str, str]:
    out = {}
    for g in root.iter(NS + "g"):
        if g.get("class") == "label":
            out[g.get("data-tile")] = "".join(g.find(NS + "text").itertext())
    return out


@pytest.mark.parametrize("plays", [[], ["1-1", "2-2", "3-2", "2-1", "3-3", "5-3"]])
def test_position_picture_has_every_tile_once_with_its_pips_and_the_solver_values(plays):
    position = Position({**DEAL, "plays": plays})
    result = solve(position)
    root = parse(solution_svg(position, result))
    drawn = dominoes(root)
    in_hands = [T.name_of(t) for s in range(4) for t in T.tiles_of(position.remaining[s])]
    on_table = [T.name_of(t) for _, t in position.trick]
    assert Counter(d.get("data-tile") for d in drawn) == Counter(in_hands + on_table)
    assert len(drawn) == 28 - 4 * len(position.completed_tricks)
    for d in drawn:
        check_pips(d)
    assert labels(root) == {tile: str(value) for tile, value in result.moves.items()}
    outlined = {d.get("data-tile") for d in drawn
                if d.find(NS + "rect[2]") is not None and
                d.findall(NS + "rect")[1].get("stroke") == "#f2c14e"}
    assert outlined == set(result.best_moves)
    played = [d.get("data-tile") for d in drawn if "played" in d.get("class")]
    assert played == on_table
    text = " ".join(root.itertext())
    assert "W bids 30, fours" in text
    assert f"{position.to_move}" in text


def test_tricks_won_are_drawn_per_seat():
    position = Position({**DEAL, "plays": DEAL.get("plays", []) + solve(Position(DEAL)).line[:12]})
    root = parse(position_svg(position))
    won = [r for r in root.iter(NS + "rect") if r.get("class") == "won"]
    assert len(won) == 3 == len(position.completed_tricks)


def test_labels_take_any_text_for_the_seat_to_move():
    position = Position(DEAL)  # W to lead
    root = parse(position_svg(position, labels={"5-5": "p 0.82 \u00b7 31.5", "11": "<x>"},
                              best=["5-5"]))
    assert labels(root) == {"5-5": "p 0.82 \u00b7 31.5", "1-1": "<x>"}


def test_moon_and_nello_pictures():
    moon = Position((ROOT / "examples" / "moon.json").read_text())
    root = parse(position_svg(moon))
    assert len(dominoes(root)) == 21  # three hands, no West
    assert "widow 3-2, discard 2-1" in " ".join(root.itertext())
    nello = Position({**DEAL, "contract": {"declarer": "W", "trump": "nello", "bid": 42}})
    root = parse(position_svg(nello))
    east = [d for d in dominoes(root) if d.get("data-tile") in DEAL["hands"]["E"]]
    assert len(east) == 7 and all(d.get("opacity") == "0.45" for d in east)  # sits out
    assert "East, sits out" in " ".join(root.itertext())


def test_repr_svg_is_the_picture():
    position = Position(DEAL)
    assert position._repr_svg_() == position_svg(position)


def test_analysis_picture_marks_the_costly_plays():
    hand = analyze_hand(RECORDS[0])
    root = parse(analysis_svg(hand))
    drawn = dominoes(root)
    assert [d.get("data-tile") for d in drawn] == [p.tile for p in hand.plays]
    for d in drawn:
        check_pips(d)
    marks = [(g.get("data-tile"), int(g.get("data-cost")), "".join(g.itertext()))
             for g in root.iter(NS + "g") if g.get("class") == "cost"]
    assert [(tile, cost) for tile, cost, _ in marks] == \
        [(p.tile, p.cost) for p in hand.costly_plays] == [("5-0", 5), ("3-3", 1)]
    for (_, _, text), play in zip(marks, hand.costly_plays):
        assert "better: " + ", ".join(play.alternatives) in text
    costly = [d.get("data-tile") for d in drawn if "costly" in d.get("class")]
    assert costly == ["5-0", "3-3"]
    assert "Cost by seat: N 0, E 0, S 0, W 6" in " ".join(root.itertext())


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: json.loads(r)["id"])
def test_analysis_picture_of_every_example_hand(record):
    """Complete and stopped hands, nello and Moon: every play drawn once, every cost marked."""
    hand = analyze_hand(record)
    root = parse(analysis_svg(hand))
    assert [d.get("data-tile") for d in dominoes(root)] == [p.tile for p in hand.plays]
    marks = [(g.get("data-tile"), int(g.get("data-cost")))
             for g in root.iter(NS + "g") if g.get("class") == "cost"]
    assert marks == [(p.tile, p.cost) for p in hand.costly_plays]


def test_cli_solve_writes_one_picture_per_position(tmp_path):
    lines = "\n".join(json.dumps({**DEAL, "plays": p}) for p in ([], ["1-1"])) + "\n"
    target = tmp_path / "table.svg"
    run = subprocess.run(t42_command() + ["solve", "--json", "--svg", str(target)], input=lines,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    for path, answer in ((target, answers[0]), (tmp_path / "table-2.svg", answers[1])):
        root = parse(path.read_text())
        assert labels(root) == {t: str(v) for t, v in answer["moves"].items()}
    bad = subprocess.run(t42_command() + ["solve", "--svg", str(tmp_path / "no" / "x.svg"),
                                          str(ROOT / "examples" / "deal.json")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert bad.stderr.startswith("t42: error: cannot write") and "Traceback" not in bad.stderr


# --------------------------------------------------------------- views and hints

#: E to move after W leads 1-1 and N plays 2-2 (examples/deal.json, seen by E).
VIEW = {"seat": "E", "hands": {"E": DEAL["hands"]["E"]}, "contract": DEAL["contract"],
        "plays": ["1-1", "2-2"]}


def label_lines(root: ET.Element) -> dict[str, list[str]]:
    """Each label's lines (a label of one line is its text)."""
    out = {}
    for g in root.iter(NS + "g"):
        if g.get("class") == "label":
            text = g.find(NS + "text")
            spans = text.findall(NS + "tspan")
            out[g.get("data-tile")] = [s.text for s in spans] if spans else ["".join(text.itertext())]
    return out


def backs(root: ET.Element) -> int:
    return sum(1 for g in root.iter(NS + "g") if g.get("class") == "back")


def expected_lines(h: Hint) -> dict[str, list[str]]:
    """P(make) in whole percent and the mean to a tenth, halves rounded up."""
    return {t: [f"{Decimal(m.p_make * 100).quantize(Decimal(1), ROUND_HALF_UP)}%",
                f"{Decimal(m.mean).quantize(Decimal('0.1'), ROUND_HALF_UP)}"]
            for t, m in h.moves.items()}


def test_view_picture_shows_the_viewers_tiles_face_up_and_the_hint_figures():
    view = View(VIEW)
    h = hint(view, deals=30, seed=5)
    svg = view_svg(view, h)
    root = parse(svg)
    drawn = dominoes(root)
    east = DEAL["hands"]["E"]
    assert Counter(d.get("data-tile") for d in drawn) == Counter(east + ["1-1", "2-2"])
    for d in drawn:
        check_pips(d)
    assert backs(root) == 6 + 7 + 6  # N and W have played one tile each, S none
    hidden = set(DEAL["hands"]["N"] + DEAL["hands"]["S"] + DEAL["hands"]["W"]) - {"1-1", "2-2"}
    assert not any(f'"{tile}"' in svg for tile in hidden)  # no hidden tile is named
    assert label_lines(root) == expected_lines(h)
    assert set(label_lines(root)) == set(view.legal_tiles())
    outlined = {d.get("data-tile") for d in drawn if d.findall(NS + "rect")[1].get("stroke") == "#f2c14e"}
    assert outlined == set(h.best)
    text = " ".join(root.itertext())
    assert f"30 of {h.count:,} consistent deals (seed 5)" in text
    assert "E's hint: P(make) and mean points per tile" in text


def test_hint_labels_round_halves_up_like_the_web_page():
    figures = MoveFigures(tile="6-6", mean=24.25, p_make=0.125, p_best=0.0, makes=0, best=0,
                          total=0)
    assert hint_label(figures) == "13%\n24.3"   # Python's round() would give 12% and 24.2
    assert hint_label(MoveFigures("6-6", 0.0, 1.0, 1.0, 1, 1, 0)) == "100%\n0.0"


def test_view_picture_without_a_hint_and_of_an_enumerated_hint():
    view = View({**VIEW, "plays": []})  # W to lead: E is not to move, no labels
    root = parse(view_svg(view))
    assert label_lines(root) == {} and backs(root) == 21 and len(dominoes(root)) == 7
    late = Position({**DEAL, "plays": solve(Position(DEAL)).line[:17]})  # 3 tricks left
    seat = late.to_move
    small = View({"seat": seat, "hands": {seat: DEAL["hands"][seat]},
                  "contract": DEAL["contract"], "plays": [T.name_of(t) for t in late.plays]})
    h = hint(small)
    assert h.method == "enumerated"
    root = parse(view_svg(small, h))
    assert label_lines(root) == expected_lines(h)
    assert f"all {h.count:,} consistent deals" in " ".join(root.itertext())


def test_cli_hint_writes_one_labelled_picture_per_view(tmp_path):
    views = [VIEW, {**VIEW, "seat": "S", "hands": {"S": DEAL["hands"]["S"]},
                    "plays": ["1-1", "2-2", "3-2"]}]
    lines = "\n".join(json.dumps(v) for v in views) + "\n"
    target = tmp_path / "hint.svg"
    run = subprocess.run(t42_command() + ["hint", "--json", "--deals", "20", "--seed", "9",
                                          "--svg", str(target)],
                         input=lines, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    for path, view, answer in zip((target, tmp_path / "hint-2.svg"), views, answers):
        h = hint(view, deals=20, seed=9)
        root = parse(path.read_text())
        assert label_lines(root) == expected_lines(h)
        assert {t: [m["p_make"], m["mean"]] for t, m in answer["moves"].items()} == \
            {t: [m.p_make, m.mean] for t, m in h.moves.items()}
        assert len(dominoes(root)) == 7 + len(view["plays"])  # the viewer's hand, the trick
    bad = subprocess.run(t42_command() + ["hint", "--deals", "5", "--seed", "1", "--svg",
                                          str(tmp_path / "no" / "x.svg")],
                         input=json.dumps(VIEW), capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert bad.stderr.startswith("t42: error: cannot write") and "Traceback" not in bad.stderr
