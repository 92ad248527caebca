"""Hostile input through every parser, every `t42` command and the gRPC service.

Tiles written with non-ASCII digits, documents nested thousands deep,
misspelt keys, values of megabytes, undecodable bytes, numbers over 4,300
digits: each must give the package's `PositionError` (a clear line and exit
status 2 in the CLI, INVALID_ARGUMENT in gRPC), never another exception, a
traceback, or a silently wrong answer; and in a JSON Lines batch a bad line
never costs the lines after it.
"""

from __future__ import annotations

import codecs
import copy
import json
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from grpc_helpers import assert_invalid, bad_request

from server import convert
from solver import Position, PositionError, solve
from solver.game.view import View
from solver.search.analysis import parse_record
from solver.search.discard import best_discards
from solver.search.table import parse_deal
from texas42.v1 import hint_service_pb2 as service_pb
from texas42.v1 import position_pb2 as pb

ROOT = Path(__file__).resolve().parents[1]
DEAL = json.loads((ROOT / "examples" / "deal.json").read_text())
RECORD = json.loads((ROOT / "examples" / "hands.jsonl").read_text().splitlines()[0])
RECORD["plays"] = RECORD["plays"][:4]  # a short hand keeps the CLI runs quick
MOON_DEAL = dict(json.loads((ROOT / "examples" / "moon-discard.json").read_text()),
                 contract={"declarer": "N", "trump": "sixes", "bid": 5})
TABLE_DEAL = {"hands": DEAL["hands"], "id": "d1"}

DEEP = "[" * 100_000 + "]" * 100_000
MEGA_TILE = "6" * 5_000_000


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


def with_tile(doc: dict, tile: object, seat: str = "N") -> dict:
    out = copy.deepcopy(doc)
    out["hands"][seat][0] = tile
    return out


def t42(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *args], input=stdin,
                          capture_output=True, timeout=120)


def error_lines(done: subprocess.CompletedProcess) -> list[str]:
    text = done.stderr.decode()
    assert "Traceback" not in text
    lines = text.splitlines()
    assert all(line.startswith("t42: error: ") and len(line) < 400 for line in lines), text[:2000]
    return lines


# --------------------------------------------------- the parsers, through the API

#: Every parser of a document, and a good document for it.
PARSERS = {
    "position": (Position, DEAL),
    "hand record": (parse_record, RECORD),
    "deal": (parse_deal, TABLE_DEAL),
    "moon deal": (lambda doc: best_discards(doc), MOON_DEAL),
}


def check_rejected(parse, doc, field, code):
    with pytest.raises(PositionError) as info:
        parse(doc)
    assert (info.value.field, info.value.code) == (field, code), info.value.reason
    assert len(str(info.value)) < 400
    return info.value


@pytest.mark.parametrize("tile", ["\u00b2-1", "\u0666-\u0664", "\uff16-\uff14", "6\u2013" "4",
                                  "\u00a06-4", True, 64.5, [6, 4]])
@pytest.mark.parametrize("kind", PARSERS)
def test_tiles_are_ascii_digits_in_every_parser(kind, tile):
    parse, good = PARSERS[kind]
    parse(good)
    check_rejected(parse, with_tile(good, tile), "hands.N[0]", "UNKNOWN_TILE")
    # Also as JSON text, where "\u00b2" is an escape.
    check_rejected(parse, json.dumps(with_tile(good, tile)), "hands.N[0]", "UNKNOWN_TILE")


@pytest.mark.parametrize("kind", PARSERS)
def test_unknown_keys_are_rejected_at_every_level(kind):
    parse, good = PARSERS[kind]
    err = check_rejected(parse, dict(good, plyas=[]), "plyas", "UNKNOWN_FIELD")
    assert "known: " in err.reason and "plays" in err.reason and "hands" in err.reason
    contract = dict(good.get("contract") or {}, kidn="splash")
    err = check_rejected(parse, dict(good, contract=contract), "contract.kidn", "UNKNOWN_FIELD")
    assert "doubles" in err.reason and "kind" in err.reason


def test_the_table_checks_the_keys_of_a_contract_it_ignores():
    parse_deal(dict(DEAL))  # a whole position is a deal
    check_rejected(parse_deal, dict(DEAL, contract={"declarer": "W", "trupm": "fours"}),
                   "contract.trupm", "UNKNOWN_FIELD")
    check_rejected(parse_deal, dict(DEAL, contract="fours"), "contract", "INVALID_TYPE")


