"""`t42 batch` and `t42 report` as real processes on real Dask clusters.

Most tests share one cluster started here as a user would (`dask scheduler`,
`dask worker --nworkers 2`) and pass `--scheduler`; the interrupt test runs
the default local cluster the command starts itself. Runs are stopped at
known points with the test hook T42_BATCH_HOLD (a chunk from a given index
on announces its worker's PID and waits for a release file), never by
timing. About 45 s in all, most of it cluster start-up.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CASES = Path(__file__).parent / "cases"
EXAMPLES = ROOT / "examples"
BAD_LINES = ["this is not JSON", '{"hands": {}}', "42", '"a string"']


def t42(*args: str, stdin: str | None = None, env: dict | None = None,
        timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *args], input=stdin,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def start_t42(*args: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "solver", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})


def start_held(args: list[str], hold: Path) -> subprocess.Popen:
    """A batch run whose chunks from index 2 on wait in ``hold``, taking SIGINT as a
    terminal gives it (a shell's background job ignores SIGINT, and so would the run
    started from it)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return start_t42(*args, env={"T42_BATCH_HOLD": f"{hold}:2"})
    finally:
        signal.signal(signal.SIGINT, previous)


def wait_for(condition, what: str, timeout: float = 90.0):
    """Poll for a state the run reaches by itself (no timing assumption but a safety cap)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def positions(count: int) -> list[str]:
    with open(CASES / "texas42.jsonl", encoding="utf-8") as f:
        lines = [json.dumps(json.loads(line)["position"]) for line in f]
    return lines[::len(lines) // count][:count]


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def part_indices(outdir: Path) -> dict[int, Path]:
    return {int(p.name.split("-")[1]): p for p in (outdir / "parts").glob("part-*.jsonl")}


def sequential(job: str, path: Path, *options: str) -> subprocess.CompletedProcess:
    done = t42(job, "--json", *options, str(path))
    assert "Traceback" not in done.stderr
    return done


# ---------------------------------------------------------------- cluster

@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """A Dask scheduler and two single-threaded worker processes on loopback."""
    from distributed import Client

    tmp = tmp_path_factory.mktemp("dask")
    dask = str(Path(sys.executable).parent / "dask")
    address_file = tmp / "scheduler.json"
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", str(address_file)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)]
    try:
        wait_for(lambda: address_file.exists() and address_file.stat().st_size,
                 "the scheduler file")
        address = json.loads(address_file.read_text())["address"]
        procs.append(subprocess.Popen(
            [dask, "worker", address, "--nworkers", "2", "--nthreads", "1", "--no-dashboard",
             "--host", "127.0.0.1", "--local-directory", str(tmp)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
        yield address
    finally:
        # Each was started in a session of its own: its process group is it and
        # the worker processes it spawned. A graceful close takes seconds.
        for proc in reversed(procs):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=20)


# ------------------------------------------- same output as the sequential CLI

def job_inputs(tmp: Path) -> dict[str, tuple[Path, tuple[str, ...]]]:
    """job -> (input file with good and bad records, command-line options)."""
    deal_positions = positions(24)
    with open(CASES / "moon.jsonl", encoding="utf-8") as f:
        moon = [json.dumps(json.loads(line)["position"]) for line in f][:40:8]
    hands = (EXAMPLES / "hands.jsonl").read_text().splitlines()
    deals = [json.dumps({"hands": json.loads(p)["hands"], "doubles": d})
             for p, d in zip(deal_positions[:4], ("high", "low", "suit", "high"))]
    moon_deal = json.loads((EXAMPLES / "moon-discard.json").read_text())
    return {
        "solve": (write_lines(tmp / "solve.jsonl", BAD_LINES[:1] + deal_positions[:12] + [""]
                              + BAD_LINES[1:] + deal_positions[12:] + moon), ()),
        "make-or-set": (write_lines(tmp / "mos.jsonl", deal_positions + BAD_LINES), ("--bid", "31")),
        "analyze": (write_lines(tmp / "hands.jsonl", hands[:4] + BAD_LINES + hands[4:]), ()),
        "table": (write_lines(tmp / "deals.jsonl", deals[:2] + BAD_LINES + deals[2:]), ()),
        "discard": (write_lines(tmp / "moon.jsonl", [json.dumps(moon_deal)] + BAD_LINES),
                    ("--trump", "fours")),
    }


@pytest.fixture(scope="module")
def batch_runs(scheduler, tmp_path_factory):
    """job -> (sequential command, batch command, OUTDIR); each run once for the module."""
    tmp = tmp_path_factory.mktemp("jobs")
    inputs = job_inputs(tmp)
    runs = {}

    def run(job: str):
        if job not in runs:
            path, options = inputs[job]
            out = tmp / f"out-{job}"
            runs[job] = (sequential(job, path, *options),
                         t42("batch", job, str(path), "-o", str(out), "--scheduler", scheduler,
                             "--chunk-size", "3", *options), out)
        return runs[job]

    return run


@pytest.mark.parametrize("job", ["solve", "make-or-set", "analyze", "table", "discard"])
def test_batch_output_equals_the_sequential_command(job, batch_runs):
    expected, done, out = batch_runs(job)
    assert expected.returncode == 2          # the bad records
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    results = (out / "results.jsonl").read_text()
    assert results.splitlines() == expected.stdout.splitlines()
    records = len(expected.stdout.splitlines())
    errors = expected.stdout.count('{"error": ')
    assert errors >= len(BAD_LINES)
    assert f"{job}: {records} records, {errors} errors" in done.stderr
    assert len(part_indices(out)) == -(-records // 3)


def views(count: int) -> list[str]:
    """What the seat to move sees in some of the test positions: its hand, contract, plays."""
    from solver.game.position import SEATS, Position

    out = []
    for line in positions(count):
        data = json.loads(line)
        seat = SEATS[Position(data).to_move_index]
        out.append(json.dumps({"seat": seat, "hands": {seat: data["hands"][seat]},
                               "contract": data["contract"], "plays": data["plays"]}))
    return out


def test_batch_hint_equals_the_sequential_command(scheduler, tmp_path):
    # Six views (two sampled, four enumerated), 20 deals each: about 2 s of work.
    path = write_lines(tmp_path / "views.jsonl", views(6)[:3] + BAD_LINES[:2] + views(6)[3:])
    options = ("--deals", "20", "--seed", "7")
    expected = sequential("hint", path, *options)
    done = t42("batch", "hint", str(path), "-o", str(tmp_path / "out"),
               "--scheduler", scheduler, "--chunk-size", "2", *options)
    assert expected.returncode == done.returncode == 2, done.stderr
    results = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    assert results == expected.stdout.splitlines()
    assert len(results) == 8
    assert {json.loads(r).get("seed") for r in results} >= {7}
    assert "hint: 8 records, 2 errors" in done.stderr


def without_timing(line: str) -> dict:
    """A bid answer without its time and node count (the batch searches on one thread)."""
    answer = json.loads(line)
    answer.pop("seconds", None)
    answer.pop("nodes", None)
    return answer


def test_batch_bid_equals_the_sequential_command(scheduler, tmp_path):
    # Three hands, 6 deals each: about 1 s of work.
    requests = [json.dumps({"hand": ["6-6", "6-4", "5-5", "4-4", "3-3", "2-0", "1-1"]}),
                json.dumps({"hand": ["5-5", "5-4", "5-3", "4-2", "3-1", "2-0", "0-0"],
                            "seat": "E", "auction": [30]}),
                BAD_LINES[0],
                json.dumps({"hand": ["6-6", "6-4"]}),
                json.dumps({"hand": ["6-5", "5-2", "4-4", "4-0", "3-3", "2-1", "1-0"],
                            "seat": "W"})]
    path = write_lines(tmp_path / "requests.jsonl", requests)
    options = ("--deals", "6", "--seed", "3")
    expected = t42("bid", "--json", *options, stdin=path.read_text())
    done = t42("batch", "bid", str(path), "-o", str(tmp_path / "out"),
               "--scheduler", scheduler, "--chunk-size", "2", *options)
    assert "Traceback" not in expected.stderr + done.stderr
    assert expected.returncode == done.returncode == 2, done.stderr
    results = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    assert len(results) == len(expected.stdout.splitlines()) == 5
    assert ([without_timing(r) for r in results]
            == [without_timing(r) for r in expected.stdout.splitlines()])
    assert [json.loads(r).get("seed") for r in results] == [3, 3, None, None, 3]
    assert "error" in json.loads(results[3])
    assert "bid: 5 records, 2 errors" in done.stderr


def test_batch_arena_plays_the_pairs_of_the_arena(scheduler, tmp_path):
    # Four pairs of random against rule (well under a second of play).
    records = tmp_path / "records.jsonl"
    arena = t42("arena", "random", "rule", "--pairs", "4", "--seed", "11", "--workers", "1",
                "--records", str(records), "--no-progress", "--json")
    assert arena.returncode == 0, arena.stderr
    games = [json.loads(line) for line in records.read_text().splitlines()]
    specs = [json.dumps({"pair": i, "seed": 11, "bots": ["random", "rule"]}) for i in range(4)]
    bad = [json.dumps({"pair": 0, "seed": 11, "bots": ["random", "nobody"]}),
           json.dumps({"pair": -1, "bots": ["rule", "rule"]})]
    path = write_lines(tmp_path / "pairs.jsonl", specs[:2] + bad + specs[2:])
    done = t42("batch", "arena", str(path), "-o", str(tmp_path / "out"),
               "--scheduler", scheduler, "--chunk-size", "2")
    assert done.returncode == 2, done.stderr
    results = [json.loads(r) for r in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert [r["error"]["field"] for r in results[2:4]] == ["bots[1]", "pair"]
    played = results[:2] + results[4:]
    assert [r["pair"] for r in played] == [0, 1, 2, 3]
    # Each line holds both games of its pair exactly as `t42 arena --records` wrote them.
    assert [g for r in played for g in r["games"]] == games
    assert "arena: 6 records, 2 errors" in done.stderr


def test_an_option_the_job_does_not_take_is_refused(tmp_path):
    path = write_lines(tmp_path / "in.jsonl", positions(2))
    done = t42("batch", "analyze", str(path), "-o", str(tmp_path / "out"), "--bid", "30")
    assert done.returncode == 2
    assert done.stderr.strip() == "t42: error: --bid is not an option of analyze"


def test_a_missing_input_is_one_error_line(tmp_path):
    done = t42("batch", "solve", str(tmp_path / "nothing.jsonl"), "-o", str(tmp_path / "out"))
    assert done.returncode == 2
    assert done.stderr.strip() == f"t42: error: cannot read {tmp_path / 'nothing.jsonl'}: no such file"
    assert not (tmp_path / "out").exists()


# -------------------------------------------------------- a worker killed

def test_a_killed_worker_loses_no_record_and_doubles_none(tmp_path):
    # On the local cluster the command starts: its first workers are forked
    # from the client, and the nanny spawns the one that replaces a dead one.
    path = write_lines(tmp_path / "in.jsonl", positions(16))
    expected = sequential("solve", path)
    hold = tmp_path / "hold"
    hold.mkdir()
    out = tmp_path / "out"
    run = start_t42("batch", "solve", str(path), "-o", str(out), "--workers", "2",
                    "--chunk-size", "2", env={"T42_BATCH_HOLD": f"{hold}:1"})
    try:
        wait_for(lambda: 0 in part_indices(out), "the first part")
        running = wait_for(lambda: sorted(hold.glob("running-*")), "a held chunk")
        _, index, pid = running[0].name.split("-")
        os.kill(int(pid), signal.SIGKILL)
        (hold / "release").touch()
        stdout, stderr = run.communicate(timeout=120)
    finally:
        run.kill()
    assert run.returncode == 0, stderr
    assert "Traceback" not in stderr
    results = (out / "results.jsonl").read_text().splitlines()
    assert results == expected.stdout.splitlines()       # every record once, in order
    assert len(results) == 16
    # The killed worker's chunk was run again by another worker process.
    again = [p for p in hold.glob(f"running-{index}-*") if p.name != running[0].name]
    assert again, sorted(p.name for p in hold.iterdir())


# --------------------------------------------- interrupted, then resumed

def interrupt_and_resume(tmp_path: Path, sig: int, cluster_args: list[str]) -> tuple[str, str]:
    """Stop a run at chunk 2 with ``sig``, run it again; return both runs' stderr."""
    path = write_lines(tmp_path / "in.jsonl", positions(15))
    expected = sequential("solve", path)
    hold = tmp_path / "hold"
    hold.mkdir()
    out = tmp_path / "out"
    args = ["batch", "solve", str(path), "-o", str(out), "--chunk-size", "3", *cluster_args]
    run = start_held(args, hold)
    try:
        wait_for(lambda: {0, 1} <= set(part_indices(out)), "parts 0 and 1")
        wait_for(lambda: list(hold.glob("running-*")), "a held chunk")
        run.send_signal(sig)
        # Free the held workers at once: only the client writes parts, and it
        # writes none after the signal; a worker held while the cluster closes
        # would make the close wait.
        (hold / "release").touch()
        _, first = run.communicate(timeout=120)
    finally:
        run.kill()
        (hold / "release").touch()   # frees the workers of a shared cluster
    assert run.returncode == 128 + sig, first
    assert "Traceback" not in first
    assert "run the same command again" in first
    kept = {i: (p.name, p.stat().st_mtime_ns, p.stat().st_ino)
            for i, p in part_indices(out).items()}
    assert set(kept) == {0, 1}
    assert not (out / "results.jsonl").exists()

    again = t42(*args)
    assert again.returncode == 0, again.stderr
    parts = part_indices(out)
    assert set(parts) == {0, 1, 2, 3, 4}
    for i, (name, mtime, inode) in kept.items():   # done chunks were not done again
        assert (parts[i].name, parts[i].stat().st_mtime_ns, parts[i].stat().st_ino) == \
            (name, mtime, inode)
    results = (out / "results.jsonl").read_text().splitlines()
    assert results == expected.stdout.splitlines()
    assert len(results) == len(set(results)) == 15  # complete, no duplicates
    return first, again.stderr


