"""Run a batch on a Dask cluster: chunks out as futures, parts back, resume, progress.

The client reads the input as a stream, keeps at most ``in_flight`` chunks
submitted and not yet written, and writes each finished chunk to its part
file; memory stays bounded whatever the input's size. A chunk whose worker
dies is run again elsewhere (the scheduler reschedules it; ``retries``
covers a task that raised). A run stopped anyhow is resumed by the same
command: done chunks are skipped (a part damaged since is run again: see
`store`), and an input that no longer matches them is refused before
anything is mixed.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import sys
import time
import uuid
from dataclasses import asdict, dataclass
from typing import Any, Iterator

from .chunks import Chunk, open_input, read_chunks
from .jobs import JOBS, run_chunk
from .cluster import CONNECT_TIMEOUT, _client
from .store import BatchError, OutputDir, Part

#: Test hook: "DIR:FIRST" holds every chunk from index FIRST on (see jobs._hold).
HOLD_ENV = "T42_BATCH_HOLD"


class ChunksFailed(BatchError):
    """Some chunks failed on every try; the others are kept for a re-run."""


class BatchInterrupted(Exception):
    """Ctrl-C or SIGTERM stopped the run; the done chunks are kept for a re-run.

    Args:
        message: What stopped, in words.
        signum: The signal's number (the command exits with 128 + it).
    """

    def __init__(self, message: str, signum: int) -> None:
        super().__init__(message)
        self.signum = signum

    def __reduce__(self):
        # Rebuilt from the message and the signal (the default passes the message alone).
        return type(self), (str(self), self.signum), self.__dict__


@dataclass
class Summary:
    job: str
    records: int  # in results.jsonl
    errors: int   # {"error": ...} lines among them
    ran: int      # records run by this command (the others were done before)
    chunks: int
    skipped: int  # chunks done by an earlier run
    failed: int   # chunks that failed on every try (no results.jsonl then)
    seconds: float
    workers: int
    threads: int

    @property
    def rate(self) -> float:
        """Records per second run by this command."""
        return self.ran / self.seconds if self.seconds > 0 else 0.0

    def text(self) -> str:
        resumed = f", {self.skipped} done before" if self.skipped else ""
        failed = f", {self.failed} FAILED" if self.failed else ""
        return (f"{self.job}: {self.records} records, {self.errors} errors, "
                f"{self.seconds:.1f} s, {self.rate:.1f} records/s, "
                f"{self.workers} workers ({self.threads} threads); "
                f"{self.chunks} chunks{resumed}{failed}")

    def to_json(self) -> dict:
        return {**asdict(self), "records_per_second": round(self.rate, 3)}


@dataclass
class _Pending:
    """What the client keeps of a submitted chunk (not its lines)."""

    index: int
    digest: str
    records: int
    where: str


def run_batch(job_name: str, source: str, outdir: str, *, options: dict | None = None,
              chunk_size: int | None = None, scheduler: str | None = None,
              workers: int | None = None, in_flight: int | None = None, retries: int = 3,
              progress: bool = True, connect_timeout: float = CONNECT_TIMEOUT) -> Summary:
    """Run ``job_name`` on every record of ``source`` (a path or ``-``) into ``outdir``.

    ``options`` are the job's (its command's) options; ``chunk_size`` records make a
    chunk (default: the job's); ``scheduler`` is a Dask scheduler's address (None: a
    local cluster of ``workers`` processes, default one per core); at most
    ``in_flight`` chunks are out at once; a failed chunk is tried ``retries`` more
    times; ``progress`` shows a progress bar.

    Raises `BatchError` (the message says why) when the run cannot start: an input
    that cannot be read, an output directory that cannot be one, a scheduler that
    does not answer within ``connect_timeout`` seconds.
    """
    job = JOBS[job_name]
    options = dict(options or {})
    chunk_size = chunk_size or job.chunk_size
    if source != "-" and not os.path.isfile(source):
        raise BatchError(f"cannot read {source}: no such file")
    store = OutputDir(outdir)
    done = store.open({"job": job_name, "options": options, "chunk_size": chunk_size})
    start = time.monotonic()
    total = chunks = None
    if source != "-":
        # One cheap pass first: the total for the progress bar, and a changed
        # input refused before any work is done.
        total, chunks = _check_input(source, chunk_size, store, done)
        if all(i in done for i in range(chunks)):
            records, errors = store.join(done, chunks)
            summary = Summary(job_name, records, errors, 0, chunks, chunks, 0,
                              time.monotonic() - start, 0, 0)
            store.record_run(summary.to_json())
            return summary
    with _StopSignals() as stop, _client(scheduler, workers, connect_timeout) as client:
        info = client.scheduler_info()["workers"]
        nworkers, nthreads = len(info), sum(w["nthreads"] for w in info.values())
        runner = _Runner(client, job_name, options, store, done, retries,
                         in_flight or max(2, 2 * nthreads), _hold_setting(), stop)
        with _progress(total, progress) as bar, open_input(source) as stream:
            chunks = runner.run(read_chunks(stream, chunk_size), bar)
    seconds = time.monotonic() - start
    if runner.failed:
        summary = Summary(job_name, runner.records, 0, runner.ran, chunks, runner.skipped,
                          len(runner.failed), seconds, nworkers, nthreads)
        first, exc = runner.failed[0]
        raise ChunksFailed(f"{len(runner.failed)} chunks failed on every try (first: {first}: "
                         f"{type(exc).__name__}: {exc}); the others are kept: run the same "
                         f"command again to retry them. {summary.text()}")
    records, errors = store.join(done, chunks)
    summary = Summary(job_name, records, errors, runner.ran, chunks, runner.skipped, 0,
                      seconds, nworkers, nthreads)
    store.record_run(summary.to_json())
    return summary


def _check_input(source: str, chunk_size: int, store: OutputDir,
                 done: dict[int, Part]) -> tuple[int, int]:
    records = chunks = 0
    with open_input(source) as stream:
        for chunk in read_chunks(stream, chunk_size):
            store.check(chunk, done)
            records += len(chunk.lines)
            chunks += 1
    _check_no_extra_parts(store, done, chunks)
    return records, chunks


def _check_no_extra_parts(store: OutputDir, done: dict[int, Part], chunks: int) -> None:
    extra = [i for i in done if i >= chunks]
    if extra:
        raise store.changed(f"it has {chunks} chunks, the run has a part for chunk {min(extra)}")


class _StopSignals:
    """SIGINT and SIGTERM ask the run to stop: they set a flag that the loop checks.

    Python's default, an exception raised in the main thread wherever it is,
    can land inside Dask's client code (a lock taken and not given back, a
    future submitted and not recorded). The loop waits for finished chunks
    at most ``POLL`` seconds at a time and looks at the flag between waits,
    so it stops within that time, at a point of its own choosing. A second
    signal stops at once. A signal ignored when the command started (a
    shell's background job ignores Ctrl-C) stays ignored.
    """

    POLL = 0.1
    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.received: int | None = None
        self.previous: dict[int, Any] = {}

    def __enter__(self) -> "_StopSignals":
        for signum in self.SIGNALS:
            if signal.getsignal(signum) is not signal.SIG_IGN:
                self.previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc_info) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)

    def _handle(self, signum: int, frame) -> None:
        if self.received is not None:
            raise KeyboardInterrupt
        self.received = signum


class _Runner:
    """The submit / collect loop of one run."""

    def __init__(self, client, job_name: str, options: dict, store: OutputDir,
                 done: dict[int, Part], retries: int, in_flight: int,
                 hold: tuple[str, int] | None, stop: _StopSignals) -> None:
        self.client = client
        self.job_name, self.options = job_name, options
        self.store, self.done = store, done
        self.retries, self.in_flight, self.hold = retries, in_flight, hold
        self.stop = stop
        self.pending: dict[Any, _Pending] = {}
        # Finished futures, put there by Dask's callback thread.
        self.finished: queue.SimpleQueue = queue.SimpleQueue()
        self.run_id = uuid.uuid4().hex[:8]
        self.written: list[int] = []   # parts this run wrote (removed if the input is refused)
        self.failed: list[tuple[str, BaseException]] = []
        self.records = self.ran = self.skipped = self.chunks = 0

    def run(self, chunks: Iterator[Chunk], bar) -> int:
        """Do every chunk not done yet; return the number of chunks of the input."""
        try:
            for _ in range(self.in_flight):
                if self.stop.received or not self._submit_next(chunks, bar):
                    break
            while self.pending and not self.stop.received:
                try:
                    future = self.finished.get(timeout=self.stop.POLL)
                except queue.Empty:
                    continue
                if self.stop.received:
                    break          # no part is written after the signal
                self._collect(future, bar)
                self._submit_next(chunks, bar)
            if self.stop.received:
                raise KeyboardInterrupt
            _check_no_extra_parts(self.store, self.done, self.chunks)
        except BatchError:
            # Standard input that turned out to differ: leave the directory as it was.
            self._cancel()
            self.store.remove_parts(self.written, self.done)
            raise
        except KeyboardInterrupt:
            self._cancel()
            raise BatchInterrupted(
                f"interrupted: {len(self.done)} chunks done are kept in {self.store.parts}; "
                f"run the same command again to finish",
                self.stop.received or signal.SIGINT) from None
        return self.chunks

    def _submit_next(self, chunks: Iterator[Chunk], bar) -> bool:
        for chunk in chunks:
            self.chunks = chunk.index + 1
            if self.store.check(chunk, self.done):
                self.skipped += 1
                self.records += len(chunk.lines)
                bar.update(len(chunk.lines))
                continue
            future = self.client.submit(
                run_chunk, self.job_name, "\n".join(chunk.lines), self.options, chunk.index,
                self.hold,
                key=f"t42-{self.job_name}-{chunk.index}-{chunk.digest}-{self.run_id}",
                retries=self.retries, pure=False)
            self.pending[future] = _Pending(chunk.index, chunk.digest, len(chunk.lines),
                                            chunk.where)
            future.add_done_callback(self.finished.put)
            return True
        return False

    def _collect(self, future, bar) -> None:
        chunk = self.pending.pop(future)
        if future.status == "error":
            self.failed.append((chunk.where, future.exception()))
        else:
            self.done[chunk.index] = self.store.write_part(chunk.index, chunk.digest,
                                                           future.result())
            self.written.append(chunk.index)
            self.records += chunk.records
            self.ran += chunk.records
        future.release()
        bar.update(chunk.records)

    def _cancel(self) -> None:
        with contextlib.suppress(Exception):
            self.client.cancel(list(self.pending))


@contextlib.contextmanager
def _progress(total: int | None, enabled: bool):
    """A records bar (done, rate, ETA) on stderr when it is a terminal."""
    if not (enabled and sys.stderr.isatty()):
        yield _NoBar()
        return
    from tqdm import tqdm

    with tqdm(total=total, unit=" records", file=sys.stderr, dynamic_ncols=True) as bar:
        yield bar


class _NoBar:
    """No progress bar (and no tqdm to import)."""

    def update(self, n: int) -> None:
        pass


def _hold_setting() -> tuple[str, int] | None:
    value = os.environ.get(HOLD_ENV)
    if not value:
        return None
    directory, first = value.rsplit(":", 1)
    return directory, int(first)
