"""A plain double-dummy minimax for Texas 42 and Moon, written from SPEC.md.

This is the test suite's independent statement of the rules: it shares no
code with the `solver` package (no rule tables, no search engine), favours
plainness over speed, and searches every line of play (memoised, never
pruned). The tests compare the solver against it on small positions.

Tiles are ``(high, low)`` tuples with ``high >= low``; seats are ``"N"``,
``"E"``, ``"S"``, ``"W"``.
"""

from __future__ import annotations

from dataclasses import dataclass

SEATS = ("N", "E", "S", "W")
PARTNER = {"N": "S", "S": "N", "E": "W", "W": "E"}
PIP_NAMES = ("blanks", "ones", "deuces", "treys", "fours", "fives", "sixes")
PIP_ALIASES = {"aces": 1, "twos": 2, "threes": 3}
OTHER_DECLARATIONS = {"doubles": "doubles", "follow-me": "follow-me", "no-trump": "follow-me",
                      "notrump": "follow-me", "nello": "nello", "nel-o": "nello", "low": "nello",
                      "sevens": "sevens"}

ALL_TILES = [(h, l) for h in range(7) for l in range(h + 1)]
#: Three-player Moon drops 1-0 ... 6-0 (0-0 stays).
MOON3_TILES = [t for t in ALL_TILES if t[1] != 0 or t == (0, 0)]


# ------------------------------------------------------------------- tiles

def tile(text) -> tuple[int, int]:
    """Parse ``H-L``, ``L-H``, ``HL`` or ``H:L``."""
    digits = [c for c in str(text) if c.isdigit()]
    a, b = int(digits[0]), int(digits[1])
    return (max(a, b), min(a, b))


def name(t: tuple[int, int]) -> str:
    return f"{t[0]}-{t[1]}"


def is_double(t) -> bool:
    return t[0] == t[1]


def count(t) -> int:
    """A tile counts its pip total when that total is 5 or 10."""
    return sum(t) if sum(t) in (5, 10) else 0


# ------------------------------------------------------------------- rules

class Rules:
    """How tricks are played under one declaration."""

    def __init__(self, declaration: str, doubles: str = "high") -> None:
        self.declaration = declaration    # a pip name, "doubles", "follow-me", "nello", "sevens"
        self.doubles = doubles            # where non-trump doubles stand: high, low or suit
        self.trump_pip = PIP_NAMES.index(declaration) if declaration in PIP_NAMES else None

    def is_trump(self, t) -> bool:
        if self.declaration == "doubles":
            return is_double(t)
        return self.trump_pip is not None and self.trump_pip in t

    def led_suit(self, t):
        """The suit a led tile calls for: "trump", "doubles" or a pip."""
        if self.is_trump(t):
            return "trump"
        if self.doubles == "suit" and is_double(t):
            return "doubles"
        return t[0]

    def follows(self, t, suit) -> bool:
        if suit == "trump":
            return self.is_trump(t)
        if self.is_trump(t):
            return False
        if suit == "doubles":
            return is_double(t)
        if self.doubles == "suit" and is_double(t):
            return False
        return suit in t

    def rank(self, t, suit) -> int:
        """Strength of ``t`` inside ``suit`` (which it follows): higher wins."""
        if suit == "doubles" or (suit == "trump" and self.declaration == "doubles"):
            return t[0]                          # 6-6 high ... 0-0 low
        if suit == "trump":
            pip = self.trump_pip                 # the double first, then by the other end
            return 7 if is_double(t) else (t[1] if t[0] == pip else t[0])
        if is_double(t):
            return -1 if self.doubles == "low" else 7
        return t[1] if t[0] == suit else t[0]    # by the end that is not the suit

    def legal(self, hand, trick) -> list:
        """Tiles of ``hand`` that may be played to ``trick`` (a list of tiles so far)."""
        if self.declaration == "sevens":
            closest = min(abs(sum(t) - 7) for t in hand)
            return sorted(t for t in hand if abs(sum(t) - 7) == closest)
        if not trick:
            return sorted(hand)
        suit = self.led_suit(trick[0])
        following = [t for t in hand if self.follows(t, suit)]
        return sorted(following or hand)

    def winner(self, trick) -> int:
        """Index in ``trick`` (tiles in play order) of the tile that wins it."""
        if self.declaration == "sevens":
            # min() keeps the first of equals: the one played first wins ties.
            return min(range(len(trick)), key=lambda i: abs(sum(trick[i]) - 7))
        trumps = [i for i, t in enumerate(trick) if self.is_trump(t)]
        if trumps:
            return max(trumps, key=lambda i: self.rank(trick[i], "trump"))
        suit = self.led_suit(trick[0])
        followers = [i for i, t in enumerate(trick) if self.follows(t, suit)]
        return max(followers, key=lambda i: self.rank(trick[i], suit))


def parse_declaration(value) -> str:
    """The canonical name of a declaration given by name, alias or pip."""
    key = str(value).strip().lower()
    if key in ("0", "1", "2", "3", "4", "5", "6"):
        return PIP_NAMES[int(key)]
    if key in PIP_ALIASES:
        return PIP_NAMES[PIP_ALIASES[key]]
    if key in PIP_NAMES:
        return key
    return OTHER_DECLARATIONS[key]


