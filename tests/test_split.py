"""One search on two threads (solver.search.split): the same answers, and it stops when told.

The case files go through ``threads=2`` (every move scored, the exact value,
make-or-set, the optimal moves only) and must give exactly the one-thread
answers; tokens, errors and the helper threads are checked with searches held
open by a node budget or by a condition seen in another thread, never by time.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from solver import CancelToken, DealSolver, Position, SearchCancelled, make_or_set, solve
from solver.game.errors import ArgumentError
from solver.search import split
from solver.search._core import Engine

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = json.loads((ROOT / "examples" / "deal.json").read_text())  # W, fours: 31


def _cases() -> list[dict]:
    out = []
    for name in ("texas42.jsonl", "moon.jsonl"):
        with open(ROOT / "tests" / "cases" / name, encoding="utf-8") as f:
            out += [json.loads(line) for line in f if line.strip()]
    return out


CASES = _cases()
#: The cases with 4..7 tricks left, where the searches are more than a few nodes.
BIG = [c for c in CASES if len(c["position"]["plays"]) <= 12]


def _answer(result) -> tuple:
    return result.value, result.makes, result.to_move, result.moves, result.line


def test_every_case_scored_alike_on_two_threads():
    """All 310 shared cases, every declaration and Moon: solve() on two threads."""
    for case in CASES:
        position, expect = case["position"], case["expect"]
        two = solve(position, threads=2)
        assert (two.value, two.makes, two.to_move) == \
            (expect["value"], expect["makes"], expect["to_move"]), case["id"]
        if "moves" in expect:
            assert two.moves == expect["moves"], case["id"]
        assert _answer(two) == _answer(solve(position, threads=1)), case["id"]


def test_value_make_or_set_and_best_moves_alike_on_two_threads():
    """Young brothers wait (the value), the split null-window test and the optimal-moves
    tests: the one-thread answers on every case with more than three tricks left."""
    assert len(BIG) > 60
    for case in BIG:
        p = Position(case["position"])
        one, two = DealSolver(p), DealSolver(p, threads=2)
        assert two.value() == one.value() == case["expect"]["value"], case["id"]
        bid = p.contract.bid
        assert two.make_or_set(bid).to_json() == one.make_or_set(bid).to_json(), case["id"]
        best = [DealSolver(p, threads=t).solve(best_only=True) for t in (1, 2)]
        assert _answer(best[0]) == _answer(best[1]), case["id"]
        # Each side of the value as a target: reached, and one more not.
        v = case["expect"]["value"]
        assert two.at_least(v) and not two.at_least(v + 1), case["id"]


def test_many_thread_counts_agree_and_count_every_engine():
    p = Position(EXAMPLE)
    one = DealSolver(p)
    expected = one.child_values()
    for threads in (2, 3, 7, 9):  # 9: more threads than moves, the extra ones idle
        solver = DealSolver(p, threads=threads)
        assert solver.child_values() == expected
        assert len(solver.helpers) == min(threads, len(expected)) - 1
        # (A helper that starts late may find every move taken: its count is then 0.)
        assert solver.nodes == solver.engine.nodes + sum(h.nodes for h in solver.helpers)


def test_helpers_follow_the_solvers_position():
    """load, play/undo, open_with_leader and load_deal reach the helper engines too."""
    p = Position(EXAMPLE)
    two = DealSolver(p, threads=2)
    line = solve(p, threads=1).line
    assert two.child_values() == DealSolver(p).child_values()
    later = Position(dict(EXAMPLE, plays=line[:6]))
    two.load(later)
    assert two.child_values() == DealSolver(later).child_values()
    with two.lock:
        for tile in later.legal_ids()[:2]:
            two.play(tile)
            after = later.with_plays(later.plays + (tile,))
            assert two.child_values() == DealSolver(after).child_values()
            assert two.value() == DealSolver(after).value()
            two.undo()
    two.open_with_leader(0)  # North leads the deal instead
    north = DealSolver(p)
    north.open_with_leader(0)
    assert two.child_values() == north.child_values()
    other = Position(dict(EXAMPLE, hands={"N": EXAMPLE["hands"]["E"], "E": EXAMPLE["hands"]["N"],
                                          "S": EXAMPLE["hands"]["S"], "W": EXAMPLE["hands"]["W"]}))
    two.load_deal(other)  # the helpers' tables are cleared: their keys named the old deal
    assert two.child_values() == DealSolver(other).child_values()


def test_the_line_does_not_depend_on_the_threads_nor_on_the_tables_history():
    for case in BIG[::4]:
        p = Position(case["position"])
        fresh = solve(p, threads=1).line
        assert solve(p, threads=2).line == fresh
        warm = DealSolver(p)
        warm.value()
        warm.solve(best_only=True)  # fills the table from other searches first
        assert warm.solve().line == fresh, case["id"]


def test_automatic_threads_split_only_big_scoring():
    if split.cores() < 2:
        pytest.skip("one core: automatic never splits")
    p = Position(EXAMPLE)
    auto = DealSolver(p, threads=None)
    auto.value()
    auto.make_or_set()
    assert auto.helpers == []  # an exact value and a null-window test stay in one thread
    assert auto.child_values() == DealSolver(p).child_values()
    # The split happened: one helper engine a spare core. Whether a helper took a move
    # before the caller's thread finished them all is timing, so it is not asserted.
    assert len(auto.helpers) == split.cores() - 1
    assert auto.nodes == auto.engine.nodes + sum(h.nodes for h in auto.helpers)
    late = Position(dict(EXAMPLE, plays=solve(p).line[:4 * (8 - split.SPLIT_MIN_TRICKS)]))
    small = DealSolver(late, threads=None)
    small.solve()
    assert small.helpers == []
    budget = DealSolver(p, CancelToken(node_budget=10**9), threads=None)
    budget.solve()
    assert budget.helpers == []  # a node budget keeps the search deterministic


def test_automatic_split_leaves_cores_claimed_by_another_automatic_split():
    """A split in one thread while another holds the helper cores runs in one thread."""
    if split.cores() < 2:
        pytest.skip("one core")
    claimed = split.POOL.claim(split.cores())
    try:
        auto = DealSolver(Position(EXAMPLE), threads=None)
        assert auto.child_values() == DealSolver(Position(EXAMPLE)).child_values()
        assert auto.helpers == []
    finally:
        split.POOL.release(claimed)


@pytest.mark.parametrize("threads", [0, -1])
def test_thread_count_out_of_range_is_an_argument_error(threads):
    with pytest.raises(ArgumentError) as err:
        solve(EXAMPLE, threads=threads)
    assert err.value.argument == "threads"
    with pytest.raises(ArgumentError):
        DealSolver(Position(EXAMPLE), threads=threads)
    with pytest.raises(ArgumentError):
        make_or_set(EXAMPLE, threads=threads)


@pytest.mark.parametrize("threads", ["2", 2.0, True])
def test_thread_count_of_the_wrong_type_is_a_type_error(threads):
    with pytest.raises(TypeError, match="threads must be None or a whole number"):
        solve(EXAMPLE, threads=threads)


# -- stopping ------------------------------------------------------------------------------
def test_a_node_budget_is_shared_out_and_stops_both_threads():
    full = DealSolver(Position(EXAMPLE), threads=2)
    full.child_values()
    assert full.nodes > 20_000
    token = CancelToken(node_budget=8_000)
    solver = DealSolver(Position(EXAMPLE), token, threads=2)
    with pytest.raises(SearchCancelled):
        solver.child_values()
    # Each engine had half the budget, checked every 1,024 nodes.
    assert solver.nodes <= 8_000 + 2 * 1024
    assert all(e.legal() for e in [solver.engine, *solver.helpers])  # idle again
    with pytest.raises(SearchCancelled):
        solve(EXAMPLE, token=CancelToken(node_budget=8_000), threads=2)


class _Wrapped:
    """An engine with some of its searches changed; everything else is the engine's."""

    engine: Engine

    def __getattr__(self, name):
        return getattr(self.engine, name)

    def share_table(self, owner) -> None:
        # A split makes its helpers search with the first engine's table.
        self.engine.share_table(owner.engine if isinstance(owner, _Wrapped) else owner)


