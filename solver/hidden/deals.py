"""Consistent deals of a view: exact count, exact tile probabilities, uniform draws.

Every function takes a `View` (or its view JSON, docs/formats.md). The deals come from the
view's `Completions` table (see solver.game.completions), so counting is exact,
probabilities are exact ratios of counts, and draws are uniform by
construction. Drawn deals are ordinary `Position`s: the full deal as dealt,
the view's contract and plays.
"""

from __future__ import annotations

import math
import random
import threading
import time
from typing import Any, Callable, Iterator, Mapping, Union

from ..game import tiles as T
from ..game.errors import PositionError, quoted
from ..game.position import SEATS, Position
from ..game.view import View
from ..search._core import CancelToken

ViewLike = Union[View, Mapping[str, Any], str]

#: 1 << tile.
_BIT = tuple(1 << t for t in range(T.N_TILES))

#: enumerate_deals refuses views with more consistent deals than this by default.
DEFAULT_ENUMERATION_LIMIT = 100_000
#: The most deals one call may draw and score: a hint's sample and an adaptive hint's
#: budget, and bid advice's deals. It bounds a call's work and memory (a hint keeps a
#: row of values per deal scored; more deals narrow a sample's 95% interval by little).
MAX_DEALS = 100_000
#: The highest enumeration limit of a hint: every consistent deal scored gives exact
#: figures, worth twice the largest sample (the reference views reach 126,252 deals).
MAX_ENUMERATION_LIMIT = 2 * MAX_DEALS


def check_deal_count(name: str, value: object, low: int = 1, high: int = MAX_DEALS) -> int:
    """``value`` when it is a whole number in ``low..high`` (a count of deals a caller asks
    for), else `PositionError` naming ``name``; a bool is not a number."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise PositionError(name, f"must be a whole number {low}..{high}, not {quoted(value)}",
                            "INVALID_VALUE")
    return value


#: Seeds are whole numbers 0..2**63-1: what every face can carry (the gRPC field is
#: 64 bits) and what `random.Random` takes the same way everywhere.
MAX_SEED = 2 ** 63 - 1


def check_seed(value: object, name: str = "seed") -> int | None:
    """``value`` when it is None (a fresh seed) or a whole number 0..MAX_SEED, else
    `PositionError` naming ``name``: a seed of another type (a list, bytes, a float)
    would be refused by `random.Random` or echoed back as something that is not JSON."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
        raise PositionError(name, f"must be a whole number 0..2**63-1, not {quoted(value)}",
                            "INVALID_VALUE")
    return value


