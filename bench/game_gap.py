"""The share of the rule-to-cheat gap that bots close, from game-arena runs against one
opponent on the same seed (``t42 arena X BASE --games N --seed S --records FILE``, each
bot first):

    python bench/game_gap.py --low rule=bench/records/rule_advice_s91.jsonl \
        --high cheat=bench/records/cheat_advice_s91.jsonl \
        advice= seat-view=bench/records/seat_view_advice_s91.jsonl

Each share is taken on the deals dealt at both tables in all three runs (the bot's, the
low one's and the high one's), with a 95% interval by the delta method
(`solver.play.game_arena.game_gap_share`). ``NAME=`` with no file is the opponent itself
(its lead over itself is 0 on every deal): the opponent's own share, on the deals of
the two bounds' runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from solver.play.game_arena import game_gap_share  # noqa: E402


def read_records(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def named(text: str) -> tuple[str, str]:
    name, _, path = text.partition("=")
    if not name:
        raise argparse.ArgumentTypeError(f"{text!r}: NAME=FILE")
    return name, path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--low", type=named, required=True, help="NAME=FILE: the weaker bound")
    parser.add_argument("--high", type=named, required=True,
                        help="NAME=FILE: the stronger bound")
    parser.add_argument("bots", type=named, nargs="+", help="NAME=FILE (NAME=: the opponent)")
    args = parser.parse_args()
    low, high = read_records(args.low[1]), read_records(args.high[1])
    print(f"| bot | deals in all three runs | {args.low[0]} to {args.high[0]}, marks a hand | "
          f"bot - {args.low[0]} | share of the gap (95%) |")
    print("|---|---|---|---|---|")
    for name, path in args.bots:
        share = game_gap_share(read_records(path) if path else None, low, high)
        print(f"| {name} | {share.pairs} | {share.bound_lead:+.3f} | {share.bot_lead:+.3f} | "
              f"{100 * share.closed:.1f}% ({100 * share.low:.1f} .. {100 * share.high:.1f}) |")


if __name__ == "__main__":
    main()
