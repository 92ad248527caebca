"""Bad input through the API: a `PositionError` (a ValueError) naming the field and a code.

Each bad position is tried through every entry point that takes a position
(`Position`, `solve`, `make_or_set`, `legal_moves`), so none of them can
let bad input through or fail with some other exception.
"""

from __future__ import annotations

import copy
import json
import random

import pytest

import reference as R
from solver import Position, PositionError, legal_moves, make_or_set, solve

# W declares fours. W holds three doubles (5-5, 3-3, 1-1), N one (2-2).
DEAL = {
    "N": ["6-3", "6-2", "6-0", "5-4", "5-3", "5-2", "2-2"],
    "E": ["6-6", "6-5", "6-4", "5-0", "4-1", "3-2", "0-0"],
    "S": ["6-1", "4-4", "4-2", "3-1", "3-0", "2-1", "1-0"],
    "W": ["5-5", "5-1", "4-3", "4-0", "3-3", "2-0", "1-1"],
}
BASE = {"hands": DEAL, "contract": {"declarer": "W", "trump": "fours", "bid": 30}, "plays": []}

# Three-player Moon: the 22-tile set less the discard 1-1; N took the widow 6-4.
MOON3 = {
    "game": "moon",
    "hands": {"N": ["6-6", "6-5", "6-4", "5-5", "4-4", "3-3", "0-0"],
              "E": ["6-3", "6-2", "6-1", "5-4", "5-3", "5-2", "5-1"],
              "S": ["4-3", "4-2", "4-1", "3-2", "3-1", "2-2", "2-1"]},
    "contract": {"declarer": "N", "trump": "sixes", "bid": 5},
    "widow": "6-4", "discard": "1-1", "plays": [],
}
# W swaps 5-1 for S's 4-4 and so holds four doubles: a plunge.
PLUNGE = {"hands": dict(DEAL, W=["5-5", "4-4", "4-3", "4-0", "3-3", "2-0", "1-1"],
                        S=["6-1", "5-1", "4-2", "3-1", "3-0", "2-1", "1-0"]),
          "contract": {"declarer": "W", "trump": "doubles", "bid": 168, "kind": "plunge"},
          "plays": []}
MOON4 = dict(BASE, game="moon", contract={"declarer": "W", "trump": "fours", "bid": 4})


def edit(base: dict, **changes) -> dict:
    """A deep copy of ``base``; ``contract`` and ``hands`` changes are merged, None deletes."""
    out = copy.deepcopy(base)
    for key, value in changes.items():
        if key in ("contract", "hands") and isinstance(value, dict):
            out[key].update(value)
            out[key] = {k: v for k, v in out[key].items() if v is not None}
        elif value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def nested(depth: int) -> list:
    """A list nested ``depth`` levels deep."""
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


def played_out(position: dict, extra: int = 1) -> dict:
    """The position with a whole legal hand played, then ``extra`` more tiles."""
    game, state = R.start(position)
    rng = random.Random(42)
    plays = []
    while not state.over():
        t = rng.choice(state.legal(game))
        plays.append(R.name(t))
        state = state.play(game, t)
    return dict(position, plays=plays + plays[:extra])