def check_seconds(name: str, value: object) -> float | None:
    """The time limit ``value`` in seconds: None (none), or a number >= 0 (infinity: none
    either; an integer too big for a float is one), else `PositionError` naming ``name``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PositionError(name, f"must be a number of seconds, not {quoted(value)}",
                            "INVALID_VALUE")
    try:
        seconds = float(value)
    except OverflowError:
        seconds = math.inf if value > 0 else -math.inf
    if not seconds >= 0:  # NaN too
        raise PositionError(name, f"must be a number of seconds >= 0, not {quoted(value)}",
                            "INVALID_VALUE")
    return seconds


def token_stopped(token: CancelToken | None) -> bool:
    """Whether a cancel ``token`` (or None) has stopped: cancelled, or its deadline passed.

    For the work between searches (drawing deals), which no search polls.
    """
    if token is None:
        return False
    if token.cancelled:
        return True
    deadline = token.deadline
    return deadline is not None and time.monotonic() >= deadline


def as_view(view: ViewLike) -> View:
    """A `View` from a View, a view JSON dict or a JSON string."""
    return view if isinstance(view, View) else View(view)


def as_rng(seed: int | random.Random | None) -> random.Random:
    """A random generator: the one given, or a new one seeded with ``seed``."""
    return seed if isinstance(seed, random.Random) else random.Random(seed)


def count_deals(view: ViewLike) -> int:
    """The exact number of deals consistent with the view.

    A deal is consistent when it gives the viewer its hand, fits the contract
    and makes every recorded play legal (a seat that did not follow suit holds
    none of it), and, when the view has an auction, every call possible.

    Args:
        view: A `View`, or its JSON (docs/formats.md) as a dict or text.

    Returns:
        The count, exact (counted, not enumerated).

    Raises:
        PositionError: A bad view.

    >>> from solver import count_deals
    >>> count_deals(open("examples/view.json").read())
    5153148
    """
    return as_view(view).completions.count()


def tile_probabilities(view: ViewLike) -> dict[str, dict[str, float]]:
    """For every tile the ``view``'s seat cannot see, the exact probability that each place
    holds it.

    Keys are tiles (``6-4``, highest first); each maps every place (seat
    letters in seat order, the nello partner, then ``discard``) to a
    probability, zeros included.
    """
    v = as_view(view)
    marginals = v.completions.marginals()
    return {T.name_of(t): dict(zip(v.places, marginals[t])) for t in v.unseen}


class DealBuilder:
    """Turns a consistent deal of a view, given as the tiles of each place, into hands
    or a `Position`.

    A deal's places are as `view.places` names them (the hands of the other
    seats, the nello partner's, a discard) and as ``view.completions``
    draws and enumerates them: one list of tile indices per place. The
    first `position` parses the view's contract and replays its plays; the
    later ones reuse that work (`Position.with_hands`), so build one
    `DealBuilder` per view and ask it for every deal.
    """

    def __init__(self, view: ViewLike) -> None:
        view = as_view(view)
        self.view = view
        self.template: Position | None = None
        self.viewer_hand = tuple(sorted(view.hand_ids, reverse=True))
        #: (place, seat, tiles the seat played, whether it is in play) for each hand place
        self.hands_of = [(p, seat, T.tiles_of(view.played_by[seat]), seat in view.active_seats)
                         for p, seat in enumerate(view.place_seats) if seat is not None]
        self.viewer_remaining = T.mask_of(view.remaining)

    def hands(self, places: list[list[int]]) -> dict[int, tuple[int, ...]]:
        """Seat index -> its 7 tiles as dealt (played ones included), highest first."""
        hands = {self.view.seat: self.viewer_hand}
        for p, seat, played, _ in self.hands_of:
            hands[seat] = tuple(sorted(played + places[p], reverse=True))
        return hands

    def position(self, places: list[list[int]]) -> Position:
        """The full deal as a `Position` with the view's contract and plays."""
        hands = self.hands(places)
        if self.template is None:
            self.template = Position(self._json(hands))
            return self.template
        return self.template.with_hands(hands, self.remaining(places))

    def remaining(self, places: list[list[int]]) -> list[int]:
        """Per seat index, the mask of the tiles it still holds (0: a seat out of play)."""
        # A seat in play still holds exactly its unseen tiles.
        remaining = [0, 0, 0, 0]
        remaining[self.view.seat] = self.viewer_remaining
        for p, seat, _, in_play in self.hands_of:
            if in_play:
                mask = 0
                for t in places[p]:
                    mask |= _BIT[t]
                remaining[seat] = mask
        return remaining

    def _json(self, hands: dict[int, tuple[int, ...]]) -> dict[str, Any]:
        v = self.view
        data: dict[str, Any] = {
            "hands": {SEATS[s]: [T.name_of(t) for t in hands[s]] for s in sorted(hands)},
            "contract": v.contract.to_json(),
            "plays": [T.name_of(t) for t in v.plays],
        }
        if v.game == "moon":
            data["game"] = "moon"
        if v.widow is not None:
            data["widow"], data["discard"] = T.name_of(v.widow), T.name_of(v.discard)
        return data


def sample_deals(view: ViewLike, n: int, seed: int | random.Random | None = None) -> list[Position]:
    """``n`` consistent deals drawn independently and uniformly (with repeats possible).

    In three-player Moon, when the view does not give the discard, the drawn
    position leaves it out (it is the one tile of the set in no hand).

    Args:
        view: A `View`, or its JSON (docs/formats.md) as a dict or text.
        n: How many deals (0 or more).
        seed: A whole number (the same seed gives the same deals), a
            `random.Random` to draw from, or None for fresh randomness.

    Returns:
        Full deals as `Position`s: the hands as dealt, the view's contract and
        plays.

    Raises:
        PositionError: A bad view or a negative ``n``.

    >>> from solver import sample_deals
    >>> deals = sample_deals(open("examples/view.json").read(), 3, seed=1)
    >>> deals[0].hand("W")
    ['6-1', '6-0', '5-5', '4-2', '2-1', '1-1', '1-0']
    """
    return list(iter_sample_deals(view, n, seed))


def iter_sample_deals(view: ViewLike, n: int | None,
                      seed: int | random.Random | None = None) -> Iterator[Position]:
    """The deals of `sample_deals` (``view``, ``n``, ``seed``) one at a time (endless with
    ``n`` None): a generator."""
    v = as_view(view)
    if n is not None and n < 0:
        raise PositionError("count", f"must be at least 0, not {n}", "INVALID_VALUE")
    rng = as_rng(seed)
    builder = DealBuilder(v)
    table = v.completions
    drawn = 0
    while n is None or drawn < n:
        yield builder.position(table.sample(rng))
        drawn += 1


