"""`t42 hint` and `t42 arena` as real processes: the Python API's numbers, the error contract."""

from __future__ import annotations

import json
import subprocess
import sys

from solver.hidden.hint import hint
from solver.play.arena import records_from_json, summarize
from view_cases import read_cases

CASES = {c["id"]: c for c in read_cases("views.jsonl")}
BIG = CASES["views-2026-follow-me-high-5"]["view"]          # 34,650 deals: sampled
SMALL = CASES["views-2026-pip-ones-0"]["view"]              # 90 deals: enumerated
NOT_TO_MOVE = next(c for c in read_cases("views_bad.jsonl")
                   if c["expect"]["error"] == "not-to-move")["view"]


def t42(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *args], input=stdin,
                          capture_output=True, text=True, timeout=300)


def test_hint_json_equals_the_python_api_for_a_seed(tmp_path):
    path = tmp_path / "view.json"
    path.write_text(json.dumps(BIG, indent=2))
    done = t42("hint", "--json", "--seed", "7", "--deals", "30", "--examples", "1", str(path))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads(json.dumps(
        hint(BIG, deals=30, seed=7, examples=1).to_json()))


def test_hint_options_reach_the_api():
    done = t42("hint", "--json", "--objective", "points", "--enumerate-limit", "10",
               "--deals", "12", "--seed", "2", "--adaptive", "--max-deals", "36",
               stdin=json.dumps(SMALL))
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got == json.loads(json.dumps(hint(SMALL, objective="points", enumerate_limit=10,
                                             deals=12, seed=2, adaptive=True,
                                             max_deals=36).to_json()))
    assert got["method"] == "sampled" and got["adaptive"] and got["objective"] == "points"


def test_hint_table_lists_every_move_best_first():
    done = t42("hint", stdin=json.dumps(SMALL))
    assert done.returncode == 0, done.stderr
    expected = hint(SMALL)
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"{expected.to_move} to move")
    assert "90 consistent deals, every one scored" in lines[0]
    rows = [line.split() for line in lines if line.startswith("  ") and "move" not in line]
    assert [r[0] for r in rows] == list(expected.moves)
    assert float(rows[0][1]) == round(expected.moves[rows[0][0]].mean, 2)
    assert lines[-1] == "Best: " + " or ".join(expected.best)


def test_json_lines_with_a_bad_view_answers_the_others_and_exits_2():
    stdin = "".join(json.dumps(v) + "\n" for v in (SMALL, NOT_TO_MOVE, SMALL))
    done = t42("hint", "--json", stdin=stdin)
    assert done.returncode == 2
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(out) == 3 and out[0] == out[2] and out[0]["count"] == 90
    assert out[1] == {"error": {"field": "seat", "reason": out[1]["error"]["reason"],
                                "code": "NOT_TO_MOVE"}}
    assert done.stderr.splitlines() == [f"t42: error: line 2: seat: {out[1]['error']['reason']}"]


def test_one_bad_view_is_one_line_and_exit_2():
    done = t42("hint", stdin=json.dumps(dict(SMALL, seat="X")))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("t42: error: seat: ") and len(done.stderr.splitlines()) == 1
    done = t42("hint", "--objective", "best", stdin=json.dumps(SMALL))
    assert done.returncode == 2 and "invalid choice" in done.stderr


def test_arena_process_writes_records_and_their_statistics(tmp_path):
    records = tmp_path / "hands.jsonl"
    done = t42("arena", "rule", "random", "--pairs", "6", "--seed", "3", "--workers", "2",
               "--records", str(records), "--json")
    assert done.returncode == 0, done.stderr
    rows = records_from_json(json.loads(line) for line in records.read_text().splitlines())
    assert len(rows) == 12
    assert json.loads(done.stdout) == json.loads(json.dumps(
        summarize(rows, "rule", "random").to_json()))
    assert "6/6 pairs" in done.stderr
