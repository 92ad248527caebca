"""Does inference choose better plays? Each move judged on the true deal it was made in.

From game records (the arena's), views are taken at seeded points of each hand, as the
seat to move saw them (its hand, the contract, the plays, the auction). The advice
bot's play (`quick_play`, ``--deals`` deals, the same seed) is chosen with and without
inference, and each choice is scored double dummy on the true deal: the loss is how
much worse than the best move it is for the seat's side (in the contract's unit), and
whether it throws away the contract's outcome (a make turned into a set, or the
reverse for the defenders). Paired by view: the mean difference with its standard
error and 95% t interval.

    python bench/inference_plays.py RECORDS --views 300 --deals 30 --inference auction
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver.game.position import Position  # noqa: E402
from solver.hidden.quick_play import quick_play  # noqa: E402
from solver.hidden.stats import mean_of  # noqa: E402
from solver.play.bots import seat_view  # noqa: E402
from solver.search.solve import DealSolver  # noqa: E402


def views(paths: list[str], count: int, seed: int):
    """``count`` (position, view) pairs: a seeded point in seeded hands of the records,
    where the seat to move has a choice."""
    hands = []
    for path in paths:
        with open(path) as f:
            for line in f:
                if line.strip():
                    hands += [h for h in json.loads(line)["hands"]
                              if h.get("contract") and h.get("plays")]
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        h = rng.choice(hands)
        cut = rng.randrange(len(h["plays"]))
        p = Position({"hands": h["hands"], "contract": h["contract"], "plays": h["plays"][:cut]})
        if p.to_move_index is None or len(p.legal_tiles()) < 2:
            continue
        out.append((p, seat_view(p, h["auction"])))
    return out


def judge(p: Position, tile: int) -> tuple[int, int]:
    """(loss, outcome thrown away: 0 or 1) of ``tile`` on the true deal."""
    values = dict(DealSolver(p).child_values())
    sign = 1 if p.maximizer[p.to_move_index] else -1
    best = max(sign * v for v in values.values())
    target, at_least = p.make_target()
    declaring = p.scorer[p.to_move_index] == 1

    def good(v: int) -> bool:
        makes = v >= target if at_least else v < target
        return makes == declaring

    return best - sign * values[tile], int(any(good(v) for v in values.values())
                                              and not good(values[tile]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+")
    parser.add_argument("--views", type=int, default=300)
    parser.add_argument("--deals", type=int, default=30)
    parser.add_argument("--inference", default="auction")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    loss_diff, thrown_diff, changed = [], [], 0
    plain_loss, inferred_loss = [], []
    for i, (p, view) in enumerate(views(args.records, args.views, args.seed)):
        a = quick_play(view, deals=args.deals, seed=i)
        b = quick_play(view, deals=args.deals, seed=i, inference=args.inference)
        ta, tb = (int(_tile(x.best)) for x in (a, b))
        la, xa = judge(p, ta)
        lb, xb = judge(p, tb)
        changed += ta != tb
        plain_loss.append(la)
        inferred_loss.append(lb)
        loss_diff.append(lb - la)
        thrown_diff.append(xb - xa)
    d, t = mean_of(loss_diff), mean_of(thrown_diff)
    print(f"{args.views} views, {args.deals} deals a play, inference {args.inference}: "
          f"{changed} choices changed; mean loss {sum(plain_loss) / len(plain_loss):.3f} "
          f"without, {sum(inferred_loss) / len(inferred_loss):.3f} with")
    print(f"loss with - without: {d.mean:+.3f} (se {d.se:.3f}, 95% CI {d.low:+.3f} .. "
          f"{d.high:+.3f})")
    print(f"outcomes thrown away, with - without: {t.mean:+.4f} per play (se {t.se:.4f}, "
          f"95% CI {t.low:+.4f} .. {t.high:+.4f})")
    print(f"{time.perf_counter() - started:.0f} s")


def _tile(name: str) -> int:
    from solver.game import tiles as T
    return T.parse_tile(name, "best")


if __name__ == "__main__":
    main()