BAD = [
    # (id, position, field, code)
    ("tile-7-1", edit(BASE, hands={"N": ["7-1"] + DEAL["N"][1:]}), "hands.N[0]", "UNKNOWN_TILE"),
    ("tile-word", edit(BASE, hands={"E": DEAL["E"][:3] + ["six-four"] + DEAL["E"][4:]}),
     "hands.E[3]", "UNKNOWN_TILE"),
    ("tile-empty", edit(BASE, hands={"S": DEAL["S"][:6] + [""]}), "hands.S[6]", "UNKNOWN_TILE"),
    ("tile-number", edit(BASE, hands={"W": [77] + DEAL["W"][1:]}), "hands.W[0]", "UNKNOWN_TILE"),
    ("tile-in-plays", edit(BASE, plays=["6-7"]), "plays[0]", "UNKNOWN_TILE"),
    ("duplicate-across-hands", edit(BASE, hands={"E": DEAL["E"][:6] + ["6-3"]}),
     "hands.E[6]", "DUPLICATE_TILE"),
    ("duplicate-other-notation", edit(BASE, hands={"S": DEAL["S"][:6] + ["36"]}),
     "hands.S[6]", "DUPLICATE_TILE"),
    ("duplicate-in-one-hand", edit(BASE, hands={"N": DEAL["N"][:6] + ["6-3"]}),
     "hands.N[6]", "DUPLICATE_TILE"),
    ("hand-of-six", edit(BASE, hands={"S": DEAL["S"][:6]}), "hands.S", "HAND_SIZE"),
    ("hand-of-eight", edit(BASE, hands={"W": DEAL["W"] + ["1-0"]}), "hands.W", "HAND_SIZE"),
    ("hand-missing", edit(BASE, hands={"W": None}), "hands.W", "MISSING_FIELD"),
    ("hands-missing", edit(BASE, hands=None), "hands", "MISSING_FIELD"),
    ("hands-not-object", edit(BASE, hands=[DEAL["N"]]), "hands", "INVALID_TYPE"),
    ("hand-not-list", edit(BASE, hands={"N": "6-3 6-2"}), "hands.N", "INVALID_TYPE"),
    ("seat-in-hands", edit(BASE, hands={"X": DEAL["W"]}), "hands.X", "UNKNOWN_SEAT"),
    ("seat-lower-case", edit(BASE, hands={"n": DEAL["N"], "N": None}), "hands.n", "UNKNOWN_SEAT"),
    ("declarer-unknown", edit(BASE, contract={"declarer": "X"}), "contract.declarer",
     "UNKNOWN_SEAT"),
    ("declarer-word", edit(BASE, contract={"declarer": "north"}), "contract.declarer",
     "UNKNOWN_SEAT"),
    ("declaration-spades", edit(BASE, contract={"trump": "spades"}), "contract.trump",
     "UNKNOWN_DECLARATION"),
    ("declaration-pip-7", edit(BASE, contract={"trump": 7}), "contract.trump",
     "UNKNOWN_DECLARATION"),
    ("declaration-boolean", edit(BASE, contract={"trump": True}), "contract.trump",
     "UNKNOWN_DECLARATION"),
    ("declaration-missing", edit(BASE, contract={"trump": None}), "contract.trump",
     "MISSING_FIELD"),
    ("bid-29", edit(BASE, contract={"bid": 29}), "contract.bid", "BID_OUT_OF_RANGE"),
    ("bid-43", edit(BASE, contract={"bid": 43}), "contract.bid", "BID_OUT_OF_RANGE"),
    ("bid-8-marks", edit(BASE, contract={"bid": 336}), "contract.bid", "BID_OUT_OF_RANGE"),
    ("bid-0", edit(BASE, contract={"bid": 0}), "contract.bid", "BID_OUT_OF_RANGE"),
    ("bid-negative-mark", edit(BASE, contract={"bid": -42}), "contract.bid", "BID_OUT_OF_RANGE"),
    ("bid-fraction", edit(BASE, contract={"bid": 30.5}), "contract.bid", "INVALID_TYPE"),
    ("bid-string", edit(BASE, contract={"bid": "30"}), "contract.bid", "INVALID_TYPE"),
    ("bid-missing", edit(BASE, contract={"bid": None}), "contract.bid", "MISSING_FIELD"),
    ("nello-point-bid", edit(BASE, contract={"trump": "nello", "bid": 30}), "contract.bid",
     "BID_OUT_OF_RANGE"),
    ("sevens-point-bid", edit(BASE, contract={"trump": "sevens", "bid": 41}), "contract.bid",
     "BID_OUT_OF_RANGE"),
    ("plunge-point-bid", edit(PLUNGE, contract={"bid": 35}), "contract.bid", "BID_OUT_OF_RANGE"),
    ("splash-point-bid", edit(BASE, contract={"kind": "splash", "bid": 40}), "contract.bid",
     "BID_OUT_OF_RANGE"),
    ("plunge-three-doubles", edit(BASE, contract={"kind": "plunge", "bid": 168}),
     "contract.kind", "PLUNGE_NEEDS_FOUR_DOUBLES"),
    ("splash-one-double", edit(BASE, contract={"declarer": "N", "kind": "splash", "bid": 84}),
     "contract.kind", "SPLASH_NEEDS_THREE_DOUBLES"),
    ("plunge-with-nello", edit(BASE, contract={"trump": "nello", "kind": "plunge", "bid": 168}),
     "contract.kind", "INVALID_CONTRACT"),
    ("splash-with-nello", edit(BASE, contract={"trump": "nello", "kind": "splash", "bid": 84}),
     "contract.kind", "INVALID_CONTRACT"),
    ("plunge-with-sevens", edit(BASE, contract={"trump": "sevens", "kind": "plunge", "bid": 168}),
     "contract.kind", "INVALID_CONTRACT"),
    ("kind-unknown", edit(BASE, contract={"kind": "dive"}), "contract.kind", "UNKNOWN_KIND"),
    ("doubles-low-with-pip", edit(BASE, contract={"doubles": "low"}), "contract.doubles",
     "INVALID_OPTION"),
    ("doubles-suit-with-pip", edit(BASE, contract={"doubles": "suit"}), "contract.doubles",
     "INVALID_OPTION"),
    ("doubles-low-with-doubles", edit(BASE, contract={"trump": "doubles", "doubles": "low"}),
     "contract.doubles", "INVALID_OPTION"),
    ("doubles-suit-with-sevens", edit(BASE, contract={"trump": "sevens", "bid": 42,
                                                      "doubles": "suit"}),
     "contract.doubles", "INVALID_OPTION"),
    ("doubles-unknown", edit(BASE, contract={"trump": "follow-me", "doubles": "middle"}),
     "contract.doubles", "INVALID_OPTION"),
    ("contract-missing", edit(BASE, contract=None), "contract", "MISSING_FIELD"),
    ("game-unknown", edit(BASE, game="43"), "game", "UNKNOWN_GAME"),
    ("plays-not-list", edit(BASE, plays="5-1"), "plays", "INVALID_TYPE"),
    # W leads; 6-6 is E's.
    ("play-not-in-hand", edit(BASE, plays=["6-6"]), "plays[0]", "TILE_NOT_IN_HAND"),
    # W leads 5-1, N and E follow, S plays E's 6-4.
    ("play-from-other-hand", edit(BASE, plays=["5-1", "5-3", "6-5", "6-4"]), "plays[3]",
     "TILE_NOT_IN_HAND"),
    # W leads 5-1 (fives); N holds 5-3 and 5-2 (5-4 is a trump) and must follow.
    ("no-follow", edit(BASE, plays=["5-1", "6-3"]), "plays[1]", "ILLEGAL_PLAY"),
    # A led trump calls for trumps: N holds 5-4.
    ("no-follow-trump", edit(BASE, plays=["4-0", "6-3"]), "plays[1]", "ILLEGAL_PLAY"),
    # The partner leads a plunge: E, who may not play W's tile.
    ("plunge-declarer-leads", edit(PLUNGE, plays=["5-5"]), "plays[0]", "TILE_NOT_IN_HAND"),
    # Sevens: W must lead 4-3, the only tile at 7 pips.
    ("sevens-lead", edit(BASE, contract={"trump": "sevens", "bid": 42}, plays=["5-5"]),
     "plays[0]", "ILLEGAL_PLAY"),
    # Follow-me, doubles their own suit: led 5-5 calls for doubles; N holds 2-2.
    ("no-follow-doubles-suit", edit(BASE, contract={"trump": "follow-me", "doubles": "suit"},
                                    plays=["5-5", "5-4"]), "plays[1]", "ILLEGAL_PLAY"),
    ("plays-after-the-end", played_out(BASE), "plays[28]", "TOO_MANY_PLAYS"),
    ("nello-plays-after-the-end",
     played_out(edit(BASE, contract={"trump": "nello", "bid": 42})), "plays[21]",
     "TOO_MANY_PLAYS"),
    # Moon, three players.
    ("moon3-blank-tile", edit(MOON3, hands={"E": MOON3["hands"]["E"][:6] + ["5-0"]}),
     "hands.E[6]", "NOT_IN_TILE_SET"),
    ("moon3-blank-tile-reversed", edit(MOON3, hands={"S": ["0-4"] + MOON3["hands"]["S"][1:]}),
     "hands.S[0]", "NOT_IN_TILE_SET"),
    ("moon3-blank-widow", edit(MOON3, widow="3-0"), "widow", "NOT_IN_TILE_SET"),
    ("moon3-widow-without-discard", edit(MOON3, discard=None), "discard", "MISSING_FIELD"),
    ("moon3-discard-without-widow", edit(MOON3, widow=None), "widow", "MISSING_FIELD"),
    ("moon3-widow-in-other-hand", edit(MOON3, widow="6-3"), "widow", "WIDOW_MISMATCH"),
    ("moon3-discard-in-a-hand", edit(MOON3, discard="6-3"), "discard", "DUPLICATE_TILE"),
    ("moon3-declarer-west", edit(MOON3, contract={"declarer": "W"}), "contract.declarer",
     "UNKNOWN_SEAT"),
    ("moon3-nello", edit(MOON3, contract={"trump": "nello"}), "contract.trump",
     "UNKNOWN_DECLARATION"),
    ("moon3-sevens", edit(MOON3, contract={"trump": "sevens"}), "contract.trump",
     "UNKNOWN_DECLARATION"),
    ("moon3-plunge", edit(MOON3, contract={"kind": "plunge"}), "contract.kind", "UNKNOWN_KIND"),
    ("moon3-doubles-low", edit(MOON3, contract={"trump": "follow-me", "doubles": "low"}),
     "contract.doubles", "INVALID_OPTION"),
    ("moon3-plays-after-the-end", played_out(MOON3), "plays[21]", "TOO_MANY_PLAYS"),
    ("moon3-no-follow", edit(MOON3, plays=["6-5", "5-4"]), "plays[1]", "ILLEGAL_PLAY"),
    # Moon, four players.
    ("moon4-widow", edit(MOON4, widow="6-4", discard="1-1"), "widow", "UNEXPECTED_FIELD"),
    ("moon4-nello", edit(MOON4, contract={"trump": "nello"}), "contract.trump",
     "UNKNOWN_DECLARATION"),
    ("bid-1e400-json", json.dumps(BASE).replace('"bid": 30', '"bid": 1e400'), "contract.bid",
     "INVALID_VALUE"),
    # Hostile input: tiles are ASCII digits, fields are known, values are JSON data.
] + [
    (f"tile-{name}", edit(BASE, hands={"N": [tile] + DEAL["N"][1:]}), "hands.N[0]", code)
    for name, tile, code in (
        ("superscript", "\u00b2-1", "UNKNOWN_TILE"), ("arabic-indic", "\u0666-\u0663",
                                                     "UNKNOWN_TILE"),
        ("fullwidth", "\uff16-\uff13", "UNKNOWN_TILE"), ("nbsp", "\u00a06-3", "UNKNOWN_TILE"),
        ("bool", True, "UNKNOWN_TILE"), ("float", 63.0, "UNKNOWN_TILE"),
        ("list", ["6-3"], "UNKNOWN_TILE"), ("megabyte", "6" * 1_000_000, "UNKNOWN_TILE"),
        ("huge-int", 10 ** 5000, "INVALID_VALUE"), ("lone-surrogate", "\ud800", "INVALID_TEXT"),
        ("object", object(), "INVALID_TYPE"), ("nested", nested(10_000), "TOO_DEEP"))
] + [
    ("unknown-field", dict(edit(BASE, plays=None), plyas=["4-0"]), "plyas", "UNKNOWN_FIELD"),
    ("unknown-field-not-a-string", {**BASE, 1: 2}, "position", "INVALID_TYPE"),
    ("unknown-contract-field", edit(BASE, contract={"trump": "follow-me", "doubels": "low"}),
     "contract.doubels", "UNKNOWN_FIELD"),
    ("unknown-contract-kind-field", edit(PLUNGE, contract={"kidn": "splash"}),
     "contract.kidn", "UNKNOWN_FIELD"),
    ("unknown-field-long-name", {**BASE, "x" * 1_000_000: 1}, None, "UNKNOWN_FIELD"),
    ("game-number", edit(BASE, game=42), "game", "UNKNOWN_GAME"),
    ("game-float", edit(BASE, game=42.0), "game", "UNKNOWN_GAME"),
    ("game-bool", edit(BASE, game=True), "game", "UNKNOWN_GAME"),
    ("game-nested", edit(BASE, game=nested(20)), "game", "UNKNOWN_GAME"),
    ("game-too-deep", edit(BASE, game=nested(10_000)), "game[0][0]", "TOO_DEEP"),
    ("bid-bool", edit(BASE, contract={"bid": True}), "contract.bid", "INVALID_TYPE"),
    ("bid-float", edit(BASE, contract={"bid": 30.0}), "contract.bid", "INVALID_TYPE"),
    ("bid-nan", edit(BASE, contract={"bid": float("nan")}), "contract.bid", "INVALID_VALUE"),
    ("bid-100-digits", edit(BASE, contract={"bid": 10 ** 100}), "contract.bid",
     "BID_OUT_OF_RANGE"),
    ("bid-5000-digits", edit(BASE, contract={"bid": 10 ** 5000}), "contract.bid",
     "INVALID_VALUE"),
    ("trump-100-digits", edit(BASE, contract={"trump": 10 ** 100}), "contract.trump",
     "UNKNOWN_DECLARATION"),
    ("declarer-list", edit(BASE, contract={"declarer": ["W"]}), "contract.declarer",
     "UNKNOWN_SEAT"),
    ("kind-dict", edit(BASE, contract={"kind": {"x": 1}}), "contract.kind", "UNKNOWN_KIND"),
    ("plays-tuple", edit(BASE, plays=("4-0",)), "plays", "INVALID_TYPE"),
] + [
    (f"moon{n}-bid-{bid}", edit(base, contract={"bid": bid}), "contract.bid", "BID_OUT_OF_RANGE")
    for n, base in ((3, MOON3), (4, MOON4)) for bid in (3, 8, 20, 22, 30, 42)
]

