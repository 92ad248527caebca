"""One search on several cores: the moves of a position shared out between threads.

Root splitting. Each thread has an engine of its own (same rules, loaded with
the same position), takes a move not yet taken (the position's legal moves in
the engine's order, from the front or, for a helper scoring every move, from
the back) and searches the position after it with the GIL released, so the
threads really run side by side. The helpers' engines search with the caller's
engine's transposition table (`Engine.share_table`), so what one thread stores
the others find: on the heaviest deals two moves' searches often meet the same
positions. Otherwise they share only a few numbers, read at the start of each
move's search:

- every move scored: each move's exact value; the caller's thread takes the
  most promising moves first, guessing the best value known so far (as the
  one-thread search does), a helper the least promising first, guessing
  the best of its own;
- exact value: the first move searched exactly, then each other move tested
  with a null window against the best value so far ("young brothers wait"),
  and searched exactly only when it beats it;
- null-window test (make or set): each move tested against the target; the
  first move that decides the answer stops the other threads.

Answers are the exact values, so they never depend on the number of threads;
only node counts do. The caller's thread searches as one of the threads; the
others come from a pool of helper threads kept for the process. Every engine
gets a cancel token of its own for the search: one thread stopping (an
answer found, an error, a deadline or node budget reached) stops the others
within 1,024 nodes. A ``cancel()`` of the caller's token is passed on by a
watcher every `WATCH_SECONDS`; its deadline is copied into every engine's
token and its node budget shared out between them.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Callable, Sequence

from ._core import Aborted, CancelToken, Engine

if TYPE_CHECKING:  # imported by the first split: a start of t42 need not pay for it
    from concurrent.futures import Future, ThreadPoolExecutor

#: Fewest tricks left (the one being played included) at which ``threads=None``
#: splits a search: below it the searches are too short for the hand-over between
#: threads to pay (see bench/README.md, "One search on both cores").
SPLIT_MIN_TRICKS = 6

#: How often a split search with a caller's token looks for its ``cancel()``.
WATCH_SECONDS = 0.002


def cores() -> int:
    """The cores this process may run on (all of the machine's where that is not known)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


#: Helper threads the pool may hold: twice the cores and more, so that a few explicit
#: ``threads=N`` searches in several caller threads seldom wait on each other (a helper
#: that starts late finds the moves already taken and returns at once).
POOL_THREADS = 2 * cores() + 4


class _Pool:
    """The helper threads, and how many of them automatic splits have claimed."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.executor: ThreadPoolExecutor | None = None
        self.claimed = 0

    def submit(self, fn: Callable, *args) -> Future:
        with self.lock:
            if self.executor is None:
                from concurrent.futures import ThreadPoolExecutor
                self.executor = ThreadPoolExecutor(POOL_THREADS, thread_name_prefix="t42-split")
            executor = self.executor
        return executor.submit(fn, *args)

    def claim(self, wanted: int) -> int:
        """Up to ``wanted`` helpers for an automatic split, of the cores' worth not yet
        claimed (a caller's thread is a core's worth too): 0 when others hold them."""
        with self.lock:
            got = max(0, min(wanted, cores() - 1 - self.claimed))
            self.claimed += got
            return got

    def release(self, count: int) -> None:
        with self.lock:
            self.claimed -= count

    def after_fork(self) -> None:
        # A forked child has none of the parent's threads: it starts a pool of its own.
        self.lock = threading.Lock()
        self.executor = None
        self.claimed = 0


POOL = _Pool()
os.register_at_fork(after_in_child=POOL.after_fork)


class Split:
    """What the threads of one split search share: the moves, the next one to take,
    what is known so far, and how the search ended.

    Args:
        engines: One engine per thread, the caller's first, all at the position.
        moves: The legal moves to share out.
        is_max: Whether the side to move maximises the value.
    """

    def __init__(self, engines: Sequence[Engine], moves: Sequence[int], is_max: bool) -> None:
        self.engines = list(engines)
        self.moves = list(moves)
        self.is_max = is_max
        self.cond = threading.Condition()
        self.next = 0                 # the front of the moves not taken yet
        self.back = len(self.moves)   # and its end
        self.taken = 0
        self.results: list = [None] * len(moves)
        self.slot_of: list[int] = [-1] * len(moves)   # which engine searched each move
        self.best = -1          # best value known so far for the side to move, -1: none
        self.first_done = False
        self.answer: bool | None = None     # a null-window test decided by one move
        self.tokens: list[CancelToken] = []
        self.halted = False
        self.cancelled = False  # stopped by a deadline, a node budget or the caller
        self.error: BaseException | None = None
        self.done = threading.Event()

    # -- the moves, shared ------------------------------------------------------------
    def take(self, from_back: bool = False) -> int | None:
        """Index of the next move to search (the most promising one left, or with
        ``from_back`` the least), None when all are taken or the search stopped."""
        with self.cond:
            if self.halted or self.taken >= len(self.moves):
                return None
            self.taken += 1
            if from_back:
                self.back -= 1
                return self.back
            self.next += 1
            return self.next - 1

    def beats(self, value: int, best: int) -> bool:
        return best < 0 or (value > best if self.is_max else value < best)

    def record(self, index: int, result, slot: int, value: int | None = None) -> None:
        """A move's result (its value, or a test's answer); ``value`` raises the best so far."""
        with self.cond:
            self.results[index] = result
            self.slot_of[index] = slot
            if value is not None and self.beats(value, self.best):
                self.best = value

    def halt(self, cancelled: bool = False) -> None:
        """Stop every thread: no more moves handed out, every engine's search aborted."""
        with self.cond:
            if self.halted:
                return
            self.halted = True
            self.cancelled = cancelled
            self.cond.notify_all()
        for token in self.tokens:
            token.cancel()

    @property
    def complete(self) -> bool:
        return self.answer is not None or all(r is not None for r in self.results)


