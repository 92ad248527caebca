"""Property-based fuzzing of every input parser, the CLI and the gRPC conversion.

The documents are the check positions and views of tests/cases (and the examples),
mutated: values replaced by arbitrary JSON (or by tile-like text with odd
digits), keys deleted or added, plays cut or shuffled, tiles respelt. The
properties:

* any input gives a result or the package's `PositionError`, never another
  exception (a `PositionError` is short and names a field);
* an accepted position round-trips: ``Position(p.to_json()) == p``, from its
  JSON text too, and through the proto message of the gRPC API; so does an
  accepted view (`solver.view.View`);
* a tile accepted in any spelling means the same tile as its ``H-L`` form.

Budget: about 10 s. ``T42_FUZZ_SCALE=50 pytest tests/test_fuzz.py`` runs
fifty times as many examples (the coverage-guided harness is in fuzz/).
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server import convert
from solver import Position, PositionError
from solver import tiles as T
from solver.analysis import parse_record
from solver.discard import best_discards
from solver.table import parse_deal
from solver.view import View
from texas42.v1 import hand_analysis_pb2 as hand_pb
from texas42.v1 import hint_service_pb2 as service_pb
from texas42.v1 import position_pb2 as pb

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "cases"
SCALE = int(os.environ.get("T42_FUZZ_SCALE", "1"))


def fuzz_settings(examples: int) -> settings:
    return settings(max_examples=examples * SCALE, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def case_positions(name: str) -> list[dict]:
    with open(CASES / name, encoding="utf-8") as f:
        return [json.loads(line)["position"] for line in f if line.strip()]


POSITIONS = case_positions("texas42.jsonl")[::4] + case_positions("moon.jsonl")[::3]
RECORDS = [json.loads(line) for line in
           (ROOT / "examples" / "hands.jsonl").read_text().splitlines() if line.strip()]
DEALS = [{"hands": p["hands"], "doubles": "high", "id": i}
         for i, p in enumerate(POSITIONS) if "W" in p["hands"] and p.get("game", "42") == "42"]
MOON_DEALS = [json.loads((ROOT / "examples" / "moon-discard.json").read_text())]

# ------------------------------------------------------------------ strategies

#: Text that looks like a tile: ASCII and non-ASCII digits, separators, blanks.
TILE_ALPHABET = "0123456789-: \t\u00b2\u0666\u0664\uff16\uff14\u2013\u00a0\u00bd"
tile_like = st.one_of(
    st.sampled_from(T.NAMES),
    st.sampled_from([k for k in T.SPELLINGS]),
    st.text(alphabet=TILE_ALPHABET, max_size=5),
    st.integers(min_value=-5, max_value=100),
    st.sampled_from([True, False, None, 64.0, "6-4" * 100, 2 ** 70, "\ud800"]),
)
json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8), tile_like,
    st.sampled_from(["42", "moon", "MOON", 42, 42.0, "N", "E", "S", "W", "fours", "sixes",
                     "follow-me", "nello", "sevens", "doubles", "plunge", "splash", "low",
                     "suit", "high", 30, 42, 84, 168, 4, 5, 21]))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["game", "hands", "contract", "plays", "widow", "discard", "N", "E",
                         "bid", "trump", "id", "meta", "x", "plyas", ""]) | st.text(max_size=4),
        inner, max_size=4),
    max_leaves=10)


def _places(doc: Any, path: tuple = ()) -> list[tuple]:
    """Every path to a value inside ``doc``."""
    out = [path]
    if isinstance(doc, dict):
        for key, value in doc.items():
            out += _places(value, path + (key,))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            out += _places(value, path + (i,))
    return out


def _get(doc: Any, path: tuple) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _parent(doc: Any, path: tuple) -> Any:
    return _get(doc, path[:-1])


@st.composite
def mutated(draw: Callable, seeds: list[dict]) -> Any:
    """A seed document with one to three random edits."""
    doc = copy.deepcopy(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        places = [p for p in _places(doc) if p]
        op = draw(st.sampled_from(["value", "tile", "delete", "add", "plays", "respell"]))
        if op == "plays" and isinstance(doc, dict) and isinstance(doc.get("plays"), list):
            plays = doc["plays"]
            cut = draw(st.integers(min_value=0, max_value=len(plays)))
            doc["plays"] = draw(st.permutations(plays[:cut])) if draw(st.booleans()) \
                else plays[:cut] + draw(st.lists(tile_like, max_size=2))
        elif op == "add" or not places:
            dicts = [p for p in [()] + places if isinstance(_get(doc, p), dict)]
            if dicts:
                _get(doc, draw(st.sampled_from(dicts)))[draw(st.text(max_size=6))] = \
                    draw(json_values)
        else:
            path = draw(st.sampled_from(places))
            parent = _parent(doc, path)
            if op == "delete":
                del parent[path[-1]]
            elif op == "respell" and isinstance(parent[path[-1]], str) \
                    and parent[path[-1]] in T.NAMES:
                tile = T.NAMES.index(parent[path[-1]])
                parent[path[-1]] = draw(st.sampled_from(
                    [k for k, v in T.SPELLINGS.items() if v == tile]))
            elif op == "tile":
                parent[path[-1]] = draw(tile_like)
            else:
                parent[path[-1]] = draw(json_values)
    return doc


def respelt(draw: Callable, doc: dict) -> dict:
    """``doc`` with every tile in another accepted spelling."""
    by_tile: dict[int, list] = {}
    for spelling, tile in T.SPELLINGS.items():
        by_tile.setdefault(tile, []).append(spelling)
    out = copy.deepcopy(doc)

    def spell(name: str) -> Any:
        return draw(st.sampled_from(by_tile[T.NAMES.index(name)] + [f" {name}\t"]))

    out["hands"] = {s: [spell(t) for t in tiles] for s, tiles in out["hands"].items()}
    out["plays"] = [spell(t) for t in out.get("plays", [])]
    for key in ("widow", "discard"):
        if key in out:
            out[key] = spell(out[key])
    return out


def accepted_or_error(parse: Callable[[Any], Any], doc: Any) -> Any:
    """``parse(doc)``, or None for a `PositionError`; any other exception fails the test."""
    try:
        return parse(doc)
    except PositionError as exc:
        assert exc.field and exc.reason and exc.code.isupper()
        assert len(str(exc)) < 1300
        return None


def assert_round_trips(position: Position) -> None:
    data = position.to_json()
    assert Position(data) == position
    assert Position(json.dumps(data)) == position
    assert Position(position.to_json_str().encode("utf-16")) == position
    assert Position(convert.position_to_json(convert.position_from_json(data))) == position


# ------------------------------------------------------------- the parsers


@fuzz_settings(300)
@given(doc=mutated(POSITIONS))
def test_position_accepts_or_rejects_cleanly(doc):
    position = accepted_or_error(Position, doc)
    if position is not None:
        assert_round_trips(position)
    as_text = accepted_or_error(Position, json.dumps(doc, default=repr))
    assert (as_text is None) == (position is None) or not _json_plain(doc)


def _json_plain(doc: Any) -> bool:
    """Whether ``doc`` survives json.dumps unchanged (no tuples, NaN, huge ints...)."""
    try:
        return json.loads(json.dumps(doc, allow_nan=False)) == doc
    except (ValueError, TypeError):
        return False


@fuzz_settings(60)
@given(data=st.data(), seed=st.sampled_from(POSITIONS))
def test_every_tile_spelling_means_the_same_position(data, seed):
    assert Position(respelt(data.draw, seed)) == Position(seed)


@fuzz_settings(200)
@given(text=st.one_of(st.text(max_size=40), st.binary(max_size=40),
                      st.sampled_from(POSITIONS).map(json.dumps).flatmap(
                          lambda s: st.integers(0, len(s)).map(lambda n: s[:n]))))
def test_position_from_any_text_or_bytes(text):
    position = accepted_or_error(Position, text)
    if position is not None:
        assert_round_trips(position)


@fuzz_settings(100)
@given(doc=mutated(RECORDS))
def test_hand_record_parser(doc):
    parsed = accepted_or_error(parse_record, doc)
    if parsed is not None:
        position, hand_id, meta = parsed
        assert_round_trips(position)
        json.dumps({"id": hand_id, "meta": meta}, allow_nan=False)  # passes through as JSON


@fuzz_settings(100)
@given(doc=mutated(DEALS))
def test_deal_parser(doc):
    parsed = accepted_or_error(parse_deal, doc)
    if parsed is not None:
        hands, doubles, deal_id, meta = parsed
        assert sorted(t for tiles in hands.values() for t in tiles) == sorted(T.NAMES)
        json.dumps({"id": deal_id, "meta": meta}, allow_nan=False)


@fuzz_settings(40)
@given(doc=mutated(MOON_DEALS), trump=st.sampled_from([None, "sixes", "doubles"]))
def test_discard_input(doc, trump):
    if isinstance(doc, dict) and isinstance(doc.get("contract"), dict) and trump is None:
        doc["contract"].setdefault("trump", "fives")  # keep to one declaration: quick
    table = accepted_or_error(lambda d: best_discards(d, trump), doc)
    if table is not None:
        assert len(table.rows) == 8
        assert table.rows[0].value == max(r.value for r in table.rows)


VIEWS = [json.loads(line)["view"] for name in ("views.jsonl", "views_bad.jsonl")
         for line in (CASES / name).read_text(encoding="utf-8").splitlines() if line.strip()]


@fuzz_settings(200)
@given(doc=mutated(VIEWS))
def test_view_parser(doc):
    view = accepted_or_error(View, doc)
    if view is not None:
        data = view.to_json()
        assert View(data).to_json() == data
        assert View(json.dumps(data)).to_json() == data


# --------------------------------------------------------- gRPC conversion

enum_number = st.one_of(st.integers(min_value=0, max_value=12), st.integers(-2 ** 31, 2 ** 31 - 1))
proto_text = st.one_of(tile_like.filter(lambda t: isinstance(t, str) and "\ud800" not in t),
                       st.text(max_size=6).filter(lambda t: "\ud800" not in t
                                                  and not any(0xD800 <= ord(c) < 0xE000
                                                              for c in t)))


@st.composite
def proto_positions(draw: Callable) -> pb.Position:
    """A proto Position: a case's, with some fields redrawn (enums out of range too)."""
    message = convert.position_from_json(draw(st.sampled_from(POSITIONS)))
    for field in draw(st.lists(st.sampled_from(
            ["game", "declarer", "declaration", "bid", "kind", "doubles", "plays", "hand",
             "widow", "discard"]), max_size=3)):
        if field == "game":
            message.game = draw(enum_number)
        elif field in ("declarer", "declaration", "kind", "doubles"):
            setattr(message.contract, field, draw(enum_number))
        elif field == "bid":
            message.contract.bid = draw(st.integers(min_value=0, max_value=2 ** 32 - 1))
        elif field == "plays":
            del message.plays[draw(st.integers(0, len(message.plays))):]
            message.plays.extend(draw(st.lists(proto_text, max_size=2)))
        elif field == "hand":
            hand = getattr(message.hands, draw(st.sampled_from(["north", "east", "south",
                                                                 "west"])))
            if hand:
                hand[draw(st.integers(0, len(hand) - 1))] = draw(proto_text)
        else:
            setattr(message, field, draw(proto_text))
    return message


