"""`t42 arena --games --scheduler`: whole games on a Dask cluster (a scheduler and two
worker processes on loopback, as a user starts them), with the same records and figures
as a local run at the same seed, resumed from --records as a local run is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from test_batch import scheduler  # noqa: F401 - the module's cluster


def arena(*args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "solver", "arena", "rule", "random",
                           "--games", "3", "--seed", "4", "--json", "--no-progress", *args],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done


def lines(path: Path) -> list[str]:
    return sorted(path.read_text().splitlines())


def test_games_on_a_cluster_equal_a_local_run_and_resume(scheduler, tmp_path):  # noqa: F811
    local = tmp_path / "local.jsonl"
    here = arena("--workers", "1", "--records", str(local))
    remote = tmp_path / "cluster.jsonl"
    there = arena("--scheduler", scheduler, "--records", str(remote))
    assert json.loads(there.stdout) == json.loads(here.stdout)
    assert lines(remote) == lines(local) and len(lines(local)) == 6
    # Stopped after the first game: the cluster plays the other two, the same.
    first = [r for r in local.read_text().splitlines()
             if json.loads(r)["meta"]["arena"]["index"] == 0]
    remote.write_text("\n".join(first) + "\n")
    again = arena("--scheduler", scheduler, "--records", str(remote))
    assert json.loads(again.stdout) == json.loads(here.stdout)
    assert lines(remote) == lines(local)


def test_a_scheduler_that_does_not_answer_is_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "solver", "arena", "rule", "random",
                           "--games", "1", "--scheduler", "tcp://127.0.0.1:1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith("t42: error: --scheduler: cannot connect")
    assert len(done.stderr.strip().splitlines()) == 1
