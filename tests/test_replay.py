"""The fast position reader (solver/game/_replay.pyx) against Position's own reader.

`Position` reads a plain dict of the usual shape in C and anything else (any
other mapping, unusual spellings, every error) the slow way. A mapping that is
not a dict always takes the slow way, so reading the same document as a dict
and as a read-only mapping view compares the two readers: on valid positions
every derived field must be equal (and so must `solve`'s answer), on broken
ones the error (field, reason, code).

Budget: about 3 s.
"""

from __future__ import annotations

import copy
import json
import random
from types import MappingProxyType
from typing import Any

import pytest

from solver import Position, PositionError, make_or_set, solve
from solver.game._replay import read
from solver.game.tiles import NAMES, name_of

DECLARATIONS = [("sixes", "high"), ("blanks", "high"), ("doubles", "high"), ("4", "high"),
                ("follow-me", "high"), ("follow-me", "low"), ("follow-me", "suit"),
                ("nello", "high"), ("nello", "low"), ("nello", "suit"), ("sevens", "high"),
                ("notrump", "high"), (3, "high")]
MOON3_TILES = [t for t in NAMES if t[2] != "0" or t == "0-0"]


def random_position(rng: random.Random, i: int) -> dict:
    """A valid position: 42 (some plunge and splash), or Moon for three or four, played
    to a random point by random legal plays."""
    game = ("42", "42", "42", "moon4", "moon3")[i % 5]
    seats = "NES" if game == "moon3" else "NESW"
    pool = list(MOON3_TILES if game == "moon3" else NAMES)
    rng.shuffle(pool)
    hands = {s: pool[7 * k:7 * k + 7] for k, s in enumerate(seats)}
    declarer = rng.choice(seats)
    if game == "42":
        trump, doubles = DECLARATIONS[i % len(DECLARATIONS)]
        contract: dict[str, Any] = {"declarer": declarer, "trump": trump, "doubles": doubles,
                                    "bid": 42 if trump in ("nello", "sevens") else
                                    rng.choice([30, 35, 41, 42, 84])}
        doubles_held = sum(1 for t in hands[declarer] if t[0] == t[2])
        if trump not in ("nello", "sevens") and doubles_held >= 3 and rng.random() < 0.7:
            contract["kind"] = "plunge" if doubles_held >= 4 else "splash"
            contract["bid"] = rng.choice([None, 168, 210]) if doubles_held >= 4 \
                else rng.choice([None, 84])
            if contract["bid"] is None:
                del contract["bid"]
            contract["doubles"] = "high"
    else:
        contract = {"declarer": declarer, "trump": rng.choice(["fives", "doubles", "follow-me",
                                                               "blanks", 6]),
                    "bid": rng.choice([4, 5, 7, 21])}
    data: dict[str, Any] = {"hands": hands, "contract": contract}
    if game != "42":
        data["game"] = "moon"
    position = Position(data)
    stop = rng.randrange(len(position.active_seats) * 7 + 1)
    plays: list[str] = []
    while len(plays) < stop:
        plays.append(name_of(rng.choice(position.legal_ids())))
        position = Position({**data, "plays": plays})
    if plays or rng.random() < 0.5:
        data["plays"] = plays
    return data


def broken(rng: random.Random, p: dict) -> Any:
    """``p`` with one random change, most of them making it invalid."""
    hands, contract = p["hands"], p["contract"]
    seat = rng.choice(sorted(hands))
    plays = p.setdefault("plays", [])
    kind = rng.randrange(10)
    if kind == 0:
        hands[seat][rng.randrange(7)] = rng.choice(
            list(NAMES) + ["7-7", " 6-4", "46", 64, 64.0, True, None, "٦-٤", 2 ** 80])
    elif kind == 1:
        hands[seat][rng.randrange(7)] = rng.choice(hands[rng.choice(sorted(hands))])
    elif kind == 2:
        hands[seat].append("6-6") if rng.random() < 0.5 else hands[seat].pop()
    elif kind == 3 and plays:
        i, j = rng.randrange(len(plays)), rng.randrange(len(plays))
        plays[i], plays[j] = plays[j], plays[i]
    elif kind == 4:
        plays.append(rng.choice(list(NAMES) + plays + [None, 5, "x"]))
    elif kind == 5:
        contract[rng.choice(["declarer", "trump", "bid", "kind", "doubles", "x"])] = rng.choice(
            ["N", "W", "x", "Sixes", "nello", "sevens", 4, 7, 21, 30, 42, 29, 300, None, True,
             30.0, "plunge", "splash", "LOW", "low", "suit", [], {}])
    elif kind == 6:
        p[rng.choice(["game", "extra", "plays", "widow", "discard"])] = rng.choice(
            ["42", "moon", "Moon", 42, None, [], {}, "6-6", "1-0"])
    elif kind == 7:
        if rng.random() < 0.5:
            del hands[seat]
        else:
            del contract[rng.choice(sorted(contract))]
    elif kind == 8:
        hands[rng.choice(["W", "X", 1])] = rng.choice([None, "6-6", [], list(hands[seat])])
    else:
        plays.extend(rng.choice(NAMES) for _ in range(rng.randrange(1, 25)))
    return p


