"""Coverage-guided fuzzing of every input parser with atheris (libFuzzer for Python).

    pip install -e '.[fuzz]'
    python fuzz/fuzz_input.py --minutes 10            # seeds from tests/cases, then mutates
    python fuzz/fuzz_input.py --minutes 10 -jobs=2    # extra arguments go to libFuzzer

An input is one selector byte and a document: the byte picks the parser
(a position, a hand record, a deal, a Moon discard deal, the bytes of a
`t42` input file, a serialized gRPC Position, a seat's view), the rest is
what it reads.
The seed corpus is written at run time from tests/cases and examples/ into
``fuzz/corpus/`` (not kept in the repository); libFuzzer adds what it finds
there, so a later run starts where the last one stopped. Crashes are saved
in ``fuzz/artifacts/``.

The property: every input gives a result or `PositionError`; any other
exception is a crash, saved by libFuzzer as ``crash-*`` with the input. An
accepted position must round-trip (``Position(p.to_json()) == p``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from google.protobuf.message import DecodeError

    from server import convert
    from solver import Position, PositionError
    from solver.analysis import parse_record
    from solver.cli.common import InputError, records_of
    from solver.discard import best_discards
    from solver.table import parse_deal
    from solver.view import View
    from texas42.v1 import position_pb2 as pb

ROOT = Path(__file__).resolve().parents[1]


def _position(data: bytes) -> None:
    position = Position(data)
    again = Position(position.to_json())
    if again != position or Position(position.to_json_str()) != position:
        raise AssertionError(f"round trip changed {position!r} into {again!r}")


def _record(data: bytes) -> None:
    parse_record(data)


def _deal(data: bytes) -> None:
    parse_deal(data)


def _discard(data: bytes) -> None:
    best_discards(data)


def _view(data: bytes) -> None:
    view = View(data)
    if View(view.to_json()).to_json() != view.to_json():
        raise AssertionError(f"round trip changed {view!r}")


def _cli_input(data: bytes) -> None:
    try:
        records = records_of(data)
    except InputError:
        return  # empty input: the CLI's one line "no input: ..."
    for record in records:
        if record.error is None:
            try:
                Position(record.data)
            except PositionError:
                pass


def _proto(data: bytes) -> None:
    try:
        message = pb.Position.FromString(data)
    except DecodeError:
        return  # not a message: the gRPC layer answers that before any conversion
    _position(json.dumps(convert.position_to_json(message)).encode())


#: Selector byte (modulo their number) -> target.
TARGETS = (_position, _record, _deal, _discard, _cli_input, _proto, _view)


def test_one_input(data: bytes) -> None:
    if not data:
        return
    try:
        TARGETS[data[0] % len(TARGETS)](data[1:])
    except PositionError as exc:
        if not (exc.field and exc.reason and exc.code.isupper() and len(str(exc)) < 1300):
            raise AssertionError(f"malformed error {exc!r}") from None


def write_seed_corpus(corpus: Path) -> int:
    """Seeds: every case position (as a position, a CLI line and a proto message), the
    example hand records, deals made of the case hands, and the Moon example."""
    corpus.mkdir(parents=True, exist_ok=True)
    positions = []
    for name in ("texas42.jsonl", "moon.jsonl"):
        with open(ROOT / "tests" / "cases" / name, encoding="utf-8") as f:
            positions += [json.loads(line)["position"] for line in f if line.strip()]
    seeds: list[tuple[int, bytes]] = []
    for p in positions:
        text = json.dumps(p).encode()
        seeds += [(0, text), (4, text + b"\n" + text + b"\n")]
        seeds.append((5, convert.position_from_json(p).SerializeToString()))
        if p.get("game", "42") == "42":
            seeds.append((2, json.dumps({"hands": p["hands"], "id": 1}).encode()))
    for line in (ROOT / "examples" / "hands.jsonl").read_text().splitlines():
        if line.strip():
            seeds.append((1, line.encode()))
    seeds.append((3, (ROOT / "examples" / "moon-discard.json").read_bytes()))
    for name in ("views.jsonl", "views_bad.jsonl"):
        with open(ROOT / "tests" / "cases" / name, encoding="utf-8") as f:
            seeds += [(6, json.dumps(json.loads(line)["view"]).encode()) for line in f
                      if line.strip()]
    for i, (target, body) in enumerate(seeds):
        (corpus / f"seed-{i:04d}").write_bytes(bytes([target]) + body)
    return len(seeds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="how long to fuzz (5)")
    parser.add_argument("--corpus", type=Path, default=Path(__file__).parent / "corpus",
                        help="corpus directory (seeded from tests/cases; default fuzz/corpus)")
    args, libfuzzer_args = parser.parse_known_args()
    seeds = write_seed_corpus(args.corpus)
    print(f"fuzz: {seeds} seeds in {args.corpus}", file=sys.stderr)
    artifacts = args.corpus.parent / "artifacts"
    artifacts.mkdir(parents=True, exist_ok=True)
    argv = [sys.argv[0], f"-artifact_prefix={artifacts}/", "-rss_limit_mb=4096",
            *libfuzzer_args, f"-max_total_time={max(1, int(args.minutes * 60))}",
            str(args.corpus)]
    atheris.Setup(argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
