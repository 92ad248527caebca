"""`t42 table`: the double-dummy table of a deal."""

from __future__ import annotations

import argparse
from typing import Callable

from ..game.position import SEATS
from ..game.quick import is_game_record
from ..search.table import MARK_DECLARATIONS, POINT_DECLARATIONS, DealTable, solve_deal
from .common import guarded, run_records
from .quick_options import add_position_options, position_records, subject_of


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("table", help="what every seat makes under every declaration",
                       description="Double-dummy table of a 42 deal: the declaring side's "
                                   "points for every declaration and declarer (declarer "
                                   "leading), whether each seat makes nello and sevens, and "
                                   "each seat's best declaration and highest bid made. The "
                                   "input is a deal, a position, a hand or game record (its "
                                   "id and meta kept; a game record: its last hand with a "
                                   "contract), a diagram, or the quick options, e.g. t42 table "
                                   "--hand N=63,62,60,54,53,52,22 --hand E=66,65,64,50,41,32,00 "
                                   "--hand S=61,44,42,31,30,21,10 --hand W=55,51,43,40,33,20,11")
    p.add_argument("file", nargs="?", help="deal JSON ({\"hands\": ...}; a position's contract "
                                           "is ignored), or JSON Lines (default: stdin)")
    p.add_argument("--json", action="store_true", help="one JSON object per deal")
    add_position_options(p)
    p.set_defaults(run=run_table)


def bid_text(bid: int | None) -> str:
    if bid is None:
        return "no bid"
    if bid >= 42:
        return f"bids {bid // 42} mark" + ("s" if bid > 42 else "")
    return f"bids {bid}"


def format_table(table: DealTable) -> str:
    """Hands, a declaration-by-seat grid and each seat's best declaration and bid."""
    lines = ["Deal" + (f" {table.id}" if table.id is not None else "")
             + (f", doubles {table.doubles} in follow-me and nello"
                if table.doubles != "high" else "")]
    lines += [f"  {seat}: {' '.join(tiles)}" for seat, tiles in table.hands.items()]
    lines += ["", "Declaring side's points, declarer leading",
              "  declaration  " + "".join(f"{seat:>7}" for seat in SEATS)]
    for trump in POINT_DECLARATIONS:
        lines.append(f"  {trump:11}  " + "".join(f"{table.points[trump][s]:7}" for s in SEATS))
    for trump in MARK_DECLARATIONS:
        lines.append(f"  {trump:11}  " + "".join(
            f"{'makes' if table.makes[trump][s] else 'set':>7}" for s in SEATS))
    lines += ["", "Best declaration and highest bid made"]
    for seat, best in table.best.items():
        points = f"{best.points} points" if best.points is not None else "makes"
        lines.append(f"  {seat}  {best.trump:10}  {points:>9}  {bid_text(best.bid)}")
    return "\n".join(lines)


def table_record(data, *, threads: int | None = None) -> tuple[dict, Callable[[], str]]:
    """One deal: (JSON answer, its text's renderer), for `t42 table` and `t42 batch table`.
    A record (a hand record with an id or meta, or whose plays are complete and hands left
    out; a game record: its last hand with a contract) stands for its deal as dealt."""
    if is_game_record(data) or (isinstance(data, dict) and "contract" in data and (
            "hands" not in data or "id" in data or "meta" in data)):
        subject = subject_of(data, "table")
        assert subject.position is not None
        data = {**subject.position, **subject.extras}
        data.pop("plays", None)
    table = solve_deal(data, threads=threads)
    return table.to_json(), lambda: format_table(table)


@guarded
def run_table(args: argparse.Namespace) -> int:
    return run_records(position_records(args, args.file, need_contract=False), args.json,
                       table_record)