def sample_hands(view: ViewLike, n: int,
                 seed: int | random.Random | None = None) -> list[dict[int, tuple[int, ...]]]:
    """The hands of the ``n`` deals `sample_deals` would draw from ``view`` with the same
    seed, without building `Position`s: seat index -> its 7 tiles as dealt (tile
    indices, highest first), for callers that feed a search engine directly."""
    builder, drawn = _drawn_places(view, n, seed)
    return [builder.hands(places) for places in drawn]


def sample_remaining(view: ViewLike, n: int,
                     seed: int | random.Random | None = None) -> list[list[int]]:
    """What each seat still holds in the ``n`` deals `sample_deals` would draw from
    ``view`` with the same seed, without building `Position`s: per deal, the mask of
    each seat's tiles in hand (by seat index; 0 for a seat out of play), for callers
    that load a search engine at the view's point of play."""
    builder, drawn = _drawn_places(view, n, seed)
    return [builder.remaining(places) for places in drawn]


def _drawn_places(view: ViewLike, n: int, seed: int | random.Random | None
                  ) -> tuple[DealBuilder, list[list[list[int]]]]:
    """The deal builder of ``view`` and the places of the ``n`` deals drawn with ``seed``
    (the draws of `sample_deals`)."""
    v = as_view(view)
    if n < 0:
        raise PositionError("count", f"must be at least 0, not {n}", "INVALID_VALUE")
    rng = as_rng(seed)
    table = v.completions
    return DealBuilder(v), [table.sample(rng) for _ in range(n)]


def iter_deals(view: ViewLike) -> Iterator[Position]:
    """Every consistent deal, once each, in a fixed order (a generator).

    Args:
        view: A `View`, or its JSON (docs/formats.md) as a dict or text.

    Returns:
        An iterator of `Position`s (see `sample_deals`).

    Raises:
        PositionError: A bad view (when the first deal is asked for).

    >>> import json
    >>> view = json.load(open("examples/view.json"))  # East's view, 2 plays in
    >>> view["plays"] += ["3-2", "2-1", "3-3", "5-3", "5-0", "3-0", "4-0", "5-4", "6-4",
    ...                   "4-4", "1-0", "5-1", "5-2", "4-1", "6-5", "6-1", "2-0", "6-0"]
    >>> from solver import iter_deals
    >>> next(iter_deals(view)).hand("W")
    ['5-5', '5-1', '4-0', '3-3', '3-1', '2-0', '1-1']
    """
    v = as_view(view)
    builder = DealBuilder(v)
    for places in v.completions.enumerate():
        yield builder.position(places)


def enumerate_deals(view: ViewLike,
                    limit: int | None = DEFAULT_ENUMERATION_LIMIT) -> list[Position]:
    """Every consistent deal, in the order of `iter_deals`, as a list.

    Args:
        view: A `View`, or its JSON (docs/formats.md) as a dict or text.
        limit: The most deals to build; None: no limit.

    Returns:
        A list of `Position`s (see `sample_deals`).

    Raises:
        PositionError: A bad view, or more deals than ``limit``
            (``TOO_MANY_DEALS``).

    >>> import json
    >>> view = json.load(open("examples/view.json"))  # East's view, 2 plays in
    >>> view["plays"] += ["3-2", "2-1", "3-3", "5-3", "5-0", "3-0", "4-0", "5-4", "6-4",
    ...                   "4-4", "1-0", "5-1", "5-2", "4-1", "6-5", "6-1", "2-0", "6-0"]
    >>> from solver import enumerate_deals
    >>> len(enumerate_deals(view))
    27
    """
    v = as_view(view)
    count = v.completions.count()
    if limit is not None and count > limit:
        raise PositionError("view", f"{count} consistent deals, more than the enumeration "
                            f"limit {limit}", "TOO_MANY_DEALS")
    return list(iter_deals(v))


class ProgressCounter:
    """Counts the pieces of work of one long call (deals scored, searches), from any
    thread, and reports each to ``progress(done, planned)``.

    Args:
        progress: The caller's callback; None counts nothing.
        planned: The work the call means to do (a budget it may stop short of).

    >>> seen = []
    >>> counter = ProgressCounter(lambda done, planned: seen.append((done, planned)), 2)
    >>> counter.tick(); counter.tick(); seen
    [(1, 2), (2, 2)]
    """

    def __init__(self, progress: Callable[[int, int], None] | None, planned: int) -> None:
        self.progress = progress
        self.planned = planned
        self.done = 0
        self._lock = threading.Lock()

    def tick(self) -> None:
        """One piece done: counted, and reported (outside the lock)."""
        if self.progress is None:
            return
        with self._lock:
            self.done += 1
            done = self.done
        self.progress(done, self.planned)
