# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Positions read fast: the position JSON dict checked and its plays replayed with C arrays.

`read(position, data)` fills a new `solver.game.position.Position` from the usual
shape of a valid position (exact dicts, lists and strings: what JSON text
and most programs give) and returns True; for anything else, and for any
input with something wrong in it, it returns False having changed nothing,
and `Position` reads the input the slow way, which raises the error. So the
errors (field, reason, code) are built in one place only, and this reader
need only be right about what it accepts: everything it accepts, the slow
path accepts too and derives the same fields from (tests/test_replay.py).

The rule tables and seat layout of a contract are turned into C arrays once
per contract layout (`_Setup`, cached); tiles are one dict lookup each,
hands and plays bitmasks.
"""

from cpython.long cimport PyLong_AsLongAndOverflow

cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object o)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
    void* PyUnicode_DATA(object o)

from .contract_layout import (KINDS, MOON3_SET, MOON_BIDS, SEATS, Contract, DOUBLES_NEEDED,
                              _layout)
from .jsondoc import CheckedObject
from .rules import DOUBLES_OPTIONS, LEAD, build_rules, parse_declaration
from .tiles import is_double

from solver.game._rule_arrays cimport NT, NCTX, mask_t, RuleArrays, fill_rule_arrays

# Declarations by the names and aliases written most (exactly as written; any other
# spelling, padded or upper case, goes the slow way) and by pip number.
_CANONICAL = ("blanks", "ones", "deuces", "treys", "fours", "fives", "sixes", "doubles",
              "follow-me", "nello", "sevens")
cdef list DECLARATIONS = [parse_declaration(name) for name in _CANONICAL]
cdef dict DECLARATION_CODE = {}
for _alias in ("blanks", "blank", "0", "ones", "aces", "1", "deuces", "twos", "2", "treys",
               "threes", "3", "fours", "4", "fives", "5", "sixes", "6", "doubles", "follow-me",
               "no-trump", "notrump", "nello", "nel-o", "low", "sevens", 0, 1, 2, 3, 4, 5, 6):
    DECLARATION_CODE[_alias] = _CANONICAL.index(parse_declaration(_alias).name)
cdef int NELLO = _CANONICAL.index("nello")
cdef int SEVENS = _CANONICAL.index("sevens")
cdef int FOLLOW_ME = _CANONICAL.index("follow-me")

cdef dict KIND_CODE = {k: i for i, k in enumerate(KINDS)}          # standard, plunge, splash
cdef dict DOUBLES_CODE = {d: i for i, d in enumerate(DOUBLES_OPTIONS)}  # high, low, suit
cdef dict SEAT_CODE = {s: i for i, s in enumerate(SEATS)}
cdef tuple SEAT_NAMES = SEATS
cdef mask_t MOON3_MASK = 0
for _t in MOON3_SET:
    MOON3_MASK |= (<mask_t>1) << _t
cdef mask_t DOUBLES_MASK = 0
for _t in range(NT):
    if is_double(_t):
        DOUBLES_MASK |= (<mask_t>1) << _t
cdef int NEED_DOUBLES[3]
NEED_DOUBLES[0] = 0
NEED_DOUBLES[1] = DOUBLES_NEEDED["plunge"][0]
NEED_DOUBLES[2] = DOUBLES_NEEDED["splash"][0]
cdef object DEFAULT_BID = {1: DOUBLES_NEEDED["plunge"][1], 2: DOUBLES_NEEDED["splash"][1]}
cdef frozenset MOON_BID_SET = frozenset(MOON_BIDS)
cdef tuple SMALL = tuple(range(NT))

# Games: 0 is 42, 1 four-player Moon, 2 three-player Moon.
cdef enum:
    GAME_42 = 0
    GAME_MOON4 = 1
    GAME_MOON3 = 2


cdef class _Setup:
    """A contract layout's rule tables (C arrays) and seat layout, shared by its positions."""

    cdef RuleArrays rule
    cdef int next_of[4]
    cdef int scorer_c[4]
    cdef int nactive
    cdef int first_leader_c
    cdef object rules, active_seats, scorer, maximizer, first_leader, next_seat, max_value

    def __init__(self, decl, str doubles, int game, int declarer, str kind):
        cdef int k
        nello = decl.name == "nello"
        trick_scored = nello or game != GAME_42
        rules = self.rules = build_rules(decl, doubles, with_count=not trick_scored)
        (self.active_seats, self.scorer, self.maximizer, self.first_leader,
         self.next_seat) = _layout(game == GAME_MOON3, nello, declarer, kind)
        self.max_value = 7 if trick_scored else 42
        fill_rule_arrays(&self.rule, rules)
        for k in range(4):
            self.next_of[k] = self.next_seat[k]
            self.scorer_c[k] = self.scorer[k]
        self.nactive = len(self.active_seats)
        self.first_leader_c = self.first_leader


