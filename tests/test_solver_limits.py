"""Arguments of the search itself: the transposition table size and the cancel
token's contract (deadline, node budget), each checked with a clear error.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

from solver import (ArgumentError, CancelToken, DealSolver, Position, SearchCancelled,
                    make_or_set, solve)
from solver.search._core import Engine

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = Position(json.loads((ROOT / "examples/deal.json").read_text()))  # W, fours: 31


@pytest.mark.parametrize("bits", [0, 1, 9, 31, 32, 40, 64, -1, 2**70, 10**5000],
                         ids=lambda b: str(b) if b < 10**20 else "huge")
def test_tt_bits_out_of_range_is_an_argument_error(bits):
    with pytest.raises(ArgumentError) as err:
        DealSolver(EXAMPLE, tt_bits=bits)
    assert isinstance(err.value, ValueError)
    assert err.value.argument == "tt_bits"
    assert "out of range (10..30" in str(err.value)
    assert len(str(err.value)) < 200  # a huge number is described, not printed
    p = EXAMPLE
    with pytest.raises(ArgumentError):
        Engine(p.rules, p.active_seats, p.maximizer, p.scorer, bits)


@pytest.mark.parametrize("bits", [True, 18.0, "18", None])
def test_tt_bits_of_the_wrong_type_is_a_type_error(bits):
    with pytest.raises(TypeError, match="tt_bits must be a whole number"):
        DealSolver(EXAMPLE, tt_bits=bits)


@pytest.mark.parametrize("bits", [10, 30])
def test_tt_bits_at_both_ends_solve(bits):
    assert DealSolver(EXAMPLE, tt_bits=bits).solve(best_only=True).value == 31


def test_no_deadline_and_no_budget_by_default():
    token = CancelToken()
    assert (token.deadline, token.node_budget, token.cancelled) == (None, None, False)
    assert solve(EXAMPLE, token=token).value == 31
    assert solve(EXAMPLE, token=CancelToken(deadline=None, node_budget=None)).value == 31


@pytest.mark.parametrize("deadline", [0, 0.0, -1, -1e300, -math.inf])
def test_a_deadline_already_past_stops_the_search_at_once(deadline):
    token = CancelToken(deadline=deadline)
    assert token.deadline == float(deadline)
    with pytest.raises(SearchCancelled):
        solve(EXAMPLE, token=token)
    solver = DealSolver(EXAMPLE, token)
    with pytest.raises(SearchCancelled):
        solver.value()
    assert solver.nodes == 0  # not a single node searched
    with pytest.raises(SearchCancelled):
        make_or_set(EXAMPLE, token=CancelToken(deadline=time.monotonic() - 0.001))


@pytest.mark.parametrize("deadline", [math.inf, 10**400])
def test_a_deadline_that_never_comes(deadline):
    token = CancelToken(deadline=deadline)
    assert token.deadline == math.inf
    assert solve(EXAMPLE, token=token).value == 31


def test_a_future_deadline_lets_the_search_finish():
    token = CancelToken(deadline=time.monotonic() + 3600)
    assert solve(EXAMPLE, token=token).value == 31


def test_nan_deadline_is_an_argument_error():
    with pytest.raises(ArgumentError) as err:
        CancelToken(deadline=math.nan)
    assert err.value.argument == "deadline" and "NaN" in err.value.reason
    token = CancelToken()
    with pytest.raises(ArgumentError):
        token.deadline = float("nan")
    assert token.deadline is None  # unchanged


@pytest.mark.parametrize("deadline", ["0", True, object()])
def test_deadline_of_the_wrong_type_is_a_type_error(deadline):
    with pytest.raises(TypeError, match="deadline must be None or a time.monotonic"):
        CancelToken(deadline=deadline)


@pytest.mark.parametrize("budget", [0, -1, -(2**63), 2**63, 2**64, 10**5000],
                         ids=["0", "-1", "-2**63", "2**63", "2**64", "huge"])
def test_node_budget_out_of_range_is_an_argument_error(budget):
    with pytest.raises(ArgumentError) as err:
        CancelToken(node_budget=budget)
    assert err.value.argument == "node_budget"
    assert "1..2**63-1" in err.value.reason
    assert len(str(err.value)) < 200


@pytest.mark.parametrize("budget", [1.0, "5", False])
def test_node_budget_of_the_wrong_type_is_a_type_error(budget):
    with pytest.raises(TypeError, match="node_budget must be a whole number"):
        CancelToken(node_budget=budget)


def test_node_budget_bounds_the_nodes_searched():
    full = DealSolver(EXAMPLE)
    assert full.value() == 31
    needed = full.nodes
    assert needed > 4096  # the budget below cuts this search short
    with pytest.raises(SearchCancelled):
        DealSolver(EXAMPLE, CancelToken(node_budget=1024)).value()
    largest = CancelToken(node_budget=2**63 - 1)
    assert largest.node_budget == 2**63 - 1
    enough = DealSolver(EXAMPLE, largest)
    assert enough.value() == 31 and enough.nodes == needed
