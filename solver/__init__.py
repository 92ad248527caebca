"""Exact double-dummy solver for Texas 42 and Moon.

>>> from solver import Position, solve
>>> result = solve(Position(json_text))
>>> result.value, result.makes, result.moves
"""

from ._core import CancelToken
from .errors import PositionError, SearchCancelled
from .position import SEATS, Contract, Position
from .solve import DealSolver, MakeOrSetResult, SolveResult, legal_moves, make_or_set, solve

__all__ = [
    "CancelToken", "Contract", "DealSolver", "MakeOrSetResult", "Position", "PositionError",
    "SEATS", "SearchCancelled", "SolveResult", "legal_moves", "make_or_set", "solve",
]
