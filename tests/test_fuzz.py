"""Property-based fuzzing of every input parser, the CLI and the gRPC conversion.

The documents are the check positions and views of tests/cases (and the examples),
mutated: values replaced by arbitrary JSON (or by tile-like text with odd
digits), keys deleted or added, plays cut or shuffled, tiles respelt. The
properties:

* any input gives a result or the package's `PositionError`, never another
  exception (a `PositionError` is short and names a field); hint requests, bid
  requests and their gRPC messages may also end in `ArgumentError` (a bad API
  argument) or `SearchCancelled` (they run under a node budget, with small deal
  counts, so that every example takes milliseconds), never in unbounded work;
  the lines `t42 report` reads, CountDeals requests and views' deal counts too;
* an accepted position round-trips: ``Position(p.to_json()) == p``, from its
  JSON text too, and through the proto message of the gRPC API; so does an
  accepted view (`solver.game.view.View`);
* a tile accepted in any spelling means the same tile as its ``H-L`` form.

Budget: about 20 s. ``T42_FUZZ_SCALE=50 pytest tests/test_fuzz.py`` runs
fifty times as many examples (the coverage-guided harness is in fuzz/).
"""

from __future__ import annotations

import copy
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server import bid_convert, convert, hint_convert
from solver import Position, PositionError
from solver.game import tiles as T
from solver.game.bid_request import request_from_json
from solver.game.errors import ArgumentError, SearchCancelled
from solver.game.quick import fill_hands
from solver.game.view import View
from solver.hidden.bidding import MAX_DEALS, advise
from solver.hidden.deals import count_deals, tile_probabilities
from solver.hidden.hint import hint
from solver.search._core import CancelToken
from solver.search.analysis import analyze_hand, parse_record
from solver.search.discard import best_discards
from solver.search.table import parse_deal
from solver.show.report import read_report
from texas42.v1 import bidding_pb2 as bid_pb
from texas42.v1 import hand_analysis_pb2 as hand_pb
from texas42.v1 import hint_pb2
from texas42.v1 import hint_service_pb2 as service_pb
from texas42.v1 import position_pb2 as pb
from texas42.v1 import view_pb2

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


# ------------------------------------ hint, bid advice, report lines: the newer inputs

#: Nodes each engine of a fuzzed hint or bid advice may search: every call ends in
#: milliseconds, with its answer or `SearchCancelled` (an allowed outcome).
NODE_BUDGET = 100_000
#: Wall-clock backstop of every fuzzed call; reaching it means unbounded work (a bug).
SLOW = 30.0


def bounded_token() -> CancelToken:
    return CancelToken(node_budget=NODE_BUDGET, deadline=time.monotonic() + SLOW)


def within_contract(call: Callable[[], Any]) -> Any:
    """``call()``, or the project's error it raised (`PositionError`, `ArgumentError`,
    `SearchCancelled`) as a value; any other exception fails the test, and so does
    a call that runs into the backstop."""
    started = time.monotonic()
    try:
        return call()
    except PositionError as exc:
        assert exc.field and exc.reason and exc.code.isupper()
        assert len(str(exc)) < 1300
        return exc
    except ArgumentError as exc:
        assert exc.argument and exc.reason
        return exc
    except SearchCancelled as exc:
        return exc
    finally:
        assert time.monotonic() - started < SLOW, "unbounded work"


def small_or_hostile(limit: int) -> st.SearchStrategy:
    """An option value: a small whole number (valid or not), or any hostile value but
    a whole number above ``limit`` (a valid large count is real work: the bounds on
    it are tested elsewhere)."""
    return st.one_of(
        st.integers(min_value=-2, max_value=limit),
        st.sampled_from([0, -1, -2 ** 63, True, False, None, 2.0, 1.5, math.nan, math.inf,
                         "3", "", [], {}, [3], b"3"]),
        json_values.filter(lambda v: not (isinstance(v, int) and v > limit)))


def _views(name: str, kind: str | None = None) -> list[dict]:
    rows = [json.loads(line) for line in (CASES / name).read_text(encoding="utf-8").splitlines()
            if line.strip()]
    return [r["view"] for r in rows if kind is None or r.get("kind") == kind]


#: Views whose viewer is to move (and the example view at the second play).
HINT_VIEWS = _views("views.jsonl", "hint")[::2] + \
    [json.loads((ROOT / "examples" / "view.json").read_text())]
