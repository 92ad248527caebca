"""Bid advice calibration: predicted P(make) against hands played out by hint bots.

    python bench/calibration.py run --hands 300 --seed 1 --out bench/results/calibration.jsonl
    python bench/calibration.py report --out bench/results/calibration.jsonl

``run`` appends one JSON line per hand as it is played (stop it at any
time; ``--first-hand`` continues a stopped run); ``report`` prints the
calibration table (Markdown) of whatever the file holds. See
solver/hidden/calibration.py for the design (``--mode bid30`` or ``advised``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from solver.hidden.calibration import calibration_table  # noqa: E402
from solver.play.arena import stderr_progress  # noqa: E402
from solver.play.calibration_run import (MODES, CalibrationRecord,  # noqa: E402
                                         calibration_markdown, pairs_of, pairs_over_bids,
                                         run_calibration)


def run(args: argparse.Namespace) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "a", encoding="utf-8") as f:
        def sink(record: CalibrationRecord) -> None:
            f.write(json.dumps(record.to_json()) + "\n")
            f.flush()
        run_calibration(args.hands, args.seed, mode=args.mode, advice_deals=args.advice_deals,
                        hint_deals=args.hint_deals, workers=args.workers,
                        first_hand=args.first_hand, progress=stderr_progress("calibration"),
                        sink=sink)


def load(path: str) -> list[CalibrationRecord]:
    with open(path, encoding="utf-8") as f:
        return [CalibrationRecord.from_json(json.loads(line)) for line in f if line.strip()]


def report(args: argparse.Namespace) -> None:
    records = load(args.out)
    made = sum(r.made for r in records)
    mean = sum(r.predicted for r in records) / len(records) if records else 0.0
    print(f"{len(records)} hands; mean predicted P(make) {mean:.3f}, "
          f"observed make rate {made / max(1, len(records)):.3f}")
    print()
    print(calibration_markdown(calibration_table(pairs_of(records))))
    if args.all_bids:
        print()
        print("Every bid 30..42 of the played declaration (points >= bid; see pairs_over_bids):")
        print()
        print(calibration_markdown(calibration_table(pairs_over_bids(records))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--hands", type=int, default=300)
    r.add_argument("--first-hand", type=int, default=0)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--mode", choices=MODES, default="bid30")
    r.add_argument("--advice-deals", type=int, default=100)
    r.add_argument("--hint-deals", type=int, default=30)
    r.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    r.add_argument("--out", default="bench/results/calibration.jsonl")
    r.set_defaults(fn=run)
    p = sub.add_parser("report")
    p.add_argument("--out", default="bench/results/calibration.jsonl")
    p.add_argument("--all-bids", action="store_true",
                   help="also the table over every bid 30..42 (asks the advice again)")
    p.set_defaults(fn=report)
    args = parser.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