cdef dict SETUPS = {}     # layout code -> _Setup
cdef dict CONTRACTS = {}  # contract code -> Contract (immutable, so shared)


cdef inline int tile_index(int a, int b):
    """Index of the tile with pips a and b (0..6, either order), or -1."""
    if a < 0 or a > 6 or b < 0 or b > 6:
        return -1
    return a * (a + 1) // 2 + b if a >= b else b * (b + 1) // 2 + a


cdef inline int tile_of(object value):
    """The tile a list item names, or -1 (then the slow path judges it).

    The spellings of `solver.game.tiles.SPELLINGS` read from the characters, not hashed
    (a tile string from JSON text is a new object, its hash not yet known): ``H-L``,
    ``H:L`` and ``HL`` in either order as ASCII strings, and the numbers 10..66 whose
    digits are pips (tests/test_replay.py checks every short string and number).
    """
    cdef Py_ssize_t n
    cdef const char* c
    cdef long v
    cdef int overflow = 0
    if type(value) is str:
        if not PyUnicode_IS_ASCII(value):
            return -1
        n = PyUnicode_GET_LENGTH(value)
        c = <const char*> PyUnicode_DATA(value)
        if n == 3 and (c[1] == b'-' or c[1] == b':'):
            return tile_index(c[0] - 48, c[2] - 48)
        if n == 2:
            return tile_index(c[0] - 48, c[1] - 48)
        return -1
    if type(value) is int:
        v = PyLong_AsLongAndOverflow(value, &overflow)
        if overflow or v < 10 or v > 66:
            return -1
        return tile_index(v // 10, v % 10)
    return -1


cdef int read_hand(object raw, int* tiles):
    """A hand's 7 tiles into ``tiles``; 0 when it is not a list of 7 known tiles."""
    cdef int i, t
    if type(raw) is not list or len(<list> raw) != 7:
        return 0
    for i in range(7):
        t = tile_of((<list> raw)[i])
        if t < 0:
            return 0
        tiles[i] = t
    return 1


cdef inline int optional_code(dict raw, str key, str default, dict codes, int* found):
    """The code in ``codes`` of the contract's optional string field ``key`` (``default``
    when absent, counted in ``found`` when present); -1 for anything else (null, another
    type, an unknown name), which the full reader then explains."""
    value = raw.get(key)
    if value is None:
        if key in raw:
            return -1
        value = default
    else:
        found[0] += 1
    code = codes.get(value) if type(value) is str else None
    return -1 if code is None else <int> code


def read(position, data):
    """Fill ``position`` (a new Position) from ``data``, a dict of the usual shape, and
    return True; return False, leaving it untouched, for any other input."""
    cdef int tiles[4][7]
    cdef mask_t hand_mask[4]
    cdef mask_t held = 0, bit, allowed, h, tier, unplayed
    cdef int nseats, s, i, k, game, declarer, decl_code, kind_code, doubles_code, found
    cdef int nplays, seat, tile, ctx, leader, ntrick, best, winner, points, completed, pts
    cdef int trick_seat[4]
    cdef int trick_tile[4]
    cdef int tricks_won[4]
    cdef mask_t remaining[4]
    cdef int play_tiles[28]
    cdef _Setup setup
    if type(data) is not dict and type(data) is not CheckedObject:
        return False
    # -- the fields: game, hands, contract, plays (no widow or discard here)
    found = 2
    game_value = (<dict> data).get("game")
    if game_value is None:
        if "game" in data:
            return False
        game = GAME_42
    else:
        found += 1
        if type(game_value) is not str:
            return False
        if game_value == "42":
            game = GAME_42
        elif game_value == "moon":
            game = GAME_MOON4
        else:
            return False
    plays = (<dict> data).get("plays")
    if plays is None:
        if "plays" in data:
            found += 1
        plays = []
    elif type(plays) is not list:
        return False
    else:
        found += 1
    if len(<dict> data) != found:
        return False  # a widow and discard, an unknown field, or no hands or contract
    hands = (<dict> data).get("hands")
    raw = (<dict> data).get("contract")
    if type(hands) is not dict or type(raw) is not dict:
        return False
    # -- hands
    nseats = len(<dict> hands)
    if nseats == 3 and game == GAME_MOON4:
        game = GAME_MOON3
    elif nseats != 4:
        return False
    allowed = MOON3_MASK if game == GAME_MOON3 else (<mask_t>1 << NT) - 1
    for s in range(nseats):
        if not read_hand((<dict> hands).get(SEAT_NAMES[s]), tiles[s]):
            return False
        h = 0
        for i in range(7):
            bit = (<mask_t>1) << tiles[s][i]
            if held & bit or not allowed & bit:
                return False
            held |= bit
            h |= bit
        hand_mask[s] = h
    for s in range(nseats, 4):
        hand_mask[s] = 0
    # -- contract
    found = 2
    declarer_value = (<dict> raw).get("declarer")
    if type(declarer_value) is not str:
        return False
    code = SEAT_CODE.get(declarer_value)
    if code is None or <int> code >= nseats:
        return False
    declarer = code
    trump = (<dict> raw).get("trump")
    code = DECLARATION_CODE.get(trump) if type(trump) is str or type(trump) is int else None
    if code is None:
        return False
    decl_code = code
    kind_code = optional_code(<dict> raw, "kind", "standard", KIND_CODE, &found)
    doubles_code = optional_code(<dict> raw, "doubles", "high", DOUBLES_CODE, &found)
    if kind_code < 0 or doubles_code < 0:
        return False
    kind, doubles = KINDS[kind_code], DOUBLES_OPTIONS[doubles_code]
    bid = (<dict> raw).get("bid")
    if bid is None:
        if kind_code == 0:
            return False
        if "bid" in raw:
            found += 1
        bid = DEFAULT_BID[kind_code]
    else:
        found += 1
    if len(<dict> raw) != found or type(bid) is not int:
        return False
    if doubles_code != 0 and (game != GAME_42 or (decl_code != FOLLOW_ME and decl_code != NELLO)):
        return False
    marks_only = decl_code == NELLO or decl_code == SEVENS or kind_code != 0
    if game != GAME_42:
        if decl_code == NELLO or decl_code == SEVENS or kind_code != 0:
            return False
        if bid not in MOON_BID_SET:
            return False
    else:
        if kind_code != 0 and (decl_code == NELLO or decl_code == SEVENS):
            return False
        if kind_code != 0 and \
                bin(hand_mask[declarer] & DOUBLES_MASK).count("1") < NEED_DOUBLES[kind_code]:
            return False
        if not ((bid % 42 == 0 and 42 <= bid <= 294) or (30 <= bid <= 41 and not marks_only)):
            return False
    contract_code = (((<int> bid * 4 + declarer) * 11 + decl_code) * 3 + kind_code) * 3 \
        + doubles_code
    contract = CONTRACTS.get(contract_code)
    if contract is None:
        contract = CONTRACTS[contract_code] = Contract(
            declarer, DECLARATIONS[decl_code], bid, kind, doubles)
    layout_code = (((decl_code * 3 + doubles_code) * 3 + game) * 4 + declarer) * 3 + kind_code
    found_setup = SETUPS.get(layout_code)
    if found_setup is None:
        found_setup = SETUPS[layout_code] = _Setup(DECLARATIONS[decl_code], doubles, game,
                                                   declarer, kind)
    setup = <_Setup> found_setup
    # -- plays, replayed
    nplays = len(<list> plays)
    if nplays > 7 * setup.nactive:
        return False
    for s in range(4):
        remaining[s] = 0
        tricks_won[s] = 0
    for s in setup.active_seats:
        remaining[s] = hand_mask[s]
    leader = setup.first_leader_c
    ntrick = points = completed = 0
    for i in range(nplays):
        tile = tile_of((<list> plays)[i])
        if tile < 0:
            return False
        play_tiles[i] = tile
        seat = leader if ntrick == 0 else setup.next_of[trick_seat[ntrick - 1]]
        bit = (<mask_t>1) << tile
        h = remaining[seat]
        if not h & bit:
            return False
        # The first tier of the context that the hand holds must hold the tile.
        ctx = LEAD if ntrick == 0 else setup.rule.lead_suit[trick_tile[0]]
        for k in range(setup.rule.ntiers[ctx]):
            tier = setup.rule.tiers[ctx][k]
            if h & tier:
                if not tier & bit:
                    return False
                break
        remaining[seat] = h & ~bit
        trick_seat[ntrick] = seat
        trick_tile[ntrick] = tile
        ntrick += 1
        if ntrick == setup.nactive:
            ctx = setup.rule.lead_suit[trick_tile[0]]
            best = 0
            for k in range(1, ntrick):
                if setup.rule.power[ctx][trick_tile[k]] > setup.rule.power[ctx][trick_tile[best]]:
                    best = k
            winner = trick_seat[best]
            if setup.scorer_c[winner]:
                pts = setup.rule.trick_points
                for k in range(ntrick):
                    pts += setup.rule.count[trick_tile[k]]
                points += pts
            tricks_won[winner] += 1
            completed += 1
            leader = winner
            ntrick = 0
    unplayed = remaining[0] | remaining[1] | remaining[2] | remaining[3]
    for k in range(ntrick):
        unplayed |= (<mask_t>1) << trick_tile[k]
    pts = 0
    for k in range(NT):
        if unplayed >> k & 1:
            pts += setup.rule.count[k]
    # -- the fields, as Position's own reader sets them
    cdef dict d = position.__dict__
    d["game"] = "moon" if game != GAME_42 else "42"
    d["three_handed"] = game == GAME_MOON3
    d["hands"] = {s: tuple([SMALL[tiles[s][i]] for i in range(7)]) for s in range(nseats)}
    d["widow"] = None
    d["discard"] = None
    d["contract"] = contract
    d["plays"] = tuple([SMALL[play_tiles[i]] for i in range(nplays)])
    d["rules"] = setup.rules
    d["active_seats"] = setup.active_seats
    d["scorer"] = setup.scorer
    d["maximizer"] = setup.maximizer
    d["first_leader"] = setup.first_leader
    d["_next_seat"] = setup.next_seat
    d["max_value"] = setup.max_value
    d["remaining"] = (remaining[0], remaining[1], remaining[2], remaining[3])
    d["leader"] = leader
    d["trick"] = tuple([(trick_seat[k], SMALL[trick_tile[k]]) for k in range(ntrick)])
    d["points"] = points
    d["tricks_won"] = (tricks_won[0], tricks_won[1], tricks_won[2], tricks_won[3])
    d["tricks_left"] = 7 - completed
    d["available"] = (7 - completed) * setup.rule.trick_points + pts
    return True


def spelled_tile(value):
    """The tile ``value`` spells as this reader reads it, or -1 (for tests)."""
    return tile_of(value)