class _Held(_Wrapped):
    """An engine held searching until its token stops it: each search is run again
    and again (a real search each time), after saying that one has started."""

    def __init__(self, engine, searching: threading.Event) -> None:
        self.engine = engine
        self.searching = searching

    def _hold(self, search, arg):
        self.searching.set()
        while True:  # ends with Aborted, once the token attached to the engine is cancelled
            search(arg)

    def exact(self, guess: int = -1):
        return self._hold(self.engine.exact, guess)

    def at_least(self, target: int):
        return self._hold(self.engine.at_least, target)


@pytest.mark.parametrize("query", ["child_values", "value", "at_least", "best_only"])
def test_cancel_from_another_thread_stops_a_split_search(query):
    """The caller's token is cancelled once a search is seen running; both engines
    are held searching until their tokens stop them, so the call cannot end unless the
    cancel reaches them. It raises SearchCancelled with every engine idle."""
    p = Position(EXAMPLE)
    solver = DealSolver(p, CancelToken(), threads=2)
    solver._helpers(1)
    searching = threading.Event()
    solver.engine = _Held(solver.engine, searching)
    solver.helpers[0] = _Held(solver.helpers[0], searching)
    run = {"child_values": solver.child_values, "value": solver.value,
           "at_least": lambda: solver.at_least(32),
           "best_only": lambda: solver.solve(best_only=True)}[query]
    errors: list[BaseException] = []

    def search() -> None:
        try:
            run()
        except BaseException as exc:  # noqa: BLE001 - checked below
            errors.append(exc)

    thread = threading.Thread(target=search)
    thread.start()
    assert searching.wait(60)
    solver.token.cancel()
    thread.join()
    assert len(errors) == 1 and isinstance(errors[0], SearchCancelled), errors
    solver.engine, solver.helpers[0] = solver.engine.engine, solver.helpers[0].engine
    assert solver.engine.legal() and solver.helpers[0].legal()  # both idle, at the position
    solver.token = None
    solver.engine.set_token(None)
    assert solver.value() == 31 and solver.child_values() == DealSolver(p).child_values()


