"""The solving pool: worker threads, a bounded admission count, cancel tokens.

Searches release the GIL, so a pool of threads sized to the cores solves in
parallel while the event loop keeps serving. Calls are admitted up to
``workers + max_queue`` at a time; past that `Overloaded` is raised at once so
the service answers RESOURCE_EXHAUSTED instead of queueing without bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterator, Optional, Protocol, TypeVar

import grpc

from solver import CancelToken, PositionError, SearchCancelled

T = TypeVar("T")


def default_workers() -> int:
    """Worker threads by default: the cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class JobObserver(Protocol):
    """Receives worker-side events (the service's metrics)."""

    def job_started(self) -> None: ...

    def job_finished(self, outcome: str) -> None: ...


class Overloaded(Exception):
    """Every worker is busy and the wait queue is full."""


class SolverPool:
    """Worker threads plus admission control; one instance per server.

    Only the event loop thread calls `admit`, so a plain counter is safe.
    """

    def __init__(self, workers: int, max_queue: int,
                 observer: Optional[JobObserver] = None) -> None:
        if workers < 1 or max_queue < 0:
            raise ValueError("workers must be >= 1 and max_queue >= 0")
        self.workers = workers
        self.max_queue = max_queue
        self.observer = observer
        self.admitted = 0
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="t42-solve")

    @property
    def capacity(self) -> int:
        """Calls admitted at most at once: one per worker plus the wait queue."""
        return self.workers + self.max_queue

    @contextlib.contextmanager
    def admit(self) -> Iterator[None]:
        """Hold one admission slot for the duration of a call, or raise `Overloaded`."""
        if self.admitted >= self.capacity:
            raise Overloaded(f"all {self.workers} workers busy and {self.max_queue} calls waiting")
        self.admitted += 1
        try:
            yield
        finally:
            self.admitted -= 1

    async def run(self, fn: Callable[[], T], token: CancelToken) -> T:
        """Run ``fn`` on a worker; if this coroutine is cancelled, stop the search too."""
        job = self._observed(fn) if self.observer is not None else fn
        future = asyncio.get_running_loop().run_in_executor(self._executor, job)
        try:
            return await future
        except asyncio.CancelledError:
            token.cancel()  # the worker thread is still searching: free it
            raise

    def _observed(self, fn: Callable[[], T]) -> Callable[[], T]:
        observer = self.observer
        assert observer is not None

        def job() -> T:
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
        return job

    def shutdown(self) -> None:
        """Wait for the workers to finish (searches already cancelled stop at once)."""
        self._executor.shutdown(wait=True, cancel_futures=True)


def token_for(context: grpc.aio.ServicerContext) -> CancelToken:
    """A cancel token that fires at the call's deadline or when the call ends early.

    The deadline is fixed now because the search reads it when it starts;
    a call cancelled by the client (or by shutdown) cancels the token too.
    """
    remaining: Optional[float] = context.time_remaining()
    deadline = time.monotonic() + remaining if remaining is not None else None
    token = CancelToken(deadline=deadline)
    context.add_done_callback(lambda _call: token.cancel())
    return token


def deadline_passed(context: grpc.aio.ServicerContext) -> bool:
    """Whether the call's deadline (if any) has passed."""
    remaining = context.time_remaining()
    return remaining is not None and remaining <= 0
