"""`t42 report`: a coaching report over analysed hands."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from ..game.errors import PositionError
from ..game.jsondoc import parse_json
from ..show.report import ReportLineError, format_report, read_report, write_html
from .batch_cmd import missing_extra
from .common import EXIT_BAD_INPUT, EXIT_OK, guarded


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="coaching report over analysed hands",
                       description="Report on analysed hands: per player hands, plays, costly "
                                   "plays, total and mean cost per hand; double-dummy against "
                                   "actual make rate by declaration; cost by trick number.")
    p.add_argument("source", metavar="OUTDIR",
                   help="the output directory of `t42 batch analyze` (or a file of "
                        "`t42 analyze --json` lines)")
    p.add_argument("--html", metavar="FILE", help="also write a self-contained HTML page "
                                                  "with charts")
    p.set_defaults(run=run_report)


def _results(source: Path) -> Path:
    """The analysis lines of ``source``; refuses a batch run of another job."""
    if not source.is_dir():
        return source
    settings = source / "batch.json"
    if settings.exists():
        job = _batch_job(settings)
        if job != "analyze":
            raise _ReportError(f"{source} holds a batch run of {job}, not analyze")
    results = source / "results.jsonl"
    if not results.exists():
        raise _ReportError(f"{source} has no results.jsonl (is the batch run finished?)")
    return results


def _batch_job(settings: Path) -> str:
    """The job of a batch run's settings file (``{"settings": {"job": ...}}``)."""
    try:
        with open(settings, "rb") as f:
            held = parse_json(f.read(), "batch.json")
        job = held["settings"]["job"] if isinstance(held, dict) \
            and isinstance(held.get("settings"), dict) else None
    except PositionError as exc:
        raise _ReportError(f"{settings} is not the settings file of a batch run "
                           f"({exc.reason})") from None
    if not isinstance(job, str) or len(job) > 40 or not job.isprintable():
        raise _ReportError(f"{settings} is not the settings file of a batch run "
                           "(no settings.job)")
    return job


class _ReportError(Exception):
    pass


@guarded
def run_report(args: argparse.Namespace) -> int:
    missing = args.html and missing_extra("matplotlib")
    if missing:
        print(f"t42: error: {missing}", file=sys.stderr)
        return 1
    try:
        results = _results(Path(args.source))
        with open(results, "rb") as lines:
            report = read_report(lines)
    except _ReportError as exc:
        print(f"t42: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        print(f"t42: error: cannot read {args.source}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ReportLineError as exc:
        print(f"t42: error: {results}: line {exc.line}: {exc.field}: {exc.reason}",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.html:
        # The page is written before anything is printed: a reader of the text that
        # goes away (t42 report ... | head -1) cannot cost the page.
        page = io.StringIO()
        write_html(report, page)
        try:
            with open(args.html, "w", encoding="utf-8") as out:
                out.write(page.getvalue())
        except OSError as exc:
            print(f"t42: error: cannot write {args.html}: {exc.strerror or exc}",
                  file=sys.stderr)
            return EXIT_BAD_INPUT
    print(format_report(report))
    if args.html:
        print(f"\nHTML report: {args.html}")
    return EXIT_OK
