"""CPU time per worker thread, to tell work from waiting on a shared machine.

On a loaded machine the wall clock mostly measures the queue for a core.
The process CPU time measures the work, but not how well it spreads over
the cores: `ThreadCpu` records the CPU time of every task the hint's and
the bid advice's thread pools run, so a benchmark can report the
*critical path*: the process's CPU time outside the pool plus the busiest
thread's. On an idle machine with a core per thread that is about the
wall time.

    with ThreadCpu() as threads:
        start = time.process_time()
        hint(...)
        path = threads.critical_path(time.process_time() - start)
"""

from __future__ import annotations

import concurrent.futures
import time

import solver.hidden.bidding
import solver.hidden.hint

MODULES = (solver.hidden.hint, solver.hidden.bidding)


class ThreadCpu:
    def __init__(self) -> None:
        self.tasks: list[float] = []

    def __enter__(self) -> "ThreadCpu":
        record = self.tasks

        class Pool(concurrent.futures.ThreadPoolExecutor):
            def submit(self, fn, /, *args, **kwargs):
                def timed():
                    start = time.thread_time()
                    try:
                        return fn(*args, **kwargs)
                    finally:
                        record.append(time.thread_time() - start)
                return super().submit(timed)

        self._saved = [m.ThreadPoolExecutor for m in MODULES]
        for m in MODULES:
            m.ThreadPoolExecutor = Pool
        return self

    def __exit__(self, *exc) -> None:
        for m, saved in zip(MODULES, self._saved):
            m.ThreadPoolExecutor = saved

    def reset(self) -> None:
        self.tasks.clear()

    def critical_path(self, process_cpu: float) -> float:
        """CPU time outside the pool plus the busiest task's (one task per thread)."""
        return process_cpu - sum(self.tasks) + max(self.tasks, default=0.0)