ENTRY_POINTS = {
    "Position": Position,
    "solve": solve,
    "make_or_set": make_or_set,
    "legal_moves": legal_moves,
}


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("data, field, code", [pytest.param(*b[1:], id=b[0]) for b in BAD])
def test_bad_position(entry, data, field, code):
    with pytest.raises(PositionError) as info:
        ENTRY_POINTS[entry](data)
    err = info.value
    assert isinstance(err, ValueError)
    assert (err.field if field is not None else None, err.code) == (field, code), err.reason
    assert err.reason and str(err) == f"{err.field}: {err.reason}"
    assert len(str(err)) < 400  # a bad value is quoted by a short prefix only


def test_the_good_positions_behind_the_bad_ones_are_accepted():
    # The bad positions are small edits of these, so each error has the one cause.
    for good in (BASE, PLUNGE, MOON3, MOON4):
        Position(good)
    Position(edit(BASE, contract={"trump": "sevens", "bid": 42}, plays=["4-3"]))
    Position(edit(BASE, plays=["5-1", "5-3", "6-5"]))
    Position(edit(PLUNGE, plays=["6-6"]))
    Position(edit(BASE, contract={"trump": "follow-me", "doubles": "suit"}, plays=["5-5", "2-2"]))
    Position(edit(MOON3, plays=["6-5", "6-3"]))
    # The declarer may discard the widow itself.
    Position(edit(MOON3, hands={"N": ["6-6", "6-5", "1-1", "5-5", "4-4", "3-3", "0-0"]},
                  discard="6-4"))
    Position(played_out(BASE, extra=0))
    Position(played_out(MOON3, extra=0))


