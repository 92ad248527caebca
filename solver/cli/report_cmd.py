"""`t42 report`: a coaching report over analysed hands (double dummy, `solver.show.report`)
or over seat-view grades (`solver.show.grade_report`): read from a batch run's results or
a file of answers, or graded here first (--seat-view)."""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path
from typing import Iterator

from ..game.errors import PositionError
from ..game.jsondoc import blank_line, parse_json
from ..show.grade_report import (DEFAULT_WORST, GradeReport, format_grade_report, is_grading,
                                 read_grade_report, write_grade_html)
from ..show.report import ReportLineError, format_report, read_report, write_html
from .analyze_cmd import check_advice_options, check_seat_view_options, grade_record
from .batch_cmd import missing_extra
from .common import (EXIT_BAD_INPUT, EXIT_OK, InputError, count_records, dumps_json,
                     error_json, guarded, read_records)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="coaching report over analysed or graded hands",
                       description="Report on analysed hands (`t42 batch analyze`, `t42 "
                                   "analyze --json`): per player hands, plays, costly plays, "
                                   "total and mean cost per hand; double-dummy against actual "
                                   "make rate by declaration; cost by trick number. On graded "
                                   "hands (`t42 batch grade`, `t42 analyze --seat-view "
                                   "--json`, or records graded here with --seat-view): per "
                                   "player, decisions and mistakes per hand by phase, marks "
                                   "and points lost, the price of hidden information and "
                                   "luck per hand with 95% intervals clustered by hand, and "
                                   "the worst decisions with their game and hand "
                                   "(docs/guides/coaching.md).")
    p.add_argument("source", metavar="OUTDIR",
                   help="the output directory of `t42 batch analyze` or `t42 batch grade` (or "
                        "a file of their lines; with --seat-view, of game or hand records)")
    p.add_argument("--html", metavar="FILE", help="also write a self-contained HTML page "
                                                  "with charts")
    p.add_argument("--json", action="store_true",
                   help="graded hands: print the report as one JSON object")
    p.add_argument("--worst", type=int, default=None, metavar="N",
                   help=f"graded hands: the N worst decisions listed (default {DEFAULT_WORST})")
    g = p.add_argument_group("grading here (records graded as `t42 analyze --seat-view` "
                             "grades them, then reported)")
    g.add_argument("--seat-view", action="store_true",
                   help="SOURCE holds game or hand records: grade each from every seat's "
                        "view (a progress bar on a terminal), then report")
    g.add_argument("--deals", type=int, metavar="N", help="deals per play (default 100)")
    g.add_argument("--seed", type=int, metavar="S", help="their seed (default 42)")
    g.add_argument("--enumerate-limit", type=int, metavar="N",
                   help="a view with at most N consistent deals uses every one (default 1000)")
    g.add_argument("--advice-deals", type=int, default=None, metavar="N",
                   help="deals of bid advice per call (default 100)")
    g.add_argument("--advice-seed", type=int, default=None, metavar="S",
                   help="the seed of bid advice's deals (default 42)")
    g.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress bar (drawn on stderr only when that is a terminal)")
    p.set_defaults(run=run_report)


def _results(source: Path) -> tuple[Path, bool]:
    """The analysis or grading lines of ``source``, and whether they are gradings: as the
    batch run's job says, else as the first line that is no error line shows. Refuses a
    batch run of another job."""
    if not source.is_dir():
        if not source.is_file():    # a pipe is read once: as analyses, as it always was
            return source, False
        first = _first_object(source)
        return source, first is not None and is_grading(first)
    settings = source / "batch.json"
    job = "analyze"
    if settings.exists():
        job = _batch_job(settings)
        if job not in ("analyze", "grade"):
            raise _ReportError(f"{source} holds a batch run of {job}, not analyze or grade")
    results = source / "results.jsonl"
    if not results.exists():
        raise _ReportError(f"{source} has no results.jsonl (is the batch run finished?)")
    return results, job == "grade"


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


#: The options that go with --seat-view only.
GRADING_OPTIONS = ("deals", "seed", "enumerate_limit", "advice_deals", "advice_seed")


