"""Speed of the advice bot: a call (the first of an auction) and a play at the opening
lead, median over seeded hands, and one game of advice vs advice. Not a test: figures
for the record (they depend on the machine and its load).

    python bench/bot_speed.py [--hands 15] [--threads 1] [--game]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import time

from solver.game.auction import GameRules
from solver.game.call_view import call_view
from solver.hidden.dealer import Dealer
from solver.play.bots import make_bot, seat_bots, seat_view
from solver.play.game_play import play_game


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=15)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--game", action="store_true", help="also time a game of advice vs advice")
    args = ap.parse_args()
    threads = args.threads or None
    rng = random.Random(5)
    dealer = Dealer("42", 4)
    bot = make_bot("advice", seed=1)
    bot.threads = threads
    calls, plays = [], []
    for _ in range(args.hands):
        deal = dealer.deal(rng)
        view = call_view(GameRules(), 1, deal.hand_ids[1], 0, (), {"NS": 0, "EW": 0})
        t = time.perf_counter()
        bot.call(view)
        calls.append(time.perf_counter() - t)
        start = deal.position({"declarer": "N", "trump": "sixes", "bid": 30})
        t = time.perf_counter()
        bot.choose(seat_view(start))
        plays.append(time.perf_counter() - t)
    print(f"advice call: median {statistics.median(calls):.3f} s, max {max(calls):.3f} s "
          f"({args.hands} hands, threads {args.threads})")
    print(f"advice play at the opening lead: median {statistics.median(plays):.3f} s, "
          f"max {max(plays):.3f} s")
    if args.game:
        cpu0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
        t = time.perf_counter()
        def advice(seed: int):
            def maker(seat: int):
                bot = seat_bots("advice", seed)(seat)
                bot.threads = threads
                return bot
            return maker

        record = play_game(advice(1), advice(2), seed=1)
        wall = time.perf_counter() - t
        cpu = resource.getrusage(resource.RUSAGE_SELF).ru_utime - cpu0
        print(f"one game advice vs advice: {len(record.hands)} hands, {record.score}, "
              f"wall {wall:.1f} s, CPU {cpu:.1f} s")


if __name__ == "__main__":
    main()