def test_a_deadline_already_past_stops_a_split_search_at_once():
    token = CancelToken(deadline=0)
    solver = DealSolver(Position(EXAMPLE), token, threads=2)
    for query in (solver.child_values, solver.value, lambda: solver.at_least(30)):
        with pytest.raises(SearchCancelled):
            query()
    assert solver.nodes == 0
    cancelled = CancelToken()
    cancelled.cancel()
    with pytest.raises(SearchCancelled):
        solve(EXAMPLE, token=cancelled, threads=2)


class _Failing(_Wrapped):
    """An engine that raises on its first search (what a broken helper would do)."""

    def __init__(self, engine, failed: threading.Event) -> None:
        self.engine = engine
        self.failed = failed

    def exact(self, guess: int = -1) -> int:
        self.failed.set()
        raise MemoryError("no memory for the table (test)")

    at_least = exact


class _WaitFor(_Wrapped):
    """An engine whose searches wait until ``event`` is set, all but the first ``free``
    (a split may search one move alone first)."""

    def __init__(self, engine, event: threading.Event, free: int = 0) -> None:
        self.engine = engine
        self.event = event
        self.free = free

    def _search(self, search, arg):
        if self.free:
            self.free -= 1
        else:
            assert self.event.wait(60)
        return search(arg)

    def exact(self, guess: int = -1) -> int:
        return self._search(self.engine.exact, guess)

    def at_least(self, target: int) -> bool:
        return self._search(self.engine.at_least, target)


def test_an_error_in_a_helper_reaches_the_caller_and_stops_the_search():
    p = Position(EXAMPLE)
    solver = DealSolver(p, CancelToken(), tt_bits=10, threads=2)
    own = solver.engine
    helper = solver._helpers(1)[0]
    for query in ("child_values", "value"):
        failed = threading.Event()
        solver.helpers[0] = _Failing(helper, failed)
        # The caller's second search waits for the helper's failure: a helper thread
        # that starts late still gets a move.
        solver.engine = _WaitFor(own, failed, free=1)
        with pytest.raises(MemoryError, match="test"):
            getattr(solver, query)()
        assert failed.is_set()
    solver.engine = own
    # The caller's own engine was stopped, not left to finish, and is idle again.
    assert solver.engine.legal()
    solver.helpers[0] = helper
    assert solver.child_values() == DealSolver(p).child_values()


