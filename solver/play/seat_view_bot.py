"""The seat-view bot: the advice bot's calls and declarations, and plays chosen by a
seat-view search (`solver.hidden.seat_view`) instead of the double-dummy hint.

A play is the best move of `seat_view_hint` with postponed reasoning (the bot's next
``depth`` decisions searched over what it knows) on ``deals`` deals consistent with its
view. Like every bot it is handed its seat's view and nothing else.
"""

from __future__ import annotations

from typing import Any

from ..game import tiles as T
from ..game.view import View
from ..hidden.seat_view import DEFAULT_DEPTH, seat_view_hint
from .bots import AdviceBot

#: The plays' deals by default: at depth 1 a search costs three to four double-dummy
#: hints of the same deals, so 40 deals cost 1.5 to 2 times the advice bot's 100
#: (bench/test_seat_view_bench.py: 496 against 332 ms CPU at the opening lead, 21.6
#: against 11.1 ms at trick 3, medians of 30 views).
DEFAULT_SEAT_VIEW_DEALS = 40


class SeatViewBot(AdviceBot):
    """Bid advice for its calls (as ``advice``), a seat-view search for its plays.

    Args:
        deals: Deals of a call's bid advice.
        seed: Seeds the bid advice's deals and the plays' deals.
        hint_deals: Deals a play's seat-view search values the moves on.
        depth: The postponed reasoning's depth (0: the double-dummy hint's values).
        method: ``postponed`` or ``playout``.
        **options: `AdviceBot`'s other options.

    >>> bot = SeatViewBot(seed=1, hint_deals=10)
    >>> bot.name, bot.depth
    ('seat-view', 1)
    """

    def __init__(self, deals: int = 100, seed: int = 0, *,
                 hint_deals: int = DEFAULT_SEAT_VIEW_DEALS, depth: int = DEFAULT_DEPTH,
                 method: str = "postponed", **options: Any) -> None:
        options.setdefault("name", "seat-view")
        super().__init__(deals, seed, hint_deals=hint_deals, **options)
        self.depth = depth
        self.method = method

    def choose(self, view: View) -> int:
        legal = view.legal_ids()
        if len(legal) == 1:
            return legal[0]
        found = seat_view_hint(view, method=self.method, deals=self.deals, depth=self.depth,
                               seed=self.rng.randrange(2 ** 31), token=self.token)
        self.last_seat_view = found   # the figures of the last search
        return T.parse_tile(found.best_move, "best")


__all__ = ["DEFAULT_SEAT_VIEW_DEALS", "SeatViewBot"]
