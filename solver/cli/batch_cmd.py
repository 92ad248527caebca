"""`t42 batch`: a command over a large JSON Lines input on a Dask cluster."""

from __future__ import annotations

import argparse
import importlib.util
import signal
import sys

from ..batch.jobs import JOBS
from ..batch.cluster import CONNECT_TIMEOUT
from ..game.errors import quoted
from ..hidden.coaching import SEARCHES
from ..hidden.hint import OBJECTIVES
from ..hidden.inference import MODES as INFERENCE_MODES
from ..hidden.game_analysis import DEFAULT_ADVICE_DEALS, DEFAULT_ADVICE_SEED
from .analyze_cmd import check_advice_options, check_seat_view_options
from .common import EXIT_BAD_INPUT, EXIT_OK, guarded

#: Longest --connect-timeout (a day).
MAX_CONNECT_TIMEOUT = 86400.0
#: User options of the jobs (Job.options), as the single-process commands spell them.
JOB_OPTIONS = {"best_only": "--best-only", "bid": "--bid", "trump": "--trump",
               "deals": "--deals", "seed": "--seed", "objective": "--objective",
               "enumerate_limit": "--enumerate-limit", "threshold": "--threshold",
               "inference": "--inference", "search": "--search", "depth": "--depth",
               "advice_deals": "--advice-deals", "advice_seed": "--advice-seed"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "batch", help="run a command over a large JSON Lines input on a Dask cluster",
        description="Run JOB on every record of INPUT (JSON Lines, read as a stream) on a "
                    "Dask cluster: a local one, one worker process per core, unless "
                    "--scheduler names one. Finished chunks go to OUTDIR/parts/; at the end "
                    "OUTDIR/results.jsonl holds one line per record, in input order, as "
                    "`t42 JOB --json` prints it. Running the same command again resumes a "
                    "stopped run; a part damaged since it was written is run again.")
    p.add_argument("job", choices=sorted(JOBS), metavar="JOB",
                   help="one of: " + ", ".join(sorted(JOBS)))
    p.add_argument("input", metavar="INPUT", help="JSON Lines file, or - for standard input")
    p.add_argument("-o", "--output", required=True, metavar="OUTDIR",
                   help="output directory (created; a re-run resumes it)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="an existing Dask scheduler, e.g. tcp://HOST:8786 "
                        "(default: a local cluster for this run)")
    p.add_argument("--connect-timeout", type=_seconds, default=CONNECT_TIMEOUT,
                   metavar="SECONDS",
                   help="with --scheduler: how long to wait for it to answer (default: "
                        f"{CONNECT_TIMEOUT:g})")
    p.add_argument("--workers", type=int, metavar="N",
                   help="worker processes of the local cluster (default: one per core)")
    p.add_argument("--chunk-size", type=int, metavar="N",
                   help="records per chunk (default: about a second of work for the job)")
    p.add_argument("--in-flight", type=int, metavar="N",
                   help="chunks submitted and not yet written (default: 2 per worker thread)")
    p.add_argument("--retries", type=int, default=3, metavar="N",
                   help="extra tries of a chunk whose task failed (default: 3)")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress bar (it is drawn on stderr only when that is a terminal)")
    p.add_argument("--best-only", action="store_true", help="solve: score only the optimal moves")
    p.add_argument("--bid", type=int, help="make-or-set: the bid to test")
    p.add_argument("--trump", metavar="NAME", help="discard: one declaration")
    p.add_argument("--seat-view", action="store_true",
                   help="analyze: grade every decision from its seat's view, as `t42 analyze "
                        "--seat-view` does (the job grade)")
    p.add_argument("--deals", type=int, help="hint, bid, grade: deals to sample per record "
                                             "(grade: per play)")
    p.add_argument("--seed", type=int, help="hint, bid: seed of every record's deals "
                                            "(default: a fresh one per record, reported); "
                                            "grade: of every play's deals (default 42)")
    p.add_argument("--objective", choices=OBJECTIVES, help="hint: rank moves by P(make) or by mean")
    p.add_argument("--enumerate-limit", type=int, metavar="N",
                   help="hint, grade: score every consistent deal when there are at most N")
    p.add_argument("--search", choices=SEARCHES,
                   help="grade: how a play is valued on each deal (default double-dummy)")
    p.add_argument("--depth", type=int, metavar="D",
                   help="grade with --search postponed: the seat's next decisions searched")
    p.add_argument("--advice-deals", type=int, metavar="N",
                   help="grade: deals of bid advice per call (default 100)")
    p.add_argument("--advice-seed", type=int, metavar="S",
                   help="grade: the seed of bid advice's deals (default 42)")
    p.add_argument("--threshold", type=float, help="bid: P(make) a recommended bid needs")
    p.add_argument("--inference", choices=INFERENCE_MODES,
                   help="hint, bid: weigh the deals by the auction and the plays (bid: off or "
                        "auction)")
    p.set_defaults(run=run_batch_command)


