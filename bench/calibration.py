"""Bid advice calibration: predicted P(make) against hands played out by bots.

    python bench/calibration.py run --hands 300 --seed 1 --out bench/results/calibration.jsonl
    python bench/calibration.py report --out bench/results/calibration.jsonl

Measured in games (the shipped table): play games with advice bots on all four seats,
then pair each hand's winning call with its result:

    t42 arena advice advice --games 100 --seed 7 --records bench/results/advice_games.jsonl
    python bench/calibration.py games --records bench/results/advice_games.jsonl \
        --out bench/results/game_calibration.jsonl
    python bench/calibration.py report --games --out bench/results/game_calibration.jsonl \
        --package-table solver/hidden/data/bid_calibration.json

Deal luck: how the actual deals of each bin of the predictions made double dummy,
against what the double-dummy advice expected of the same contracts (a bin whose
deals were dealt unusually well or badly misses its interval by the deals, not by
the prediction):

    python bench/calibration.py luck --records bench/records/seat_view_advice_s91.jsonl \
        --out bench/records/calibration_playout_lead20_heldout_s91.jsonl \
        --double-dummy bench/records/calibration_dd_s91.jsonl

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
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from solver import GameRecord, Position, make_or_set  # noqa: E402
from solver.hidden.calibration import (calibration_map_of, calibration_scores,  # noqa: E402
                                      calibration_table)
from solver.hidden.seat_view_bidding import DEFAULT_LEAD_DEALS  # noqa: E402
from solver.play.arena import stderr_progress  # noqa: E402
from solver.play.calibration_run import (MODES, CalibrationRecord,  # noqa: E402
                                         GameCalibrationRecord, calibration_markdown,
                                         pairs_of, pairs_over_bids, run_calibration,
                                         run_game_calibration)


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


def games(args: argparse.Namespace) -> None:
    with open(args.records, encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    if args.games_limit:
        records = records[:args.games_limit]
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    if args.resume and os.path.exists(args.out):
        # Pairs are written a game at a time: a game with any pair in the file is done
        # (a game cut off mid-way lost at most its last line; it is measured again).
        done = {r.game for r in load(args.out, True)}
        records = [r for r in records if r.get("id") not in done]
        print(f"calibration: {len(done)} games already in {args.out}, "
              f"{len(records)} to go", file=sys.stderr)
    with open(args.out, "a" if args.resume else "w", encoding="utf-8") as f:
        def sink(record: GameCalibrationRecord) -> None:
            f.write(json.dumps(record.to_json()) + "\n")
            f.flush()
        run_game_calibration(records, advice_deals=args.advice_deals, seed=args.seed,
                             workers=args.workers, sink=sink, inference=args.inference,
                             fixed_lead=args.fixed_lead, search=args.search,
                             inner_deals=args.inner_deals, lead_deals=args.lead_deals,
                             progress=stderr_progress("calibration", "games"))


def load(path: str, in_games: bool = False) -> list:
    kind = GameCalibrationRecord if in_games else CalibrationRecord
    with open(path, encoding="utf-8") as f:
        return [kind.from_json(json.loads(line)) for line in f if line.strip()]


def package_table(records: list, table: list, args: argparse.Namespace) -> dict:
    """The shipped table (solver/hidden/data/bid_calibration.json, or with fixed-lead
    pairs bid_calibration_fixed_lead.json) with its provenance."""
    first = records[0]
    fixed = getattr(first, "fixed_lead", False)
    kind = "P(make) with one opening lead for every deal" if fixed else "double-dummy P(make)"
    out = {
        "what": f"{kind} of bid advice at the auction's winning bid, against "
                "the contract's result in games of the game arena with advice bots on all "
                "four seats (42, default rules)",
        "measured": time.strftime("%Y-%m-%d"),
        "command": args.provenance,
        "hands": len(records),
        "games": len({r.game for r in records}),
        "seed": args.seed,
        "mode": "games",
        "advice_deals": first.advice_deals,
        "hint_deals": args.hint_deals,
        "declarations": "the one each declarer named",
        "report": "bench/README.md, Bid advice calibration",
        "bins": [{"bin": [b.low, b.high], "count": b.count, "made": b.made,
                  "predicted": None if b.predicted is None else round(b.predicted, 4)}
                 for b in table],
    }
    if fixed:
        out["fixed_lead"] = True
    return out


def report(args: argparse.Namespace) -> None:
    records = load(args.out, args.games)
    made = sum(r.made for r in records)
    mean = sum(r.predicted for r in records) / len(records) if records else 0.0
    print(f"{len(records)} hands; mean predicted P(make) {mean:.3f}, "
          f"observed make rate {made / max(1, len(records)):.3f}")
    print()
    table = calibration_table(pairs_of(records))
    print(calibration_markdown(table))
    if args.games:
        for defence in sorted({r.defended_by for r in records if r.defended_by}):
            these = [r for r in records if r.defended_by == defence]
            sc = calibration_scores(pairs_of(these))
            print()
            print(f"Defended by {defence}: {sc.pairs} hands, mean predicted "
                  f"{sc.mean_predicted:.3f}, made {sc.made_rate:.3f}; Brier {sc.brier:.4f} "
                  f"({sc.brier_interval[0]:.4f}-{sc.brier_interval[1]:.4f}), ECE "
                  f"{sc.ece:.4f} ({sc.ece_interval[0]:.4f}-{sc.ece_interval[1]:.4f}); bins of "
                  f">= 30 hands outside their 95% interval: "
                  f"{', '.join(f'{lo:.1f}-{hi:.1f}' for lo, hi in sc.bins_outside) or 'none'} "
                  f"(if every contract made with exactly its predicted chance: "
                  f"{sc.outside_if_calibrated:.2f} bins outside on average, none in "
                  f"{sc.all_inside_if_calibrated:.0%} of draws, at least "
                  f"{len(sc.bins_outside)} in {sc.p_outside:.0%})")
            print()
            print(calibration_markdown(calibration_table(pairs_of(these))))
    if args.package_table:
        with open(args.package_table, "w", encoding="utf-8") as f:
            f.write(json.dumps(package_table(records, table, args), indent=2) + "\n")
    if args.check_map:
        # A map fitted on other hands, checked on these: each prediction through the
        # map against what happened.
        with open(args.check_map, encoding="utf-8") as f:
            cal = calibration_map_of(json.load(f))
        mapped = [(cal(p), made) for p, made in pairs_of(records)]
        print()
        print(f"Through the map of {args.check_map} ({cal.source.get('hands')} hands, seed "
              f"{cal.source.get('seed')}): mean {sum(p for p, _ in mapped) / len(mapped):.3f}")
        print()
        print(calibration_markdown(calibration_table(mapped)))
        for defence in sorted({r.defended_by for r in records if r.defended_by}):
            sc = calibration_scores([(cal(p), made) for p, made in pairs_of(
                [r for r in records if r.defended_by == defence])])
            print()
            print(f"Mapped, defended by {defence}: {sc.pairs} hands, mean {sc.mean_predicted:.3f}"
                  f", made {sc.made_rate:.3f}; Brier {sc.brier:.4f} ({sc.brier_interval[0]:.4f}-"
                  f"{sc.brier_interval[1]:.4f}), ECE {sc.ece:.4f} ({sc.ece_interval[0]:.4f}-"
                  f"{sc.ece_interval[1]:.4f}); bins outside: "
                  f"{', '.join(f'{lo:.1f}-{hi:.1f}' for lo, hi in sc.bins_outside) or 'none'}")
    if args.all_bids and not args.games:
        print()
        print("Every bid 30..42 of the played declaration (points >= bid; see pairs_over_bids):")
        print()
        print(calibration_markdown(calibration_table(pairs_over_bids(records))))


def makes_double_dummy(record: GameRecord, index: int) -> bool:
    """Whether hand ``index``'s contract makes double dummy from the deal as dealt."""
    start = record.hands[index].position.to_json()
    start.pop("plays", None)
    return bool(make_or_set(Position(start)).makes)


