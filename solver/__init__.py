"""Exact double-dummy solver for Texas 42 and Moon.

>>> from solver import Position, solve
>>> result = solve(Position(json_text))
>>> result.value, result.makes, result.moves

This module is the public face: every name in ``__all__`` is imported from here.
The package inside is built in layers, each importing only those below it:

- `solver.game`: the game as data (tiles, rules, contracts, positions, views,
  auctions, scores and game records, the JSON reader, the errors of bad input);
- `solver.search`: the double-dummy search and its queries (solve,
  make-or-set, deal tables, hand analysis, Moon discards);
- `solver.hidden`: what one seat cannot see (consistent deals, the dealer,
  hints, bid advice);
- `solver.play`: bots, whole games between bots, the duplicate arenas (hands and
  games), calibration runs;
- `solver.show`: pictures (the text diagram, SVG, the arena report, the web page);
- the faces on top: `solver.cli` (``t42``), `solver.batch`, and the ``server`` package.

Names of the upper layers (hints, bid advice, deals, tables, analysis) are
imported when first used, so that ``import solver`` stays quick for a
program that only solves positions.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .game.errors import ArgumentError, PositionError, SearchCancelled
from .game.position import SEATS, Contract, Position
from .search._core import CancelToken
from .search.discard import DiscardTable, best_discards
from .search.solve import DealSolver, MakeOrSetResult, SolveResult, legal_moves, make_or_set, solve

#: Public names imported on first use, and the module each comes from.
_LAZY = {
    "View": "solver.game.view",
    "GameRecord": "solver.game.game_record", "HandRecord": "solver.game.game_record",
    "read_game": "solver.game.game_record",
    "Auction": "solver.game.auction", "Call": "solver.game.auction",
    "GameRules": "solver.game.auction", "read_auction": "solver.game.auction",
    "read_rules": "solver.game.auction", "legal_declarations": "solver.game.auction",
    "HandAnalysis": "solver.search.analysis", "analyze_hand": "solver.search.analysis",
    "DealTable": "solver.search.table", "solve_deal": "solver.search.table",
    "count_deals": "solver.hidden.deals", "sample_deals": "solver.hidden.deals",
    "enumerate_deals": "solver.hidden.deals", "iter_deals": "solver.hidden.deals",
    "Dealer": "solver.hidden.dealer",
    "Hint": "solver.hidden.hint", "hint": "solver.hidden.hint",
    "BidAdvice": "solver.hidden.bidding", "advise": "solver.hidden.bidding",
    "CallView": "solver.game.call_view", "Declaration": "solver.game.call_view",
    "analyze_game": "solver.hidden.game_analysis",
    "grade_game": "solver.hidden.coaching", "grade_hand": "solver.hidden.coaching",
    "grade_play": "solver.hidden.coaching",
    "make_bot": "solver.play.bots", "play_game": "solver.play.game_play",
    "next_action": "solver.play.game_play",
    "GameArenaRun": "solver.play.game_arena", "run_game_arena": "solver.play.game_arena",
    "summarize_games": "solver.play.game_arena",
}

if TYPE_CHECKING:  # what a type checker sees of the names above
    from .game.auction import (Auction, Call, GameRules, legal_declarations, read_auction,
                               read_rules)
    from .game.call_view import CallView, Declaration
    from .game.game_record import GameRecord, HandRecord, read_game
    from .game.view import View
    from .hidden.bidding import BidAdvice, advise
    from .hidden.dealer import Dealer
    from .hidden.coaching import grade_game, grade_hand, grade_play
    from .hidden.game_analysis import analyze_game
    from .hidden.deals import count_deals, enumerate_deals, iter_deals, sample_deals
    from .hidden.hint import Hint, hint
    from .play.bots import make_bot
    from .play.game_arena import GameArenaRun, run_game_arena, summarize_games
    from .play.game_play import next_action, play_game
    from .search.analysis import HandAnalysis, analyze_hand
    from .search.table import DealTable, solve_deal


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'solver' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value   # the next look-up finds it directly
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "ArgumentError", "Auction", "BidAdvice", "Call", "CallView", "CancelToken", "Contract",
    "DealSolver", "DealTable", "Dealer", "Declaration", "DiscardTable", "GameArenaRun",
    "GameRecord", "GameRules", "HandAnalysis", "HandRecord", "Hint", "MakeOrSetResult",
    "Position", "PositionError", "SEATS", "SearchCancelled", "SolveResult", "View", "advise",
    "analyze_game", "analyze_hand", "best_discards", "count_deals", "enumerate_deals",
    "grade_game", "grade_hand", "grade_play", "hint",
    "iter_deals", "legal_declarations", "legal_moves", "make_bot", "make_or_set", "next_action",
    "play_game", "read_auction", "read_game", "read_rules", "run_game_arena", "sample_deals",
    "solve", "solve_deal", "summarize_games",
]
