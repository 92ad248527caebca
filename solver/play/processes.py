"""Worker processes for long runs of independent jobs (arena pairs, calibration hands).

`ProcessPool` hands jobs to forked processes a few at a time (jobs are taken from
an iterator as workers free up, so a run of 100,000 pairs never lists them) and
yields results as they finish. It is built on `concurrent.futures` rather than
`multiprocessing.Pool`: when a job raises, the run must stop, and
`multiprocessing.Pool.terminate` kills workers that may hold its task queue's
lock, which left the pool's task thread, and so the run, waiting for good (seen
under load). Here an error cancels the jobs not yet started and waits for the
few that are running, then reaches the caller.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import multiprocessing
import pickle
from typing import Any, Callable, Iterable, Iterator


def _run_job(func: Callable[[Any], Any], job: Any) -> Any:
    try:
        return func(job)
    except Exception as exc:
        # The error goes back to the parent by pickle; one that cannot be rebuilt there
        # would stop the pool's result thread and leave the run waiting for good.
        try:
            pickle.loads(pickle.dumps(exc))
        except Exception:
            raise RuntimeError(f"{type(exc).__name__}: {exc}") from None
        raise


class ProcessPool:
    """``workers`` forked processes; ``with ProcessPool(n) as pool: pool.imap_unordered(...)``."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        # Looked up at call time, so that a test can forbid processes altogether.
        self._executor = concurrent.futures.ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("fork"))

    def __enter__(self) -> "ProcessPool":
        return self

    def __exit__(self, *exc: object) -> bool:
        self._executor.shutdown(wait=True, cancel_futures=True)
        return False

    def imap_unordered(self, func: Callable[[Any], Any], jobs: Iterable[Any]) -> Iterator[Any]:
        """``func(job)`` for every job, in the order they finish; a job's error is raised
        here (the jobs not started are then cancelled when the pool is left). An error
        that cannot be pickled arrives as a `RuntimeError` naming it."""
        jobs = iter(jobs)
        pending: set[concurrent.futures.Future] = set()
        window = 2 * self.workers   # enough to keep every worker busy, few to cancel

        def top_up() -> None:
            for job in itertools.islice(jobs, window - len(pending)):
                pending.add(self._executor.submit(_run_job, func, job))

        top_up()
        while pending:
            done, _ = concurrent.futures.wait(pending,
                                              return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                pending.discard(future)
                yield future.result()
            top_up()
