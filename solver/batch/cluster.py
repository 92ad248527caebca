"""Connecting to a Dask cluster: a client of the scheduler at an address, or of a local
cluster started for the run, set for CPU-bound searches; and `dask_map`, which runs a
function over items as tasks on it (`t42 batch` and `t42 arena --scheduler`).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import logging
import os
import signal
import sys
from typing import Any, Callable, Iterator

from ..game.errors import quoted
from .store import BatchError

#: Seconds to wait for the scheduler of ``--scheduler`` to answer (Dask's default is 30).
CONNECT_TIMEOUT = 3.0
#: How often `dask_map` runs a task again elsewhere when its worker died.
TASK_RETRIES = 3


#: Dask settings for the searches. Dask sets MALLOC_TRIM_THRESHOLD_ in its
#: workers, which turns off glibc's adaptive mmap threshold: every search's
#: 2 MiB transposition table is then mapped and faulted in afresh, a third
#: more CPU per solve. Its housekeeping is slowed down too: the defaults (a
#: 20 ms tick, a stack sample of the running task every 10 ms, memory checks
#: every 100 ms, the active memory manager every 2 s, which has no replicas
#: to manage here) cost several per cent of a core. And Dask keeps the last
#: 1,000 messages of each connection for debugging, so the client (which also
#: hosts the local scheduler) would hold a thousand chunks' lines: a few are
#: enough. The local cluster's workers get these; docs/guides/analysts.md,
#: "Batch work in more detail", covers a cluster of your own.
QUIET_DASK = {
    "distributed.admin.low-level-log-length": 10,
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    "distributed.admin.tick.interval": "5s",
    "distributed.admin.system-monitor.interval": "10s",
    "distributed.worker.profile.enabled": False,
    "distributed.worker.memory.monitor-interval": "5s",
    "distributed.scheduler.active-memory-manager.start": False,
}

#: The local cluster's first workers are forked from the client, which has
#: imported Dask and the jobs already: a spawned worker starts a fresh
#: interpreter and imports them again (about 0.5 s of CPU a worker). Only
#: the start-up forks: then the client runs no thread of its own and its
#: main thread waits in Dask; a worker the nanny restarts later (one that
#: died) is spawned, as Dask does by default.
FORK_AT_START = {"distributed.worker.multiprocessing-method": "fork"}


@contextlib.contextmanager
def dask_map(scheduler: str, connect_timeout: float = CONNECT_TIMEOUT
             ) -> Iterator[Callable[[Callable[[Any], Any], list[Any]], Iterator[Any]]]:
    """A ``map_unordered(function, items)`` on the Dask cluster at ``scheduler``: each
    item is a task (run again elsewhere if its worker dies), its result yielded as it
    is done; `BatchError` when the scheduler does not answer.

    Args:
        scheduler: The scheduler's address (``tcp://host:port``).
        connect_timeout: Seconds the scheduler has to answer.
    """
    from distributed import as_completed

    with _client(scheduler, None, connect_timeout) as client:
        def map_unordered(function: Callable[[Any], Any], items: list[Any]) -> Iterator[Any]:
            futures = client.map(function, items, pure=False, retries=TASK_RETRIES)
            try:
                for future in as_completed(futures):
                    yield future.result()
            finally:
                client.cancel(futures)
        yield map_unordered


@contextlib.contextmanager
def _client(scheduler: str | None, workers: int | None,
            connect_timeout: float = CONNECT_TIMEOUT):
    """A client of the cluster at ``scheduler``, or of a local one started for this run."""
    import dask
    from distributed import Client, LocalCluster

    with dask.config.set(QUIET_DASK):
        if scheduler:
            with _connect(Client, scheduler, connect_timeout) as client:
                yield client
            return
        # The work is CPU-bound: more worker processes than cores only cost memory.
        cores = len(os.sched_getaffinity(0))
        n = min(workers, cores) if workers else cores
        # Ctrl-C on a terminal reaches the whole process group: the workers
        # started now ignore it and the client stops them in order.
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        _reset_signals_in_forks()
        try:
            with dask.config.set(FORK_AT_START):
                cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                       silence_logs=logging.ERROR)
        finally:
            signal.signal(signal.SIGINT, previous)
        with cluster, Client(cluster) as client:
            if importlib.util.find_spec("bokeh"):
                print(f"t42 batch: dashboard at {cluster.dashboard_link}", file=sys.stderr)
            try:
                yield client
            finally:
                # The run is over, whatever its end; closing the cluster races
                # with workers still busy on cancelled chunks, whose heartbeats
                # then log tracebacks about the scheduler going away.
                with contextlib.suppress(Exception):
                    client.run(_quiet_dask_logs)
                _quiet_dask_logs()


def _connect(client_class, scheduler: str, timeout: float):  # type: ignore[no-untyped-def]
    """A client of the scheduler at ``scheduler``, which must answer within ``timeout``
    seconds; else `BatchError`, saying so in one line."""
    try:
        return client_class(scheduler, timeout=timeout)
    except OSError as exc:
        raise BatchError(f"cannot connect to the Dask scheduler {quoted(scheduler)} within "
                         f"{timeout:g} s ({_one_line(exc)}); is it running? "
                         f"(--connect-timeout)") from None
    except (ValueError, TypeError, ImportError) as exc:
        # An address Dask cannot parse, or a scheme whose library is missing (ucx).
        raise BatchError(f"--scheduler {quoted(scheduler)}: {_one_line(exc)}") from None


def _one_line(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _worker_signals() -> None:
    """In a worker forked from the client: Ctrl-C ignored (as above), SIGTERM kills.

    A fork keeps the client's handlers: the SIGTERM one would only raise in
    the worker's event loop, and the nanny stops a worker that hangs with it.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@functools.cache
def _reset_signals_in_forks() -> None:
    os.register_at_fork(after_in_child=_worker_signals)


def _quiet_dask_logs() -> None:
    """Dask's logs at CRITICAL only, in this process (run on each worker too)."""
    logging.getLogger("distributed").setLevel(logging.CRITICAL)


__all__ = ["CONNECT_TIMEOUT", "TASK_RETRIES", "dask_map"]
