"""`t42 batch grade` (and its other spelling, `t42 batch analyze --seat-view`): seat-view
grading on a Dask cluster gives, line for line, what `t42 analyze --seat-view --json`
prints for the same records and seeds, and a run stopped part way finishes only the
chunks it had not done.

The input: two hand records of `examples/hands.jsonl`, a bad line, and one game record
of `t42 arena random rule --games 1 --seed 5` (seven hands). Small deal counts keep the grading
to seconds: the figures are seeded, so two runs agree exactly whatever the count.
"""

from __future__ import annotations

import json
import signal
from fractions import Fraction
from pathlib import Path

import pytest
from test_batch import (EXAMPLES, part_indices, scheduler, start_held, t42,  # noqa: F401
                        wait_for, write_lines)

OPTIONS = ("--deals", "8", "--advice-deals", "8", "--enumerate-limit", "40")


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("grade")
    games = tmp / "games.jsonl"
    arena = t42("arena", "random", "rule", "--games", "1", "--seed", "5", "--workers", "1",
                "--records", str(games), "--no-progress", "--json")
    assert arena.returncode == 0, arena.stderr
    game = games.read_text().splitlines()[0]
    hands = (EXAMPLES / "hands.jsonl").read_text().splitlines()
    return write_lines(tmp / "records.jsonl", hands[:2] + ["this is not JSON", game])


@pytest.fixture(scope="module")
def sequential(records) -> list[str]:
    done = t42("analyze", "--seat-view", "--json", "--no-progress", *OPTIONS, str(records))
    assert done.returncode == 2, done.stderr          # the bad line
    assert "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 4
    return lines


def test_batch_grade_equals_the_sequential_command(scheduler, records, sequential,  # noqa: F811
                                                   tmp_path):
    out = tmp_path / "out"
    done = t42("batch", "grade", str(records), "-o", str(out), "--scheduler", scheduler,
               *OPTIONS)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "grade: 4 records, 1 errors" in done.stderr
    results = (out / "results.jsonl").read_text().splitlines()
    assert results == sequential
    assert len(part_indices(out)) == 4                 # a record a chunk
    settings = json.loads((out / "batch.json").read_text())["settings"]
    assert settings == {"job": "grade", "chunk_size": 1,
                        "options": {"deals": 8, "enumerate_limit": 40, "advice_deals": 8}}
    # Real grades: the hands' skill, information and luck add up to their double-dummy
    # change, the game keeps its arena names, the bad line is an error naming where it
    # broke.
    first, _, bad, game = (json.loads(r) for r in results)
    assert first["id"] == "club-1" and first["seat_view"]["deals"] == 8
    assert first["dd_change"] == 35 - 29
    assert first["skill"] + first["information"] + first["luck"] == pytest.approx(6, abs=1e-5)
    assert bad["error"]["code"] == "INVALID_JSON"
    assert game["meta"]["arena"]["NS"] == "random" and len(game["hands"]) >= 2
    assert game["seat_view"]["advice_deals"] == 8
    for hand in game["hands"]:
        kinds = [d["kind"] for d in hand["decisions"]]
        assert kinds[0] == "call"
        if "dd_change" in hand:
            assert Fraction(hand["skill"]) + Fraction(hand["information"]) + \
                Fraction(hand["luck"]) == pytest.approx(hand["dd_change"], abs=1e-5)


def test_batch_analyze_seat_view_is_the_grade_job(records, sequential, tmp_path):
    out = tmp_path / "out"
    done = t42("batch", "analyze", "--seat-view", str(records), "-o", str(out),
               "--workers", "1", "--no-progress", *OPTIONS)
    assert done.returncode == 2, done.stderr
    assert (out / "results.jsonl").read_text().splitlines() == sequential
    assert json.loads((out / "batch.json").read_text())["settings"]["job"] == "grade"
    # The same run as the job grade: its output directory resumes under either name.
    again = t42("batch", "grade", str(records), "-o", str(out), "--workers", "1", *OPTIONS)
    assert "grade: 4 records, 1 errors" in again.stderr and "4 done before" in again.stderr


@pytest.mark.parametrize("args, message", [
    (("--deals", "0"), "t42: error: --deals: must be a whole number 1..100000, not 0"),
    (("--depth", "2"), "t42: error: --depth: goes with --search postponed"),
    (("--advice-seed", "-1"), "t42: error: --advice-seed: must be 0 or more, not -1"),
    (("--bid", "30"), "t42: error: --bid is not an option of grade"),
])
def test_bad_grade_options_are_one_line_before_any_work(args, message, records, tmp_path):
    done = t42("batch", "grade", str(records), "-o", str(tmp_path / "out"), *args)
    assert done.returncode == 2
    assert done.stderr.strip() == message
    assert not (tmp_path / "out").exists()


def test_seat_view_goes_with_analyze_only(records, tmp_path):
    done = t42("batch", "solve", str(records), "-o", str(tmp_path / "out"), "--seat-view")
    assert done.returncode == 2
    assert done.stderr.strip() == "t42: error: --seat-view is not an option of solve"


def test_an_interrupted_grading_resumes_with_the_chunks_it_lacks(records, sequential,
                                                                 tmp_path):
    hold = tmp_path / "hold"
    hold.mkdir()
    out = tmp_path / "out"
    args = ["batch", "grade", str(records), "-o", str(out), "--workers", "1", *OPTIONS]
    run = start_held(args, hold)
    try:
        wait_for(lambda: {0, 1} <= set(part_indices(out)), "parts 0 and 1", timeout=150)
        wait_for(lambda: list(hold.glob("running-*")), "a held chunk")
        run.send_signal(signal.SIGINT)
        (hold / "release").touch()
        _, first = run.communicate(timeout=120)
    finally:
        run.kill()
        (hold / "release").touch()
    assert run.returncode == 128 + signal.SIGINT, first
    assert "Traceback" not in first and "run the same command again" in first
    kept = {i: (p.name, p.stat().st_mtime_ns) for i, p in part_indices(out).items()}
    assert set(kept) == {0, 1}

    again = t42(*args)
    assert again.returncode == 2, again.stderr            # the bad line, as before
    assert "grade: 4 records, 1 errors" in again.stderr
    assert "4 chunks, 2 done before" in again.stderr
    parts = part_indices(out)
    for i, (name, mtime) in kept.items():                 # not graded again
        assert (parts[i].name, parts[i].stat().st_mtime_ns) == (name, mtime)
    assert (out / "results.jsonl").read_text().splitlines() == sequential