#: Every good and bad case view.
ALL_VIEWS = _views("views.jsonl") + _views("views_bad.jsonl") + HINT_VIEWS[-1:]

timeouts = st.one_of(st.none(), st.floats(), st.integers(-5, 5),
                     st.sampled_from([0, 1e-9, 1e30, 10 ** 30, -10 ** 30]))
hint_seeds = st.one_of(st.none(), st.integers(), st.text(max_size=5), st.floats(), json_values,
                       st.binary(max_size=3))


@fuzz_settings(70)
@given(view=st.one_of(st.sampled_from(HINT_VIEWS), mutated(HINT_VIEWS)),
       deals=small_or_hostile(4), enumerate_limit=small_or_hostile(50),
       objective=st.one_of(st.sampled_from(["make", "points", "MAKE", ""]), json_values),
       seed=hint_seeds, adaptive=st.one_of(st.booleans(), json_values),
       max_deals=st.one_of(st.none(), st.integers(-2, 2 ** 70), json_values),
       examples=small_or_hostile(3), timeout=timeouts)
def test_hint_request(view, deals, enumerate_limit, objective, seed, adaptive, max_deals,
                      examples, timeout):
    result = within_contract(lambda: hint(
        view, deals=deals, enumerate_limit=enumerate_limit, objective=objective, seed=seed,
        adaptive=adaptive, max_deals=max_deals, examples=examples, timeout=timeout,
        token=bounded_token(), threads=1))
    if isinstance(result, Exception):
        return
    legal = set(View(view).legal_tiles())
    assert set(result.moves) == legal and set(result.best) <= legal
    assert 1 <= result.deals
    assert result.method == "enumerated" or adaptive or result.deals == deals
    json.dumps(result.to_json(), allow_nan=False)


@fuzz_settings(60)
@given(doc=mutated(ALL_VIEWS))
def test_view_deal_count(doc):
    view = accepted_or_error(View, doc)
    if view is None:
        return
    assert count_deals(view) >= 1
    for tile, places in tile_probabilities(view).items():
        assert math.isclose(sum(places.values()), 1.0, abs_tol=1e-9), tile


def _bid_requests() -> list[dict]:
    """Bid requests of every shape: the hands of the check positions (42, and Moon with
    three and four players), with auctions, options and the view form."""
    out: list[dict] = []
    for i, p in enumerate(POSITIONS[::3]):
        seat, hand = next((s, h) for s, h in p["hands"].items() if len(h) == 7)
        game = p.get("game", "42")
        request: dict[str, Any] = {"hand": hand, "seat": seat, "deals": 2, "seed": i}
        if game == "moon":
            request.update(game="moon", players=len(p["hands"]),
                           auction=["pass", {"seat": seat, "bid": 5}])
        else:
            request.update(auction=[30, "pass", {"seat": "E", "bid": 31}], doubles="low",
                           declarations=["fours", "nello", "doubles"], threshold=0.5)
        out.append(request)
    first = out[0]
    out.append({"seat": first["seat"], "hands": {first["seat"]: first["hand"]}, "deals": 1,
                "auction": [{"seat": "N", "bid": 84}], "adaptive": True, "calibrated": True,
                "id": "view form"})
    return out


BID_REQUESTS = _bid_requests()


def bounded_deals(args: dict) -> dict:
    """``args`` with a small deal count (a larger valid one is real work)."""
    deals = args.get("deals", 2)
    if isinstance(deals, int) and 4 < deals <= MAX_DEALS:
        deals = 2
    return {**args, "deals": deals}


@fuzz_settings(60)
@given(doc=st.one_of(st.sampled_from(BID_REQUESTS), mutated(BID_REQUESTS)))
def test_bid_request(doc):
    advice = within_contract(lambda: advise(**bounded_deals(request_from_json(doc)),
                                            token=bounded_token(), threads=1))
    if isinstance(advice, Exception):
        return
    assert len(advice.hand) == 7 and advice.declarations
    json.dumps(advice.to_json(), allow_nan=False)


def _analyses() -> list[dict]:
    """`t42 analyze --json` lines of the example hands, and a bad line's error object."""
    out = [analyze_hand(record).to_json() for record in RECORDS]
    out.append({"id": "bad", "error": {"field": "plays[3]", "reason": "not legal",
                                       "code": "ILLEGAL_PLAY"}})
    return out


