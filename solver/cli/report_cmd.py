"""`t42 report`: a coaching report over analysed hands."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..report import format_report, read_report, write_html
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
        job = json.loads(settings.read_text())["settings"]["job"]
        if job != "analyze":
            raise _ReportError(f"{source} holds a batch run of {job}, not analyze")
    results = source / "results.jsonl"
    if not results.exists():
        raise _ReportError(f"{source} has no results.jsonl (is the batch run finished?)")
    return results


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
        with open(results, encoding="utf-8") as lines:
            report = read_report(lines)
    except _ReportError as exc:
        print(f"t42: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        print(f"t42: error: cannot read {args.source}: {exc.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (ValueError, KeyError, TypeError) as exc:
        print(f"t42: error: {args.source} does not hold `t42 analyze --json` lines ({exc!r})",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    print(format_report(report))
    if args.html:
        with open(args.html, "w", encoding="utf-8") as out:
            write_html(report, out)
        print(f"\nHTML report: {args.html}")
    return EXIT_OK