# -- what each thread does ---------------------------------------------------------------
def _searched(engine: Engine, tile: int, search: Callable[[Engine], object]):
    engine.play(tile)
    try:
        return search(engine)
    finally:
        engine.undo()


def score_moves(split: Split, slot: int, guess: int = -1) -> None:
    """Each move's exact value. Even slots take the most promising moves left, first
    guess the best value known when the search starts (as one thread does); odd slots
    take the least promising ones, first guess the best of their own (poor moves are
    worth about the same, and far from the best: an exact search from the best value
    so far takes many probes to come down). Against taking the moves in order this
    cuts the two-core critical path of the p99 and slowest deals by 14-37%
    (bench/README.md, "One search on both cores"). ``guess``: the first guess before
    any value is known (-1: none).

    ``split`` is the shared search, ``slot`` this thread's engine in it."""
    engine = split.engines[slot]
    from_back = slot % 2 == 1
    own = -1
    while (i := split.take(from_back)) is not None:
        best = own if from_back else split.best
        first = best if best >= 0 else guess
        v = _searched(engine, split.moves[i], lambda e: e.exact(first))
        split.record(i, v, slot, v)
        if split.beats(v, own):
            own = v


def exact_value(split: Split, slot: int, guess: int = -1) -> None:
    """Young brothers wait: the first move exactly (from ``guess``, -1: none), then
    null-window tests against the best so far for the others, an exact search only for
    a move that beats it.

    ``split`` is the shared search, ``slot`` this thread's engine in it."""
    engine = split.engines[slot]
    i = split.take()
    if i == 0:
        v = _searched(engine, split.moves[0], lambda e: e.exact(guess))
        split.record(0, v, slot, v)
        with split.cond:
            split.first_done = True
            split.cond.notify_all()
        i = split.take()
    else:
        with split.cond:
            split.cond.wait_for(lambda: split.first_done or split.halted)
    while i is not None and not split.halted:
        best = split.best
        if split.is_max:
            def test(e: Engine) -> int | None:
                return e.exact(best + 1) if e.at_least(best + 1) else None
        else:
            def test(e: Engine) -> int | None:
                return None if e.at_least(best) else e.exact(best - 1)
        v = _searched(engine, split.moves[i], test)
        split.record(i, v if v is not None else best, slot, v)
        i = split.take()