ANALYSES = _analyses()
report_lines = st.one_of(
    st.sampled_from(ANALYSES).map(json.dumps),
    mutated(ANALYSES).map(lambda d: json.dumps(d, default=repr)),
    st.text(max_size=12),
    st.sampled_from(["[]", "42", "null", '"x"', "{}", '{"error": 1}', "[" * 5000 + "]" * 5000,
                     '{"seats": {}}', "\ufeff{}", "\x00", "NaN", "1e999"]))


@fuzz_settings(80)
@given(lines=st.lists(report_lines, min_size=1, max_size=3), as_bytes=st.booleans())
def test_report_lines(lines, as_bytes):
    text = [line + "\n" for line in lines]
    report = within_contract(lambda: read_report(
        [line.encode("utf-8", "surrogatepass") for line in text] if as_bytes else text))
    if not isinstance(report, Exception):
        assert report.hands + report.errors == sum(1 for line in lines if line.strip())


# ----------------------------------------------- bugs found by fuzzing, now fixed

VIEW = json.loads((ROOT / "examples" / "view.json").read_text())
HAND = ["6-6", "6-5", "6-4", "5-5", "4-4", "3-3", "0-0"]


@pytest.mark.parametrize("seed", [[1], b"x", 1.5, -1, 2 ** 63, True, "7"])
def test_a_hint_seed_that_is_no_whole_number_0_to_2_63_is_refused(seed):
    with pytest.raises(PositionError) as info:
        hint(VIEW, deals=2, enumerate_limit=0, seed=seed, threads=1)
    assert info.value.field == "seed" and info.value.code == "INVALID_VALUE"


def test_one_sampled_deal_gives_json_without_infinite_intervals():
    result = hint(VIEW, deals=1, enumerate_limit=0, seed=1, threads=1)
    out = json.loads(json.dumps(result.to_json(), allow_nan=False))
    assert out["deals"] == 1
    assert all("mean_ci" not in m and m["p_make_ci"][0] < m["p_make_ci"][1]
               for m in out["moves"].values())


def test_an_unknown_bid_request_key_is_quoted_as_the_field():
    with pytest.raises(PositionError) as info:
        request_from_json({"seat": "N", "hand": HAND, "": 1})
    assert (info.value.field, info.value.code) == ("''", "UNKNOWN_FIELD")
    with pytest.raises(PositionError) as info:
        request_from_json({"seat": "N", "hand": HAND, "hand[0]": 1})
    assert info.value.field == "'hand[0]'"


def test_a_bid_request_seat_that_is_a_list_is_an_error_not_a_type_error():
    with pytest.raises(PositionError) as info:
        request_from_json({"seat": [], "hands": {"N": HAND}})
    assert info.value.field == "hand" and info.value.code == "MISSING_FIELD"



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


def _proto_view(doc: dict) -> view_pb2.View | None:
    try:
        return convert.view_from_json(doc)
    except PositionError:
        return None  # a bad seat, say: the message cannot say it


PROTO_VIEWS = [m for m in map(_proto_view, ALL_VIEWS) if m is not None]


@st.composite
def proto_views(draw: Callable) -> view_pb2.View:
    """A proto View: a case view's, with some fields redrawn (enums out of range too)."""
    message = view_pb2.View()
    message.CopyFrom(draw(st.sampled_from(PROTO_VIEWS)))
    for field in draw(st.lists(st.sampled_from(
            ["seat", "game", "players", "declarer", "declaration", "bid", "kind", "doubles",
             "plays", "hand", "widow", "discard", "auction", "no contract"]), max_size=3)):
        if field in ("seat", "game"):
            setattr(message, field, draw(enum_number))
        elif field == "players":
            message.players = draw(st.one_of(st.integers(0, 5), st.integers(0, 2 ** 32 - 1)))
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
            if hand and draw(st.booleans()):
                hand[draw(st.integers(0, len(hand) - 1))] = draw(proto_text)
            else:
                hand.extend(draw(st.lists(proto_text, max_size=2)))
        elif field == "auction":
            for _ in range(draw(st.integers(1, 3))):
                message.auction.add(seat=draw(enum_number),
                                    bid=draw(st.integers(0, 2 ** 32 - 1)))
        elif field == "no contract":
            message.ClearField("contract")
        else:
            setattr(message, field, draw(proto_text))
    return view_pb2.View.FromString(message.SerializeToString())