def test_ctrl_c_then_the_same_command_finishes_only_the_missing_chunks(tmp_path):
    # The default: a local cluster started and stopped by the command.
    _, second = interrupt_and_resume(tmp_path, signal.SIGINT, ["--workers", "2"])
    assert "5 chunks, 2 done before" in second
    assert "2 workers" in second


def test_sigterm_then_resume_on_an_existing_cluster(scheduler, tmp_path):
    _, second = interrupt_and_resume(tmp_path, signal.SIGTERM, ["--scheduler", scheduler])
    assert "5 chunks, 2 done before" in second


# ---------------------------------------------------------- changed input

def test_a_changed_input_is_refused(scheduler, tmp_path):
    lines = positions(12)
    path = write_lines(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out"
    args = ["-o", str(out), "--scheduler", scheduler, "--chunk-size", "3"]
    assert t42("batch", "solve", str(path), *args).returncode == 0
    results = (out / "results.jsonl").read_text()
    parts = sorted(p.name for p in (out / "parts").iterdir())

    changed = lines[:7] + [lines[9]] + lines[8:]      # a record of chunk 2 replaced
    write_lines(path, changed)
    done = t42("batch", "solve", str(path), *args)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"t42: error: the input is not the one of the run in {out}: chunk 2 (input lines 7-9) "
        f"differs; use another output directory, or remove it to start over")

    write_lines(path, lines[:9])                      # a shorter input
    done = t42("batch", "solve", str(path), *args)
    assert done.returncode == 2
    assert "it has 3 chunks, the run has a part for chunk 3" in done.stderr

    # On standard input the change is only seen when chunk 2 arrives: chunk 1
    # (its part removed here) is run first, and its new part is taken back.
    (out / "parts" / parts[1]).unlink()
    done = t42("batch", "solve", "-", *args, stdin="".join(x + "\n" for x in changed))
    assert done.returncode == 2
    assert "chunk 2 (input lines 7-9) differs" in done.stderr
    assert sorted(p.name for p in (out / "parts").iterdir()) == parts[:1] + parts[2:]
    assert (out / "results.jsonl").read_text() == results

    other = t42("batch", "solve", str(path), *args[:-1], "4")   # another chunk size
    assert other.returncode == 2
    assert "holds a batch run with other settings" in other.stderr