# -------------------------------------------------------------------- game

@dataclass(frozen=True)
class Game:
    """Who plays, in what order, who scores and who maximises."""

    rules: Rules
    order: tuple          # seats in play, in playing order
    first_leader: str
    scoring: frozenset    # seats whose tricks make the value
    maximising: frozenset
    counts: bool          # tricks worth 1 + count (42) or 1 (nello, Moon)
    declarer: str
    bid: int
    moon: bool

    def trick_points(self, trick) -> int:
        return 1 + (sum(count(t) for t in trick) if self.counts else 0)

    def makes(self, value: int, bid: int | None = None) -> bool:
        bid = self.bid if bid is None else bid
        if self.rules.declaration == "nello":
            return value == 0
        if self.moon:
            return value == 7 if bid == 21 else value >= bid
        # A mark bid needs all 7 tricks, which is exactly all 42 points.
        return value == 42 if bid >= 42 else value >= bid


def game_of(position: dict) -> Game:
    contract = position["contract"]
    declarer = contract["declarer"]
    declaration = parse_declaration(contract["trump"])
    doubles = contract.get("doubles", "high").lower()
    kind = contract.get("kind", "standard").lower()
    moon = str(position.get("game", "42")).lower() == "moon"
    bid = contract.get("bid", {"plunge": 168, "splash": 84}.get(kind))
    if moon and "W" not in position["hands"]:
        # Three players: the declarer alone against the other two.
        order, side = ("N", "E", "S"), {declarer}
        maximising = side
    elif declaration == "nello":
        # The partner sits out; the declarer wants no trick, so minimises.
        order = tuple(s for s in SEATS if s != PARTNER[declarer])
        side = {declarer}
        maximising = set(order) - side
    else:
        order, side = SEATS, {declarer, PARTNER[declarer]}
        maximising = side
    leader = PARTNER[declarer] if kind in ("plunge", "splash") else declarer
    return Game(Rules(declaration, doubles), order, leader, frozenset(side),
                frozenset(maximising), counts=not moon and declaration != "nello",
                declarer=declarer, bid=bid, moon=moon)


@dataclass(frozen=True)
class State:
    """Tiles still held, who leads, the trick so far and the value won so far.

    Seats are positions in ``game.order``: ``hands[i]`` is the frozenset of
    tiles seat ``game.order[i]`` still holds.
    """

    hands: tuple
    leader: int
    trick: tuple = ()     # tiles played to the current trick, leader first
    points: int = 0

    def over(self) -> bool:
        return not self.trick and not any(self.hands)

    def turn(self) -> int:
        return (self.leader + len(self.trick)) % len(self.hands)

    def to_move(self, game: Game):
        return None if self.over() else game.order[self.turn()]

    def legal(self, game: Game) -> list:
        return game.rules.legal(self.hands[self.turn()], self.trick)

    def play(self, game: Game, t) -> "State":
        """The state after the seat to move plays ``t`` (a tile it may play)."""
        turn = self.turn()
        hands = tuple(h - {t} if i == turn else h for i, h in enumerate(self.hands))
        trick = self.trick + (t,)
        if len(trick) < len(hands):
            return State(hands, self.leader, trick, self.points)
        winner = (self.leader + game.rules.winner(trick)) % len(hands)
        won = game.trick_points(trick) if game.order[winner] in game.scoring else 0
        return State(hands, winner, (), self.points + won)


def start(position: dict) -> tuple[Game, State]:
    """The game and the state after the position's plays (each checked legal)."""
    game = game_of(position)
    hands = tuple(frozenset(tile(x) for x in position["hands"][s]) for s in game.order)
    state = State(hands, game.order.index(game.first_leader))
    for x in position.get("plays", []):
        if tile(x) not in state.legal(game):
            raise ValueError(f"{x} is not a legal play for {state.to_move(game)}")
        state = state.play(game, tile(x))
    return game, state


# ------------------------------------------------------------------ search

def minimax(game: Game, state: State, memo: dict) -> int:
    """Final value of the hand from ``state`` under perfect play by both sides."""
    if state.over():
        return state.points
    # What is still to come does not depend on the points already won, so
    # the memo keeps the gain from here on and leaves the points out of the key.
    key = (state.hands, state.leader, state.trick)
    if key not in memo:
        values = [minimax(game, state.play(game, t), memo) for t in state.legal(game)]
        best = max(values) if state.to_move(game) in game.maximising else min(values)
        memo[key] = best - state.points
    return state.points + memo[key]


@dataclass
class Answer:
    value: int
    makes: bool
    to_move: str | None
    moves: dict           # "H-L" -> value of the position after that play
    maximising: bool      # whether the seat to move maximises the value


def solve(position: dict) -> Answer:
    """Exact value, seat to move and every legal move's value of a SPEC position."""
    game, state = start(position)
    memo: dict = {}
    value = minimax(game, state, memo)
    seat = state.to_move(game)
    moves = {} if seat is None else {
        name(t): minimax(game, state.play(game, t), memo) for t in state.legal(game)}
    return Answer(value, game.makes(value), seat, moves, seat in game.maximising)