@fuzz_settings(60)
@given(message=proto_views())
def test_grpc_count_deals_conversion(message):
    request = view_pb2.CountDealsRequest.FromString(
        view_pb2.CountDealsRequest(view=message).SerializeToString())

    def count_deals_call() -> Any:
        view = View(convert.view_to_json(request.view))
        return convert.count_deals_to_proto(count_deals(view), tile_probabilities(view),
                                            view.to_move, view.side)

    answer = within_contract(count_deals_call)
    if isinstance(answer, PositionError):
        assert convert.view_field_path(answer.field).startswith("view")
    else:
        assert answer.count >= 1


uint32 = st.integers(0, 2 ** 32 - 1)


@st.composite
def hint_requests(draw: Callable) -> hint_pb2.HintRequest:
    request = hint_pb2.HintRequest(
        view=draw(proto_views()), deals=draw(st.integers(0, 4)), objective=draw(enum_number),
        adaptive=draw(st.booleans()), max_deals=draw(st.one_of(st.integers(0, 9), uint32)),
        examples=draw(st.one_of(st.integers(0, 3), uint32)))
    if draw(st.booleans()):
        request.enumerate_limit = draw(st.integers(0, 50))
    if draw(st.booleans()):
        request.seed = draw(st.integers(-2 ** 63, 2 ** 63 - 1))
    return hint_pb2.HintRequest.FromString(request.SerializeToString())


@fuzz_settings(60)
@given(request=hint_requests())
def test_grpc_hint_conversion(request):
    answer = within_contract(lambda: hint_convert.hint_to_proto(hint(
        convert.view_to_json(request.view), token=bounded_token(), threads=1,
        **hint_convert.hint_options(request))))
    if isinstance(answer, PositionError):
        path = hint_convert.hint_field_path(answer.field)
        assert path.startswith("view") or path in hint_convert.OPTION_FIELDS, path
    elif not isinstance(answer, Exception):
        assert answer.moves and answer.best


@st.composite
def bid_requests(draw: Callable) -> bid_pb.BidAdviceRequest:
    """A BidAdvice request: a case hand with some fields drawn (enums out of range too)."""
    doc = draw(st.sampled_from(BID_REQUESTS))
    hand = list(doc.get("hand") or doc["hands"][doc["seat"]])
    for _ in range(draw(st.integers(0, 2))):
        if hand and draw(st.booleans()):
            hand[draw(st.integers(0, len(hand) - 1))] = draw(proto_text)
        else:
            hand.append(draw(proto_text))
    request = bid_pb.BidAdviceRequest(
        hand=hand, seat=draw(st.one_of(st.sampled_from([1, 2, 3, 4]), enum_number)),
        game=draw(st.one_of(st.sampled_from([0, 1, 2]), enum_number)),
        players=draw(st.one_of(st.integers(0, 5), uint32)),
        doubles=draw(enum_number), deals=draw(st.one_of(st.integers(0, 3),
                                                       st.integers(MAX_DEALS + 1, 2 ** 32 - 1))),
        adaptive=draw(st.booleans()), calibrated=draw(st.booleans()))
    for _ in range(draw(st.integers(0, 3))):
        request.auction.add(seat=draw(enum_number), bid=draw(st.one_of(
            st.sampled_from([0, 30, 31, 42, 84, 4, 5, 21]), uint32)))
    for _ in range(draw(st.integers(0, 3))):
        request.declarations.add(declaration=draw(enum_number), kind=draw(enum_number))
    if draw(st.booleans()):
        request.seed = draw(st.integers(0, 2 ** 64 - 1))
    if draw(st.booleans()):
        request.threshold = draw(st.floats())
    return bid_pb.BidAdviceRequest.FromString(request.SerializeToString())


@fuzz_settings(60)
@given(request=bid_requests())
def test_grpc_bid_advice_conversion(request):
    answer = within_contract(lambda: bid_convert.advice_to_proto(advise(
        **bid_convert.request_to_kwargs(request), token=bounded_token(), threads=1)))
    if isinstance(answer, PositionError):
        assert bid_convert.bid_field_path(answer.field)
    elif not isinstance(answer, Exception):
        assert len(answer.hand) == 7 and answer.declarations


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
        # The command line reads a position as fill_hands does: a hand missing that its
        # plays or the other hands determine is filled in.
        position = accepted_or_error(lambda d: Position(fill_hands(d) if isinstance(d, dict)
                                                        else d),
                                     json.loads(json.dumps(doc, default=repr)))
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
