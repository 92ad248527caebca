"""Exact double-dummy solver for Texas 42 and Moon.

>>> from solver import Position, solve
>>> result = solve(Position(json_text))
>>> result.value, result.makes, result.moves
"""

from ._core import CancelToken
from .discard import DiscardTable, best_discards
from .errors import ArgumentError, PositionError, SearchCancelled
from .position import SEATS, Contract, Position
from .solve import DealSolver, MakeOrSetResult, SolveResult, legal_moves, make_or_set, solve

__all__ = [
    "ArgumentError", "CancelToken", "Contract", "DealSolver", "DiscardTable", "MakeOrSetResult", "Position", "PositionError",
    "SEATS", "SearchCancelled", "SolveResult", "best_discards", "legal_moves", "make_or_set", "solve",
]
