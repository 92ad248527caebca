"""Every example of README.md and docs/**/*.md runs, and prints what the page shows.

One test per code block, named by file and line (``docs/guides/players.md:42``):

- ```console: each line starting with ``$ `` is a command (a line ending in ``\\`` goes
  on to the next), run with bash from the repository root; the lines after it, up to the
  next ``$ ``, are its expected standard output. A command that exits non-zero is
  compared on its standard output followed by its standard error (what a terminal
  shows), so an example can show an error line. ``...`` alone on a line matches any
  number of lines, ``...`` inside a line any text; trailing spaces are ignored.
- ```pycon: a doctest (ELLIPSIS and NORMALIZE_WHITESPACE on).
- ```python: executed; it must not raise.
- Anything else (json, text, proto, toml, ...) is data and is not run.

A block right after ``<!-- not-run: reason -->`` is skipped with that reason (for
examples that never end, such as a server, or that take minutes). A console block
whose command needs a program the machine lacks (``node``, ``curl``) is skipped too,
naming it.

Examples that talk to a server name the addresses of the docs' own `t42 serve --port
50051 --http-port 8042`; the tests start one real `t42 serve` on free ports of
127.0.0.1 and put its addresses in place of those before running the block. Files an
example writes under ``/tmp/`` go to a temporary directory of the test's own, so that
runs at once never share them.

The runner is a page of code rather than a plugin (sybil, pytest-examples,
mktestdocs) because the console convention (several commands a block, stdout only,
``...`` as a whole-line and in-line wildcard, server addresses put in place) is ours.
"""

from __future__ import annotations

