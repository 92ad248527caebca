"""The arena benchmark: hint (100 deals) against rule, and the rule-to-cheat gap.

    python bench/arena_run.py run --pairs 2000 --seed 1 --out bench/results
    python bench/arena_run.py report --out bench/results

``run`` plays, on the same seeded pairs, cheat against rule and then hint
against rule, appending every hand to ``cheat-rule.jsonl`` and
``hint-rule.jsonl`` as it is played (a long run can be stopped at any time
and reported on). ``--first-pair`` continues a stopped run, and ``--only
hint`` (or ``cheat``) plays one of the two matches. ``report``
prints the statistics of both and the share of the rule-to-cheat gap that
hint closes, on the pairs present in both files.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from solver.cli.arena_cmd import format_stats  # noqa: E402
from solver.play.arena import (gap_share, records_from_json, run_arena, stderr_progress,  # noqa: E402
                               summarize)

RUNS = (("cheat", "rule"), ("hint", "rule"))


def _path(out: str, a: str, b: str) -> str:
    return os.path.join(out, f"{a}-{b}.jsonl")


def run(args: argparse.Namespace) -> None:
    os.makedirs(args.out, exist_ok=True)
    for a, b in RUNS:
        if args.only and a != args.only:
            continue
        with open(_path(args.out, a, b), "a", encoding="utf-8") as f:
            def sink(records, f=f):
                for r in records:
                    f.write(json.dumps(r.to_json()) + "\n")
                f.flush()
            run_arena(a, b, args.pairs, args.seed, hint_deals=args.hint_deals,
                      workers=args.workers, first_pair=args.first_pair,
                      progress=stderr_progress(f"{a} vs {b}"), sink=sink)


def load(out: str, a: str, b: str):
    with open(_path(out, a, b), encoding="utf-8") as f:
        return records_from_json(json.loads(line) for line in f if line.strip())


def report(args: argparse.Namespace) -> None:
    loaded = {}
    for a, b in RUNS:
        if os.path.exists(_path(args.out, a, b)):
            loaded[a] = load(args.out, a, b)
            print(format_stats(summarize(loaded[a], a, b)))
            print()
    if len(loaded) == 2:
        g = gap_share(loaded["hint"], loaded["cheat"], "hint", "cheat", "rule")
        print(f"Share of the rule-to-cheat gap closed by hint, on {g.pairs} common pairs: "
              f"{100 * g.closed:.1f}% (95% CI {100 * g.low:.1f}% .. {100 * g.high:.1f}%); "
              f"hint leads rule by {g.bot_lead:+.2f}, cheat by {g.bound_lead:+.2f} points a pair")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--pairs", type=int, default=2000)
    r.add_argument("--first-pair", type=int, default=0)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--hint-deals", type=int, default=100)
    r.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    r.add_argument("--out", default="bench/results")
    r.add_argument("--only", choices=[a for a, _ in RUNS], help="play only this match")
    r.set_defaults(fn=run)
    p = sub.add_parser("report")
    p.add_argument("--out", default="bench/results")
    p.set_defaults(fn=report)
    args = parser.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