@fuzz_settings(200)
@given(message=proto_positions())
def test_grpc_position_conversion(message):
    wire = pb.Position.FromString(message.SerializeToString())
    position = accepted_or_error(lambda m: Position(convert.position_to_json(m)), wire)
    if position is not None:
        assert_round_trips(position)
    else:
        with pytest.raises(PositionError) as info:
            Position(convert.position_to_json(wire))
        assert convert.proto_field_path(info.value.field).startswith("position")


@st.composite
def hand_meta(draw: Callable) -> hand_pb.HandMeta:
    meta = hand_pb.HandMeta(date=draw(proto_text), event=draw(proto_text))
    for seat in draw(st.lists(st.sampled_from(["north", "east", "south", "west"]), max_size=4)):
        setattr(meta.players, seat, draw(proto_text))
    for _ in range(draw(st.integers(0, 3))):
        meta.auction.add(seat=draw(enum_number), bid=draw(st.integers(0, 2 ** 32 - 1)))
    return meta


@fuzz_settings(60)
@given(message=proto_positions(), record_id=proto_text, doubles=enum_number, meta=hand_meta())
def test_grpc_record_and_deal_conversion(message, record_id, doubles, meta):
    request = service_pb.AnalyzeHandRequest(position=message, id=record_id, meta=meta)
    parsed = accepted_or_error(lambda r: parse_record(convert.hand_record_to_json(r)), request)
    if parsed is not None:
        assert_round_trips(parsed[0])
        assert parsed[1] == (record_id or None)
    deal = service_pb.SolveDealRequest(hands=message.hands, doubles=doubles, id=record_id)
    accepted_or_error(lambda r: parse_deal(convert.deal_to_json(r)), deal)


