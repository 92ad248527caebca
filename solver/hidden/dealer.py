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
>>> deal.position({"declarer": "N", "trump": "sixes", "bid": 30})
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
    """Hands as dealt (seat index -> 7 tiles, highest first) and the Moon widow."""

    game: str
    hands: dict[int, tuple[int, ...]]
    widow: int | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"hands": {...}}`` (``game`` for Moon, ``widow`` for three-player Moon)."""
        out: dict[str, Any] = {}
        if self.game == "moon":
            out["game"] = "moon"
        out["hands"] = {SEATS[s]: [T.NAMES[t] for t in tiles] for s, tiles in self.hands.items()}
        if self.widow is not None:
            out["widow"] = T.NAMES[self.widow]
        return out

    def to_json_str(self) -> str:
        return json.dumps(self.to_json())

    def position(self, contract: Mapping[str, Any], plays: Sequence[str] = ()) -> Position:
        """A `Position` of this deal under ``contract`` (SPEC JSON).

        Three-player Moon: the declarer lays the widow itself away (the
        position's widow and discard are the widow), so its hand stays as dealt.
        """
        data: dict[str, Any] = {"hands": self.to_json()["hands"], "contract": dict(contract),
                                "plays": list(plays)}
        if self.game == "moon":
            data["game"] = "moon"
        if self.widow is not None:
            data["widow"] = data["discard"] = T.NAMES[self.widow]
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

    ``game`` is ``"42"`` or ``"moon"``; ``players`` defaults to 4 for 42 and
    3 for Moon (three-player Moon deals a widow too).

    ``fixed`` maps a seat (letter or index) to tiles it must hold (up to 7);
    ``trumps`` maps a seat to the (min, max) trumps of declaration ``trump``
    it holds, ``doubles`` to its (min, max) doubles (a single number means
    exactly). Raises `PositionError` for bad constraints, and
    (``NO_DEAL``) when no deal satisfies them.
    """

    def __init__(self, game: str = "42", players: int | None = None,
                 fixed: Mapping[Any, Sequence[Any]] | None = None, trump: Any = None,
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
        """How many deals satisfy the constraints."""
        return self.completions.count()

    def deal(self, seed: int | random.Random | None = None) -> Deal:
        """One deal drawn uniformly (``seed``: an int or a `random.Random`)."""
        rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        places = self.completions.sample(rng)
        hands = {s: tuple(sorted(self.fixed[s] + places[s], reverse=True))
                 for s in range(self.players)}
        widow = places[3][0] if self.players == 3 else None
        return Deal(self.game, hands, widow)

    def deals(self, count: int | None, seed: int | random.Random | None = None) -> Iterator[Deal]:
        """``count`` deals (endless with None) from one generator seeded with ``seed``."""
        rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        n = 0
        while count is None or n < count:
            yield self.deal(rng)
            n += 1


def deal(seed: int | random.Random | None = None, **constraints: Any) -> Deal:
    """One uniformly random deal; ``constraints`` as for `Dealer`."""
    return Dealer(**constraints).deal(seed)


def deals(count: int | None, seed: int | random.Random | None = None,
          **constraints: Any) -> Iterator[Deal]:
    """A stream of ``count`` uniformly random deals; ``constraints`` as for `Dealer`."""
    return Dealer(**constraints).deals(count, seed)