def _grading_settings(args: argparse.Namespace) -> dict | None:
    """The grading options, checked before any work (None without --seat-view)."""
    if not args.seat_view:
        for name in GRADING_OPTIONS:
            if getattr(args, name) is not None:
                raise InputError(f"--{name.replace('_', '-')}: goes with --seat-view")
        return None
    settings = check_seat_view_options(deals=args.deals, seed=args.seed,
                                       enumerate_limit=args.enumerate_limit)
    advice = {"advice_deals": 100 if args.advice_deals is None else args.advice_deals,
              "advice_seed": 42 if args.advice_seed is None else args.advice_seed}
    check_advice_options(**advice)
    return {**settings, **advice}


def _graded_lines(path: str, settings: dict, progress: bool) -> Iterator[str]:
    """Each record of ``path`` graded, as the line `t42 analyze --seat-view --json` prints
    for it (an error line for a bad record); a records bar on a terminal."""
    bar = None
    if progress and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=count_records(path), unit=" records", desc="t42 report: grading",
                   file=sys.stderr, leave=False, dynamic_ncols=True)
    try:
        for record in read_records(path):
            try:
                if record.error is not None:
                    raise record.error
                answer, _ = grade_record(record.data, **settings)
            except PositionError as exc:
                answer = error_json(exc)
            yield dumps_json(answer)
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()


def _first_object(path: Path) -> dict | None:
    """The first line of ``path`` that is a JSON object and no error line (None if none)."""
    with open(path, "rb") as f:
        for line in f:
            if blank_line(line):
                continue
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):
                return None    # not JSON: the analyses' reader names the line
            if isinstance(obj, dict) and "error" not in obj:
                return obj
            if not isinstance(obj, dict):
                return None
    return None


def _check_worst(worst: int | None) -> int:
    if worst is None:
        return DEFAULT_WORST
    if not 0 <= worst <= 10_000:
        raise InputError(f"--worst: must be 0..10,000, not {worst}")
    return worst


@guarded
def run_report(args: argparse.Namespace) -> int:
    missing = args.html and missing_extra("matplotlib")
    if missing:
        print(f"t42: error: {missing}", file=sys.stderr)
        return 1
    settings = _grading_settings(args)
    worst = _check_worst(args.worst)
    where = args.source
    try:
        if settings is not None:
            if Path(args.source).is_dir():
                raise _ReportError(f"{args.source} is a directory: --seat-view grades a file "
                                   "of game or hand records")
            report = read_grade_report(_graded_lines(args.source, settings, args.progress),
                                       worst)
            where = f"{args.source} (graded)"
        else:
            results, grades = _results(Path(args.source))
            where = str(results)
            if grades:
                with open(results, "rb") as lines:
                    report = read_grade_report(lines, worst)
            else:
                if args.json or args.worst is not None:
                    raise _ReportError(f"{'--json' if args.json else '--worst'} goes with "
                                       "graded hands (`t42 batch grade`, `t42 analyze "
                                       "--seat-view --json`); these are analysed hands")
                with open(results, "rb") as lines:
                    report = read_report(lines)
    except _ReportError as exc:
        print(f"t42: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        print(f"t42: error: cannot read {args.source}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ReportLineError as exc:
        print(f"t42: error: {where}: line {exc.line}: {exc.field}: {exc.reason}",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    graded = isinstance(report, GradeReport)
    if args.html:
        # The page is written before anything is printed: a reader of the text that
        # goes away (t42 report ... | head -1) cannot cost the page.
        page = io.StringIO()
        (write_grade_html if graded else write_html)(report, page)
        try:
            with open(args.html, "w", encoding="utf-8") as out:
                out.write(page.getvalue())
        except OSError as exc:
            print(f"t42: error: cannot write {args.html}: {exc.strerror or exc}",
                  file=sys.stderr)
            return EXIT_BAD_INPUT
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        print(format_grade_report(report) if graded else format_report(report))
    if args.html and not args.json:
        print(f"\nHTML report: {args.html}")
    return EXIT_OK