# ------------------------------------------------------- the CLI, for real


def run_batch(command: list[str], docs: list[Any]) -> list[dict]:
    """Feed ``docs`` to ``t42 <command> --json`` as JSON Lines; one output object per line."""
    text = "\n".join(json.dumps(d, default=repr) for d in docs) + "\n"
    done = subprocess.run([sys.executable, "-m", "solver", *command, "--json"],
                          input=text.encode(), capture_output=True, timeout=300)
    stderr = done.stderr.decode()
    assert done.returncode in (0, 2) and "Traceback" not in stderr, stderr[-3000:]
    out = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert len(out) == len(docs), stderr[-3000:]
    assert (done.returncode == 2) == any("error" in o for o in out)
    return out


@fuzz_settings(2)
@given(docs=st.lists(mutated(POSITIONS), min_size=10, max_size=10))
def test_cli_make_or_set_batch(docs):
    for doc, out in zip(docs, run_batch(["make-or-set"], docs)):
        position = accepted_or_error(Position, json.loads(json.dumps(doc, default=repr)))
        assert ("error" in out) == (position is None)


@fuzz_settings(1)
@given(records=st.lists(mutated(RECORDS), min_size=5, max_size=5),
       deals=st.lists(mutated(MOON_DEALS), min_size=5, max_size=5))
def test_cli_analyze_and_discard_batches(records, deals):
    run_batch(["analyze"], records)
    for deal in deals:
        if isinstance(deal, dict) and isinstance(deal.get("contract"), dict):
            deal["contract"]["trump"] = "sixes"
    run_batch(["discard"], deals)