# ------------------------------------------------------------------ report

def test_report_figures_are_the_sums_of_the_analysis_lines(batch_runs, tmp_path):
    _, _, out = batch_runs("analyze")
    analyses = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    hands = [a for a in analyses if "error" not in a]

    expected: dict[str, list[int]] = {}
    for a in hands:
        names = (a.get("meta") or {}).get("players") or {}
        for seat, s in a["seats"].items():
            figures = expected.setdefault(names.get(seat, seat), [0, 0, 0, 0])
            for i, value in enumerate((1, s["plays"], s["costly_plays"], s["total_cost"])):
                figures[i] += value
    assert "Dee" in expected and "N" in expected    # named players and bare seats

    html = tmp_path / "report.html"
    done = t42("report", str(out), "--html", str(html))
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert text.startswith(f"{len(hands)} hands, {len(BAD_LINES)} bad records left out")
    players = text.split("Players")[1].split("\n\n")[0].splitlines()[2:]
    got = {}
    for row in players:
        name, n_hands, plays, costly, cost, per_hand = row.split()
        got[name] = [int(n_hands), int(plays), int(costly), int(cost)]
        assert float(per_hand) == pytest.approx(int(cost) / int(n_hands), abs=0.005)
    assert got == expected

    by_trick: dict[int, int] = {}
    for a in hands:
        for p in a["plays"]:
            by_trick[p["trick"]] = by_trick.get(p["trick"], 0) + p["cost"]
    tricks = text.split("Cost by trick\n")[1].split("\n\n")[0].splitlines()[1:]
    assert {int(r.split()[0]): int(r.split()[3]) for r in tricks} == by_trick

    sixes = [a for a in hands if a["contract"]["trump"] == "sixes"]
    row = next(r for r in text.splitlines() if r.strip().startswith("sixes"))
    assert row.split()[1:5] == [str(len(sixes)), str(sum(a["makes"] for a in sixes)),
                                str(sum(a["made"] is not None for a in sixes)),
                                str(sum(bool(a["made"]) for a in sixes))]

    page = html.read_text()
    assert page.count("<svg") == 3 and page.count("</svg>") == 3
    for title in ("Cost per hand by player", "Make rate by declaration", "Cost by trick"):
        assert f'title="{title}"' in page
    assert "Dee" in page
    assert "<script" not in page and "<link" not in page and "<img" not in page