@pytest.mark.parametrize("kind", PARSERS)
def test_deep_nesting_is_bad_input(kind):
    parse, good = PARSERS[kind]
    check_rejected(parse, DEEP, "position" if kind in ("position", "moon deal") else
                   {"hand record": "record", "deal": "deal"}[kind], "TOO_DEEP")
    # A deep value in a field that is rejected, and one in a field passed through.
    check_rejected(parse, dict(good, game=nested(50_000)), "game[0][0]", "TOO_DEEP")
    if kind in ("hand record", "deal"):
        check_rejected(parse, dict(good, id=nested(100)), "id[0][0]", "TOO_DEEP")
        check_rejected(parse, dict(good, meta={"x": nested(100)}), "meta.x[0]", "TOO_DEEP")


def test_a_deep_value_is_quoted_short():
    err = check_rejected(Position, dict(DEAL, game=nested(25)), "game", "UNKNOWN_GAME")
    assert "[[[" in err.reason


@pytest.mark.parametrize("kind", PARSERS)
def test_game_is_the_string_42_or_moon(kind):
    parse, good = PARSERS[kind]
    code = "UNSUPPORTED_GAME" if kind == "moon deal" else "UNKNOWN_GAME"
    for game in (42.0, 42, True, "42.0", " 42"):
        check_rejected(parse, dict(good, game=game), "game", code)


@pytest.mark.parametrize("kind", PARSERS)
def test_integers_over_4300_digits(kind):
    parse, good = PARSERS[kind]
    huge = 10 ** 5000
    check_rejected(parse, with_tile(good, huge), "hands.N[0]", "INVALID_VALUE")
    check_rejected(parse, dict(good, game=huge), "game", "INVALID_VALUE")
    contract = dict(good.get("contract") or {}, bid=huge)
    check_rejected(parse, dict(good, contract=contract), "contract.bid", "INVALID_VALUE")
    text = json.dumps(good).replace("{", '{"x": ' + "9" * 5000 + ", ", 1)
    err = check_rejected(parse, text, {"position": "position", "hand record": "record",
                                       "deal": "deal", "moon deal": "position"}[kind],
                         "INVALID_JSON")
    assert "4300 digits" in err.reason


def test_a_megabyte_value_is_quoted_by_a_prefix():
    err = check_rejected(Position, dict(DEAL, plays=[MEGA_TILE]), "plays[0]", "UNKNOWN_TILE")
    assert "5000000 characters" in err.reason
    with pytest.raises(PositionError) as info:
        Position({**DEAL, MEGA_TILE: 1})
    assert info.value.code == "UNKNOWN_FIELD" and len(str(info.value)) < 400


@pytest.mark.parametrize("encode", [
    lambda text: codecs.BOM_UTF8 + text.encode(),
    lambda text: text.encode("utf-16"),
    lambda text: text.encode("utf-16-be"),
    lambda text: text.encode("utf-32"),
    lambda text: "\ufeff" + text,
], ids=["utf8-bom", "utf16-bom", "utf16be", "utf32", "str-bom"])
def test_json_text_with_a_bom_or_in_utf16_is_read(encode):
    assert Position(encode(json.dumps(DEAL))) == Position(DEAL)


def test_view_parser_is_as_strict():
    view = json.loads((ROOT / "tests" / "cases" / "views.jsonl").read_text().splitlines()[0])
    view = view["view"]
    View(view)
    seat = view["seat"]
    bad_tile = dict(view, hands={seat: ["\u0666-\u0664"] + view["hands"][seat][1:]})
    for doc, field, code in [
        (dict(view, sset="E"), "sset", "UNKNOWN_FIELD"),
        (dict(view, contract=dict(view["contract"], kidn="plunge")), "contract.kidn",
         "UNKNOWN_FIELD"),
        (dict(view, auction=[{"seat": "N", "bid": 30, "bdi": 31}]), "auction[0].bdi",
         "UNKNOWN_FIELD"),
        (dict(view, game=42.0), "game", "UNKNOWN_GAME"),
        (bad_tile, f"hands.{seat}[0]", "UNKNOWN_TILE"),
        (dict(view, seat=10 ** 100), "seat", "UNKNOWN_SEAT"),
        (dict(view, auction=nested(10_000)), "auction[0][0]", "TOO_DEEP"),
        (DEEP, "view", "TOO_DEEP"),
    ]:
        check_rejected(View, doc, field, code)


