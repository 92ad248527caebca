"""Rules as data: the tables one declaration induces.

Everything the search needs to know about a declaration is in a `Rules`
object, built once per query:

* ``lead_suit[t]``: the suit a led tile calls for (0..6 pips, 7 the doubles
  suit, 8 trump; sevens has one suit, 0).
* ``tiers[ctx]``: the masks a player must play from, first non-empty one
  first; ``ctx`` is the led suit, or ``LEAD`` for the player on lead. A hand
  with no tile in any tier may play anything.
* ``power[ctx][t]``: how strong tile ``t`` is when suit ``ctx`` was led;
  0 never wins, the highest power wins, and between equals the tile played
  first wins (that only happens in sevens).
* ``count[t]``: the points a tile adds to its trick, ``trick_points`` the
  points a trick is worth by itself.
* ``ordering``: the search's move-ordering weights (`Ordering`), one profile
  for the seats that want to take tricks and one for those that want the
  other side to take them (everybody in nello).

The search core, the position replay and the validators all read these
tables, so a rule lives in exactly one place: here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from .errors import PositionError, quoted
from .tiles import ENDS, N_TILES, count_of, is_double

DOUBLES_SUIT = 7
TRUMP = 8
LEAD = 9
N_CTX = 10

#: Offset that lifts every trump above every tile that only follows suit.
TRUMP_POWER = 100

PIP_NAMES = ("blanks", "ones", "deuces", "treys", "fours", "fives", "sixes")
_PIP_ALIASES = {
    "blanks": 0, "blank": 0, "0": 0,
    "ones": 1, "aces": 1, "1": 1,
    "deuces": 2, "twos": 2, "2": 2,
    "treys": 3, "threes": 3, "3": 3,
    "fours": 4, "4": 4,
    "fives": 5, "5": 5,
    "sixes": 6, "6": 6,
}
_OTHER_ALIASES = {
    "doubles": "doubles",
    "follow-me": "follow-me", "no-trump": "follow-me", "notrump": "follow-me",
    "nello": "nello", "nel-o": "nello", "low": "nello",
    "sevens": "sevens",
}
DOUBLES_OPTIONS = ("high", "low", "suit")


@dataclass(frozen=True)
class Declaration:
    """What the declarer names: ``name`` is canonical (``"fours"``, ``"follow-me"``),
    ``trump_pip`` the trump's pip 0..6 or None."""

    name: str
    trump_pip: int | None = None

    @property
    def is_pip(self) -> bool:
        return self.trump_pip is not None