def at_least(split: Split, slot: int, target: int) -> None:
    """Each move tested against ``target``; one that decides the answer stops the rest
    (for the maximising side any move reaching it, for the other any move below it).

    ``split`` is the shared search, ``slot`` this thread's engine in it."""
    engine = split.engines[slot]
    while (i := split.take()) is not None:
        reached = _searched(engine, split.moves[i], lambda e: e.at_least(target))
        split.record(i, reached, slot)
        if reached == split.is_max:
            with split.cond:
                if split.answer is None:
                    split.answer = reached
            split.halt()
            return


def keeps_value(split: Split, slot: int, value: int) -> None:
    """Does each move keep the position's exact ``value``? (children of a max node are
    <= value, of a min node >= value, so one null-window test each).

    ``split`` is the shared search, ``slot`` this thread's engine in it."""
    engine = split.engines[slot]
    while (i := split.take()) is not None:
        if split.is_max:
            kept = _searched(engine, split.moves[i], lambda e: e.at_least(value))
        else:
            kept = not _searched(engine, split.moves[i], lambda e: e.at_least(value + 1))
        split.record(i, kept, slot)


# -- running it ----------------------------------------------------------------------------
def _guarded(split: Split, work: Callable, slot: int, arg) -> None:
    """Run one thread's share; whatever stops it stops the others too."""
    try:
        work(split, slot, arg)
    except Aborted:
        split.halt(cancelled=True)  # a no-op when another thread stopped the search
    except BaseException as exc:  # noqa: BLE001 - handed to the caller by run()
        with split.cond:
            if split.error is None:
                split.error = exc
        split.halt()


def _watch(split: Split, token: CancelToken) -> None:
    """Pass a ``cancel()`` of the caller's token on to every engine of the split."""
    while not split.done.wait(WATCH_SECONDS):
        if token.cancelled:
            split.halt(cancelled=True)
            return


def _join(split: Split, helpers: list[Future]) -> None:
    """Wait for the helpers; one not started yet would find every move taken, so it
    need not run at all. Interrupted (Ctrl-C in the wait), the helpers are stopped and
    waited for all the same, so that no engine is left searching."""
    try:
        for future in helpers:
            if not future.cancel():
                future.result()
    except BaseException:
        split.halt()
        for future in helpers:
            while not future.done():
                try:
                    future.exception()
                except BaseException:  # noqa: BLE001 - a second interrupt: the stop is near
                    pass
        raise


def run(split: Split, work: Callable[[Split, int, int], None], arg: int,
        token: CancelToken | None) -> Split:
    """Search with every engine of ``split`` (the first one in this thread), each running
    ``work(split, slot, arg)``; returns it complete, or raises `Aborted` (the caller's
    ``token`` stopped it) or a thread's error.

    The engines are left idle, at the position, with no token attached.
    """
    engines = split.engines
    deadline = budget = None
    if token is not None:
        if token.cancelled:
            raise Aborted()
        deadline = token.deadline
        if token.node_budget is not None:
            left = token.node_budget - sum(e.nodes for e in engines)
            if left <= 0:
                raise Aborted()
            budget = max(1, left // len(engines))
    split.tokens = [CancelToken(deadline, None if budget is None else e.nodes + budget)
                    for e in engines]
    for engine, own in zip(engines, split.tokens):
        engine.set_token(own)
    for engine in engines[1:]:  # before any search starts: this sizes the table
        engine.share_table(engines[0])
    helpers: list[Future] = []
    watcher: Future | None = None
    try:
        helpers = [POOL.submit(_guarded, split, work, slot, arg)
                   for slot in range(1, len(engines))]
        if token is not None:
            watcher = POOL.submit(_watch, split, token)
        _guarded(split, work, 0, arg)
    except BaseException:  # the pool refused a helper (interpreter exit): stop the others
        split.halt()
        raise
    finally:
        _join(split, helpers)
        split.done.set()
        if watcher is not None and not watcher.cancel():
            watcher.result()
        for engine in engines:
            engine.set_token(None)
    if split.error is not None:
        raise split.error
    if not split.complete:
        raise Aborted()
    return split
