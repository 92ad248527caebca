"""Where seat-view bid advice's time goes: the CPU time of the playouts' decisions by the
number of tiles played before them (0: the declarer's opening lead), over seeded hands
with every declaration played out, one thread.

    python bench/playout_profile.py [--hands 2] [--rows 10]
"""

from __future__ import annotations

import argparse
import collections
import time

from solver.hidden import seat_view
from solver.hidden.seat_view_bidding import seat_view_advise

from deals import bid_hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=2, help="seeded hands (default 2)")
    parser.add_argument("--rows", type=int, default=10, help="play indexes shown (default 10)")
    args = parser.parse_args()

    seconds: collections.Counter = collections.Counter()
    decisions: collections.Counter = collections.Counter()
    choose = seat_view.SeatViewPlayer.choose

    def timed(player, p, rng):   # every playout's decision, timed by its index
        started = time.process_time()
        try:
            return choose(player, p, rng)
        finally:
            seconds[len(p.plays)] += time.process_time() - started
            decisions[len(p.plays)] += 1

    seat_view.SeatViewPlayer.choose = timed
    hands = bid_hands(args.hands)   # the first of bench/test_seat_view_bench.py's hands
    started = time.process_time()
    nodes = sum(seat_view_advise(hand, "N", seed=i, threads=1).nodes
                for i, hand in enumerate(hands))
    total = time.process_time() - started
    print(f"{args.hands} hands, every declaration played out: {total:.2f} s of CPU, "
          f"{nodes:,} nodes")
    print("plays before | decisions | CPU s | share")
    for k in sorted(seconds)[:args.rows]:
        print(f"{k:12d} | {decisions[k]:9d} | {seconds[k]:5.2f} | {seconds[k] / total:.3f}")
    rest = sum(s for k, s in seconds.items() if k >= args.rows)
    print(f"{'the rest':>12} | {'':9} | {rest:5.2f} | {rest / total:.3f}")


if __name__ == "__main__":
    main()
