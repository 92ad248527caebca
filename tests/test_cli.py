"""The `t42` command line run as a real process: files, stdin, JSON Lines, errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import reference as R
from solver import Position, make_or_set, solve

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "deal.json"
CASES = Path(__file__).parent / "cases"


def t42(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def case_positions(filename: str, every: int) -> list[dict]:
    with open(CASES / filename, encoding="utf-8") as f:
        return [json.loads(line)["position"] for line in f][::every]


def json_lines(positions) -> str:
    return "".join(json.dumps(p) + "\n" for p in positions)


def assert_one_error_line(done: subprocess.CompletedProcess, *parts: str) -> None:
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("t42: error: ")
    for part in parts:
        assert part in lines[0]


# ------------------------------------------------------------------- solve

def test_solve_json_on_a_file_matches_the_api():
    done = t42("solve", "--json", str(EXAMPLE))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    expected = solve(json.loads(EXAMPLE.read_text())).to_json()
    assert json.loads(done.stdout) == expected
    assert list(json.loads(done.stdout)["moves"]) == list(expected["moves"])  # best first


def test_solve_on_stdin_with_and_without_dash():
    data = EXAMPLE.read_text()
    expected = solve(json.loads(data)).to_json()
    for args in (("solve", "--json"), ("solve", "--json", "-")):
        done = t42(*args, stdin=data)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == expected


def test_solve_human_output_has_the_diagram_and_moves_best_first():
    position = Position(json.loads(EXAMPLE.read_text()))
    result = solve(position)
    done = t42("solve", str(EXAMPLE))
    assert done.returncode == 0, done.stderr
    assert str(position) in done.stdout
    assert f"Double-dummy value: {result.value} points" in done.stdout
    lines = done.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split() == ["tile", "value"])
    rows = [line.split() for line in lines[header + 1:header + 1 + len(result.moves)]]
    assert [(r[0], int(r[1])) for r in rows] == list(result.moves.items())
    values = [int(r[1]) for r in rows]
    assert values == sorted(values, reverse=True)     # W declares: higher is better
    assert [r[0] for r in rows if r[-1] == "best"] == result.best_moves


def test_solve_human_output_of_a_moon_position_counts_tricks():
    position = case_positions("moon.jsonl", 1)[0]
    result = solve(position)
    done = t42("solve", stdin=json.dumps(position))
    assert done.returncode == 0, done.stderr
    assert str(Position(position)) in done.stdout
    assert f"Double-dummy value: {result.value} tricks" in done.stdout


def test_solve_json_lines_batch_in_order():
    positions = case_positions("texas42.jsonl", 9) + case_positions("moon.jsonl", 9)
    done = t42("solve", "--json", stdin=json_lines(positions))
    assert done.returncode == 0, done.stderr
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert out == [solve(p).to_json() for p in positions]


def test_solve_best_only():
    done = t42("solve", "--json", "--best-only", str(EXAMPLE))
    assert done.returncode == 0, done.stderr
    full = solve(json.loads(EXAMPLE.read_text()))
    got = json.loads(done.stdout)
    assert got["value"] == full.value
    assert got["moves"] == {t: full.value for t in full.best_moves}


# ------------------------------------------------------------- make-or-set

@pytest.mark.parametrize("bid", [None, 30, 31, 32, 84])
def test_make_or_set_json(bid):
    args = ("make-or-set", "--json", str(EXAMPLE)) + (("--bid", str(bid)) if bid else ())
    done = t42(*args)
    assert done.returncode == 0, done.stderr
    data = json.loads(EXAMPLE.read_text())
    value = solve(data).value     # 31: makes 30 and 31, not 32 nor 2 marks
    bid = bid or data["contract"]["bid"]
    assert json.loads(done.stdout) == {"makes": R.game_of(data).makes(value, bid), "bid": bid}


def test_make_or_set_json_lines_batch():
    positions = case_positions("texas42.jsonl", 15) + case_positions("moon.jsonl", 15)
    done = t42("make-or-set", "--json", stdin=json_lines(positions))
    assert done.returncode == 0, done.stderr
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert out == [make_or_set(p).to_json() for p in positions]


def test_make_or_set_human_output():
    done = t42("make-or-set", "--bid", "84", str(EXAMPLE))
    assert done.returncode == 0, done.stderr
    assert str(Position(json.loads(EXAMPLE.read_text()))) in done.stdout
    assert "Bid 84: the declaring side is set" in done.stdout


# --------------------------------------------------------------- bad input

def bad_example(**contract) -> dict:
    data = json.loads(EXAMPLE.read_text())
    data["contract"].update(contract)
    return data


@pytest.mark.parametrize("as_json", [False, True])
def test_bad_position_file_is_one_stderr_line_and_exit_2(tmp_path, as_json):
    data = json.loads(EXAMPLE.read_text())
    data["hands"]["E"][6] = "6-3"          # N holds 6-3 too
    path = tmp_path / "dup.json"
    path.write_text(json.dumps(data))
    done = t42("solve", str(path), *(["--json"] if as_json else []))
    assert_one_error_line(done, "hands.E[6]", "6-3")
    if as_json:
        assert json.loads(done.stdout)["error"]["code"] == "DUPLICATE_TILE"
    else:
        assert done.stdout == ""


@pytest.mark.parametrize("position, field", [
    (bad_example(trump="spades"), "contract.trump"),
    (bad_example(bid=29), "contract.bid"),
    (bad_example(kind="plunge", bid=168), "contract.kind"),
    (dict(bad_example(), plays=["6-6"]), "plays[0]"),
])
def test_bad_position_on_stdin(position, field):
    done = t42("solve", stdin=json.dumps(position))
    assert_one_error_line(done, field)
    assert done.stdout == ""


def test_make_or_set_bad_bid():
    done = t42("make-or-set", "--bid", "43", str(EXAMPLE))
    assert_one_error_line(done, "bid", "43")


def test_invalid_json_on_one_line_is_one_error():
    done = t42("solve", stdin='{"hands": ')
    assert_one_error_line(done, "position", "not valid JSON")


def test_invalid_json_in_a_pretty_printed_file_is_one_error(tmp_path):
    path = tmp_path / "trailing-comma.json"
    path.write_text(EXAMPLE.read_text().replace('"plays": []', '"plays": [],'))
    done = t42("solve", str(path))
    assert_one_error_line(done, "position", "not valid JSON")


def test_missing_file_is_one_line_and_exit_2(tmp_path):
    missing = tmp_path / "no-such-file.json"
    for command in ("solve", "make-or-set"):
        done = t42(command, str(missing))
        assert_one_error_line(done, str(missing))
        assert done.stdout == ""


def test_empty_input_is_one_line_and_exit_2():
    done = t42("solve", "--json", stdin="")
    assert_one_error_line(done)


def test_json_lines_batch_with_bad_lines_keeps_going():
    good = case_positions("texas42.jsonl", 50)[:3]
    bad = bad_example(bid=43)
    lines = [json.dumps(good[0]), json.dumps(bad), "{not json", json.dumps(good[1]), "[1, 2]",
             json.dumps(good[2])]
    done = t42("solve", "--json", stdin="\n".join(lines) + "\n")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(out) == 6
    assert [out[0], out[3], out[5]] == [solve(p).to_json() for p in good]
    errors = [out[1]["error"], out[2]["error"], out[4]["error"]]
    assert [(e["field"], e["code"]) for e in errors] == [
        ("contract.bid", "BID_OUT_OF_RANGE"), ("position", "INVALID_JSON"),
        ("position", "INVALID_TYPE")]
    assert all(e["reason"] for e in errors)
    # One stderr line per bad input line, naming its line number.
    assert [line.split(": ")[1:3] for line in done.stderr.splitlines()] == [
        ["error", "line 2"], ["error", "line 3"], ["error", "line 5"]]


def test_make_or_set_batch_with_a_bad_line():
    good = case_positions("moon.jsonl", 40)
    bad = dict(good[0], contract=dict(good[0]["contract"], bid=8))
    done = t42("make-or-set", "--json", stdin=json_lines([good[0], bad, good[1]]))
    assert done.returncode == 2
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert out[0] == make_or_set(good[0]).to_json()
    assert out[1]["error"]["field"] == "contract.bid"
    assert out[2] == make_or_set(good[1]).to_json()


def test_no_command_prints_usage_and_exits_2():
    done = t42()
    assert done.returncode == 2
    assert "usage: t42" in done.stderr


# ------------------------------------------------------- the console script

@pytest.mark.skipif(shutil.which("t42") is None, reason="t42 console script not installed")
def test_console_script_is_the_same_command():
    done = subprocess.run([shutil.which("t42"), "solve", "--json", str(EXAMPLE)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == solve(json.loads(EXAMPLE.read_text())).to_json()
    bad = subprocess.run([shutil.which("t42"), "solve"], input="{", capture_output=True,
                         text=True, timeout=120)
    assert_one_error_line(bad, "position")
