"""`t42 arena --games N --records FILE` checks the file it resumes from.

* A game whose record was cut back (its last hand gone, or that hand half played)
  is played again, both tables: the file and the statistics are those of a run
  never stopped, and a line on stderr says which game.
* What is not a regular file (/dev/full, a FIFO, a directory) is refused in one
  line before it is read; so is a line longer than a game record can be, a line
  that is not UTF-8, and a record whose place in the run (meta.arena) is not one.
* `summarize_games` leaves out a game with an unfinished table.

Games of rule against random: a tenth of a second each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from solver.play.game_arena import GameArenaRun, run_game_arena, summarize_games

TIMEOUT = 60
#: Address space of a command under test: a file read whole without end stops at this
#: with an error instead of taking the machine's memory.
MEMORY = 2 * 2 ** 30


#: The command, its address space capped by itself: a preexec_fn would run Python in a
#: forked child of this process, which gRPC's threads (loaded by other tests of the same
#: worker) can abort.
CAPPED = ("import resource, runpy, sys; "
          f"resource.setrlimit(resource.RLIMIT_AS, ({MEMORY}, {MEMORY})); "
          "sys.argv[0] = 't42'; runpy.run_module('solver', run_name='__main__')")


def t42(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CAPPED, *args], capture_output=True,
                          text=True, timeout=TIMEOUT)


def arena(path: Path, games: int, *options: str) -> subprocess.CompletedProcess:
    return t42("arena", "rule", "random", "--games", str(games), "--seed", "5",
               "--workers", "1", "--records", str(path), *options)


def by_place(rows: list[dict]) -> list[dict]:
    return sorted(rows, key=lambda r: (r["meta"]["arena"]["index"], r["meta"]["arena"]["table"]))


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_rows(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.fixture(scope="module")
def fresh():
    """The records of three games never stopped, by game and table."""
    return run_game_arena(GameArenaRun("rule", "random", seed=5), 3)


@pytest.fixture
def two_games(tmp_path, fresh):
    """A records file of games 0 and 1 as the command wrote it."""
    path = tmp_path / "games.jsonl"
    done = arena(path, 2, "--no-progress")
    assert done.returncode == 0, done.stderr
    assert by_place(read_rows(path)) == fresh[:4]
    return path


# ----------------------------------------------------------- an unfinished game


def _last_hand_removed(record: dict) -> None:
    record["hands"].pop()


def _last_hand_half_played(record: dict) -> None:
    record["hands"][-1]["plays"] = record["hands"][-1]["plays"][:9]


@pytest.mark.parametrize("cut_back", [_last_hand_removed, _last_hand_half_played])
@pytest.mark.parametrize("games", [2, 3])
def test_an_unfinished_game_is_played_again(two_games, fresh, cut_back, games):
    rows = read_rows(two_games)
    cut_back(rows[-1])                               # the last game's second table
    place = rows[-1]["meta"]["arena"]
    write_rows(two_games, rows)
    done = arena(two_games, games, "--json")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert (f"t42 arena: line 4 of {two_games} is game {place['index']}, table "
            f"{place['table']}, not played to its end: game {place['index']} is played "
            "again") in done.stderr.splitlines()
    assert f"1 of {games} games already in" in done.stderr
    assert by_place(read_rows(two_games)) == fresh[:2 * games]
    expected = summarize_games(fresh[:2 * games], "rule", "random").to_json()
    assert json.loads(done.stdout) == json.loads(json.dumps(expected))


def test_the_text_summary_prints_after_an_unfinished_game(two_games):
    rows = read_rows(two_games)
    _last_hand_removed(rows[-1])
    write_rows(two_games, rows)
    done = arena(two_games, 2, "--no-progress")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("rule vs random: 2 duplicate games, 4 games played")
    assert len(done.stderr.splitlines()) == 1 and "is played again" in done.stderr


def test_summarize_games_leaves_out_a_game_with_an_unfinished_table(fresh):
    unfinished = json.loads(json.dumps(fresh[:4]))
    _last_hand_removed(unfinished[3])
    s = summarize_games(unfinished, "rule", "random")
    assert (s.games, s.tables) == (1, 2)
    assert s.to_json() == summarize_games(fresh[:2], "rule", "random").to_json()


# ------------------------------------------------------- what is never read


def _one_error_line(done: subprocess.CompletedProcess, *words: str) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("t42: error: "), done.stderr[-2000:]
    for w in words:
        assert w in lines[0]
    assert done.stdout == ""
    return lines[0]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_dev_full_is_refused():
    # Read, it never ends: it was read whole until memory ran out.
    line = _one_error_line(arena(Path("/dev/full"), 1))
    assert line == ("t42: error: --records: '/dev/full' is a character device, not a regular "
                    "file: give a file to keep the games in")


def test_a_fifo_is_refused(tmp_path):
    # Opened to be read, it waits for a writer for ever.
    fifo = tmp_path / "games.fifo"
    os.mkfifo(fifo)
    _one_error_line(arena(fifo, 1), "--records: '", " is a FIFO, not a regular file")


def test_a_directory_is_refused(tmp_path):
    _one_error_line(arena(tmp_path, 1), "--records: '", " is a directory, not a regular file")


def test_a_line_longer_than_a_record_is_refused(two_games):
    # A record of the run in all but its size (meta takes anything): read whole once.
    rows = read_rows(two_games)
    rows[1]["meta"]["padding"] = "x" * (5 * 2 ** 20)
    write_rows(two_games, rows)
    before = two_games.read_bytes()
    line = _one_error_line(arena(two_games, 2))
    assert line == f"t42: error: {two_games}: line 2: longer than 4 MB: not a game record"
    assert two_games.read_bytes() == before


def test_a_line_that_is_not_utf8_is_named(two_games):
    lines = two_games.read_bytes().splitlines(keepends=True)
    two_games.write_bytes(lines[0] + b'{"id": "\xff"}\n' + b"".join(lines[1:]))
    before = two_games.read_bytes()
    line = _one_error_line(arena(two_games, 2))
    assert line == f"t42: error: {two_games}: line 2: not UTF-8 text: not a game record"
    assert two_games.read_bytes() == before


@pytest.mark.parametrize("field, value", [("index", [1]), ("index", -1), ("table", 2),
                                          ("table", True), ("NS", "random")])
def test_a_record_out_of_its_place_is_named(two_games, field, value):
    rows = read_rows(two_games)
    rows[2]["meta"]["arena"][field] = value
    write_rows(two_games, rows)
    before = two_games.read_bytes()
    _one_error_line(arena(two_games, 2), f"{two_games}: line 3: meta.arena: ")
    assert two_games.read_bytes() == before
