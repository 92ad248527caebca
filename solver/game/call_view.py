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
from typing import Any, Mapping

from . import tiles as T
from .auction import (SEATS, Auction, Call, GameRules, legal_declarations)
from .errors import PositionError

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

    Attributes:
        seat: The seat's index (0..3 for N, E, S, W).
        hand: Its seven tiles (tile numbers 0..27; `solver.game.tiles`).
        rules: The game and its house options.
        shaker: The shaker's seat index.
        calls: The auction's calls so far.
        score: The game score before this hand, by score key (``NS``/``EW`` or
            the Moon players), as pairs.
        widow: Three-player Moon, the declarer after the auction: the widow.
        discard: ... and, once laid away, its discard.

    >>> from solver import CallView, GameRules
    >>> from solver.game import tiles as T
    >>> hand = tuple(T.parse_tile(t, "hand") for t in "6-6 6-5 6-4 6-3 6-2 5-5 4-4".split())
    >>> view = CallView(seat=1, hand=hand, rules=GameRules(), shaker=0)
    >>> view.action, view.legal_calls()[:3]
    ('call', ('pass', 30, 31))
    """

    seat: int
    hand: tuple[int, ...]
    rules: GameRules
    shaker: int
    calls: tuple[Call, ...] = ()
    #: The game score before this hand, by score key (``NS``/``EW`` or the Moon players).
    score: tuple[tuple[str, int], ...] = ()
    #: Three-player Moon, the declarer after the auction: the widow, then its discard.
    widow: int | None = None
    discard: int | None = None

    def __post_init__(self) -> None:
        if len(self.hand) != 7:
            raise PositionError("hand", f"holds {len(self.hand)} tiles, a hand holds 7",
                                "HAND_SIZE")
        self.auction()  # every call checked in turn

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
        auction = Auction(self.rules, self.shaker, {self.seat: self.hand}, self.no_shoot)
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
            return "discard" if self.discard is None else "declare"
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

    @property
    def eight(self) -> tuple[int, ...]:
        """Three-player Moon declarer: its seven tiles and the widow (else its hand)."""
        return self.hand + ((self.widow,) if self.widow is not None else ())

    @property
    def held(self) -> tuple[int, ...]:
        """The seven tiles the seat plays with: its hand, or after a discard the eight
        less the discard."""
        if self.discard is None:
            return self.hand
        return tuple(t for t in self.eight if t != self.discard)

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
        out["hands"] = {SEATS[self.seat]: [T.name_of(t) for t in self.hand]}
        out["auction"] = [c.to_json() for c in self.calls]
        out["score"] = self.score_map
        if self.widow is not None:
            out["widow"] = T.name_of(self.widow)
        if self.discard is not None:
            out["discard"] = T.name_of(self.discard)
        return out


def call_view(rules: GameRules, seat: int, hand: tuple[int, ...], shaker: int,
              calls: tuple[Call, ...] = (), score: Mapping[str, int] | None = None,
              widow: int | None = None, discard: int | None = None) -> CallView:
    """A `CallView` from its parts (the score as a mapping).

    Args:
        rules: The game and its house options.
        seat: The seat's index.
        hand: Its seven tiles (tile numbers).
        shaker: The shaker's seat index.
        calls: The auction's calls so far.
        score: The game score before the hand, by score key; None: 0 each.
        widow: Three-player Moon declarer: the widow.
        discard: ... and its discard, once laid away.
    """
    return CallView(seat, tuple(hand), rules, shaker, tuple(calls),
                    tuple(sorted((score or {}).items())), widow, discard)


__all__ = ["CallView", "DOUBLES_CHOICE", "Declaration", "call_view"]