# ------------------------------------------------ the CLI, as a real process

def good_and_bad_lines(good: dict) -> tuple[bytes, list[str | None]]:
    """JSON Lines: good, then one bad line of each kind, then good again; and the
    expected error code per line (None: a result)."""
    lines: list[tuple[bytes, str | None]] = [
        (json.dumps(good).encode(), None),
        (json.dumps(with_tile(good, "\u00b2-1")).encode(), "UNKNOWN_TILE"),
        (json.dumps(with_tile(good, "\uff16-\uff14"), ensure_ascii=False).encode(),
         "UNKNOWN_TILE"),
        (DEEP.encode(), "TOO_DEEP"),
        (json.dumps(dict(good, plyas=[])).encode(), "UNKNOWN_FIELD"),
        (json.dumps(with_tile(good, MEGA_TILE)).encode(), "UNKNOWN_TILE"),
        (json.dumps(good).encode()[:-2] + b'\xff"}', "INVALID_ENCODING"),
        (json.dumps(good).replace("{", '{"x": ' + "1" * 5000 + ", ", 1).encode(),
         "INVALID_JSON"),
        (b'{"hands": 1, "hands": 2}', "DUPLICATE_KEY"),
        (json.dumps(dict(good, game=42.0)).encode(), "game"),
        (json.dumps(good).encode(), None),
    ]
    return b"\n".join(line for line, _ in lines) + b"\n", [code for _, code in lines]


@pytest.mark.parametrize("command, good", [
    (["solve"], DEAL), (["make-or-set"], DEAL), (["analyze", "--no-progress"], RECORD),
    (["table"], TABLE_DEAL), (["discard"], MOON_DEAL),
], ids=["solve", "make-or-set", "analyze", "table", "discard"])
def test_a_bad_line_never_loses_the_later_lines(tmp_path, command, good):
    data, expected = good_and_bad_lines(good)
    path = tmp_path / "batch.jsonl"
    path.write_bytes(data)
    done = t42(*command, "--json", str(path))
    assert done.returncode == 2
    out = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert len(out) == len(expected)
    for obj, code in zip(out, expected):
        if code is None:
            assert "error" not in obj
        elif code == "game":
            assert obj["error"]["field"] == "game"
        else:
            assert obj["error"]["code"] == code, obj
    assert out[0] == out[-1]
    assert len(error_lines(done)) == len(expected) - 2
    assert len(done.stdout) < 20_000  # the megabyte tile is not echoed


@pytest.mark.parametrize("command, good", [
    (["solve", "--json"], DEAL), (["make-or-set", "--json"], DEAL),
    (["analyze", "--json"], RECORD), (["table", "--json"], TABLE_DEAL),
    (["discard", "--json"], MOON_DEAL),
], ids=["solve", "make-or-set", "analyze", "table", "discard"])
def test_file_encodings(tmp_path, command, good):
    text = json.dumps(good, indent=2)  # one document over several lines
    expected = None
    for name, data, ok in [
        ("utf8", text.encode(), True),
        ("bom", codecs.BOM_UTF8 + text.encode(), True),
        ("utf16", text.encode("utf-16"), True),
        ("bad-utf8", text.encode()[:-3] + b"\xc3\x28}", False),
        ("bad-utf16", text.encode("utf-16")[:-1], False),
        ("lone-surrogate-utf16", text.encode("utf-16-le")[:-2] + b"\x00\xd8" + b"}\x00", False),
    ]:
        path = tmp_path / f"{name}.json"
        path.write_bytes(data)
        done = t42(*command, str(path))
        if ok:
            assert done.returncode == 0, done.stderr
            assert expected in (None, done.stdout)
            expected = done.stdout
        else:
            assert done.returncode == 2
            lines = error_lines(done)
            assert len(lines) == 1 and "not valid UTF-" in lines[0], lines
    # Standard input is read the same way.
    done = t42(*command, stdin=codecs.BOM_UTF8 + text.encode())
    assert done.returncode == 0 and done.stdout == expected


