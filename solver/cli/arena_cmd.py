"""`t42 arena`: two bots play duplicate pairs of hands; statistics of who did better."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable

from ..game.errors import PositionError, quoted
from ..hidden.hint import default_threads
from ..play.arena import (MAX_HINT_DEALS, MAX_PAIRS, MAX_WORKERS, ArenaStats, check_run,
                          pair_from_json, play_pair, run_arena, stderr_progress, summarize)
from ..play.bots import BOT_NAMES
from .common import guarded


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("arena", help="play two bots against each other in duplicate",
                       description="Duplicate play: each seeded deal is played twice with the "
                                   "bots' seats swapped; the declarer rotates N, E, S, W and "
                                   "bids 30 in its longest pip suit. Reports make and set "
                                   "rates, the paired points difference with a 95%% interval "
                                   "and McNemar's test.")
    p.add_argument("a", choices=BOT_NAMES, help="first bot")
    p.add_argument("b", choices=BOT_NAMES, help="second bot")
    p.add_argument("--pairs", type=int, default=50,
                   help=f"duplicate pairs to play, 1..{MAX_PAIRS} (default 50)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals, 0..2**63-1 (default 0)")
    p.add_argument("--hint-deals", type=int, default=100,
                   help=f"deals per hint of the hint bot, 1..{MAX_HINT_DEALS} (default 100)")
    p.add_argument("--workers", type=int, default=default_threads(),
                   help=f"processes playing pairs in parallel, 1..{MAX_WORKERS}; no more are "
                        "started than there are cores or pairs (default: one per core)")
    p.add_argument("--records", metavar="FILE",
                   help="write every hand played (JSON Lines) to FILE as it is played")
    p.add_argument("--json", action="store_true", help="print the statistics as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    p.set_defaults(run=run_arena_cmd)


def format_stats(s: ArenaStats) -> str:
    d = s.difference
    lines = [f"{s.a} vs {s.b}: {s.pairs} duplicate pairs, {s.hands} hands", "",
             f"  {'bot':8} {'declared':>8} {'made':>6} {'make rate':>10}  {'95%':>13}"
             f"  {'set rate':>9}  {'95%':>13}  {'mean pts declaring':>18}"]
    for b in s.bots.values():
        lines.append(f"  {b.name:8} {b.declared:8} {b.made:6} {b.make_rate:10.3f}  "
                     f"{b.make_rate_ci[0]:.3f} - {b.make_rate_ci[1]:.3f}  {b.set_rate:9.3f}  "
                     f"{b.set_rate_ci[0]:.3f} - {b.set_rate_ci[1]:.3f}  "
                     f"{b.mean_points_declaring:18.2f}")
    lines += ["",
              f"Paired difference ({s.a} - {s.b}, declaring points on the same deal): "
              f"{d.mean:+.2f} points, 95% CI {d.low:+.2f} .. {d.high:+.2f} "
              f"(se {d.se:.2f}, {s.z:+.1f} standard errors)",
              f"McNemar: {s.mcnemar.b} pairs only {s.a} made, {s.mcnemar.c} only {s.b} made; "
              f"exact p = {s.mcnemar.p_value:.3g}"]
    return "\n".join(lines)


def arena_record(data) -> tuple[dict, Callable[[], str]]:
    """One pair spec -> (both games of the pair, as `t42 arena --records` writes them, and a
    line of text), for `t42 batch arena`: the pairs of a long run spread over a cluster."""
    pair, seed, a, b, hint_deals = pair_from_json(data)
    games = play_pair(pair, seed, a, b, hint_deals)
    answer = {"pair": pair, "seed": seed, "games": [g.to_json() for g in games]}
    return answer, lambda: f"pair {pair} (seed {seed}): " + "; ".join(
        f"{g.declaring_bot} declares {g.declarer} {g.trump}: {g.points} points, "
        f"{'made' if g.made else 'set'}" for g in games)


def _refuse(message: str) -> int:
    print(f"t42: error: {message}", file=sys.stderr)
    return 2


@guarded
def run_arena_cmd(args: argparse.Namespace) -> int:
    # Every option is checked, and the records file opened, before any game is played.
    try:
        check_run(args.a, args.b, args.pairs, args.seed, args.hint_deals, args.workers, 0)
    except PositionError as exc:
        return _refuse(f"--{exc.field.replace('_', '-')}: {exc.reason}")
    out = None
    if args.records:
        try:
            out = open(args.records, "w", encoding="utf-8")
        except (OSError, ValueError) as exc:     # ValueError: a NUL in the path
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return _refuse(f"--records: cannot write {quoted(args.records)}: {reason}")

    def sink(records):
        if out:
            try:
                for r in records:
                    out.write(json.dumps(r.to_json()) + "\n")
                out.flush()
            except OSError as exc:       # a full disk: the run stops, the error is one line
                raise PositionError("--records", f"cannot write {quoted(args.records)}: "
                                    f"{exc.strerror or exc}", "WRITE_FAILED") from None

    try:
        progress = None if args.no_progress else stderr_progress(f"{args.a} vs {args.b}")
        records = run_arena(args.a, args.b, args.pairs, args.seed, hint_deals=args.hint_deals,
                            workers=args.workers, progress=progress, sink=sink)
    finally:
        if out:
            try:
                out.close()
            except OSError:
                pass              # its error is the one raised above
    stats = summarize(records, args.a, args.b)
    print(json.dumps(stats.to_json()) if args.json else format_stats(stats))
    return 0
