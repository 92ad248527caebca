"""JSON Lines as a stream: `t42 ... --json` kept open as a co-process, one line in, one out.

Each answer is written (and flushed) before the next line is read, so a program can
hold the command open and ask one position at a time. The timeouts below are hang
guards only: a command that waited for the end of its input would never answer.
"""

from __future__ import annotations

import json
import selectors
import subprocess
import sys
from pathlib import Path

import pytest

from solver import make_or_set, solve

CASES = Path(__file__).parent / "cases"
HANG_GUARD_S = 120  # generous: the machine may be busy; an answer takes milliseconds


def case_positions(count: int) -> list[dict]:
    with open(CASES / "texas42.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line)["position"] for line in f]
    return rows[::max(1, len(rows) // count)][:count]


class CoProcess:
    """`t42 ARGS` with pipes on both ends, asked one line at a time."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "solver", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.selector = selectors.DefaultSelector()
        assert self.proc.stdout is not None
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)

    def ask(self, line: str) -> dict:
        """Write one line (the input stays open) and read exactly one answer line."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        if not self.selector.select(timeout=HANG_GUARD_S):
            self.proc.kill()
            pytest.fail(f"no answer within {HANG_GUARD_S} s while the input stays open")
        answer = self.proc.stdout.readline()
        assert answer.endswith("\n"), f"a whole line, got {answer!r}"
        return json.loads(answer)

    def close(self) -> tuple[int, str, str]:
        """Close the input; (exit status, what was left on stdout, stderr)."""
        out, err = self.proc.communicate(timeout=HANG_GUARD_S)
        self.selector.close()
        return self.proc.returncode, out, err


def test_solve_answers_each_line_before_the_next_is_written():
    positions = case_positions(6)
    t42 = CoProcess("solve", "--json")
    for position in positions:
        assert t42.ask(json.dumps(position)) == solve(position).to_json()
    status, rest, err = t42.close()
    assert (status, rest, err) == (0, "", "")


def test_a_bad_line_is_answered_in_its_place_and_the_stream_goes_on():
    good = case_positions(2)
    t42 = CoProcess("make-or-set", "--json")
    assert t42.ask(json.dumps(good[0])) == make_or_set(good[0]).to_json()
    answer = t42.ask('{"hands": "nope"}')
    assert answer["error"]["field"] == "hands" and answer["error"]["code"] == "INVALID_TYPE"
    assert t42.ask("not json") ["error"]["code"] == "INVALID_JSON"
    assert t42.ask(json.dumps(good[1])) == make_or_set(good[1]).to_json()
    status, rest, err = t42.close()
    assert status == 2 and rest == ""
    lines = err.splitlines()
    assert [line.split(":")[2].strip() for line in lines] == ["line 2", "line 3"], err


def test_a_bad_only_line_is_named_as_the_document_its_answer_comes_at_once():
    # One line alone is one document: its stderr line names no line number, as for a
    # file read whole; the answer on stdout still comes before the input is closed.
    t42 = CoProcess("solve", "--json")
    assert t42.ask('{"hands": {}}')["error"]["field"] == "hands.N"
    status, rest, err = t42.close()
    assert status == 2 and rest == ""
    assert err == "t42: error: hands.N: missing hand\n"
