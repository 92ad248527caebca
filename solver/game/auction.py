"""The auction of a hand (docs/rules/texas42.md, docs/rules/moon.md): calls, whose turn, the
legal calls, the winner, and what the winner may declare.

A game's house rules are a `GameRules` (read from a game record's ``rules``
object by `read_rules`); what varies between 42 and Moon is data in the tables
below, not branches: the bid ladder, the options each game takes, the
declarations and the bids each one needs.

An `Auction` is built call by call (`Auction.call`), each checked: a call out
of turn or after the auction is over, a bid not higher, a mark bid that jumps
(at most 2 marks to open, then one mark at a time), a plunge after a bid or
without four doubles, a splash without the option, the shaker's pass when the
others all passed and the bid is forced, a Moon shoot (21) by a player below
zero: each a `PositionError` naming the call's field and a reason code.
`read_call` reads one call's JSON (``{"seat": "N", "bid": 30 | "pass" |
"plunge" | "splash"}``); it is the one reader of calls, which views use too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from . import tiles as T
from .errors import PositionError, key_text, quoted
from .jsondoc import check_keys
from .rules import PIP_NAMES

SEATS = ("N", "E", "S", "W")
SEAT_INDEX = {s: i for i, s in enumerate(SEATS)}

#: 42's bid ladder: points, then marks of 42 each, at most 7.
POINT_BIDS: tuple[int, ...] = tuple(range(30, 42))
ONE_MARK = 42
MAX_MARKS = 7
#: Highest opening mark bid; over k >= 2 marks only k + 1 marks.
OPENING_MARKS = 2
#: Moon's highest ordinary bid and its shoot ("shooting the moon": all 7 tricks).
MOON_TOP = 7
SHOOT = 21

PASS = "pass"
#: The special calls of 42: the bid each stands for, the doubles it needs, the rules
#: option that allows it (None: always) and the contract kind it makes.
SPECIAL_CALLS: dict[str, tuple[int, int, str | None]] = {
    "plunge": (4 * ONE_MARK, 4, None),
    "splash": (2 * ONE_MARK, 3, "splash"),
}
CALL_WORDS = (PASS,) + tuple(SPECIAL_CALLS)

#: The house options of each game: name -> (accepted values, default). The default is
#: the rule docs/rules/ gives first; the other values are the variants.
OPTIONS: dict[str, dict[str, tuple[tuple[Any, ...], Any]]] = {
    "42": {
        "all_pass": (("forced", "reshake"), "forced"),
        "splash": ((False, True), False),
        "nello_min_marks": (tuple(range(1, MAX_MARKS + 1)), 2),
    },
    "moon": {
        "all_pass": (("forced", "reshake"), "forced"),
        "min_bid": (tuple(range(1, MOON_TOP + 1)), 4),
        "score": (("points", "marks"), "points"),
    },
}

#: Declarations a winner may name, by game, and (42) the marks each needs when it
#: is not the same for all: sevens 1 mark, nello the rules' ``nello_min_marks``.
BASE_DECLARATIONS: tuple[str, ...] = PIP_NAMES + ("doubles", "follow-me")
EXTRA_DECLARATIONS_42: dict[str, str | int] = {"nello": "nello_min_marks", "sevens": 1}
#: Declarations that take the ``doubles`` option (high, low, suit), in 42 only.
DOUBLES_OPTION_DECLARATIONS = ("follow-me", "nello")


@dataclass(frozen=True)
class GameRules:
    """A game's kind (42, Moon for 3 or 4) and its house options
    (docs/rules/texas42.md and docs/rules/moon.md describe them).

    Read from a game record's ``rules`` object by `read_rules`; the defaults
    are the standard rules.

    Attributes:
        game: ``"42"`` or ``"moon"``.
        players: 4, or 3 for three-player Moon.
        all_pass: When every seat passes: ``"forced"`` (the shaker must bid)
            or ``"reshake"`` (the hand is thrown in).
        splash: Whether splash is allowed (42).
        nello_min_marks: The marks a nello bid needs (42; 2 by default).
        min_bid: Moon's lowest bid in tricks (4 by default).
        score: Moon's score: ``"points"`` (to 21) or ``"marks"`` (to 7).
        given: The options the record gave, written back as given.

    >>> from solver import read_rules
    >>> rules = read_rules({"splash": True}, "42", 4)
    >>> rules.splash, rules.target, rules.score_keys
    (True, 7, ('NS', 'EW'))
    """

    game: str = "42"
    players: int = 4
    all_pass: str = "forced"
    splash: bool = False
    nello_min_marks: int = 2
    min_bid: int = 4
    score: str = "points"
    #: The options the record gave (written back as given).
    given: tuple[tuple[str, Any], ...] = field(default=(), compare=False)

    @property
    def seats(self) -> tuple[int, ...]:
        """The seat indices that play (0..3, or 0..2)."""
        return tuple(range(self.players))

    @property
    def three_handed(self) -> bool:
        """Three-player Moon."""
        return self.players == 3

    @property
    def partnerships(self) -> bool:
        """Four players in two sides (N-S, E-W)."""
        return self.players == 4

    @property
    def in_marks(self) -> bool:
        """Scored in marks (42, and Moon with ``score: "marks"``), else Moon points."""
        return self.game == "42" or self.score == "marks"

    @property
    def target(self) -> int:
        """The score that wins: 7 marks, or 21 Moon points."""
        return MAX_MARKS if self.in_marks else SHOOT

    @property
    def score_keys(self) -> tuple[str, ...]:
        """The keys of a score: the sides ``NS``/``EW``, or the three Moon players."""
        return ("NS", "EW") if self.partnerships else SEATS[:3]

    def key_of(self, seat: int) -> str:
        """The score key of a seat: its side, or (three players) the seat itself."""
        return ("NS", "EW")[seat % 2] if self.partnerships else SEATS[seat]

    def next_seat(self, seat: int) -> int:
        """The seat after ``seat`` in turn."""
        return (seat + 1) % self.players

    def to_json(self) -> dict:
        """The ``rules`` object as the record gave it."""
        return dict(self.given)


def read_rules(raw: Mapping[str, Any] | None, game: str, players: int,
               where: str = "rules") -> GameRules:
    """The ``rules`` object of a game record: only the options of ``game``, each a value
    it accepts (`OPTIONS`).

    Args:
        raw: The house options (docs/formats.md), or None for the defaults.
        game: ``"42"`` or ``"moon"``.
        players: 4, or 3 for three-player Moon.
        where: The field path of ``raw``, for errors.

    Returns:
        The `GameRules`.

    Raises:
        PositionError: An option ``game`` does not take, or a value it does not
            accept (``INVALID_OPTION``).

    >>> from solver import read_rules
    >>> read_rules({"min_bid": 5, "score": "marks"}, "moon", 3).target
    7
    """
    if raw is None:
        return GameRules(game, players)
    if not isinstance(raw, Mapping):
        raise PositionError(where, "must be an object of house options", "INVALID_TYPE")
    options = OPTIONS[game]
    check_keys(raw, tuple(options), where, f"the rules of {game}")
    given: dict[str, Any] = {}
    for name, value in raw.items():
        accepted, _ = options[name]
        if isinstance(value, str):
            value = value.lower()
        if isinstance(value, bool) != isinstance(accepted[0], bool) or value not in accepted:
            shown = ", ".join(str(a).lower() if isinstance(a, bool) else repr(a) if
                              isinstance(a, str) else str(a) for a in accepted)
            raise PositionError(f"{where}.{key_text(name)}", f"{quoted(raw[name])} is not an "
                                f"option (one of {shown})", "INVALID_OPTION")
        given[name] = value
    return GameRules(game, players, given=tuple(given.items()), **given)


def marks_of(bid: int, game: str = "42") -> int:
    """What a bid is worth when made (and costs when set): 1 mark up to 42, k marks for
    42*k; Moon: the bid itself (21 when shooting the moon).

    Args:
        bid: The bid.
        game: ``"42"`` or ``"moon"``.

    >>> marks_of(84), marks_of(35)
    (2, 1)
    """
    if game == "moon":
        return bid
    return max(1, bid // ONE_MARK)


def top_marks_over(highest: int | None) -> int:
    """The most marks a bid may be after ``highest`` (None: no bid yet): 2 to open or over
    a point bid or 1 mark, else one mark more (at most 7)."""
    marks = highest // ONE_MARK if highest is not None and highest >= ONE_MARK else 0
    return min(MAX_MARKS, max(OPENING_MARKS, marks + 1))


def bids_over(rules: GameRules, highest: int | None, may_shoot: bool = True) -> tuple[int, ...]:
    """The bids higher than ``highest`` that the ladder allows (no special calls).

    Args:
        rules: The game and its house options (Moon's lowest bid).
        highest: The highest bid so far; None: none.
        may_shoot: Whether 21 (shooting the moon) is open to the caller.

    >>> bids_over(GameRules(), 41)
    (42, 84)
    """
    if rules.game == "moon":
        ladder = tuple(range(rules.min_bid, MOON_TOP + 1)) + ((SHOOT,) if may_shoot else ())
        return tuple(b for b in ladder if highest is None or b > highest)
    points = tuple(b for b in POINT_BIDS if highest is None or b > highest)
    low = highest // ONE_MARK + 1 if highest is not None and highest >= ONE_MARK else 1
    return points + tuple(k * ONE_MARK for k in range(low, top_marks_over(highest) + 1))


def legal_declarations(rules: GameRules, bid: int, kind: str = "standard") -> tuple[str, ...]:
    """What the auction's winner (the partner of a plunger or splasher) may name: a pip
    suit, doubles, follow-me, and in a 42 standard contract sevens (1 mark or more) and
    nello (``nello_min_marks``, 2 by default). Follow-me and nello (42) take the
    ``doubles`` option too.

    Args:
        rules: The game and its house options.
        bid: The winning bid (points 30..41 or marks as multiples of 42; Moon
            tricks).
        kind: ``"standard"``, ``"plunge"`` or ``"splash"``.

    Returns:
        Declaration names, pip suits first.

    >>> from solver import GameRules, legal_declarations
    >>> legal_declarations(GameRules(), 84)[-3:]
    ('follow-me', 'nello', 'sevens')
    >>> "nello" in legal_declarations(GameRules(), 42)
    False
    """
    if rules.game == "moon" or kind != "standard":
        return BASE_DECLARATIONS
    extra = tuple(name for name, need in sorted(EXTRA_DECLARATIONS_42.items())
                  if bid >= ONE_MARK * (getattr(rules, need) if isinstance(need, str) else need))
    return BASE_DECLARATIONS + extra


def declaration_marks_needed(rules: GameRules, name: str) -> int:
    """The marks the 42 declaration ``name`` needs under ``rules`` (0: any bid)."""
    need = EXTRA_DECLARATIONS_42.get(name, 0)
    return getattr(rules, need) if isinstance(need, str) else need


@dataclass(frozen=True)
class Call:
    """One call of an auction.

    Attributes:
        seat: The caller's seat index (0..3 for N, E, S, W).
        bid: A number (points 30..41, marks as multiples of 42; Moon tricks or
            21), or ``"pass"``, ``"plunge"``, ``"splash"``.

    >>> from solver import Call
    >>> Call(1, "plunge").amount, Call(1, "plunge").to_json()
    (168, {'seat': 'E', 'bid': 'plunge'})
    """

    seat: int
    bid: int | str

    @property
    def is_pass(self) -> bool:
        """Whether the call is a pass."""
        return self.bid == PASS

    @property
    def amount(self) -> int | None:
        """The bid the call stands for (plunge 168, splash 84), None for a pass."""
        if isinstance(self.bid, int):
            return self.bid
        return SPECIAL_CALLS[self.bid][0] if self.bid in SPECIAL_CALLS else None

    @property
    def kind(self) -> str:
        """The contract kind the call makes when it wins."""
        return self.bid if isinstance(self.bid, str) and self.bid in SPECIAL_CALLS \
            else "standard"

    def to_json(self) -> dict:
        """The call's JSON: ``{"seat": "N", "bid": ...}``."""
        return {"seat": SEATS[self.seat], "bid": self.bid}


def read_call_value(bid: object, where: str) -> int | str:
    """A call's ``bid``: a positive whole number, or ``pass``, ``plunge``, ``splash`` (any
    case). Anything else: ``INVALID_VALUE`` on the field ``where``."""
    if isinstance(bid, str) and bid.lower() in CALL_WORDS:
        return bid.lower()
    if isinstance(bid, int) and not isinstance(bid, bool) and bid > 0:
        return bid
    raise PositionError(where, f"not a bid: {quoted(bid)} (a number, \"pass\", \"plunge\" "
                        "or \"splash\")", "INVALID_VALUE")


def read_call(call: Mapping[str, Any], where: str, seats: Sequence[str]) -> Call:
    """One call's JSON, ``{"seat": "N", "bid": ...}``: its shape only (whether it is legal
    is the `Auction`'s to say).

    Args:
        call: The call's JSON (a mapping; anything else is bad input).
        where: The call's field path, for errors (``auction[2]``).
        seats: The seats of the game.

    Raises:
        PositionError: Not a call, an unknown seat or key, or not a bid.
    """
    if not isinstance(call, Mapping):
        raise PositionError(where, "a call is an object {\"seat\": ..., \"bid\": ...}",
                            "INVALID_TYPE")
    check_keys(call, ("seat", "bid"), where, "a call")
    seat = call.get("seat")
    if seat not in seats:  # a str (a list or dict is no seat name)
        raise PositionError(f"{where}.seat", f"unknown seat {quoted(seat)} (one of "
                            f"{', '.join(seats)})", "UNKNOWN_SEAT")
    # A missing bid reads as None: "not a bid" (INVALID_VALUE), as views have always said.
    return Call(SEAT_INDEX[seat], read_call_value(call.get("bid"), f"{where}.bid"))


class Auction:
    """The calls of one hand so far, each checked against the rules when made.

    Args:
        rules: The game and its house options.
        shaker: The shaker's seat index; the seat on its left calls first.
        hands: Seat index -> tile numbers, when known: lets a plunge or splash
            be checked against the caller's doubles.
        no_shoot: The Moon seats that may not bid 21 (their player or side is
            below zero).

    Attributes:
        calls: The calls made so far (`Call`).
        top: The winning call so far, or None.

    >>> from solver import Auction, Call, GameRules
    >>> auction = Auction(GameRules(), shaker=0)
    >>> auction.call(Call(1, "pass")); auction.call(Call(2, 30))
    >>> auction.legal_calls()[:3], auction.next_seat
    (('pass', 31, 32), 3)
    """

    def __init__(self, rules: GameRules, shaker: int,
                 hands: Mapping[int, Sequence[int]] | None = None,
                 no_shoot: Iterable[int] = ()) -> None:
        self.rules = rules
        self.shaker = shaker
        self.hands = hands
        self.no_shoot = frozenset(no_shoot)
        self.calls: list[Call] = []
        #: the winning call so far
        self.top: Call | None = None

    # ------------------------------------------------------------------ state

    @property
    def order(self) -> tuple[int, ...]:
        """The seats in calling order: left of the shaker first, the shaker last."""
        n = self.rules.players
        return tuple((self.shaker + 1 + i) % n for i in range(n))

    @property
    def is_over(self) -> bool:
        """Every seat has called (or, in Moon, someone shot the moon)."""
        if self.top is not None and self.rules.game == "moon" and self.top.bid == SHOOT:
            return True
        return len(self.calls) == self.rules.players

    @property
    def next_seat(self) -> int | None:
        """The seat to call, None once the auction is over."""
        return None if self.is_over else self.order[len(self.calls)]

    @property
    def highest(self) -> int | None:
        """The highest bid so far (a plunge or splash as the bid it stands for)."""
        return None if self.top is None else self.top.amount

    @property
    def thrown_in(self) -> bool:
        """Every seat passed (only possible with ``all_pass: "reshake"``)."""
        return self.is_over and self.top is None

    @property
    def winner(self) -> int | None:
        """The seat that won the auction (None while it runs, or when thrown in)."""
        return self.top.seat if self.is_over and self.top is not None else None

    @property
    def bid(self) -> int | None:
        """The winning bid, once the auction is won."""
        return self.highest if self.winner is not None else None

    @property
    def kind(self) -> str:
        """The contract kind of the winning call so far (``"standard"`` without one)."""
        return self.top.kind if self.top is not None else "standard"

    @property
    def declarer_names_trump(self) -> int | None:
        """The seat that names the trump: the winner, or a plunger's (splasher's) partner."""
        if self.winner is None:
            return None
        return self.winner if self.kind == "standard" else (self.winner + 2) % 4

    # ------------------------------------------------------------ legal calls

    def _doubles(self, seat: int) -> int | None:
        if self.hands is None or seat not in self.hands:
            return None
        return sum(1 for t in self.hands[seat] if T.is_double(t))

    def _specials(self, seat: int) -> tuple[str, ...]:
        if self.rules.game != "42" or self.highest is not None:
            return ()
        held = self._doubles(seat)
        return tuple(name for name, (_, need, option) in SPECIAL_CALLS.items()
                     if (option is None or getattr(self.rules, option))
                     and (held is None or held >= need))

    def _must_bid(self) -> bool:
        return self.rules.all_pass == "forced" and self.highest is None \
            and len(self.calls) == self.rules.players - 1

    def legal_calls(self) -> tuple[int | str, ...]:
        """The calls the seat to call may make: ``pass`` (unless forced to bid), the bids
        in order, then ``plunge`` / ``splash`` where allowed (the caller's doubles are
        checked when its hand is known). Empty when the auction is over."""
        seat = self.next_seat
        if seat is None:
            return ()
        bids = bids_over(self.rules, self.highest, seat not in self.no_shoot)
        return ((() if self._must_bid() else (PASS,)) + bids  # type: ignore[operator]
                + self._specials(seat))

    def call(self, call: Call, where: str = "call") -> None:
        """Add one call, or raise `PositionError` naming ``where.seat`` / ``where.bid``."""
        seat = self.next_seat
        if seat is None:
            done = "the moon was shot" if self.top is not None and self.top.bid == SHOOT \
                and self.rules.game == "moon" else "every seat has called"
            raise PositionError(where, f"the auction is over ({done})", "AUCTION_OVER")
        if call.seat != seat:
            earlier = next((i for i, c in enumerate(self.calls) if c.seat == call.seat), None)
            why = f"{SEATS[call.seat]} already called" if earlier is not None else \
                f"{SEATS[call.seat]} calls later"
            raise PositionError(f"{where}.seat", f"{SEATS[seat]} is to call, not "
                                f"{SEATS[call.seat]} ({why})", "OUT_OF_TURN")
        self._check_bid(call, f"{where}.bid")
        self.calls.append(call)
        if not call.is_pass:
            self.top = call

    def _check_bid(self, call: Call, where: str) -> None:
        rules, highest, bid = self.rules, self.highest, call.bid
        if call.is_pass:
            if self._must_bid():
                low = rules.min_bid if rules.game == "moon" else POINT_BIDS[0]
                raise PositionError(where, f"every other seat passed: the shaker "
                                    f"{SEATS[call.seat]} may not pass and bids {low} or more "
                                    "(all_pass: forced)", "FORCED_BID")
            return
        if isinstance(bid, str):  # plunge or splash
            if rules.game != "42":
                raise PositionError(where, f"Moon has no {bid}", "INVALID_CALL")
            _, need, option = SPECIAL_CALLS[bid]
            if option is not None and not getattr(rules, option):
                raise PositionError(where, f"{bid} is not allowed (rules option "
                                    f"{option}: true allows it)", "INVALID_CALL")
            if highest is not None:
                raise PositionError(where, f"{bid} only when every call before it is a pass "
                                    f"(the bid is {highest})", "PLUNGE_AFTER_BID")
            held = self._doubles(call.seat)
            if held is not None and held < need:
                raise PositionError(where, f"{bid} needs {need} doubles; "
                                    f"{SEATS[call.seat]} holds {held}",
                                    "PLUNGE_NEEDS_FOUR_DOUBLES" if bid == "plunge"
                                    else "SPLASH_NEEDS_THREE_DOUBLES")
            return
        self._check_number(call, where)

    def _check_number(self, call: Call, where: str) -> None:
        rules, highest, bid = self.rules, self.highest, call.bid
        assert isinstance(bid, int)
        if rules.game == "moon":
            if bid not in bids_over(rules, None):
                raise PositionError(where, f"Moon bid {bid} is out of range ({rules.min_bid}.."
                                    f"{MOON_TOP} tricks, or 21 to shoot the moon)",
                                    "BID_OUT_OF_RANGE")
            if bid == SHOOT and call.seat in self.no_shoot:
                who = "side" if rules.partnerships else "player"
                raise PositionError(where, f"a {who} below zero may not shoot the moon (21)",
                                    "SHOOT_BELOW_ZERO")
        elif not (bid in POINT_BIDS or (bid % ONE_MARK == 0
                                         and ONE_MARK <= bid <= MAX_MARKS * ONE_MARK)):
            raise PositionError(where, f"bid {bid} is out of range (30..41 points or 42*k "
                                "marks, 42..294)", "BID_OUT_OF_RANGE")
        if highest is not None and bid <= highest:
            raise PositionError(where, f"bid {bid} is not higher than the bid {highest}",
                                "BID_NOT_HIGHER")
        if rules.game == "42" and bid >= ONE_MARK:
            top = top_marks_over(highest)
            if bid > top * ONE_MARK:
                over = "to open" if highest is None or highest < ONE_MARK \
                    else f"over {highest // ONE_MARK} mark{'s' if highest >= 2 * ONE_MARK else ''}"
                raise PositionError(where, f"bid {bid} ({bid // ONE_MARK} marks) is too high: "
                                    f"at most {top} marks ({top * ONE_MARK}) {over}",
                                    "MARK_JUMP")

    # ----------------------------------------------------------------- output

    def to_json(self) -> list[dict]:
        """The auction JSON: the calls in order."""
        return [c.to_json() for c in self.calls]


def read_auction(raw: Sequence[Mapping[str, Any]] | None, rules: GameRules, shaker: int,
                 where: str = "auction", hands: Mapping[int, Sequence[int]] | None = None,
                 no_shoot: Iterable[int] = ()) -> Auction:
    """An auction's JSON (a list of calls), each call read and checked in turn.

    Args:
        raw: The calls, ``[{"seat": "E", "bid": "pass"}, ...]``; None: none yet.
        rules: The game and its house options.
        shaker: The shaker's seat index.
        where: The field path of ``raw``, for errors (``auction[1].bid``).
        hands: As for `Auction`.
        no_shoot: As for `Auction`.

    Returns:
        The `Auction`, its calls made.

    Raises:
        PositionError: A call out of turn, not higher, a mark jump, ... naming
            the call's field and a reason code.

    >>> from solver import GameRules, read_auction
    >>> calls = [{"seat": "E", "bid": "pass"}, {"seat": "S", "bid": 30},
    ...          {"seat": "W", "bid": 31}, {"seat": "N", "bid": "pass"}]
    >>> auction = read_auction(calls, GameRules(), shaker=0)
    >>> auction.winner, auction.bid
    (3, 31)
    """
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise PositionError(where, "must be a list of calls", "INVALID_TYPE")
    auction = Auction(rules, shaker, hands, no_shoot)
    seats = SEATS[:rules.players]
    for i, item in enumerate(raw):
        auction.call(read_call(item, f"{where}[{i}]", seats), f"{where}[{i}]")
    return auction


__all__ = ["Auction", "Call", "GameRules", "ONE_MARK", "MAX_MARKS", "OPTIONS", "POINT_BIDS",
           "bids_over", "legal_declarations", "marks_of", "read_auction", "read_call",
           "read_rules", "top_marks_over"]
