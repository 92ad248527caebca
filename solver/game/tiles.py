"""Tiles of a double-six set: notation, indices and count.

A tile ``H-L`` (``H >= L``) has index ``H*(H+1)/2 + L``, so ``0-0`` is 0 and
``6-6`` is 27. Hands are bitmasks over these indices.
"""

from __future__ import annotations

from typing import Iterable

from .errors import PositionError, quoted

N_TILES = 28

#: (high, low) ends of each tile index.
ENDS: tuple[tuple[int, int], ...] = tuple((h, l) for h in range(7) for l in range(h + 1))
NAMES: tuple[str, ...] = tuple(f"{h}-{l}" for h, l in ENDS)
INDEX: dict[tuple[int, int], int] = {ends: i for i, ends in enumerate(ENDS)}
DOUBLES: tuple[int, ...] = tuple(INDEX[(p, p)] for p in range(7))


def index_of(high: int, low: int) -> int:
    """Index of the tile with the ends ``high`` and ``low``, given in any order."""
    return INDEX[(max(high, low), min(high, low))]


def count_of(tile: int) -> int:
    """Count points of a tile: its pip total when that is 5 or 10, else 0."""
    total = sum(ENDS[tile])
    return total if total in (5, 10) else 0


def is_double(tile: int) -> bool:
    """Whether tile number ``tile`` is a double (both ends alike)."""
    return ENDS[tile][0] == ENDS[tile][1]


def _spellings() -> dict[object, int]:
    """Every accepted spelling of every tile: ``H-L``, ``L-H``, ``H:L``, ``L:H``, ``HL``, ``LH``
    as strings, and the two-digit numbers ``HL`` and ``LH`` (10..66)."""
    table: dict[object, int] = {}
    for tile, (h, l) in enumerate(ENDS):
        for a, b in ((h, l), (l, h)):
            for text in (f"{a}-{b}", f"{a}:{b}", f"{a}{b}"):
                table[text] = tile
            if a:  # 06 is no number a JSON writer produces
                table[10 * a + b] = tile
    return table


#: Spelling -> tile index. ASCII digits only: ``"٦-٤"`` or ``"６-４"`` is no tile.
SPELLINGS: dict[object, int] = _spellings()
_PADDING = " \t\r\n"


def parse_tile(text: object, field: str) -> int:
    """Parse ``text``: ``H-L``, ``L-H``, ``HL`` (string or number) or ``H:L`` into a tile
    index; a bad one is a `PositionError` naming ``field``.

    One lookup in `SPELLINGS`; an error (and its message) is only built for a miss.
    """
    if text.__class__ is str or text.__class__ is int:  # not bool, float, or subclasses
        tile = SPELLINGS.get(text)  # type: ignore[call-overload]
        if tile is not None:
            return tile
    return _parse_unusual(text, field)


def parse_tiles(values: list, field: str) -> list[int]:
    """Parse the list of tiles ``values``; a bad one is reported as ``field[i]``."""
    get = SPELLINGS.get
    # Exact str or int only: not bool, not float (64.0 == 64 would find a tile), not lists.
    out = [get(text, -1) if text.__class__ is str or text.__class__ is int else -1
           for text in values]
    if -1 in out:
        for i, tile in enumerate(out):
            if tile == -1:
                out[i] = _parse_unusual(values[i], f"{field}[{i}]")
    return out


def _parse_unusual(text: object, field: str) -> int:
    """A tile padded with ASCII blanks, else the error for a value that is no tile."""
    if isinstance(text, str) and len(text) <= 16:
        tile = SPELLINGS.get(text.strip(_PADDING))
        if tile is not None:
            return tile
    raise PositionError(field, f"unknown tile {quoted(text)} (write tiles as H-L with the "
                        "ASCII digits 0..6, e.g. 6-4)", "UNKNOWN_TILE")


def name_of(tile: int) -> str:
    """The name of tile number ``tile``, high end first (``"6-4"``)."""
    return NAMES[tile]


def mask_of(tiles: Iterable[int]) -> int:
    """The bit mask of tile numbers ``tiles`` (bit t for tile t)."""
    m = 0
    for t in tiles:
        m |= 1 << t
    return m


def tiles_of(mask: int) -> list[int]:
    """The tile numbers of the bit ``mask``, lowest first."""
    return [t for t in range(N_TILES) if mask >> t & 1]
