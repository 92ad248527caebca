"""The command line's error contract on hostile input and bad options: exit status 2 and
one short stderr line, ``t42: error: ...``, never a traceback or a usage block.

Every test runs real `t42` processes (``python -m solver``). Covered: bad options of
every command and of the top level; `t42 report` on lines that are no analysis (a list,
a number, deep nesting, fields of the wrong type, binary bytes) and with an HTML path
that cannot be written; `t42 batch` with an output path that cannot be a directory and a
scheduler that does not answer; the same bad lines answered byte for byte alike by
`t42 batch solve` and `t42 solve --json`; an HTML report written even when the reader
of the text goes away. About 60 s, most of it in Dask's start-up.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import pickle
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CASES = Path(__file__).parent / "cases"
HANDS = ROOT / "examples" / "hands.jsonl"

needs_batch = pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                                 reason="needs the batch extra (Dask distributed)")
needs_matplotlib = pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None,
                                      reason="needs the batch extra (matplotlib)")


def t42(*args: str, stdin: bytes | None = None, env: dict | None = None,
        **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *args], input=stdin,
                          capture_output=True, timeout=300, env=env, **kwargs)


def one_error_line(done: subprocess.CompletedProcess, status: int = 2) -> str:
    """The one stderr line of a refused command (status 2 unless told)."""
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == status, (done.returncode, err)
    assert "Traceback" not in err and "usage:" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("t42: error: "), err
    return err.rstrip("\n")


# ------------------------------------------------------------- bad options

BAD_OPTIONS = [
    (["nosuchcommand"], "argument COMMAND: invalid choice: 'nosuchcommand'", "t42"),
    (["--bogus"], "unrecognized arguments: --bogus", "t42"),
    (["solve", "--bogus"], "unrecognized arguments: --bogus", "t42 solve"),
    (["solve", "a.json", "b.json"], "unrecognized arguments: b.json", "t42 solve"),
    (["solve", "--threads", "x"], "argument --threads: not a whole number: 'x'", "t42 solve"),
    (["batch", "solve", "in.jsonl"], "the following arguments are required: -o/--output",
     "t42 batch"),
    (["batch", "nojob", "in.jsonl", "-o", "out"], "argument JOB: invalid choice: 'nojob'",
     "t42 batch"),
    (["batch", "solve", "in.jsonl", "-o", "out", "--connect-timeout", "nan"],
     "argument --connect-timeout: 'nan' is out of range", "t42 batch"),
    (["hint", "--deals", "many"], "argument --deals: invalid int value: 'many'", "t42 hint"),
    (["hint", "--objective", "win"], "argument --objective: invalid choice: 'win'",
     "t42 hint"),
    (["arena"], "the following arguments are required", "t42 arena"),
    (["serve", "--port", "x"], "argument --port:", "t42 serve"),
    (["report"], "the following arguments are required: OUTDIR", "t42 report"),
    (["bid", "--deals", "1.5"], "argument --deals: invalid int value: '1.5'", "t42 bid"),
]


@pytest.mark.parametrize("args, message, prog", BAD_OPTIONS,
                         ids=[" ".join(a) for a, _, _ in BAD_OPTIONS])
def test_a_bad_option_is_one_line_naming_the_help_to_read(args, message, prog):
    line = one_error_line(t42(*args, stdin=b""))
    assert line.startswith(f"t42: error: {message}")
    assert line.endswith(f"(see {prog} --help)")


def test_a_huge_or_multi_line_argument_is_quoted_short_on_one_line():
    line = one_error_line(t42("solve", "--threads", "1\n2" + "9" * 100_000))
    assert line.startswith("t42: error: argument --threads: not a whole number: '1\\n299")
    assert len(line) < 400


@pytest.mark.parametrize("args", [["--help"], ["solve", "--help"], ["batch", "-h"]])
def test_help_is_still_the_full_help(args):
    done = t42(*args)
    assert done.returncode == 0 and done.stderr == b""
    out = done.stdout.decode()
    assert out.startswith("usage: t42") and len(out.splitlines()) > 8


# ------------------------------------------ batch and solve answer bad lines alike

GOOD = json.dumps(json.loads(next(line for i, line in enumerate(
    (CASES / "texas42.jsonl").read_text().splitlines()) if i == 1))["position"]).encode()
#: One of each kind of bad line.
BAD_LINES = [
    b'{"hands": ',                                    # broken JSON (ends at the line's end)
    b'{"hands": {"N": ["6-6"]}, "id": "\xff\xfe"}',   # not UTF-8
    b"[" * 5000 + b"]" * 5000,                        # too deep
    b'{"plyas": []}',                                 # unknown field
    b'{"hands": {}} trailing',                        # trailing garbage
    b'{"a": 1',                                       # broken at the end, a CR follows
    b'\xff\xfe{\x00"',                                 # UTF-16, cut in a character
    b'{"id": 1}\r{"id": 2}',                          # a lone CR inside one line
    b"[1, 2]",                                        # JSON, not an object
]


def bad_lines_file(path: Path, first_good: bool) -> Path:
    lines = ([GOOD] if first_good else []) + BAD_LINES[:5] + [b"  ", b"\x1c"] \
        + [BAD_LINES[5] + b"\r"] + BAD_LINES[6:] + [GOOD]
    path.write_bytes(b"\n".join(lines[:-1]) + b"\r\n" + lines[-1] + b"\n")
    return path


@needs_batch
@pytest.mark.parametrize("case", ["good-first", "bad-first", "one-broken-line"])
def test_batch_lines_are_byte_for_byte_what_solve_json_prints(tmp_path, case):
    if case == "one-broken-line":
        source = tmp_path / "in.jsonl"
        source.write_bytes(b"\n" + BAD_LINES[0] + b"\n")
    else:
        source = bad_lines_file(tmp_path / "in.jsonl", first_good=case == "good-first")
    single = t42("solve", "--json", str(source))
    assert single.returncode == 2 and b"Traceback" not in single.stderr
    batch = t42("batch", "solve", str(source), "-o", str(tmp_path / "out"), "--workers", "1",
                "--no-progress")
    assert batch.returncode == 2, batch.stderr
    results = (tmp_path / "out" / "results.jsonl").read_bytes()
    assert results == single.stdout
    answers = [json.loads(line) for line in results.splitlines()]
    if case == "one-broken-line":
        assert answers == [{"error": {
            "field": "position", "code": "INVALID_JSON",
            "reason": "not valid JSON: Expecting value: line 1 column 11 (char 10)"}}]
        return
    codes = [a["error"]["code"] if "error" in a else "ok" for a in answers]
    assert codes == ["ok"] * (case == "good-first") + [
        "INVALID_JSON", "INVALID_ENCODING", "TOO_DEEP", "UNKNOWN_FIELD", "INVALID_JSON",
        "INVALID_JSON", "INVALID_ENCODING", "INVALID_JSON", "INVALID_TYPE", "ok"]
    # Each broken line is judged on its own bytes, not with its end.
    assert answers[int(case == "good-first")]["error"]["reason"] == \
        "not valid JSON: Expecting value: line 1 column 11 (char 10)"


# ------------------------------------------------------------------ report

@pytest.fixture(scope="module")
def analyses(tmp_path_factory) -> list[dict]:
    done = t42("analyze", "--json", str(HANDS))
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def report_of(tmp_path: Path, content: bytes, *options: str) -> subprocess.CompletedProcess:
    path = tmp_path / "analyses.jsonl"
    path.write_bytes(content)
    return t42("report", str(path), *options)


def changed(analysis: dict, change) -> bytes:  # type: ignore[no-untyped-def]
    out = copy.deepcopy(analysis)
    change(out)
    return json.dumps(out).encode()


HOSTILE_REPORT_LINES = {
    "a list": (lambda a: b"[1, 2]", "line 2: analysis: a line must be a JSON object"),
    "a number": (lambda a: b"42", "line 2: analysis: a line must be a JSON object"),
    "deep nesting": (lambda a: b"[" * 100_000 + b"]" * 100_000,
                     "line 2: analysis: nested more than 32 levels deep"),
    "deep objects": (lambda a: b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
                     "line 2: analysis: nested more than 32 levels deep"),
    "plays as a string": (lambda a: changed(a, lambda d: d["seats"]["N"].update(plays="7")),
                          "line 2: seats.N.plays: must be a whole number, not '7'"),
    "a cost of 4000 digits": (lambda a: changed(a, lambda d: d["plays"][0].update(
        cost=10 ** 3999)), "line 2: plays[0].cost: <an integer of about 4000 digits> is out "
                           "of range (0..42)"),
    "contract as a string": (lambda a: changed(a, lambda d: d.update(contract="sixes")),
                             "line 2: contract: must be an object, not 'sixes'"),
    "players as a list": (lambda a: changed(a, lambda d: d["meta"].update(players=["Ann"])),
                          "line 2: meta.players: must be an object of seat -> name"),
    "made as a string": (lambda a: changed(a, lambda d: d.update(made="yes")),
                         "line 2: made: must be true, false or null, not 'yes'"),
    "a misspelt field": (lambda a: changed(a, lambda d: d.update(plyas=[])),
                         "line 2: plyas: unknown field of an analysis"),
    "an unknown seat": (lambda a: changed(a, lambda d: d["seats"].update(Q={})),
                        "line 2: seats.Q: unknown seat 'Q'"),
    "a trick of 8": (lambda a: changed(a, lambda d: d["plays"][0].update(trick=8)),
                     "line 2: plays[0].trick: 8 is out of range (1..7)"),
    "an error that is no object": (lambda a: b'{"error": 1}',
                                   "line 2: error: must be an object, not 1"),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE_REPORT_LINES))
def test_report_refuses_a_line_that_is_no_analysis_in_one_line(tmp_path, analyses, kind):
    make, message = HOSTILE_REPORT_LINES[kind]
    content = json.dumps(analyses[0]).encode() + b"\n" + make(analyses[0]) + b"\n"
    line = one_error_line(report_of(tmp_path, content))
    assert line.startswith(f"t42: error: {tmp_path / 'analyses.jsonl'}: {message}")
    assert len(line) < 400


def test_report_on_binary_input_quotes_nothing_long(tmp_path):
    line = one_error_line(report_of(tmp_path, bytes(range(256)) * 50))
    assert line == (f"t42: error: {tmp_path / 'analyses.jsonl'}: line 1: analysis: "
                    "not valid JSON: Expecting value: line 1 column 1 (char 0)")
    line = one_error_line(report_of(tmp_path, b"{\xff" + bytes(range(128, 256)) * 100))
    assert line == (f"t42: error: {tmp_path / 'analyses.jsonl'}: line 1: analysis: "
                    "not valid UTF-8 text: invalid start byte at byte 1")


def test_report_still_counts_error_lines_and_reads_every_analysis(tmp_path, analyses):
    content = b"".join(json.dumps(a).encode() + b"\n" for a in analyses) \
        + b'{"error": {"field": "plays[3]", "reason": "x", "code": "ILLEGAL_PLAY"}}\n\n'
    done = report_of(tmp_path, content)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().startswith(f"{len(analyses)} hands, 1 bad records left out\n")


def test_report_refuses_a_broken_batch_settings_file(tmp_path):
    (tmp_path / "batch.json").write_bytes(b"[" * 100_000)
    line = one_error_line(t42("report", str(tmp_path)))
    assert line == (f"t42: error: {tmp_path / 'batch.json'} is not the settings file of a "
                    "batch run (nested more than 32 levels deep)")


def test_a_report_line_error_pickles():
    from solver.show.report import ReportLineError, read_report

    with pytest.raises(ReportLineError) as caught:
        read_report([b"{}\n", b"[]\n"])
    again = pickle.loads(pickle.dumps(caught.value))
    assert (again.line, again.field, again.code) == (1, "contract", "MISSING_FIELD")


@needs_matplotlib
@pytest.mark.parametrize("where", ["a directory", "under a file"])
def test_report_html_path_that_cannot_be_written_is_one_line(tmp_path, analyses, where):
    target = tmp_path if where == "a directory" else tmp_path / "analyses.jsonl" / "r.html"
    content = json.dumps(analyses[0]).encode() + b"\n"
    done = report_of(tmp_path, content, "--html", str(target))
    reason = "Is a directory" if where == "a directory" else "Not a directory"
    assert one_error_line(done) == f"t42: error: cannot write {target}: {reason}"
    assert done.stdout == b""


@needs_matplotlib
@pytest.mark.parametrize("buffered", [True, False])
def test_report_html_is_written_though_the_reader_of_the_text_went_away(tmp_path, analyses,
                                                                        buffered):
    source = tmp_path / "analyses.jsonl"
    source.write_bytes(b"".join(json.dumps(a).encode() + b"\n" for a in analyses))
    page = tmp_path / "r.html"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    reader, writer = os.pipe()
    os.close(reader)  # `| head -1` gone before the first line is written
    try:
        done = subprocess.run([sys.executable, "-m", "solver", "report", str(source), "--html",
                               str(page)], stdout=writer, stderr=subprocess.PIPE, env=env,
                              timeout=300)
    finally:
        os.close(writer)
    assert done.returncode == 0 and done.stderr == b""
    text = page.read_text()
    assert text.count("<svg") == 3 and text.endswith("</body></html>\n")


# ------------------------------------------------------------------- batch

@needs_batch
@pytest.mark.parametrize("where", ["an existing file", "under a file"])
def test_batch_output_that_cannot_be_a_directory_is_one_line(tmp_path, where):
    source = tmp_path / "in.jsonl"
    source.write_bytes(GOOD + b"\n")
    out = source if where == "an existing file" else source / "out"
    line = one_error_line(t42("batch", "solve", str(source), "-o", str(out)))
    if where == "an existing file":
        assert line == f"t42: error: {out} exists and is not a directory: give a new or a " \
                       "batch output directory"
    else:
        assert line == f"t42: error: cannot use {out} as the output directory: Not a directory"


@needs_batch
def test_batch_output_with_a_broken_settings_file_is_one_line(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_bytes(GOOD + b"\n")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "batch.json").write_bytes(b'{"settings": 3}')
    line = one_error_line(t42("batch", "solve", str(source), "-o", str(tmp_path / "out")))
    assert line == (f"t42: error: {tmp_path / 'out' / 'batch.json'} is not the settings file "
                    "of a batch run: use another output directory")


@pytest.fixture
def closed_port():
    """A loopback port bound by no listener: a connection there is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


