"""One DealSolver shared by many threads: every answer equals the one a thread
alone gets. The engine under it refuses a second thread instead of corrupting
its state.
"""

from __future__ import annotations

import json
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from solver import CancelToken, DealSolver, Position
from solver.search._core import Aborted

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = json.loads((ROOT / "examples/deal.json").read_text())  # W, fours: 31
THREADS = 8


def _positions() -> list[Position]:
    """The example deal after 4, 5, ... 12 plays of an optimal line (quick searches)."""
    line = DealSolver(Position(EXAMPLE)).solve().line
    return [Position(dict(EXAMPLE, plays=line[:k])) for k in range(4, 13)]


def _answer(solver: DealSolver, query: tuple) -> tuple:
    kind, index, arg = query
    if kind == "solve":
        r = solver.solve(best_only=arg)
        return r.value, r.makes, r.to_move, r.moves, r.line
    if kind == "make_or_set":
        r = solver.make_or_set(arg, exact=True)
        return r.makes, r.bid, r.value
    return solver.value()


def test_one_solver_shared_by_many_threads_answers_as_if_alone():
    positions = _positions()
    queries = [(kind, i, arg) for i in range(len(positions))
               for kind, arg in (("solve", False), ("solve", True), ("make_or_set", 30),
                                 ("make_or_set", 35), ("value", None))]
    expected = {}
    for query in queries:  # each on a fresh solver of its own, one thread
        expected[query] = _answer(DealSolver(positions[query[1]]), query)

    shared = DealSolver(positions[0])

    def hammer(seed: int) -> list[tuple[tuple, tuple]]:
        order = queries * 2
        random.Random(seed).shuffle(order)
        got = []
        for query in order:
            with shared.lock:  # load, then query: one step for the other threads
                shared.load(positions[query[1]])
                got.append((query, _answer(shared, query)))
        return got

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        results = list(pool.map(hammer, range(THREADS)))
    assert sum(len(r) for r in results) == THREADS * 2 * len(queries)
    for got in results:
        for query, answer in got:
            assert answer == expected[query], query


def test_single_calls_are_atomic_without_holding_the_lock():
    position = _positions()[0]
    alone = DealSolver(position)
    expected = {bid: alone.make_or_set(bid, exact=True).to_json() for bid in range(30, 43)}
    expected_solve = alone.solve().to_json()
    shared = DealSolver(position)

    def hammer(seed: int) -> bool:
        bids = list(range(30, 43)) * 3
        random.Random(seed).shuffle(bids)
        for bid in bids:
            assert shared.make_or_set(bid, exact=True).to_json() == expected[bid]
            assert shared.solve().to_json() == expected_solve
        return True

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        assert all(pool.map(hammer, range(THREADS)))
    assert shared.position == position  # the queries never moved it


def test_an_engine_refuses_a_second_thread_while_it_searches():
    """The raw engine (what DealSolver's lock guards) raises instead of hanging."""
    solver = DealSolver(Position(EXAMPLE), tt_bits=10)  # a small table: long searches
    engine = solver.engine
    token = CancelToken()
    stop, started = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def search_until_stopped() -> None:
        try:
            while not stop.is_set():
                started.set()
                engine.exact(-1)
        except Aborted:  # the token below stops the last search
            pass
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    engine.set_token(token)
    thread = threading.Thread(target=search_until_stopped)
    thread.start()
    refused = None
    try:
        assert started.wait(60)
        # The searcher holds the engine nearly all the time: the first tries find it busy
        # (the bound only keeps a broken guard from looping for ever).
        for _ in range(10_000_000):
            try:
                engine.legal()
            except RuntimeError as exc:
                refused = exc
                break
    finally:
        stop.set()
        token.cancel()
        thread.join()
    assert errors == []
    assert refused is not None and "another thread" in str(refused)
    engine.set_token(None)
    assert solver.value() == 31  # the engine is intact after the refusal
