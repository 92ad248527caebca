"""Random deals, seeded, optionally constrained, exactly uniform.

A `Dealer` deals every tile of the set into the hands (and, in three-player
Moon, the widow). Constraints: tiles fixed in a seat's hand (all seven or
some), and bounds on how many trumps (of a named declaration) or doubles a
seat holds. Every deal that satisfies the constraints is equally likely:
the dealer draws from the same exact table as the view sampler
(solver.game.completions), never by rejection. A seed gives the same deals.

>>> from solver.hidden.dealer import Dealer
>>> dealer = Dealer(trump="sixes", trumps={"N": (3, 7)})
>>> deal = dealer.deal(seed=7)                     # a `Deal`
>>> deal.position({"declarer": "N", "trump": "sixes", "bid": 30}).to_move
'N'
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Sequence

from ..game import tiles as T
from ..game.completions import Bound, Completions
from ..game.errors import PositionError
from ..game.position import MOON3_SET, SEAT_INDEX, SEATS, Position
from ..game.rules import parse_declaration

WIDOW = "widow"


@dataclass(frozen=True)
class Deal:
    """One deal, as `Dealer.deal` returns it: the hands as dealt and, in three-player
    Moon, the widow.

    `hands` and `widow` speak as the deal JSON does (docs/formats.md): seat letters
    and tile names. ``hand_ids`` and ``widow_id`` are the same deal for code that
    works on numbers.

    Attributes:
        game (str): ``"42"`` or ``"moon"``.
        hand_ids (dict[int, tuple[int, ...]]): Seat index (0..3 for N, E, S, W) -> its
            7 tile numbers (0..27), highest first.
        widow_id (int | None): The widow's tile number in three-player Moon, else None.

    >>> Dealer().deal(seed=7).hands["N"]
    ['6-2', '5-4', '5-0', '4-0', '3-1', '2-1', '1-1']
    """

    game: str
    hand_ids: dict[int, tuple[int, ...]]
    widow_id: int | None = None

    @property
    def hands(self) -> dict[str, list[str]]:
        """The hands as the JSON's ``hands``.

        Returns:
            dict[str, list[str]]: Seat letter -> its 7 tile names, highest first.

        >>> Dealer().deal(seed=7).hands["E"]
        ['6-6', '6-3', '5-3', '5-1', '4-4', '3-3', '2-2']
        """
        return {SEATS[s]: [T.NAMES[t] for t in tiles] for s, tiles in self.hand_ids.items()}

    @property
    def widow(self) -> str | None:
        """The widow.

        Returns:
            str | None: The widow's tile name in three-player Moon, else None.

        >>> Dealer("moon", 3).deal(seed=2).widow
        '1-1'
        """
        return None if self.widow_id is None else T.NAMES[self.widow_id]

    def to_json(self) -> dict[str, Any]:
        """The deal JSON (docs/formats.md).

        Returns:
            dict: ``{"hands": {...}}``, with ``game`` for Moon and ``widow`` for
                three-player Moon.

        >>> Dealer().deal(seed=7).to_json()["hands"]["S"][0]
        '6-0'
        """
        out: dict[str, Any] = {}
        if self.game == "moon":
            out["game"] = "moon"
        out["hands"] = self.hands
        if self.widow_id is not None:
            out["widow"] = T.NAMES[self.widow_id]
        return out

    def to_json_str(self) -> str:
        """The deal JSON as text.

        Returns:
            str: `to_json` as one line of JSON.

        >>> Dealer().deal(seed=7).to_json_str()[:21]
        '{"hands": {"N": ["6-2'
        """
        return json.dumps(self.to_json())

    def position(self, contract: Mapping[str, Any], plays: Sequence[str] = ()) -> Position:
        """A position of this deal under a contract.

        Three-player Moon: the declarer lays the widow itself away (the position's
        widow and discard are the widow), so its hand stays as dealt.

        Args:
            contract (dict): The contract JSON (docs/formats.md), e.g.
                ``{"declarer": "N", "trump": "sixes", "bid": 30}``.
            plays (Sequence[str]): Tile names played so far.

        Returns:
            Position: The position.

        Raises:
            PositionError: For a bad contract or play.

        >>> Dealer().deal(seed=7).position({"declarer": "E", "trump": "sixes", "bid": 30},
        ...                                ["6-6"]).to_move
        'S'
        """
        data: dict[str, Any] = {"hands": self.hands, "contract": dict(contract),
                                "plays": list(plays)}
        if self.game == "moon":
            data["game"] = "moon"
        if self.widow_id is not None:
            data["widow"] = data["discard"] = T.NAMES[self.widow_id]
        return Position(data)


def _seat(key: object, seats: Sequence[str], field: str) -> int:
    if isinstance(key, int) and not isinstance(key, bool) and 0 <= key < len(seats):
        return key
    if isinstance(key, str) and key.upper() in seats:
        return SEAT_INDEX[key.upper()]
    raise PositionError(field, f"unknown seat {key!r} (one of {', '.join(seats)})", "UNKNOWN_SEAT")


def _range(value: object, field: str) -> tuple[int, int]:
    """A (lo, hi) bound: a pair, or one number meaning exactly that many."""
    if isinstance(value, int) and not isinstance(value, bool):
        lo = hi = value
    elif isinstance(value, (tuple, list)) and len(value) == 2 and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        lo, hi = value
    else:
        raise PositionError(field, f"must be a count or a (min, max) pair, not {value!r}",
                            "INVALID_TYPE")
    if not 0 <= lo <= hi <= 7:
        raise PositionError(field, f"bounds {lo}..{hi} are not within 0..7", "INVALID_VALUE")
    return lo, hi


class Dealer:
    """Deals of one game under fixed constraints; build once, deal many times.

    Every deal that satisfies the constraints is equally likely; a seed gives the
    same deals.

    Args:
        game (str): ``"42"`` or ``"moon"``.
        players (int | None): 4, or 3 for three-player Moon (which deals a widow too);
            None: 4 for 42, 3 for Moon.
        fixed (dict | None): Seat (letter or index) -> tile names it must hold (up
            to 7).
        trump (str | None): The declaration whose trumps ``trumps`` counts, e.g.
            ``"sixes"``.
        trumps (dict | None): Seat -> the (min, max) trumps it holds; one number
            means exactly that many.
        doubles (dict | None): Seat -> the (min, max) doubles it holds.

    Raises:
        PositionError: For bad constraints, and (``NO_DEAL``) when no deal
            satisfies them.

    >>> {"6-6", "5-5"} <= set(Dealer(fixed={"N": ["6-6", "5-5"]}).deal(seed=1).hands["N"])
    True
    """

    def __init__(self, game: str = "42", players: int | None = None,
                 fixed: Mapping[Any, Sequence[Any]] | None = None, trump: str | None = None,
                 trumps: Mapping[Any, Any] | None = None,
                 doubles: Mapping[Any, Any] | None = None) -> None:
        if game in (42, "42"):
            game = "42"
        elif isinstance(game, str) and game.lower() == "moon":
            game = "moon"
        else:
            raise PositionError("game", f"unknown game {game!r} (\"42\" or \"moon\")",
                                "UNKNOWN_GAME")
        if players is None:
            players = 3 if game == "moon" else 4
        if players not in (3, 4) or isinstance(players, bool) or (game == "42" and players != 4):
            raise PositionError("players", f"{'Moon' if game == 'moon' else '42'} is not "
                                f"played by {players!r} players", "INVALID_VALUE")
        self.game = game
        self.players = players
        seats = SEATS[:players]
        tile_set = MOON3_SET if players == 3 else frozenset(range(T.N_TILES))
        for name, value in (("fixed", fixed), ("trumps", trumps), ("doubles", doubles)):
            if value is not None and not isinstance(value, Mapping):
                raise PositionError(name, "must be an object of seat -> value", "INVALID_TYPE")
        self.fixed: dict[int, list[int]] = {s: [] for s in range(players)}
        owner: dict[int, str] = {}
        for key, tiles in (fixed or {}).items():
            seat = _seat(key, seats, f"fixed.{key}")
            field = f"fixed.{SEATS[seat]}"
            if isinstance(tiles, str) or not isinstance(tiles, Sequence):
                raise PositionError(field, "must be a list of tiles", "INVALID_TYPE")
            if len(tiles) > 7:
                raise PositionError(field, f"holds {len(tiles)} tiles, a hand holds 7",
                                    "HAND_SIZE")
            for i, text in enumerate(tiles):
                tile = T.parse_tile(text, f"{field}[{i}]")
                if tile not in tile_set:
                    raise PositionError(f"{field}[{i}]", f"{T.NAMES[tile]} is not in the "
                                        "22-tile set of three-player Moon", "NOT_IN_TILE_SET")
                if tile in owner:
                    raise PositionError(f"{field}[{i}]", f"tile {T.NAMES[tile]} is also fixed "
                                        f"at {owner[tile]}", "DUPLICATE_TILE")
                owner[tile] = f"{field}[{i}]"
                self.fixed[seat].append(tile)
        bounds: list[Bound] = []
        if trumps:
            if trump is None:
                raise PositionError("trump", "required with trump counts", "MISSING_FIELD")
            decl = parse_declaration(trump, "trump")
            if decl.name == "doubles":
                trump_mask = T.mask_of(T.DOUBLES)
            elif decl.trump_pip is not None:
                trump_mask = T.mask_of(t for t in tile_set if decl.trump_pip in T.ENDS[t])
            else:
                raise PositionError("trump", f"{decl.name} has no trumps to count",
                                    "INVALID_VALUE")
            bounds += self._bounds(trumps, trump_mask, seats, "trumps")
        if doubles:
            bounds += self._bounds(doubles, T.mask_of(T.DOUBLES), seats, "doubles")
        # Places: the hands in seat order, then the widow.
        capacity = [7 - len(self.fixed[s]) for s in range(players)]
        if players == 3:
            capacity.append(1)
        free = sorted(tile_set - set(owner), reverse=True)
        all_places = (1 << len(capacity)) - 1
        self.completions = Completions({t: all_places for t in free}, capacity, bounds)
        if not self.completions.count():
            raise PositionError("fixed" if not bounds else "trumps" if trumps else "doubles",
                                "no deal satisfies these constraints", "NO_DEAL")

    def _bounds(self, spec: Mapping[Any, Any], mask: int, seats: Sequence[str],
                what: str) -> list[Bound]:
        out = []
        for key, value in spec.items():
            seat = _seat(key, seats, f"{what}.{key}")
            lo, hi = _range(value, f"{what}.{SEATS[seat]}")
            held = sum(1 for t in self.fixed[seat] if mask >> t & 1)
            # The bound counts the dealt tiles; the fixed ones are already there.
            out.append(Bound(mask, seat, max(0, lo - held), hi - held))
        return out

    def count(self) -> int:
        """How many deals satisfy the constraints.

        Returns:
            int: The exact count.

        >>> Dealer(fixed={"N": ["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0"],
        ...               "E": ["5-5", "5-4", "5-3", "5-2", "5-1", "5-0", "4-4"]}).count()
        3432
        """
        return self.completions.count()

    def deal(self, seed: int | random.Random | None = None) -> Deal:
        """One deal drawn uniformly.

        Args:
            seed (int | random.Random | None): An int (the same int gives the same
                deal), a generator to draw from, or None (a fresh seed).

        Returns:
            Deal: The deal.

        >>> Dealer().deal(seed=7) == Dealer().deal(seed=7)
        True
        """
        rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        places = self.completions.sample(rng)
        hands = {s: tuple(sorted(self.fixed[s] + places[s], reverse=True))
                 for s in range(self.players)}
        widow = places[3][0] if self.players == 3 else None
        return Deal(self.game, hands, widow)

    def deals(self, count: int | None, seed: int | random.Random | None = None) -> Iterator[Deal]:
        """Many deals from one generator.

        Args:
            count (int | None): How many; None: endless.
            seed (int | random.Random | None): As for `deal`.

        Returns:
            Iterator[Deal]: The deals.

        >>> [d.hands["N"][0] for d in Dealer().deals(3, seed=7)]
        ['6-2', '6-5', '6-5']
        """
        rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        n = 0
        while count is None or n < count:
            yield self.deal(rng)
            n += 1


def deal(seed: int | random.Random | None = None, **constraints: Any) -> Deal:
    """One uniformly random deal; ``constraints`` as for `Dealer`.

    Args:
        seed: A seed or a `random.Random` (the same seed, the same deal); None:
            a fresh one.
        **constraints: `Dealer`'s arguments (``game``, ``fixed``, ``trumps``, ...).

    Raises:
        PositionError: For bad constraints, and (``NO_DEAL``) when no deal
            satisfies them.

    >>> deal(seed=7).hands["N"]
    ['6-2', '5-4', '5-0', '4-0', '3-1', '2-1', '1-1']
    """
    return Dealer(**constraints).deal(seed)


def deals(count: int | None, seed: int | random.Random | None = None,
          **constraints: Any) -> Iterator[Deal]:
    """A stream of ``count`` uniformly random deals; ``constraints`` as for `Dealer`.

    Args:
        count: How many deals; None: without end.
        seed: A seed or a `random.Random` (the same seed, the same deals); None:
            a fresh one.
        **constraints: `Dealer`'s arguments (``game``, ``fixed``, ``trumps``, ...).

    Returns:
        An iterator of `Deal`.

    >>> [d.hands["N"][0] for d in deals(2, seed=7)]
    ['6-2', '6-5']
    """
    return Dealer(**constraints).deals(count, seed)
