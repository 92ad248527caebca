"""Quick input, diagrams, records, --any-seat and progress lines of `t42`, as real processes:
the quick options give the JSON answer the equivalent file gives."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from solver.game.position import Position

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DEAL_FILE = EXAMPLES / "deal.json"
DEAL = json.loads(DEAL_FILE.read_text())
MOON = json.loads((EXAMPLES / "moon.json").read_text())
VIEW_FILE = EXAMPLES / "view.json"
GAME_FILE = EXAMPLES / "game.json"
RECORDS = [json.loads(line) for line in (EXAMPLES / "hands.jsonl").read_text().splitlines()
           if line.strip()]
FULL = next(r for r in RECORDS if len(r["plays"]) == 28)


def t42(*args: str, stdin: str | None = None, env: dict | None = None
        ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *args], input=stdin,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


def ok(done: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert done.returncode == 0, done.stderr
    return done


def answer(*args: str, stdin: str | None = None) -> dict:
    return json.loads(ok(t42(*args, stdin=stdin)).stdout)


def hand_options(position: dict) -> list[str]:
    """--hand options of a position, tiles as two digits (6-3 -> 63)."""
    out = []
    for seat, tiles in position["hands"].items():
        out += ["--hand", f"{seat}=" + ",".join(t.replace("-", "") for t in tiles)]
    return out


def contract_option(contract: dict) -> list[str]:
    return ["--contract", f"{contract['declarer']}:{contract['trump']}:{contract['bid']}"]


DEAL_OPTIONS = hand_options(DEAL) + contract_option(DEAL["contract"])


def one_error(done: subprocess.CompletedProcess, *parts: str) -> str:
    """Exit 2, one stderr line naming the parts, no traceback."""
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("t42: error: "), done.stderr
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


# ------------------------------------------------- quick input = file input

def test_solve_quick_equals_file(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({**DEAL, "plays": ["1-1", "2-2"]}))
    assert answer("solve", "--json", *DEAL_OPTIONS, "--plays", "11,22") == \
        answer("solve", "--json", str(path))
    # tiles as 6-3, separated by blanks, seats in lower case
    spaced = ["--hand", "n=" + " ".join(DEAL["hands"]["N"])] + DEAL_OPTIONS[2:]
    assert answer("solve", "--json", *spaced) == answer("solve", "--json", str(DEAL_FILE))


def test_make_or_set_quick_equals_file():
    assert answer("make-or-set", "--json", "--bid", "32", *DEAL_OPTIONS) == \
        answer("make-or-set", "--json", "--bid", "32", str(DEAL_FILE))


def test_table_quick_equals_file():
    assert answer("table", "--json", *hand_options(DEAL)) == \
        answer("table", "--json", str(DEAL_FILE))


def test_analyze_quick_without_hands_equals_the_record():
    from_file = answer("analyze", "--json", stdin=json.dumps(FULL))
    quick = answer("analyze", "--json", *contract_option(FULL["contract"]),
                   "--plays", ",".join(FULL["plays"]))
    assert {k: v for k, v in from_file.items() if k not in ("id", "meta")} == quick


def test_hint_quick_view_equals_file():
    options = ["hint", "--json", "--seed", "5", "--deals", "12"]
    quick = answer(*options, "--seat", "E", "--hand", "E=66,65,64,50,41,32,00",
                   "--contract", "W:fours:30", "--plays", "11,22")
    assert quick == answer(*options, str(VIEW_FILE))
    # the view of the seat to move in a full deal given by quick options
    assert answer(*options, *DEAL_OPTIONS, "--plays", "11,22") == quick


def test_hint_quick_auction_reaches_the_view():
    options = ["hint", "--json", "--seed", "5", "--deals", "12", "--inference", "auction"]
    view = json.loads(VIEW_FILE.read_text())
    view["auction"] = [{"seat": "N", "bid": "pass"}, {"seat": "E", "bid": "pass"},
                       {"seat": "S", "bid": "pass"}, {"seat": "W", "bid": 30}]
    quick = answer(*options, "--seat", "E", "--hand", "E=66,65,64,50,41,32,00",
                   "--contract", "W:fours:30", "--plays", "11,22",
                   "--auction", "pass,pass,pass,30")
    assert quick == answer(*options, stdin=json.dumps(view))


def test_deal_quick_view_equals_file():
    quick = answer("deal", "--stats", "--seat", "E", "--hand", "E=66,65,64,50,41,32,00",
                   "--contract", "W:fours:30", "--plays", "11,22")
    assert quick == answer("deal", "--stats", "--view", str(VIEW_FILE))
    # random deals under a contract in the notation, as under its JSON
    assert ok(t42("deal", "--seed", "4", "--contract", "N:sixes:30")).stdout == \
        ok(t42("deal", "--seed", "4", "--contract",
               '{"declarer": "N", "trump": "sixes", "bid": 30}')).stdout


def test_bid_hand_option_equals_tiles():
    options = ["bid", "--json", "--deals", "10", "--seed", "3"]
    quick = answer(*options, "--hand", "S=66,64,55,44,33,20,11")
    plain = answer(*options, "--seat", "S", "66", "64", "55", "44", "33", "20", "11")
    quick.pop("seconds"), plain.pop("seconds")
    assert quick == plain


def test_moon_quick_equals_file():
    options = hand_options(MOON) + ["--game", "moon", "--contract", "N:fours:5",
                                    "--widow", "3-2", "--discard", "2-1"]
    assert answer("solve", "--json", *options) == \
        answer("solve", "--json", str(EXAMPLES / "moon.json"))


# ----------------------------------------------------------------- errors

@pytest.mark.parametrize("args, parts", [
    (["solve", "--hand", "N=63,62"] + DEAL_OPTIONS[2:], ["--hand N", "holds 2 tiles"]),
    (["solve", "--hand", "N=63,62,60,54,53,52,66"] + DEAL_OPTIONS[2:],
     ["--hand E[0]", "appears twice", "also at --hand N[6]"]),
    (["solve", "--hand", "Q=63,62,60,54,53,52,22"], ["--hand", "unknown seat 'Q'"]),
    (["solve", "--hand", "N=63,62,60,54,53,52,77"], ["--hand N[6]", "unknown tile '77'"]),
    (["solve", *DEAL_OPTIONS[:-1], "W:fours"], ["--contract", "the bid is missing"]),
    (["solve", *DEAL_OPTIONS[:-1], "W:fours:29"], ["--contract (bid)", "out of range"]),
    (["solve", *DEAL_OPTIONS[:-1], "W:trumps:30"], ["--contract", "unknown declaration"]),
    (["solve", *DEAL_OPTIONS, "--plays", "22"], ["--plays[0]", "not in W's hand"]),
    (["solve", *hand_options(DEAL)[:4], "--contract", "W:fours:30"],
     ["--hand S", "missing hand"]),
    (["solve", str(DEAL_FILE), "--hand", "N=63"], ["--hand", "cannot be combined"]),
    (["hint", str(VIEW_FILE), "--plays", "11"], ["--plays", "cannot be combined"]),
    (["deal", "--view", str(VIEW_FILE), "--hand", "E=66"], ["--hand", "cannot be combined"]),
    (["hint", "--hand", "E=66,65,64,50,41,32,00", "--contract", "W:fours:30", "--seat", "N"],
     ["--hand N", "missing"]),
    (["hint", "--hand", "E=66,65,64,50,41,32,00", "--contract", "W:fours:30", "--seat", "E",
      "--auction", "pass,pass"], ["--auction", "name the seats"]),
    (["bid", "--hand", "S=66,64", "--deals", "5"], ["--hand S", "holds 2 tiles"]),
    (["bid", "--hand", "S=66,64,55,44,33,20,11", "66"], ["--hand", "not both"]),
])
def test_bad_quick_input_is_one_error_line(args, parts):
    one_error(t42(*args), *parts)


# ---------------------------------------------------------------- diagrams

def test_what_solve_prints_reads_back_to_the_same_position(tmp_path):
    printed = ok(t42("solve", str(DEAL_FILE))).stdout
    path = tmp_path / "diagram.txt"
    path.write_text(printed)
    expected = answer("solve", "--json", str(DEAL_FILE))
    assert answer("solve", "--json", str(path)) == expected
    assert answer("solve", "--json", stdin=printed) == expected
    assert answer("solve", "--json", "--diagram", str(path)) == expected
    # during trick 1 too, and for Moon
    during = tmp_path / "during.json"
    during.write_text(json.dumps({**MOON, "plays": ["6-6", "6-5"]}))
    printed = ok(t42("solve", str(during))).stdout
    assert answer("solve", "--json", stdin=printed) == answer("solve", "--json", str(during))


def test_a_later_diagram_needs_its_plays(tmp_path):
    plays = ["1-1", "2-2", "3-2", "2-1", "3-3"]
    later = tmp_path / "later.json"
    later.write_text(json.dumps({**DEAL, "plays": plays}))
    path = tmp_path / "diagram.txt"
    path.write_text(ok(t42("solve", str(later))).stdout)
    one_error(t42("solve", str(path)), "trick 2", "--plays")
    assert answer("solve", "--json", "--diagram", str(path), "--plays", ",".join(plays)) == \
        answer("solve", "--json", str(later))


# ----------------------------------------------------------------- records

def test_records_keep_their_id_and_meta(tmp_path):
    record = RECORDS[0]
    stdin = json.dumps(record)
    for command in (["solve"], ["make-or-set"], ["table"], ["analyze"],
                    ["hint", "--seat", "N", "--any-seat"], ["deal", "--stats", "--view", "-",
                                                            "--seat", "N"]):
        got = answer(*command, "--json", stdin=stdin) if command[0] != "deal" \
            else answer(*command, stdin=stdin)
        assert got["id"] == record["id"] and got["meta"] == record["meta"], command


def test_a_hand_record_at_an_earlier_play(tmp_path):
    record = {**RECORDS[0], "plays": RECORDS[0]["plays"][:5]}
    got = answer("hint", "--json", "--deals", "5", "--seed", "1", stdin=json.dumps(record))
    to_move = Position({k: v for k, v in record.items() if k not in ("id", "meta")}).to_move
    assert got["to_move"] == to_move and got["id"] == record["id"] and got["moves"]
    solved = answer("solve", "--json", stdin=json.dumps(record))
    position = {k: v for k, v in record.items() if k not in ("id", "meta")}
    assert {k: v for k, v in solved.items() if k not in ("id", "meta")} == \
        answer("solve", "--json", stdin=json.dumps(position))


def test_a_record_of_28_plays_without_hands():
    bare = {k: v for k, v in FULL.items() if k != "hands"}
    for command in ("solve", "table", "analyze"):
        assert answer(command, "--json", stdin=json.dumps(bare)) == \
            answer(command, "--json", stdin=json.dumps(FULL)), command


def test_a_game_record_is_its_last_hand():
    game = json.loads(GAME_FILE.read_text())
    last = game["hands"][-1]
    position = {k: last[k] for k in ("hands", "contract", "plays")}
    got = answer("solve", "--json", str(GAME_FILE))
    assert got.pop("hand") == len(game["hands"]) - 1
    assert got == answer("solve", "--json", stdin=json.dumps(position))
    # its hands played out may leave out their hands
    for hand in game["hands"]:
        if len(hand.get("plays", [])) == 28:
            del hand["hands"]
    assert answer("game", "--json", stdin=json.dumps(game)) == \
        answer("game", "--json", str(GAME_FILE))
    assert answer("analyze", "--json", "--advice-deals", "2", stdin=json.dumps(game)) == \
        answer("analyze", "--json", "--advice-deals", "2", str(GAME_FILE))


# ---------------------------------------------------------------- any seat

def test_any_seat_answers_a_seat_not_to_move():
    args = ["hint", "--seat", "E", "--hand", "E=66,65,64,50,41,32,00", "--contract",
            "W:fours:30", "--plays", "11"]
    one_error(t42(*args), "E is not to move (N is)", "--any-seat")
    got = answer(*args, "--json", "--any-seat")
    assert got["to_move"] == "N" and got["viewer"] == "E" and got["moves"] == {}
    assert got["best"] == [] and got["method"] == "none"
    text = ok(t42(*args, "--any-seat")).stdout
    assert text.startswith("E is not to move (N is): no move to make now")
    # the seat to move: the answer of today, without "viewer"
    plain = answer("hint", "--json", "--seed", "1", "--deals", "5", str(VIEW_FILE))
    assert plain == answer("hint", "--json", "--seed", "1", "--deals", "5", "--any-seat",
                           str(VIEW_FILE))
    assert "viewer" not in plain


# ---------------------------------------------------------------- progress

BID = ["bid", "--deals", "60", "--seed", "1", "66", "64", "55", "44", "33", "20", "11"]
HINT = ["hint", "--deals", "60", "--seed", "1", str(VIEW_FILE)]


@pytest.mark.parametrize("args", [BID, HINT], ids=["bid", "hint"])
def test_no_progress_when_stderr_is_a_pipe(args):
    done = t42(*args, env={"T42_PROGRESS_DELAY": "0"})
    assert done.returncode == 0 and done.stderr == ""


def under_a_terminal(args: list[str], env: dict) -> tuple[int, str, str]:
    """Run t42 with stderr on a pseudo-terminal: (exit status, stdout, what the terminal
    got)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "solver", *args], stdout=subprocess.PIPE,
                            stderr=slave, env={**os.environ, **env})
    os.close(slave)
    seen = b""
    out = b""
    stop = time.monotonic() + 300
    while time.monotonic() < stop:
        ready, _, _ = select.select([master, proc.stdout], [], [], 0.2)
        if master in ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the other end closed
                chunk = b""
            seen += chunk
        if proc.stdout in ready:
            data = os.read(proc.stdout.fileno(), 65536)
            out += data
            if not data and proc.poll() is not None:
                break
    proc.wait(timeout=60)
    os.close(master)
    return proc.returncode, out.decode(), seen.decode(errors="replace")