import difflib
import doctest
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUN_KINDS = ("console", "pycon", "python")
DOC_GRPC = "127.0.0.1:50051"   # the addresses the pages show
DOC_HTTP = "127.0.0.1:8042"
NOT_RUN = re.compile(r"^\s*<!--\s*not-run:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
COMMAND_TIMEOUT = 600  # seconds; a bound so that a hung example fails instead of hanging


@dataclass
class Block:
    path: str          # relative to the repository root
    line: int          # the line of the opening fence, from 1
    kind: str
    text: str          # the block's lines, without the fences and their indent
    skip: Optional[str] = None

    @property
    def name(self) -> str:
        return f"{self.path}:{self.line}"


def read_blocks(path: Path, root: Path = ROOT) -> list[Block]:
    """The fenced code blocks of one markdown file, with the not-run reason before each."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    previous = ""  # the last non-blank line before the current one
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            if lines[i].strip():
                previous = lines[i]
            i += 1
            continue
        indent, fence, kind = match.groups()
        start = i
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            line = lines[i]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            i += 1
        skip = NOT_RUN.match(previous)
        blocks.append(Block(str(path.relative_to(root)), start + 1, kind.lower(),
                            "\n".join(body) + "\n", skip.group(1) if skip else None))
        previous = ""
        i += 1
    return blocks


def doc_files(root: Path = ROOT) -> list[Path]:
    files = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
    return [f for f in files if f.exists()]


def runnable_blocks(root: Path = ROOT) -> list[Block]:
    return [b for f in doc_files(root) for b in read_blocks(f, root) if b.kind in RUN_KINDS]


# --- console blocks ---------------------------------------------------------------

def console_steps(text: str) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) for each ``$ `` command of a console block."""
    steps: list[tuple[str, list[str]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            if steps:
                steps[-1][1].append(line)
            elif line.strip():
                raise ValueError(f"output before the first command: {line!r}")
            i += 1
            continue
        command = line[2:]
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command += "\n" + lines[i]
        steps.append((command, []))
        i += 1
    return steps


def wildcard_pattern(expected: list[str]) -> re.Pattern[str]:
    parts = []
    for line in expected:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(p) for p in line.rstrip().split("...")) + r"\n")
    return re.compile("".join(parts))


def normalise(output: str) -> str:
    lines = [line.rstrip() for line in output.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "".join(line + "\n" for line in lines)


def output_matches(expected: list[str], actual: str) -> bool:
    while expected and not expected[-1].strip():
        expected = expected[:-1]
    return wildcard_pattern(expected).fullmatch(normalise(actual)) is not None


def run_console(text: str, cwd: Path = ROOT, env: Optional[dict[str, str]] = None) -> None:
    """Run each command; AssertionError with a diff at the first whose output differs."""
    environment = {**os.environ, **(env or {})}
    # `t42` and `python` are this interpreter's, whatever PATH the tests were started with
    environment["PATH"] = str(Path(sys.executable).parent) + os.pathsep + environment["PATH"]
    for command, expected in console_steps(text):
        proc = subprocess.run(["bash", "-c", command], cwd=cwd, env=environment,
                              capture_output=True, text=True, timeout=COMMAND_TIMEOUT)
        actual = proc.stdout
        if proc.returncode != 0:
            actual += proc.stderr
        if not output_matches(expected, actual):
            diff = difflib.unified_diff([e.rstrip() for e in expected],
                                        normalise(actual).splitlines(),
                                        "expected", "actual", lineterm="")
            raise AssertionError(
                f"$ {command}\n(exit status {proc.returncode})\n" + "\n".join(diff)
                + ("\nstderr:\n" + proc.stderr[-3000:] if proc.stderr and proc.returncode == 0
                   else ""))


# --- pycon and python blocks -------------------------------------------------------

def run_pycon(text: str, name: str) -> None:
    test = doctest.DocTestParser().get_doctest(text, {"__name__": "__doc_example__"},
                                               name, name, 0)
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    runner.run(test, out=report.append, clear_globs=True)
    if runner.failures:
        raise AssertionError("".join(report))


def run_python(text: str, name: str) -> None:
    exec(compile(text, name, "exec"), {"__name__": "__doc_example__"})


def run_block(block: Block, cwd: Path = ROOT, env: Optional[dict[str, str]] = None) -> None:
    if block.kind == "console":
        run_console(block.text, cwd, env)
    else:
        previous = Path.cwd()
        os.chdir(cwd)
        try:
            (run_pycon if block.kind == "pycon" else run_python)(block.text, block.name)
        finally:
            os.chdir(previous)


# --- the tests ---------------------------------------------------------------------

def missing_programs(text: str) -> list[str]:
    """The programs a console block starts (curl, node, ...) that this machine lacks."""
    path = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    programs = {command.split()[0] for command, _ in console_steps(text) if command.split()}
    return sorted(p for p in programs if re.fullmatch(r"[\w.-]+", p)
                  and shutil.which(p, path=path) is None)


def needs_server(block: Block) -> bool:
    return DOC_GRPC in block.text or DOC_HTTP in block.text


@pytest.fixture(scope="module")
def doc_server():
    """One real `t42 serve` for the server examples, on free ports of 127.0.0.1."""
    from server.launcher import ServerProcess
    with ServerProcess("--workers", "2", "--http-port", "0") as proc:
        assert proc.http_port
        yield proc


BLOCKS = runnable_blocks()


@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_doc_example(block: Block, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    if block.skip:
        pytest.skip(f"{block.name}: not run: {block.skip}")
    text = block.text.replace("/tmp/", f"{tmp_path}/")
    if needs_server(block):
        server = request.getfixturevalue("doc_server")
        text = (text.replace(DOC_GRPC, server.address)
                .replace(DOC_HTTP, f"127.0.0.1:{server.http_port}"))
    block = Block(block.path, block.line, block.kind, text)
    if block.kind == "console":
        for program in missing_programs(block.text):
            pytest.skip(f"{block.name}: {program} is not installed")
    failure = None
    try:
        run_block(block)
    except AssertionError as error:
        failure = f"{block.name} ({block.kind}):\n{error}"
    if failure:
        pytest.fail(failure, pytrace=False)


# --- the runner itself, on a small sample -----------------------------------------

SAMPLE = """\
# Sample

```console
$ echo one; echo two; echo three
one
...
three
$ printf 'value 31 at 0.02 s\\n'
value 31 at ... s
```

<!-- not-run: never ends -->
```console
$ sleep infinity
```

```console
$ echo 30
31
```

```pycon
>>> 6 * 7
42
```

```pycon
>>> 6 * 7
41
```

```json
{"not": "run"}
```
"""


def test_runner_on_a_sample(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(SAMPLE, encoding="utf-8")
    blocks = runnable_blocks(tmp_path)
    assert [(b.name, b.kind, b.skip) for b in blocks] == [
        ("README.md:3", "console", None), ("README.md:13", "console", "never ends"),
        ("README.md:17", "console", None), ("README.md:22", "pycon", None),
        ("README.md:27", "pycon", None)]
    run_block(blocks[0], tmp_path)                  # passes, wildcards and all
    run_block(blocks[3], tmp_path)
    with pytest.raises(AssertionError) as failed:
        run_block(blocks[2], tmp_path)
    assert "$ echo 30" in str(failed.value)
    assert "-31\n+30" in str(failed.value)          # a unified diff of expected and actual
    with pytest.raises(AssertionError, match="Expected:\\s+41\\s+Got:\\s+42"):
        run_block(blocks[4], tmp_path)


def test_wildcards() -> None:
    assert output_matches(["a", "...", "d"], "a\nb\nc\nd\n")
    assert output_matches(["a", "...", "b"], "a\nb\n")        # zero lines
    assert not output_matches(["a", "...", "d"], "a\nb\n")
    assert output_matches(["x ... z"], "x y y z  \n")          # trailing spaces ignored
    assert not output_matches(["x"], "x\ny\n")                # every line must be shown
    assert output_matches([], "")


def test_a_failing_command_shows_its_error(tmp_path: Path) -> None:
    run_console("$ echo out; echo 'bad input' >&2; exit 2\nout\nbad input\n", tmp_path)
    with pytest.raises(AssertionError, match="exit status 2"):
        run_console("$ echo oops >&2; exit 2\n", tmp_path)


def test_readme_is_a_front_page() -> None:
    """The README stays a front page; the details live on the site's pages."""
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) < 200


def test_missing_programs_are_named() -> None:
    assert missing_programs("$ t42 --version\n$ echo hi | cat\n$ (cd x)\n") == []
    assert missing_programs("$ no-such-program-t42 --x\n") == ["no-such-program-t42"]
