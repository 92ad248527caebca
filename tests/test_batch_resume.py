"""`t42 batch` resumes from sound parts only: a part damaged between two runs is run again.

A run of 30 records in chunks of 3 is done once; each test copies its output
directory, damages one part file as a disk, an editor or a stray tool could (cut
mid-line, emptied, NUL bytes, a garbage line, a line twice, two lines swapped, a
FIFO in its place), runs the same command again and checks that the results are
byte for byte those of the uninterrupted run, that only the damaged chunk was run
again (the sound parts kept as they were), and that one warning line named it.
Each run starts its own local cluster of one worker (about a second).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from test_batch import EXAMPLES, part_indices, positions, t42, write_lines

CHUNK = "3"
DAMAGED = 4          # the chunk whose part is damaged: input lines 13-15


def batch(job: str, source: str, out: Path, stdin: str | None = None):
    done = t42("batch", job, source, "-o", str(out), "--chunk-size", CHUNK, "--workers", "1",
               stdin=stdin, timeout=120)
    assert "Traceback" not in done.stderr
    return done


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """(input file, output directory of an uninterrupted run) of 30 positions."""
    tmp = tmp_path_factory.mktemp("solved")
    path = write_lines(tmp / "in.jsonl", positions(30))
    done = batch("solve", str(path), tmp / "out")
    assert done.returncode == 0, done.stderr
    assert len((tmp / "out" / "results.jsonl").read_bytes().splitlines()) == 30
    return path, tmp / "out"


def _cut_mid_line(part: Path) -> None:
    data = part.read_bytes()
    second = data.index(b"\n") + 1
    part.write_bytes(data[:second + 40])          # the second line cut after 40 bytes


def _emptied(part: Path) -> None:
    part.write_bytes(b"")


def _nul_bytes(part: Path) -> None:
    part.write_bytes(b"\0" * part.stat().st_size)


def _garbage_line(part: Path) -> None:
    lines = part.read_bytes().splitlines(keepends=True)
    part.write_bytes(b"".join(lines[:1] + [b"this is not a result\n"] + lines[1:]))


def _duplicated_line(part: Path) -> None:
    lines = part.read_bytes().splitlines(keepends=True)
    part.write_bytes(b"".join(lines[:2] + lines[1:]))


def _swapped_lines(part: Path) -> None:
    # Every line still a well-formed answer, one per record: only the checksum tells.
    lines = part.read_bytes().splitlines(keepends=True)
    part.write_bytes(b"".join([lines[1], lines[0]] + lines[2:]))


def _fifo(part: Path) -> None:
    # Reading it would wait for a writer for ever.
    part.unlink()
    os.mkfifo(part)


DAMAGE = {"cut mid-line": _cut_mid_line, "emptied": _emptied, "NUL bytes": _nul_bytes,
          "garbage line": _garbage_line, "duplicated line": _duplicated_line,
          "swapped lines": _swapped_lines, "a FIFO": _fifo}


def damaged_copy(base: Path, tmp: Path, damage: str) -> tuple[Path, Path, dict]:
    """A copy of the output directory ``base`` with the part of chunk DAMAGED damaged;
    (the copy, the damaged part, the other parts' identities: name, inode, mtime)."""
    out = tmp / "out"
    shutil.copytree(base, out)
    part = part_indices(out)[DAMAGED]
    DAMAGE[damage](part)
    return out, part, _identities(out)


def _identities(out: Path) -> dict[int, tuple]:
    return {i: (p.name, p.stat().st_ino, p.stat().st_mtime_ns)
            for i, p in part_indices(out).items() if i != DAMAGED}


def check_redone(done, base: Path, out: Path, part: Path, others: dict, job: str,
                 records: int) -> None:
    """The re-run finished, its results are the uninterrupted run's, and it ran the damaged
    chunk alone again, saying so in one line; the sound parts were kept as they were."""
    assert done.returncode == 0, done.stderr
    assert (out / "results.jsonl").read_bytes() == (base / "results.jsonl").read_bytes()
    chunks = -(-records // int(CHUNK))
    assert f"{job}: {records} records, 0 errors" in done.stderr
    assert f"{chunks} chunks, {chunks - 1} done before" in done.stderr
    warnings = [line for line in done.stderr.splitlines() if "its chunk is run again" in line]
    assert len(warnings) == 1, done.stderr
    assert warnings[0].startswith(f"t42 batch: chunk {DAMAGED} (input lines 13-15): "
                                  f"part {part.name} ")
    # The part written again is the one of the first run, byte for byte.
    assert sorted(p.name for p in (out / "parts").iterdir()) == \
        sorted(p.name for p in (base / "parts").iterdir())
    assert part_indices(out)[DAMAGED].read_bytes() == \
        part_indices(base)[DAMAGED].read_bytes()
    assert _identities(out) == others


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_part_is_run_again(solved, tmp_path, damage):
    path, base = solved
    out, part, others = damaged_copy(base, tmp_path, damage)
    done = batch("solve", str(path), out)
    check_redone(done, base, out, part, others, "solve", 30)


def test_the_warning_says_what_is_wrong(solved, tmp_path):
    path, base = solved
    out, part, _ = damaged_copy(base, tmp_path, "duplicated line")
    line = next(x for x in batch("solve", str(path), out).stderr.splitlines()
                if "run again" in x)
    assert line.endswith(f"part {part.name} does not match its checksum (cut short or changed "
                         "since it was written); removed, its chunk is run again")


def test_a_damaged_part_is_run_again_from_standard_input(solved, tmp_path):
    # Standard input is read once: the parts are checked as its chunks arrive.
    path, base = solved
    out, part, others = damaged_copy(base, tmp_path, "garbage line")
    done = batch("solve", "-", out, stdin=path.read_text())
    check_redone(done, base, out, part, others, "solve", 30)


def test_every_job_checks_its_parts(tmp_path):
    # The parts are the store's, whatever the job: analyze, 9 hands in chunks of 3.
    lines = (EXAMPLES / "hands.jsonl").read_text().splitlines()
    path = write_lines(tmp_path / "hands.jsonl", lines + lines[:6])   # 15: chunk 4 exists
    base = tmp_path / "base"
    assert batch("analyze", str(path), base).returncode == 0
    out, part, others = damaged_copy(base, tmp_path, "cut mid-line")
    done = batch("analyze", str(path), out)
    check_redone(done, base, out, part, others, "analyze", 15)