def test_missing_declarer_is_a_missing_field():
    with pytest.raises(PositionError) as info:
        Position(edit(BASE, contract={"declarer": None}))
    assert (info.value.field, info.value.code) == ("contract.declarer", "MISSING_FIELD")


@pytest.mark.parametrize("text, code", [
    ("{", "INVALID_JSON"),
    ("", "INVALID_JSON"),
    ('{"hands": ', "INVALID_JSON"),
    (json.dumps(BASE)[:-1], "INVALID_JSON"),
    ("[1, 2]", "INVALID_TYPE"),
    ('{"plays": [], "plays": ["4-0"]}', "DUPLICATE_KEY"),
    ("[" * 100_000 + "]" * 100_000, "TOO_DEEP"),
    ("[" * 40 + "]" * 40, "TOO_DEEP"),
    ('{"bid": NaN}', "INVALID_JSON"),
    ('{"bid": Infinity}', "INVALID_JSON"),
    ("1" * 5000, "INVALID_JSON"),
    (b"\xff\xfe{\x00 ", "INVALID_ENCODING"),
    (b'{"x": "\xff"}', "INVALID_ENCODING"),
    ('"a string"', "INVALID_TYPE"),
])
@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_bad_json_text(entry, text, code):
    with pytest.raises(PositionError) as info:
        ENTRY_POINTS[entry](text)
    assert (info.value.field, info.value.code) == ("position", code)