def luck(args: argparse.Namespace) -> None:
    with open(args.records, encoding="utf-8") as f:
        games = {g["id"]: GameRecord(g) for g in map(json.loads, f) if g.get("hands")}
    pairs = load(args.out, True)
    dd = {(r.game, r.hand): r.predicted for path in args.double_dummy
          for r in load(path, True)}
    missing = sum(1 for r in pairs if (r.game, r.hand) not in dd)
    if missing:
        sys.exit(f"calibration: {missing} hands of {args.out} are not in "
                 f"{', '.join(args.double_dummy)}")
    print("| defence | bin | hands | predicted | made | double dummy: expected | "
          "dealt | z |")
    print("|---|---|---|---|---|---|---|---|")
    for defence in sorted({r.defended_by or "" for r in pairs}):
        rows: dict[int, list] = {}
        for r in pairs:
            if (r.defended_by or "") == defence:
                rows.setdefault(min(int(r.predicted * 10), 9), []).append(r)
        for k in sorted(rows):
            these = rows[k]
            n = len(these)
            expected = sum(dd[r.game, r.hand] for r in these) / n
            dealt = sum(makes_double_dummy(games[r.game], r.hand) for r in these) / n
            z = (dealt - expected) / max(1e-9, (expected * (1 - expected) / n) ** 0.5)
            print(f"| {defence or '-'} | {k / 10:.1f}-{(k + 1) / 10:.1f} | {n} | "
                  f"{sum(r.predicted for r in these) / n:.3f} | "
                  f"{sum(r.made for r in these) / n:.3f} | {expected:.3f} | {dealt:.3f} | "
                  f"{z:+.1f} |")


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
    g = sub.add_parser("games", help="calibration pairs of the hands of game records")
    g.add_argument("--records", required=True, help="game records (t42 arena --games)")
    g.add_argument("--advice-deals", type=int, default=100)
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    g.add_argument("--out", default="bench/results/game_calibration.jsonl")
    g.add_argument("--inference", choices=("off", "auction"), default="off",
                   help="bid advice weighs its deals by the calls before the winning one")
    g.add_argument("--fixed-lead", action="store_true",
                   help="bid advice holds the declarer to one opening lead for every deal")
    g.add_argument("--search", choices=("double-dummy", "playout"), default="double-dummy",
                   help="playout: seat-view bid advice (hands played out by seat-view "
                        "players)")
    g.add_argument("--inner-deals", type=int, default=3,
                   help="a playout's deals per decision")
    g.add_argument("--lead-deals", type=int, default=DEFAULT_LEAD_DEALS,
                   help="the deals a playout's declarer decides its opening lead over, "
                        "once for every deal (0: each deal's declarer decides its own)")
    g.add_argument("--games-limit", type=int, default=0,
                   help="only the first N records of the file")
    g.add_argument("--resume", action="store_true",
                   help="append to --out, skipping the games already in it")
    g.set_defaults(fn=games)
    p = sub.add_parser("report")
    p.add_argument("--out", default="bench/results/calibration.jsonl")
    p.add_argument("--games", action="store_true", help="the file holds pairs from games")
    p.add_argument("--package-table", metavar="FILE",
                   help="write the table with its provenance as the package ships it")
    p.add_argument("--provenance", default="", help="the commands that measured it")
    p.add_argument("--seed", type=int, default=0, help="the arena's seed (provenance)")
    p.add_argument("--hint-deals", type=int, default=100, help="(provenance)")
    p.add_argument("--check-map", metavar="FILE",
                   help="also the table of the predictions mapped through a shipped table "
                        "measured on other hands")
    p.add_argument("--all-bids", action="store_true",
                   help="also the table over every bid 30..42 (asks the advice again)")
    p.set_defaults(fn=report)
    u = sub.add_parser("luck", help="how the actual deals of each bin made double dummy")
    u.add_argument("--records", required=True, help="the game records the pairs came from")
    u.add_argument("--out", required=True, help="the calibration pairs (games)")
    u.add_argument("--double-dummy", required=True, nargs="+", metavar="FILE",
                   help="double-dummy calibration pairs of the same hands (one file or more)")
    u.set_defaults(fn=luck)
    args = parser.parse_args()
    try:
        args.fn(args)
    except OSError as e:   # a file named that cannot be read or written
        sys.exit(f"calibration: {e.strerror}: {e.filename}")


if __name__ == "__main__":
    main()
