"""Coverage-guided fuzzing of every input parser with atheris (libFuzzer for Python).

    pip install -e '.[fuzz]'
    python fuzz/fuzz_input.py --minutes 10            # seeds from tests/cases, then mutates
    python fuzz/fuzz_input.py --minutes 10 -jobs=2    # extra arguments go to libFuzzer

An input is one selector byte and a document: the byte picks the parser
(a position, a hand record, a deal, a Moon discard deal, the bytes of a
`t42` input file, a serialized gRPC Position, a seat's view, a hint request,
a bid request, the lines `t42 report` reads, serialized CountDeals, Hint and
BidAdvice requests through their conversions), the rest is what it reads.
A hint or bid request is a JSON object: ``{"view": ..., "deals": ...}`` (the
view and the options of `solver.hidden.hint.hint`), or what `t42 bid` reads; its
searches run under a node budget (`SearchCancelled` is an allowed outcome)
and its deal counts are capped, so every input ends in milliseconds.
The seed corpus is written at run time from tests/cases and examples/ into
``fuzz/corpus/`` (not kept in the repository); libFuzzer adds what it finds
there, so a later run starts where the last one stopped. Crashes are saved
in ``fuzz/artifacts/``.

The property: every input gives a result or `PositionError` (`ArgumentError`
for an API argument, `SearchCancelled` for a search out of budget); any other
exception is a crash, saved by libFuzzer as ``crash-*`` with the input. An
accepted position must round-trip (``Position(p.to_json()) == p``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from google.protobuf.message import DecodeError

    from server import bid_convert, convert, hint_convert
    from solver import Position, PositionError
    from solver.search._core import CancelToken
    from solver.search.analysis import analyze_hand, parse_record
    from solver.game.bid_request import request_from_json
    from solver.hidden.bidding import MAX_DEALS
    from solver.hidden.seat_view_bidding import bid_advice
    from solver.play.bots import defence_players
    from solver.cli.common import InputError, records_of
    from solver.hidden.deals import count_deals, tile_probabilities
    from solver.search.discard import best_discards
    from solver.game.errors import ArgumentError, SearchCancelled
    from solver.hidden.hint import hint
    from solver.game.jsondoc import json_object
    from solver.show.report import read_report
    from solver.search.table import parse_deal
    from solver.game.view import View
    from texas42.v1 import bidding_pb2 as bid_pb
    from texas42.v1 import hint_pb2
    from texas42.v1 import position_pb2 as pb
    from texas42.v1 import view_pb2

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


#: Nodes each engine of a fuzzed hint or bid advice may search (a few ms of work).
NODE_BUDGET = 100_000
#: The largest deal counts a fuzzed call keeps (a larger valid count is real work).
HINT_DEALS, ENUMERATE_LIMIT, BID_DEALS = 4, 64, 4
#: Option values of `hint` (the view aside) a JSON hint request may set.
HINT_OPTIONS = ("deals", "enumerate_limit", "objective", "seed", "adaptive", "max_deals",
                "examples", "timeout")


def _token() -> CancelToken:
    return CancelToken(node_budget=NODE_BUDGET, deadline=time.monotonic() + 60)


def _capped(value: object, limit: int, default: int) -> object:
    """``value``, but a whole number above ``limit`` (valid or refused alike) is
    ``default``: a big count is work, not a parse."""
    return default if isinstance(value, int) and value > limit else value


def _hint(data: bytes) -> None:
    doc = json_object(data, "request", "a hint request")
    options = {k: doc[k] for k in HINT_OPTIONS if k in doc}
    options["deals"] = _capped(options.get("deals", 2), HINT_DEALS, 2)
    options["enumerate_limit"] = _capped(options.get("enumerate_limit", 8), ENUMERATE_LIMIT, 8)
    if isinstance(options.get("timeout"), (int, float)):
        options["timeout"] = min(options["timeout"], 60)
    result = hint(doc.get("view"), token=_token(), threads=1, **options)
    json.dumps(result.to_json(), allow_nan=False)


def _bid(data: bytes) -> None:
    doc = json_object(data, "request", "a bid request")
    args = request_from_json(doc)
    deals = args.get("deals", 2)
    if isinstance(deals, int) and BID_DEALS < deals <= MAX_DEALS:  # a valid count: cap it
        deals = 2
    if args.get("search") == "playout" and isinstance(deals, int) and deals <= MAX_DEALS:
        deals = 1   # a whole hand played out per deal and declaration
    if args.get("defence") is not None:   # as the command line supplies the defenders
        args["defenders"] = defence_players(args["defence"])
    advice = bid_advice(**{**args, "deals": deals}, token=_token(), threads=1)
    json.dumps(advice.to_json(), allow_nan=False)


def _report(data: bytes) -> None:
    read_report(data.splitlines(keepends=True))


def _message(kind, data: bytes):
    try:
        return kind.FromString(data)
    except DecodeError:
        return None  # not a message: the gRPC layer answers that before any conversion


def _count_deals_proto(data: bytes) -> None:
    request = _message(view_pb2.CountDealsRequest, data)
    if request is not None:
        view = View(convert.view_to_json(request.view))
        convert.count_deals_to_proto(count_deals(view), tile_probabilities(view),
                                     view.to_move, view.side)


def _hint_proto(data: bytes) -> None:
    request = _message(hint_pb2.HintRequest, data)
    if request is not None:
        request.deals = min(request.deals, HINT_DEALS)
        if request.HasField("enumerate_limit"):
            request.enumerate_limit = min(request.enumerate_limit, ENUMERATE_LIMIT)
        hint_convert.hint_to_proto(hint(convert.view_to_json(request.view), token=_token(),
                                        threads=1, **hint_convert.hint_options(request)))


def _bid_proto(data: bytes) -> None:
    request = _message(bid_pb.BidAdviceRequest, data)
    if request is not None:
        if request.deals <= MAX_DEALS:
            request.deals = min(request.deals, BID_DEALS)
        if request.search == "playout" and request.deals <= MAX_DEALS:
            # A playout plays a whole hand per deal and declaration: one deal is work enough.
            request.deals = 1
        bid_convert.advice_to_proto(bid_advice(**bid_convert.request_to_kwargs(request),
                                               token=_token(), threads=1))


#: Selector byte (modulo their number) -> target.
TARGETS = (_position, _record, _deal, _discard, _cli_input, _proto, _view, _hint, _bid, _report,
           _count_deals_proto, _hint_proto, _bid_proto)


def test_one_input(data: bytes) -> None:
    if not data:
        return
    try:
        TARGETS[data[0] % len(TARGETS)](data[1:])
    except PositionError as exc:
        if not (exc.field and exc.reason and exc.code.isupper() and len(str(exc)) < 1300):
            raise AssertionError(f"malformed error {exc!r}") from None
    except ArgumentError as exc:
        if not (exc.argument and exc.reason):
            raise AssertionError(f"malformed error {exc!r}") from None
    except SearchCancelled:
        pass  # the node budget of a fuzzed hint or bid advice ran out


def _request_seeds(positions: list[dict]) -> list[tuple[int, bytes]]:
    """Seeds of the request targets: hint requests of the case views and the example
    view (JSON and Hint messages), every view as a CountDeals message, bid requests of
    the case hands (JSON and BidAdvice messages), and the analysis lines of the
    example hands (what `t42 report` reads)."""
    rows = []
    for name in ("views.jsonl", "views_bad.jsonl"):
        with open(ROOT / "tests" / "cases" / name, encoding="utf-8") as f:
            rows += [json.loads(line) for line in f if line.strip()]
    example = json.loads((ROOT / "examples" / "view.json").read_text())
    views = [r["view"] for r in rows] + [example]
    hint_views = [r["view"] for r in rows if r.get("kind") == "hint"][::4] + [example]
    seeds: list[tuple[int, bytes]] = []
    for v in views:
        try:
            message = convert.view_from_json(v)
        except PositionError:
            continue  # a bad seat, say: the message cannot say it
        seeds.append((10, view_pb2.CountDealsRequest(view=message).SerializeToString()))
    for i, v in enumerate(hint_views):
        options = {"deals": 2, "enumerate_limit": 8, "seed": i, "adaptive": i % 2 == 1,
                   "max_deals": 6, "examples": 1, "objective": ("make", "points")[i % 2]}
        seeds.append((7, json.dumps({"view": v, **options, "timeout": 5}).encode()))
        request = hint_pb2.HintRequest(view=convert.view_from_json(v), **{
            **options, "objective": hint_convert.ENUM_OF_OBJECTIVE[options["objective"]]})
        seeds.append((11, request.SerializeToString()))
    for i, p in enumerate(positions[::8]):
        seat, hand = next((s, h) for s, h in p["hands"].items() if len(h) == 7)
        request = {"hand": hand, "seat": seat, "deals": 2, "seed": i}
        if p.get("game", "42") == "moon":
            request.update(game="moon", players=len(p["hands"]), auction=["pass", 5])
        else:
            request.update(auction=[30, "pass", {"seat": "E", "bid": 31}], doubles="low",
                           declarations=["fours", "nello", "plunge"], threshold=0.5)
        seeds.append((8, json.dumps(request).encode()))
        message = bid_pb.BidAdviceRequest(
            hand=hand, seat=convert.ENUM_OF_SEAT[seat], deals=2, seed=i,
            game=bid_convert.ENUM_OF_GAME[p.get("game", "42")], adaptive=i % 2 == 1)
        if p.get("game") == "moon":
            message.players = len(p["hands"])
            message.auction.add(seat=convert.ENUM_OF_SEAT[seat], bid=5)
        else:
            message.auction.add(bid=30)
            message.declarations.add(declaration=convert.ENUM_OF_DECLARATION["fours"])
        seeds.append((12, message.SerializeToString()))
    seeds.append((8, json.dumps({"seat": "E", "hands": {"E": example["hands"]["E"]},
                                 "auction": [{"seat": "N", "bid": 84}], "deals": 1,
                                 "calibrated": True}).encode()))
    lines = []
    for line in (ROOT / "examples" / "hands.jsonl").read_text().splitlines():
        if line.strip():
            lines.append(json.dumps(analyze_hand(line).to_json()).encode())
    lines.append(b'{"error": {"field": "plays[3]", "reason": "not legal", "code": "ILLEGAL_PLAY"}}')
    seeds += [(9, line + b"\n") for line in lines]
    seeds.append((9, b"\n".join(lines[:3]) + b"\n"))
    return seeds


def write_seed_corpus(corpus: Path) -> int:
    """Seeds: every case position (as a position, a CLI line and a proto message), the
    example hand records, deals made of the case hands, the Moon example, the case
    views, and requests of every kind (`_request_seeds`)."""
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
    seeds += _request_seeds(positions)
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
