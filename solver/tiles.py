"""Tiles of a double-six set: notation, indices and count.

A tile ``H-L`` (``H >= L``) has index ``H*(H+1)/2 + L``, so ``0-0`` is 0 and
``6-6`` is 27. Hands are bitmasks over these indices.
"""

from __future__ import annotations

from .errors import PositionError

N_TILES = 28

#: (high, low) ends of each tile index.
ENDS: tuple[tuple[int, int], ...] = tuple((h, l) for h in range(7) for l in range(h + 1))
NAMES: tuple[str, ...] = tuple(f"{h}-{l}" for h, l in ENDS)
INDEX: dict[tuple[int, int], int] = {ends: i for i, ends in enumerate(ENDS)}
DOUBLES: tuple[int, ...] = tuple(INDEX[(p, p)] for p in range(7))


def index_of(high: int, low: int) -> int:
    """Index of the tile with the two ends given in any order."""
    return INDEX[(max(high, low), min(high, low))]


def count_of(tile: int) -> int:
    """Count points of a tile: its pip total when that is 5 or 10, else 0."""
    total = sum(ENDS[tile])
    return total if total in (5, 10) else 0


def is_double(tile: int) -> bool:
    return ENDS[tile][0] == ENDS[tile][1]


def parse_tile(text: object, field: str) -> int:
    """Parse ``H-L``, ``L-H``, ``HL`` (string or number) or ``H:L`` into a tile index."""
    if isinstance(text, int) and not isinstance(text, bool):
        text = str(text)  # a bare JSON number such as 64
    if isinstance(text, str):
        s = text.strip()
        if len(s) == 3 and s[1] in "-:":
            s = s[0] + s[2]
        if len(s) == 2 and s.isdigit():
            a, b = int(s[0]), int(s[1])
            if a <= 6 and b <= 6:
                return index_of(a, b)
    raise PositionError(field, f"unknown tile {text!r} (write tiles as H-L, e.g. 6-4)", "UNKNOWN_TILE")


def name_of(tile: int) -> str:
    return NAMES[tile]


def mask_of(tiles) -> int:
    m = 0
    for t in tiles:
        m |= 1 << t
    return m


def tiles_of(mask: int) -> list[int]:
    return [t for t in range(N_TILES) if mask >> t & 1]