@needs_batch
@pytest.mark.parametrize("timeout", [None, "0.5"])
def test_batch_says_it_cannot_connect_to_a_scheduler_that_does_not_answer(tmp_path,
                                                                          closed_port, timeout):
    source = tmp_path / "in.jsonl"
    source.write_bytes(GOOD + b"\n")
    address = f"tcp://127.0.0.1:{closed_port}"
    options = ["--connect-timeout", timeout] if timeout else []
    line = one_error_line(t42("batch", "solve", str(source), "-o", str(tmp_path / "out"),
                              "--scheduler", address, *options))
    seconds = timeout or "3"   # the default: Dask's own (30 s) is far too long
    assert line.startswith(f"t42: error: cannot connect to the Dask scheduler '{address}' "
                           f"within {seconds} s (")
    assert line.endswith("is it running? (--connect-timeout)")


@needs_batch
def test_batch_refuses_a_scheduler_address_it_cannot_parse(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_bytes(GOOD + b"\n")
    line = one_error_line(t42("batch", "solve", str(source), "-o", str(tmp_path / "out"),
                              "--scheduler", "foo://host:1"))
    assert line.startswith("t42: error: --scheduler 'foo://host:1': unknown address scheme "
                           "'foo'")


@needs_batch
@pytest.mark.parametrize("option, value, message", [
    ("--workers", str(2 ** 63), "--workers: must be 1..1,024, not 9223372036854775808"),
    ("--workers", "0", "--workers: must be 1..1,024, not 0"),
    ("--in-flight", str(10 ** 12), "--in-flight: must be 1..10,000, not 1000000000000"),
    ("--chunk-size", str(10 ** 9), "--chunk-size: must be 1..1,000,000, not 1000000000"),
    ("--retries", "-1", "--retries: must be 0..100, not -1"),
])
def test_batch_refuses_counts_past_their_range_before_any_process(tmp_path, option, value,
                                                                    message):
    source = tmp_path / "in.jsonl"
    source.write_bytes(GOOD + b"\n")
    out = tmp_path / "out"
    line = one_error_line(t42("batch", "solve", str(source), "-o", str(out), option, value))
    assert line == f"t42: error: {message}"
    assert not out.exists()   # refused before the run started anything


def test_batch_local_cluster_never_starts_more_workers_than_cores(monkeypatch):
    pytest.importorskip("distributed")
    import distributed

    from solver.batch import cluster

    started = []

    class Cluster:   # stands in for Dask's: records the workers asked for, starts none
        def __init__(self, n_workers, **kwargs):
            started.append(n_workers)
            raise RuntimeError("stop here")

    monkeypatch.setattr(distributed, "LocalCluster", Cluster)
    cores = len(os.sched_getaffinity(0))
    for asked, expected in ((1024, cores), (1, 1), (None, cores)):
        with pytest.raises(RuntimeError, match="stop here"):
            with cluster._client(None, asked):
                pass
        assert started.pop() == expected