def parse_declaration(value: object, field_name: str = "contract.trump") -> Declaration:
    """Parse ``value``, a declaration name or alias (case-insensitive; pips as 0..6); a
    bad one is a `PositionError` naming ``field_name``."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise PositionError(field_name, f"unknown declaration {quoted(value)}",
                            "UNKNOWN_DECLARATION")
    key = value.strip().lower() if isinstance(value, str) else str(value) if 0 <= value <= 6 else ""
    if key in _PIP_ALIASES:
        pip = _PIP_ALIASES[key]
        return Declaration(PIP_NAMES[pip], pip)
    if key in _OTHER_ALIASES:
        return Declaration(_OTHER_ALIASES[key])
    known = ", ".join(PIP_NAMES + ("doubles", "follow-me", "nello", "sevens"))
    raise PositionError(field_name, f"unknown declaration {quoted(value)} (one of {known})",
                        "UNKNOWN_DECLARATION")


@dataclass(frozen=True)
class Ordering:
    """How the search ranks a seat's moves, from who probably takes the trick.

    ``base[phase][who]`` and ``power[phase][who]`` (phase 0 leading, 1
    following; who 0 the mover, 1 another seat) apply when the trick goes to
    a seat the mover wants it to go to: then the score is base + power * the
    tile's power + ``count`` * its count. Otherwise the score is
    ``power_lost[phase]`` * power - ``count`` * count.
    """

    base: tuple[tuple[int, int], tuple[int, int]]
    power: tuple[tuple[int, int], tuple[int, int]]
    count: int
    power_lost: tuple[int, int]


#: Seats that want tricks: cash sure winners (the cheapest first), lead to
#: a partner's winner, win as cheaply as possible, feed count to a
#: partner's trick, and shed the least valuable tile when the trick is lost.
#: Sevens uses it; the other declarations have their own profiles below.
TAKE_TRICKS = Ordering(base=((1000, 700), (500, 500)), power=((-1, -1), (-1, -1)),
                       count=20, power_lost=(-1, -1))
#: The same when a suit is trumps (a pip or the doubles), whose tiles have
#: a power above 100 (see TRUMP_POWER): lead side-suit winners before
#: trumps, and a trump rather than a side tile when the lead is lost
#: anyway; when following, letting the partner's trick stand (with count
#: fed to it) ranks above ruffing in, and a lost trick is shed without
#: regard to power. Measured in bench/README.md: 9-19% fewer nodes with
#: every lead scored, 8-24% fewer for exact values; follow-me (no trumps)
#: does worse with it (see FOLLOW_ME).
TAKE_TRICKS_WITH_TRUMPS = Ordering(base=((1000, 700), (500, 400)), power=((-6, -6), (-1, -1)),
                                   count=20, power_lost=(3, 0))
#: The same when nothing is trumps (follow-me, Moon's too): a trick is won
#: in the suit led, so the leader cashes its winners from the top (+1 per
#: power point: the tiles left in the suit stay winners), a lead to the
#: partner's winner ranks as high as a winner of its own (700 both,
#: whatever the led tile's power), and a lost lead is chosen by its count
#: alone (power 0: the history of leads breaks the ties). Following is as
#: in TAKE_TRICKS. Found by a sweep (bench/ordering_sweep.py) and measured
#: in bench/README.md ("Sixth round"): about 10% fewer nodes on 900
#: follow-me deals of other seeds; no profile per doubles option held up
#: on other deals.
FOLLOW_ME = Ordering(base=((700, 700), (500, 500)), power=((1, 0), (-1, -1)),
                     count=20, power_lost=(0, -1))
#: Seats that want the other side to take every trick (nello): duck under
#: the trick with the highest tile that still loses, lead what the other
#: side must overtake, and when taking the trick anyway, take it with the
#: highest tile (the low ones are what later ducks need).
GIVE_TRICKS = Ordering(base=((1000, 1000), (1000, 1000)), power=((1, 1), (1, 1)),
                       count=0, power_lost=(1, 1))


@dataclass
class Rules:
    """Per-declaration tables; see the module docstring.

    Attributes:
        declaration: The declaration they are for.
        doubles: Where doubles rank (``"high"``, ``"low"``, ``"suit"``).
        lead_suit: ``lead_suit[t]``: the suit a led tile ``t`` calls for.
        tiers: ``tiers[ctx]``: the masks a player must play from, first non-empty
            one first.
        power: ``power[ctx][t]``: how strong tile ``t`` is when suit ``ctx`` was led.
        count: ``count[t]``: the points tile ``t`` adds to its trick.
        trick_points: The points a trick is worth by itself.
        ordering: The move-ordering profiles (take tricks, give tricks).
    """

    declaration: Declaration
    doubles: str
    lead_suit: list[int] = field(default_factory=list)
    tiers: list[list[int]] = field(default_factory=list)
    power: list[list[int]] = field(default_factory=list)
    count: list[int] = field(default_factory=list)
    trick_points: int = 1
    ordering: tuple[Ordering, Ordering] = (TAKE_TRICKS, GIVE_TRICKS)

    def legal_mask(self, hand: int, ctx: int) -> int:
        """Tiles of ``hand`` that may be played in context ``ctx``."""
        for tier in self.tiers[ctx]:
            if hand & tier:
                return hand & tier
        return hand

    def winner_index(self, tiles: list[int]) -> int:
        """Index in ``tiles`` (a complete trick, in play order) of the winning tile."""
        ctx = self.lead_suit[tiles[0]]
        best = 0
        for i in range(1, len(tiles)):
            if self.power[ctx][tiles[i]] > self.power[ctx][tiles[best]]:
                best = i
        return best

    def trick_value(self, tiles: list[int]) -> int:
        return self.trick_points + sum(self.count[t] for t in tiles)


#: The profile of the seats that want tricks, by declaration (a pip or the
#: doubles as trumps: TAKE_TRICKS_WITH_TRUMPS). Nello's seats all use
#: GIVE_TRICKS (the declarer's other side wants the declarer to take a
#: trick, not a trick of its own), so its entry here is never read.
_TAKING_PROFILE = {"follow-me": FOLLOW_ME, "sevens": TAKE_TRICKS, "nello": TAKE_TRICKS}


@lru_cache(maxsize=None)
def build_rules(decl: Declaration, doubles: str = "high", with_count: bool = True) -> Rules:
    """Build the tables for the declaration ``decl`` (cached: at most 3*11*2 distinct ones
    exist).

    ``doubles`` places non-trump doubles (``high``, ``low`` or ``suit``);
    ``with_count`` is False for games scored by tricks alone (nello, Moon).
    The result is shared between callers, so it must not be modified.
    """
    rules = Rules(decl, doubles)
    rules.ordering = (_TAKING_PROFILE.get(decl.name, TAKE_TRICKS_WITH_TRUMPS), GIVE_TRICKS)
    rules.count = [count_of(t) if with_count else 0 for t in range(N_TILES)]
    if decl.name == "sevens":
        _build_sevens(rules)
    else:
        _build_suited(rules, decl, doubles)
    return rules


def _build_sevens(rules: Rules) -> None:
    # One suit; the tile closest to 7 pips is strongest, and every player,
    # the leader too, must play from the closest tiles they hold.
    distance = [abs(sum(ENDS[t]) - 7) for t in range(N_TILES)]
    tiers = [sum(1 << t for t in range(N_TILES) if distance[t] == d) for d in range(8)]
    rules.lead_suit = [0] * N_TILES
    rules.tiers = [list(tiers) for _ in range(N_CTX)]
    rules.power = [[8 - distance[t] for t in range(N_TILES)] for _ in range(N_CTX)]


def _build_suited(rules: Rules, decl: Declaration, doubles: str) -> None:
    doubles_are_trump = decl.name == "doubles"
    own_suit = doubles == "suit" and not doubles_are_trump

    def is_trump(t: int) -> bool:
        if doubles_are_trump:
            return is_double(t)
        return decl.trump_pip is not None and decl.trump_pip in ENDS[t]

    def trump_rank(t: int) -> int:
        high, low = ENDS[t]
        if doubles_are_trump:
            return high
        other = low if high == decl.trump_pip else high
        return 7 if high == low else other

    def suit_rank(t: int, suit: int) -> int:
        # Rank of a non-trump tile inside the suit it follows (1 = lowest).
        high, low = ENDS[t]
        if suit == DOUBLES_SUIT:
            return 1 + high
        if high == low:
            return 1 if doubles == "low" else 9
        other = low if high == suit else high
        return 2 + other

    follows = [0] * N_CTX
    for t in range(N_TILES):
        high, low = ENDS[t]
        if is_trump(t):
            follows[TRUMP] |= 1 << t
        elif own_suit and high == low:
            follows[DOUBLES_SUIT] |= 1 << t
        else:
            follows[high] |= 1 << t
            follows[low] |= 1 << t

    rules.lead_suit = [
        TRUMP if is_trump(t) else DOUBLES_SUIT if (own_suit and is_double(t)) else ENDS[t][0]
        for t in range(N_TILES)
    ]
    rules.tiers = [[follows[c]] if c != LEAD else [] for c in range(N_CTX)]
    rules.power = []
    for ctx in range(N_CTX):
        row = []
        for t in range(N_TILES):
            if is_trump(t):
                row.append(TRUMP_POWER + trump_rank(t))
            elif ctx < TRUMP and follows[ctx] >> t & 1:
                row.append(suit_rank(t, ctx))
            else:
                row.append(0)
        rules.power.append(row)