def read_both(data: dict) -> tuple[Any, Any]:
    """(fast, slow): each a Position's fields or the error it raised."""
    out = []
    for doc in (data, MappingProxyType(data)):
        try:
            p = Position(doc)
        except PositionError as exc:
            out.append(exc.to_json())
        else:
            p.completed_tricks  # noqa: B018 - the fast reader leaves it to be worked out
            out.append(dict(sorted(vars(p).items())))
    return out[0], out[1]


def test_fast_reader_matches_the_slow_one_on_valid_and_broken_positions():
    rng = random.Random(2026)
    good = [random_position(rng, i) for i in range(400)]
    accepted = 0
    for data in good:
        accepted += read(Position.__new__(Position), data)
        fast, slow = read_both(data)
        assert "reason" not in fast
        assert fast == slow
    assert accepted == len(good)  # every one of the usual shape is read fast
    errors = set()
    for data in good:
        bad = broken(rng, copy.deepcopy(data))
        fast, slow = read_both(bad)
        assert fast == slow, json.dumps(bad)
        if "code" in fast:
            errors.add(fast["code"])
    # The broken inputs reach the errors of every part of the reader.
    assert {"DUPLICATE_TILE", "UNKNOWN_TILE", "HAND_SIZE", "TILE_NOT_IN_HAND", "ILLEGAL_PLAY",
            "TOO_MANY_PLAYS", "UNKNOWN_FIELD", "MISSING_FIELD", "UNKNOWN_SEAT",
            "BID_OUT_OF_RANGE", "INVALID_TYPE"} <= errors


def test_answers_are_the_same_from_either_reader():
    rng = random.Random(7)
    for i in range(150):
        data = random_position(rng, i)
        fast, slow = Position(data), Position(MappingProxyType(data))
        assert solve(fast).to_json() == solve(slow).to_json()
        assert solve(fast, best_only=True).to_json() == solve(slow, best_only=True).to_json()
        assert make_or_set(fast).to_json() == make_or_set(slow).to_json()


@pytest.mark.parametrize("document", [
    {"hands": {}, "contract": {}},
    {"hands": [], "contract": {"declarer": "N", "trump": "sixes", "bid": 30}},
    {"game": "42", "plays": None},
])
def test_fast_reader_declines_what_it_does_not_read(document):
    position = Position.__new__(Position)
    assert read(position, document) is False
    assert vars(position) == {}  # nothing set on the way


def test_tiles_are_read_as_the_spelling_table_reads_them():
    from itertools import product

    from solver.game._replay import spelled_tile
    from solver.game.tiles import SPELLINGS
    texts = ["".join(p) for n in range(4) for p in product("0123456789-: x", repeat=n)]
    texts += ["".join(p) for p in product("067-: x", repeat=4)]
    texts += ["٦-٤", "６-４", "6-4\n", " 64", "6\u20134"]
    for text in texts:
        assert spelled_tile(text) == SPELLINGS.get(text, -1), text
    for number in list(range(-5, 120)) + [2 ** 63, -2 ** 63, 10 ** 30]:
        assert spelled_tile(number) == SPELLINGS.get(number, -1), number
    for other in (True, False, 64.0, None, b"6-4", ["6-4"]):
        assert spelled_tile(other) == -1