@pytest.mark.parametrize("args, label", [(BID, "t42 bid"), (HINT, "t42 hint")],
                         ids=["bid", "hint"])
def test_progress_on_a_terminal(args, label):
    status, out, terminal = under_a_terminal(args, {"T42_PROGRESS_DELAY": "0"})
    assert status == 0 and out
    assert label in terminal and "elapsed" in terminal
    status, out, terminal = under_a_terminal(args + ["--no-progress"],
                                             {"T42_PROGRESS_DELAY": "0"})
    assert status == 0 and label not in terminal


def test_at_cuts_a_record_after_that_many_plays():
    record = RECORDS[0]
    position = {k: v for k, v in record.items() if k not in ("id", "meta")}
    for at in (0, 5):
        cut = json.dumps({**position, "plays": record["plays"][:at]})
        solved = answer("solve", "--json", "--at", str(at), stdin=json.dumps(record))
        assert solved.pop("id") == record["id"] and solved.pop("meta") == record["meta"]
        assert solved == answer("solve", "--json", stdin=cut)
        hinted = answer("hint", "--json", "--at", str(at), "--deals", "5", "--seed", "2",
                        stdin=json.dumps(record))
        del hinted["id"], hinted["meta"]
        assert hinted == answer("hint", "--json", "--deals", "5", "--seed", "2", stdin=cut)
    one_error(t42("solve", "--at", "29", stdin=json.dumps(record)), "--at", "28 plays")
    stats = answer("deal", "--stats", "--view", "-", "--at", "4", stdin=json.dumps(record))
    assert stats["id"] == record["id"] and stats["count"] > 1
