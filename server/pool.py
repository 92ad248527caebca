"""The solving pool: worker threads, a bounded admission count, cancel tokens.

Searches release the GIL, so a pool of threads sized to the cores solves in
parallel while the event loop keeps serving. Calls are admitted up to
``workers + max_queue`` at a time; past that `Overloaded` is raised at once so
the service answers RESOURCE_EXHAUSTED instead of queueing without bound.

For the service's own tests, the environment variable ``T42_SERVE_HOLD_FILE``
names a file: while it exists, a worker that takes a job waits (busy) before
solving, until the file is removed or the job's token is cancelled or its
deadline passes. Tests so hold a call open for as long as they need, whatever
the speed of the machine or the solver; the search then runs with the token as
it is (a cancelled token stops it at once).
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Optional, Protocol, TypeVar

import grpc

from solver import CancelToken, PositionError, SearchCancelled

from .deadlines import CallDeadline

T = TypeVar("T")

#: Environment variable naming the test-only hold file (see the module docstring).
HOLD_FILE_ENV = "T42_SERVE_HOLD_FILE"


def default_workers() -> int:
    """Worker threads by default: the cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class JobObserver(Protocol):
    """Receives worker-side events (the service's metrics): a job started, a job
    finished with its ``outcome``."""

    def job_started(self) -> None: ...

    def job_finished(self, outcome: str) -> None: ...


class Overloaded(Exception):
    """Every worker is busy and the wait queue is full."""


class SolverPool:
    """Worker threads plus admission control; one instance per server.

    Only the event loop thread calls `admit` and `release`, so a plain counter is safe.

    Args:
        workers: Solver threads.
        max_queue: Calls that may wait for a worker.
        observer: Receives the workers' events (None: none).
        hold_file: A test hook: a job waits while this file exists (and its token
            has not stopped).
    """

    def __init__(self, workers: int, max_queue: int,
                 observer: Optional[JobObserver] = None,
                 hold_file: Optional[Path] = None) -> None:
        if workers < 1 or max_queue < 0:
            raise ValueError("workers must be >= 1 and max_queue >= 0")
        self.workers = workers
        self.max_queue = max_queue
        self.observer = observer
        self.hold_file = hold_file
        self.admitted = 0
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="t42-solve")

    @property
    def capacity(self) -> int:
        """Calls admitted at most at once: one per worker plus the wait queue."""
        return self.workers + self.max_queue

    def admit(self) -> None:
        """Take one admission slot for the duration of a call (give it back with `release`),
        or raise `Overloaded`."""
        if self.admitted >= self.capacity:
            raise Overloaded(f"all {self.workers} workers busy and {self.max_queue} calls waiting")
        self.admitted += 1

    def release(self) -> None:
        """Give back a slot taken by `admit`."""
        self.admitted -= 1

    async def run(self, fn: Callable[[], T], token: CancelToken) -> T:
        """Run ``fn`` on a worker; if this coroutine is cancelled, stop the search too."""
        if self.hold_file is not None:
            fn = _held(fn, self.hold_file, token)
        job = functools.partial(self._observed, fn) if self.observer is not None else fn
        future = asyncio.get_running_loop().run_in_executor(self._executor, job)
        try:
            return await future
        except asyncio.CancelledError:
            token.cancel()  # the worker thread is still searching: free it
            raise

    def run_inline(self, fn: Callable[[], T]) -> T:
        """Run a job too small to hand off (see servicer.INLINE_MAX_TRICKS) on the calling
        thread, observed as a worker's job. Only without a hold file (tests hold every job
        on a worker, which must not stop the event loop).
        """
        if self.hold_file is not None:
            raise RuntimeError("with a hold file every job runs on a worker")
        return self._observed(fn) if self.observer is not None else fn()

    def check(self, fn: Callable[[], T]) -> T:
        """Run the input check that comes before a job (parsing) on the calling thread; when
        it fails, that is the call's job, finished as ``bad_input`` (or ``error``)."""
        try:
            return fn()
        except BaseException as exc:
            if self.observer is not None:
                self.observer.job_started()
                self.observer.job_finished("bad_input" if isinstance(exc, PositionError)
                                           else "error")
            raise

    def _observed(self, fn: Callable[[], T]) -> T:
        """``fn()``, reported to the observer as a job."""
        observer = self.observer
        assert observer is not None
        observer.job_started()
        outcome = "error"
        try:
            result = fn()
            outcome = "ok"
            return result
        except SearchCancelled:
            outcome = "cancelled"
            raise
        except PositionError:
            outcome = "bad_input"
            raise
        finally:
            observer.job_finished(outcome)

    def shutdown(self) -> None:
        """Wait for the workers to finish (searches already cancelled stop at once)."""
        self._executor.shutdown(wait=True, cancel_futures=True)


def _held(fn: Callable[[], T], hold_file: Path, token: CancelToken) -> Callable[[], T]:
    """``fn``, first waiting while ``hold_file`` exists and ``token`` has not stopped (tests)."""
    def job() -> T:
        if hold_file.exists():
            # A line per job that found the hold on: a test can wait until a job is held,
            # not merely running (`held_jobs`).
            with open(f"{hold_file}.held", "a", encoding="utf-8") as marks:
                marks.write("held\n")
        while hold_file.exists() and not token.cancelled and not (
                token.deadline is not None and time.monotonic() >= token.deadline):
            time.sleep(0.005)
        return fn()
    return job


def hold_file_from_environment() -> Optional[Path]:
    """The test-only hold file, when ``T42_SERVE_HOLD_FILE`` is set."""
    name = os.environ.get(HOLD_FILE_ENV)
    return Path(name) if name else None


def token_for(context: grpc.aio.ServicerContext, deadline: CallDeadline) -> CancelToken:
    """A cancel token that fires at the call's ``deadline`` or when the call (its
    ``context``) ends early.

    The search reads the deadline when it starts; a call cancelled by the
    client (or by shutdown) cancels the token too.
    """
    token = CancelToken(deadline=deadline.deadline)
    context.add_done_callback(lambda _call: token.cancel())
    return token