def test_cli_one_line_for_megabytes_and_misspelt_keys(tmp_path):
    path = tmp_path / "big.json"
    path.write_text(json.dumps(dict(DEAL, plays=[MEGA_TILE])))
    done = t42("solve", str(path))
    assert done.returncode == 2 and len(done.stderr) < 400
    assert error_lines(done)[0].startswith("t42: error: plays[0]: unknown tile '666")
    # "plyas" was once read as no plays at all: a silently wrong answer.
    done = t42("make-or-set", stdin=json.dumps(dict(DEAL, plyas=["4-0"])).encode())
    assert done.returncode == 2 and done.stdout == b""
    assert error_lines(done) == ["t42: error: plyas: unknown field of a position (known: game, "
                                 "hands, contract, plays, widow, discard)"]


def test_deal_contract_argument_is_read_like_any_document():
    done = t42("deal", "--count", "1", "--contract", '{"a": ' * 10_000 + "1" + "}" * 10_000)
    assert done.returncode == 2 and error_lines(done) == [
        "t42: error: --contract: nested more than 32 levels deep"]
    # Not JSON text (no "{"): the quick notation's error, its echo cut short.
    done = t42("deal", "--count", "1", "--contract", "[" * 50_000 + "]" * 50_000)
    assert done.returncode == 2 and len(done.stderr) < 400
    assert error_lines(done)[0].startswith("t42: error: --contract: expected "
                                           "DECLARER:DECLARATION:BID")
    done = t42("deal", "--count", "1", "--contract", json.dumps(
        {"declarer": "N", "trump": "fours", "bid": 30, "kidn": "splash"}))
    assert done.returncode == 2
    assert error_lines(done)[0].startswith("t42: error: contract.kidn: unknown field")


def test_cli_documents_are_objects_not_json_text_in_a_string():
    # The Python API reads a str as JSON text; the CLI must not parse a JSON string twice.
    done = t42("solve", "--json", stdin=(json.dumps(json.dumps(DEAL)) + "\n"
                                         + json.dumps(DEAL) + "\n").encode())
    assert done.returncode == 2
    first, second = (json.loads(line) for line in done.stdout.decode().splitlines())
    assert first["error"] == {"field": "position", "code": "INVALID_TYPE",
                              "reason": "an input document must be a JSON object"}
    assert second["value"] == solve(DEAL).value


# ------------------------------------------------------------------------ gRPC

def proto_with(**changes) -> pb.Position:
    data = copy.deepcopy(DEAL)
    data.update(changes)
    return convert.position_from_json(data)


@pytest.mark.parametrize("tile", ["\u00b2-1", "\u0666-\u0664", "\uff16-\uff14", MEGA_TILE])
def test_conversion_of_a_proto_position_rejects_bad_tiles(tile):
    message = proto_with(plays=[tile])
    with pytest.raises(PositionError) as info:
        Position(convert.position_to_json(message))
    assert (info.value.field, info.value.code) == ("plays[0]", "UNKNOWN_TILE")
    assert convert.proto_field_path(info.value.field) == "position.plays[0]"
    assert len(str(info.value)) < 400


def test_service_rejects_bad_tiles_with_invalid_argument(stub):
    request = service_pb.SolvePositionRequest(position=proto_with(plays=["\u00b2-1"]))
    assert_invalid(lambda: stub.SolvePosition(request, timeout=60), "position.plays[0]",
                   "UNKNOWN_TILE")
    # A value far over the client's metadata limit still gives INVALID_ARGUMENT.
    request = service_pb.SolvePositionRequest(position=proto_with(plays=["6" * 1_000_000]))
    with pytest.raises(grpc.RpcError) as err:
        stub.SolvePosition(request, timeout=60)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    violations, reason = bad_request(err.value)
    assert reason == "UNKNOWN_TILE" and len(violations[0][1]) < 400


def test_one_bad_slot_does_not_fail_a_batch(stub):
    good = proto_with()
    request = service_pb.SolvePositionsRequest(positions=[
        good, proto_with(plays=["\u0666-\u0664"]), good])
    response = stub.SolvePositions(request, timeout=60)
    slots = list(response.results)
    assert [s.WhichOneof("result") for s in slots] == ["solution", "error", "solution"]
    assert slots[1].error.field == "positions[1].plays[0]"
    assert slots[1].error.code == "UNKNOWN_TILE"
    assert slots[0].solution.value == slots[2].solution.value == solve(DEAL).value


def test_make_or_set_with_a_huge_bid():
    from solver import make_or_set
    for bid in (10 ** 5000, 10 ** 100, True, 42.0):
        with pytest.raises(PositionError) as info:
            make_or_set(DEAL, bid)
        assert info.value.field == "bid" and len(str(info.value)) < 400