def test_the_answer_found_stops_the_other_thread():
    """A null-window test decided by one move cancels the other thread's search: held
    searching until stopped, the helper is stopped by the caller's thread's answer."""
    solver = DealSolver(Position(EXAMPLE), threads=2)
    searching = threading.Event()
    held = _Held(solver._helpers(1)[0], searching)
    caller = _WaitFor(solver.engine, searching)  # searches once the helper holds a move
    job = split.Split([caller, held], solver.engine.legal(), True)
    split.run(job, split.at_least, 20, None)  # 5 of West's 7 leads reach 20
    assert job.answer is True and job.halted and not job.cancelled
    assert all(t.cancelled for t in job.tokens)
    assert job.slot_of.count(1) == 0  # the helper never finished a move
    assert held.engine.legal()  # idle again


def _split_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("t42-split")]


def test_no_thread_is_left_behind():
    """Helpers come from a bounded pool, and none is still searching after a call."""
    p = Position(EXAMPLE)
    later = Position(dict(EXAMPLE, plays=solve(p, threads=1).line[:8]))
    others = threading.active_count() - len(_split_threads())
    for _ in range(20):
        solver = DealSolver(later, threads=2)
        solver.solve()
        assert all(e.legal() for e in [solver.engine, *solver.helpers])  # none busy
        stopped = DealSolver(p, CancelToken(node_budget=4000), threads=2)
        with pytest.raises(SearchCancelled):
            stopped.child_values()
        assert all(e.legal() for e in [stopped.engine, *stopped.helpers])
    assert len(_split_threads()) <= split.POOL_THREADS
    assert threading.active_count() - len(_split_threads()) == others


def test_cli_threads_option():
    run = [sys.executable, "-m", "solver"]
    deal = str(ROOT / "examples" / "deal.json")
    outs = [subprocess.run(run + ["solve", "--json", "--threads", str(t), deal],
                           capture_output=True, text=True, check=True).stdout
            for t in (1, 2)]
    assert outs[0] == outs[1] and json.loads(outs[0])["value"] == 31
    bad = subprocess.run(run + ["make-or-set", "--threads", "0", deal],
                         capture_output=True, text=True)
    assert bad.returncode == 2
    assert "--threads: 0 is out of range (>= 1)" in bad.stderr.strip().splitlines()[-1]
    made = subprocess.run(run + ["make-or-set", "--json", "--threads", "2", deal],
                          capture_output=True, text=True, check=True)
    assert json.loads(made.stdout) == {"makes": True, "bid": 30}


class _InterruptedOnce:
    """A helper's future whose first wait is interrupted, as by Ctrl-C."""

    def __init__(self, future) -> None:
        self.future = future
        self.interrupted = False

    def __getattr__(self, name):
        return getattr(self.future, name)

    def cancel(self) -> bool:
        return False  # the helper is running

    def result(self, timeout=None):
        if not self.interrupted:
            self.interrupted = True
            raise KeyboardInterrupt
        return self.future.result(timeout)


def test_an_interrupted_wait_still_stops_and_waits_for_the_helpers():
    solver = DealSolver(Position(EXAMPLE), threads=2)
    searching = threading.Event()
    held = _Held(solver._helpers(1)[0], searching)
    job = split.Split([solver.engine, held], solver.engine.legal(), True)
    job.tokens = [CancelToken(), CancelToken()]
    held.set_token(job.tokens[1])
    future = _InterruptedOnce(split.POOL.submit(split._guarded, job, split.score_moves, 1, -1))
    assert searching.wait(60)
    with pytest.raises(KeyboardInterrupt):
        split._join(job, [future])
    assert job.halted and future.done()  # stopped, not left searching
    held.set_token(None)
    assert held.engine.legal()