def _seconds(text: str) -> float:
    """--connect-timeout: a number of seconds > 0 (not nan, not infinite)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {quoted(text)}") from None
    if not 0 < value <= MAX_CONNECT_TIMEOUT:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is out of range (more than 0 and at "
                                         f"most {MAX_CONNECT_TIMEOUT:g} seconds)")
    return value


def _job_options(args: argparse.Namespace) -> dict:
    """The options given on the command line; refuses one the job does not take, and
    checks those of grade as `t42 analyze --seat-view` does, before any work."""
    if args.seat_view:
        if args.job not in ("analyze", "grade"):
            raise _UsageError(f"--seat-view is not an option of {args.job}")
        args.job = "grade"      # `t42 batch analyze --seat-view` is the job grade
    options = {}
    for name, flag in JOB_OPTIONS.items():
        value = getattr(args, name)
        if value is None or value is False:
            continue
        if name not in JOBS[args.job].options:
            raise _UsageError(f"{flag} is not an option of {args.job}")
        options[name] = value
    if args.job == "grade":
        check_seat_view_options(**{k: v for k, v in options.items()
                                   if k not in ("advice_deals", "advice_seed")})
        check_advice_options(options.get("advice_deals", DEFAULT_ADVICE_DEALS),
                             options.get("advice_seed", DEFAULT_ADVICE_SEED))
    return options


class _UsageError(Exception):
    pass


#: The range of each count option: a count past these asks for more processes, memory
#: or retries than any run needs (a chunk of a million lines is already hours of work).
COUNT_RANGES = {"workers": (1, 1024), "chunk_size": (1, 1_000_000), "in_flight": (1, 10_000),
                "retries": (0, 100)}


def _check_counts(args: argparse.Namespace) -> None:
    for name, (low, high) in COUNT_RANGES.items():
        value = getattr(args, name)
        if value is not None and not low <= value <= high:
            raise _UsageError(f"--{name.replace('_', '-')}: must be {low}..{high:,}, not "
                              f"{quoted(value)}")


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C would be so that the run stops the same way."""


def _terminate(signum, frame):
    raise _Terminated


def missing_extra(*modules: str) -> str | None:
    """A message when a module of the `batch` extra is not installed."""
    for module in modules:
        if importlib.util.find_spec(module) is None:
            return (f"this needs {module}: pip install 'texas42-solver[batch]'")
    return None


@guarded
def run_batch_command(args: argparse.Namespace) -> int:
    missing = missing_extra("distributed", "tqdm")
    if missing:
        print(f"t42: error: {missing}", file=sys.stderr)
        return 1
    from ..batch.run import BatchInterrupted, ChunksFailed, run_batch
    from ..batch.store import BatchError

    try:
        _check_counts(args)
        options = _job_options(args)
    except _UsageError as exc:
        print(f"t42: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    # SIGTERM stops the run as Ctrl-C does: futures cancelled, done parts kept
    # (while chunks are out, the run's own handler takes both; this one covers
    # the start and the join).
    signal.signal(signal.SIGTERM, _terminate)
    try:
        summary = run_batch(args.job, args.input, args.output, options=options,
                            chunk_size=args.chunk_size, scheduler=args.scheduler,
                            workers=args.workers, in_flight=args.in_flight,
                            retries=args.retries, progress=args.progress,
                            connect_timeout=args.connect_timeout)
    except BatchInterrupted as exc:
        print(f"t42: {exc}", file=sys.stderr)
        return 128 + exc.signum
    except _Terminated:
        print("t42: interrupted", file=sys.stderr)
        return 128 + signal.SIGTERM
    except ChunksFailed as exc:
        print(f"t42: error: {exc}", file=sys.stderr)
        return 1
    except BatchError as exc:
        print(f"t42: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except FileNotFoundError as exc:
        print(f"t42: error: cannot read {exc.filename}: {exc.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        # The disk or the system failed the run (a part that cannot be written, no
        # space left): what and where, in one line; the parts written are kept.
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"t42: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"t42 batch {summary.text()} -> {args.output}/results.jsonl", file=sys.stderr)
    return EXIT_BAD_INPUT if summary.errors else EXIT_OK
