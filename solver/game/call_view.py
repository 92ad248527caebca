"""What a seat knows when it calls, declares or discards (docs/guides/players.md, bots):
its own seven tiles, the game's rules, the shaker, the calls so far and the score;
the three-player Moon declarer also the widow (and, once laid away, its discard).

A `CallView` holds no other hand, so software handed one cannot look at the deal even by
mistake. It answers what the seat may do: `CallView.legal_calls` (the seat's doubles are
known, so plunge and splash are offered only with the doubles they need) and
`CallView.legal_declarations`. A `Declaration` is what a declarer names: the trump and the
doubles option (``high``, ``low`` or ``suit``: follow-me and nello in 42 only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from . import tiles as T
from .auction import (SEATS, Auction, Call, GameRules, legal_declarations)
from .errors import PositionError, quoted

#: Declarations whose doubles option a declarer chooses (42 only).
DOUBLES_CHOICE = ("follow-me", "nello")


@dataclass(frozen=True)
class Declaration:
    """A declarer's choice: the trump (a declaration name) and the doubles option.

    What a bot answers when it is to declare (`next_action`).

    Attributes:
        trump: The declaration: a pip suit (``"sixes"``), ``"doubles"``,
            ``"follow-me"``, ``"nello"`` or ``"sevens"`` (docs/rules/texas42.md).
        doubles: ``"high"``, ``"low"`` or ``"suit"`` (follow-me and nello in 42
            only; the others play doubles high).

    >>> from solver import Declaration
    >>> Declaration("nello", "low").contract_fields()
    {'trump': 'nello', 'doubles': 'low'}
    """

    trump: str
    doubles: str = "high"

    def contract_fields(self) -> dict[str, Any]:
        """The contract JSON fields it sets: ``trump``, and ``doubles`` unless high."""
        out: dict[str, Any] = {"trump": self.trump}
        if self.doubles != "high":
            out["doubles"] = self.doubles
        return out


@dataclass(frozen=True)
class CallView:
    """One seat's knowledge between deal and opening lead: what a bot is handed
    when it calls, declares or discards.

    It holds no other hand, so software handed one cannot look at the deal even
    by mistake. The calls are checked when it is made (`PositionError`).

    Its tiles speak as the JSON does, as names ("6-4"): `hand`, `widow`, `discard`,
    `eight` and `held`. The fields ``hand_ids``, ``widow_id`` and ``discard_id`` (and
    `eight_ids`, `held_ids`) are the same tiles as numbers, for code that works on
    numbers (the bots). `call_view` builds one from names or numbers.

    Attributes:
        seat: The seat's index (0..3 for N, E, S, W).
        hand_ids: Its seven tiles as tile numbers (0..27; `solver.game.tiles`); `hand`
            gives the names.
        rules: The game and its house options.
        shaker: The shaker's seat index.
        calls: The auction's calls so far.
        score: The game score before this hand, by score key (``NS``/``EW`` or
            the Moon players), as pairs.
        widow_id: Three-player Moon, the declarer after the auction: the widow's tile
            number (`widow` gives its name).
        discard_id: ... and, once laid away, its discard's tile number (`discard`).

    >>> from solver import CallView, GameRules
    >>> from solver.game.call_view import call_view
    >>> view = call_view(GameRules(), 1, "6-6 6-5 6-4 6-3 6-2 5-5 4-4".split(), 0)
    >>> view.action, view.legal_calls()[:3], view.hand[:2], view.hand_ids[:2]
    ('call', ('pass', 30, 31), ['6-6', '6-5'], (27, 26))
    """

    seat: int
    hand_ids: tuple[int, ...]
    rules: GameRules
    shaker: int
    calls: tuple[Call, ...] = ()
    #: The game score before this hand, by score key (``NS``/``EW`` or the Moon players).
    score: tuple[tuple[str, int], ...] = ()
    #: Three-player Moon, the declarer after the auction: the widow, then its discard
    #: (tile numbers).
    widow_id: int | None = None
    discard_id: int | None = None

    def __post_init__(self) -> None:
        if len(self.hand_ids) != 7:
            raise PositionError("hand", f"holds {len(self.hand_ids)} tiles, a hand holds 7",
                                "HAND_SIZE")
        self.auction()  # every call checked in turn

    # ------------------------------------------------------------------ tiles

    @property
    def hand(self) -> list[str]:
        """The seat's seven tiles as dealt.

        Returns:
            list[str]: Tile names ("6-4"); ``hand_ids`` holds the same as numbers.

        >>> from solver.game.auction import GameRules
        >>> call_view(GameRules(), 0, [27, 26, 25, 24, 23, 20, 14], 1).hand
        ['6-6', '6-5', '6-4', '6-3', '6-2', '5-5', '4-4']
        """
        return [T.NAMES[t] for t in self.hand_ids]

    @property
    def widow(self) -> str | None:
        """The widow, which the three-player Moon declarer sees once the auction is won.

        Returns:
            str | None: Its tile name, else None; ``widow_id`` is its number.

        >>> from solver.game.auction import GameRules
        >>> rules = GameRules("moon", 3)
        >>> hand = "6-6 6-5 6-4 6-3 6-2 5-5 4-4".split()
        >>> call_view(rules, 0, hand, 1, widow="1-1").widow
        '1-1'
        """
        return None if self.widow_id is None else T.NAMES[self.widow_id]

    @property
    def discard(self) -> str | None:
        """The tile the three-player Moon declarer laid away, once it has.

        Returns:
            str | None: Its tile name, else None; ``discard_id`` is its number.

        >>> from solver.game.auction import GameRules
        >>> hand = "6-6 6-5 6-4 6-3 6-2 5-5 4-4".split()
        >>> call_view(GameRules("moon", 3), 0, hand, 1, widow="1-1", discard="4-4").discard
        '4-4'
        """
        return None if self.discard_id is None else T.NAMES[self.discard_id]

    # ---------------------------------------------------------------- auction

    @property
    def score_map(self) -> dict[str, int]:
        """The score before this hand as a dict."""
        return dict(self.score)

    @property
    def no_shoot(self) -> tuple[int, ...]:
        """Moon seats that may not bid 21: their player or side is below zero."""
        if self.rules.game != "moon":
            return ()
        score = self.score_map
        return tuple(s for s in self.rules.seats if score.get(self.rules.key_of(s), 0) < 0)

    def auction(self) -> Auction:
        """The auction so far, rebuilt and checked (only this seat's hand is known to it)."""
        auction = Auction(self.rules, self.shaker, {self.seat: self.hand_ids}, self.no_shoot)
        for i, call in enumerate(self.calls):
            auction.call(call, f"auction[{i}]")
        return auction

    @property
    def highest(self) -> int | None:
        """The highest bid so far (None: none)."""
        return self.auction().highest

    def legal_calls(self) -> tuple[int | str, ...]:
        """The calls this seat may make now (empty unless it is the seat to call)."""
        auction = self.auction()
        if auction.next_seat != self.seat:
            return ()
        return auction.legal_calls()

    @property
    def action(self) -> str | None:
        """``call``, ``discard`` or ``declare`` when this seat is to act, else None."""
        auction = self.auction()
        if not auction.is_over:
            return "call" if auction.next_seat == self.seat else None
        if auction.winner is None:
            return None
        if self.rules.three_handed:
            if auction.winner != self.seat:
                return None
            return "discard" if self.discard_id is None else "declare"
        return "declare" if auction.declarer_names_trump == self.seat else None

    def legal_declarations(self) -> tuple[str, ...]:
        """What this seat may name once the auction is over (empty otherwise)."""
        auction = self.auction()
        if auction.bid is None:
            return ()
        return legal_declarations(self.rules, auction.bid, auction.kind)

    def doubles_options(self, trump: str) -> tuple[str, ...]:
        """The doubles options a declaration takes: high, low, suit (42 follow-me and
        nello), else high only."""
        if self.rules.game == "42" and trump in DOUBLES_CHOICE:
            return ("high", "low", "suit")
        return ("high",)

    def eight(self) -> list[str]:
        """The tiles the seat may lay away: for the three-player Moon declarer that
        took the widow its seven tiles and the widow, else its hand.

        Returns:
            list[str]: Tile names, the hand's order then the widow; `eight_ids` gives
                the numbers.

        >>> from solver.game.auction import GameRules
        >>> hand = "6-6 6-5 6-4 6-3 6-2 5-5 4-4".split()
        >>> call_view(GameRules("moon", 3), 0, hand, 1, widow="1-1").eight()[-2:]
        ['4-4', '1-1']
        """
        return [T.NAMES[t] for t in self.eight_ids()]

    def eight_ids(self) -> tuple[int, ...]:
        """`eight` as tile numbers, for code that works on numbers.

        Returns:
            tuple[int, ...]: Tile numbers (0..27), in the order of `eight`.

        >>> from solver.game.auction import GameRules
        >>> hand = "6-6 6-5 6-4 6-3 6-2 5-5 4-4".split()
        >>> call_view(GameRules("moon", 3), 0, hand, 1, widow="1-1").eight_ids()[-2:]
        (14, 2)
        """
        return self.hand_ids + ((self.widow_id,) if self.widow_id is not None else ())

    def held(self) -> list[str]:
        """The seven tiles the seat plays with: its hand, or after a discard the eight
        less the discard (as `View.held` is the tiles a viewer still holds).

        Returns:
            list[str]: Tile names, in the order of `eight`; `held_ids` gives the numbers.

        >>> from solver.game.auction import GameRules
        >>> hand = "6-6 6-5 6-4 6-3 6-2 5-5 4-4".split()
        >>> rules = GameRules("moon", 3)
        >>> call_view(rules, 0, hand, 1, widow="1-1", discard="6-2").held()
        ['6-6', '6-5', '6-4', '6-3', '5-5', '4-4', '1-1']
        """
        return [T.NAMES[t] for t in self.held_ids()]

    def held_ids(self) -> tuple[int, ...]:
        """`held` as tile numbers, for code that works on numbers.

        Returns:
            tuple[int, ...]: Tile numbers (0..27), in the order of `held`.

        >>> from solver.game.auction import GameRules
        >>> hand = "6-6 6-5 6-4 6-3 6-2 5-5 4-4".split()
        >>> call_view(GameRules(), 0, hand, 1).held_ids()
        (27, 26, 25, 24, 23, 20, 14)
        """
        if self.discard_id is None:
            return self.hand_ids
        return tuple(t for t in self.eight_ids() if t != self.discard_id)

    # ----------------------------------------------------------------- output

    def to_json(self) -> dict:
        """The seat's view JSON (its hand only), as `t42 arena` records it."""
        out: dict[str, Any] = {"seat": SEATS[self.seat]}
        if self.rules.game == "moon":
            out["game"] = "moon"
            out["players"] = self.rules.players
        if self.rules.given:
            out["rules"] = self.rules.to_json()
        out["shaker"] = SEATS[self.shaker]
        out["hands"] = {SEATS[self.seat]: self.hand}
        out["auction"] = [c.to_json() for c in self.calls]
        out["score"] = self.score_map
        if self.widow is not None:
            out["widow"] = self.widow
        if self.discard is not None:
            out["discard"] = self.discard
        return out


def _tile_id(tile: str | int, field: str) -> int:
    """A tile given as a name (any spelling the JSON accepts) or a tile number 0..27."""
    if tile.__class__ is int and 0 <= tile < T.N_TILES:  # type: ignore[operator]
        return tile  # type: ignore[return-value]
    if tile.__class__ is str:
        return T.parse_tile(tile, field)
    raise PositionError(field, f"unknown tile {quoted(tile)} (a name such as 6-4, or a tile "
                        "number 0..27)", "UNKNOWN_TILE")


def call_view(rules: GameRules, seat: int, hand: Sequence[str | int], shaker: int,
              calls: tuple[Call, ...] = (), score: Mapping[str, int] | None = None,
              widow: str | int | None = None, discard: str | int | None = None) -> CallView:
    """A `CallView` from its parts (the score as a mapping, tiles as names or numbers).

    Args:
        rules: The game and its house options.
        seat: The seat's index.
        hand: Its seven tiles, each a tile name ("6-4") or a tile number 0..27.
        shaker: The shaker's seat index.
        calls: The auction's calls so far.
        score: The game score before the hand, by score key; None: 0 each.
        widow: Three-player Moon declarer: the widow (a name or a number).
        discard: ... and its discard, once laid away (a name or a number).

    Returns:
        CallView: The view, its calls checked.

    Raises:
        PositionError: For a bad tile (field ``hand[i]``, ``widow``, ``discard``), a hand
            of other than seven tiles or an illegal call.

    >>> from solver.game.auction import GameRules
    >>> call_view(GameRules(), 1, ["6-6", "6-5", 25, 24, 23, 20, 14], 0).hand_ids
    (27, 26, 25, 24, 23, 20, 14)
    """
    ids = tuple(_tile_id(t, f"hand[{i}]") for i, t in enumerate(hand))
    return CallView(seat, ids, rules, shaker, tuple(calls),
                    tuple(sorted((score or {}).items())),
                    None if widow is None else _tile_id(widow, "widow"),
                    None if discard is None else _tile_id(discard, "discard"))


__all__ = ["CallView", "DOUBLES_CHOICE", "Declaration", "call_view"]
