"""Pictures: the SVG of a position and of an analysed hand, read back with xml.etree.

About 1 s (a few small solves and one hand analysis).
"""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from server.launcher import t42_command
from solver import Position, solve
from solver import tiles as T
from solver.analysis import analyze_hand
from solver.svg import analysis_svg, position_svg, solution_svg

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