def test_json_text_of_a_good_position_is_accepted():
    assert solve(json.dumps(BASE)).value == solve(BASE).value


@pytest.mark.parametrize("position, bid", [
    (BASE, 29), (BASE, 43), (BASE, 0), (BASE, 336),
    (edit(BASE, contract={"trump": "nello", "bid": 42}), 30),
    (edit(BASE, contract={"trump": "sevens", "bid": 84}), 35),
    (edit(BASE, contract={"kind": "splash", "bid": 84}), 41),
    (MOON3, 8), (MOON3, 30), (MOON4, 3), (MOON4, 42),
])
def test_make_or_set_bad_bid(position, bid):
    with pytest.raises(PositionError) as info:
        make_or_set(position, bid)
    assert (info.value.field, info.value.code) == ("bid", "BID_OUT_OF_RANGE")
    assert str(bid) in info.value.reason


def test_reasons_name_the_culprit():
    cases = [
        (edit(BASE, hands={"N": ["7-1"] + DEAL["N"][1:]}), ["7-1"]),
        (edit(BASE, hands={"E": DEAL["E"][:6] + ["6-3"]}), ["6-3", "hands.N[0]"]),
        (edit(BASE, hands={"S": DEAL["S"][:6]}), ["6"]),
        (edit(BASE, contract={"declarer": "X"}), ["X"]),
        (edit(BASE, contract={"trump": "spades"}), ["spades"]),
        (edit(BASE, contract={"bid": 43}), ["43"]),
        (edit(BASE, contract={"kind": "plunge", "bid": 168}), ["4", "W holds 3"]),
        (edit(BASE, contract={"declarer": "N", "kind": "splash", "bid": 84}), ["3", "N holds 1"]),
        (edit(BASE, plays=["6-6"]), ["6-6", "W"]),
        (edit(BASE, plays=["5-1", "6-3"]), ["6-3", "5-2", "5-3"]),
        (edit(MOON3, widow="6-3"), ["6-3"]),
        (edit(MOON3, hands={"E": MOON3["hands"]["E"][:6] + ["5-0"]}), ["5-0"]),
    ]
    for data, culprits in cases:
        with pytest.raises(PositionError) as info:
            Position(data)
        for culprit in culprits:
            assert culprit in info.value.reason, info.value.reason
