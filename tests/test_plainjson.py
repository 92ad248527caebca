"""JSON documents read through the C shortcuts of solver.game.jsondoc (solver/game/_plainjson.pyx).

`check_document` returns at once for a document `is_plain` recognises, and
`parse_json` decodes without the repeated-key hook when the colons of the
text match the keys decoded. Both must judge every document exactly as the
full Python path does. Budget: under 1 s.
"""

from __future__ import annotations

import json
import random

import pytest

from solver import PositionError
from solver.game import jsondoc
from solver.game._plainjson import count_keys, is_plain


def verdict(text: str):
    try:
        return "ok", jsondoc.parse_json(text, "position")
    except PositionError as exc:
        return "error", exc.to_json()


def slow_verdict(text: str):
    """parse_json with the shortcuts off: the hook on every object, the full walk."""
    saved = jsondoc._SCAN, jsondoc.is_plain
    jsondoc._SCAN, jsondoc.is_plain = jsondoc._DECODER.scan_once, lambda *_: False
    try:
        return verdict(text)
    finally:
        jsondoc._SCAN, jsondoc.is_plain = saved


@pytest.mark.parametrize("text", [
    '{"a":1,"a":2}', '{"a" :1, "a":2}', '{"a":"x:","a":1}', '{"b":{"a":1,"a":1}}',
    '[{"a":1},{"a":1}]', '{"a":"6:4"}', '{"a": NaN}', '  {"a":1}', '{"a":1} x', '{"a":1}\n',
    '{"a\\u003a":1,"a\\u003a":2}', '{"x": [1, 2, {"y": ":"}], "y": 1}', '{"a": 1e999}',
    '{"a": "\\ud800"}', '{"a": ' + "[" * 40 + "]" * 40 + "}", '{"a": ' + "9" * 5000 + "}",
    '{"a": 123456789012345678901234567890}', '{"é": 1}', '{"a": "é"}',
])
def test_documents_are_judged_as_by_the_full_path(text):
    assert verdict(text) == slow_verdict(text)


def test_random_documents_are_judged_as_by_the_full_path():
    rng = random.Random(3)
    atoms = [0, -1, 2 ** 63, 1.5, True, None, "a", ":", "é", "\ud800", "6:4", float("inf")]

    def value(depth: int):
        r = rng.random()
        if depth > 4 or r < 0.4:
            return rng.choice(atoms)
        if r < 0.7:
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        return {rng.choice(["a", "b", "c", ":", "é"]): value(depth + 1)
                for _ in range(rng.randrange(4))}

    for _ in range(400):
        doc = {"k": value(0)}
        text = json.dumps(doc)
        if rng.random() < 0.3:  # a key repeated in the text
            text = text[:-1] + ', "k": 1}'
        assert verdict(text) == slow_verdict(text), text


def test_is_plain_says_yes_only_to_plain_data():
    assert is_plain({"a": [1, "x", None, True, 1.5, {"b": []}]}, 32)
    for bad in ({"a": float("nan")}, {"a": "é"}, {1: 2}, {"a": (1,)}, {"a": 2 ** 64},
                {"a": b"x"}, [[[]]]):
        assert not is_plain(bad, 2 if bad == [[[]]] else 32)
    assert count_keys({"a": {"b": 1, "c": [{"d": 1}]}, "e": []}) == 5