def test_report_refuses_another_job(batch_runs):
    _, _, out = batch_runs("solve")
    done = t42("report", str(out))
    assert done.returncode == 2
    assert done.stderr.strip() == f"t42: error: {out} holds a batch run of solve, not analyze or grade"


def test_batch_hint_and_bid_take_inference_as_the_commands_do(scheduler, tmp_path):
    # Three views with plays, 12 deals each; two bid requests after calls, 6 deals each.
    path = write_lines(tmp_path / "views.jsonl", views(6)[3:])
    options = ("--deals", "12", "--seed", "5", "--inference", "plays")
    expected = sequential("hint", path, *options)
    done = t42("batch", "hint", str(path), "-o", str(tmp_path / "hints"),
               "--scheduler", scheduler, "--chunk-size", "2", *options)
    assert expected.returncode == done.returncode == 0, done.stderr
    results = (tmp_path / "hints" / "results.jsonl").read_text().splitlines()
    assert results == expected.stdout.splitlines() and len(results) == 3
    assert all(json.loads(r)["inference"]["mode"] == "plays" for r in results)
    requests = [json.dumps({"hand": ["5-5", "5-4", "5-3", "4-2", "3-1", "2-0", "0-0"],
                            "seat": "E", "auction": [{"seat": "N", "bid": 30}]}),
                json.dumps({"hand": ["6-5", "5-2", "4-4", "4-0", "3-3", "2-1", "1-0"],
                            "seat": "W", "auction": [{"seat": "S", "bid": "pass"}],
                            "inference": "off"})]
    path = write_lines(tmp_path / "requests.jsonl", requests)
    options = ("--deals", "6", "--seed", "3", "--inference", "auction")
    expected = t42("bid", "--json", *options, stdin=path.read_text())
    done = t42("batch", "bid", str(path), "-o", str(tmp_path / "bids"),
               "--scheduler", scheduler, "--chunk-size", "1", *options)
    assert expected.returncode == done.returncode == 0, done.stderr
    results = (tmp_path / "bids" / "results.jsonl").read_text().splitlines()
    assert ([without_timing(r) for r in results]
            == [without_timing(r) for r in expected.stdout.splitlines()])
    # The request's own "inference" wins over the option, as every request field does.
    assert [json.loads(r).get("inference", {}).get("mode") for r in results] == \
        ["auction", None]
