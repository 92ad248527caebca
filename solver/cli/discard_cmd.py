"""`t42 discard`: the value of each widow discard in three-player Moon."""

from __future__ import annotations

import argparse
from typing import Callable

from ..game.tiles import name_of
from ..search.discard import DiscardTable, best_discards
from .common import guarded, read_records, run_records


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("discard", help="three-player Moon: every discard's value, best first",
                       description="Score each of the Moon declarer's eight possible discards "
                                   "(seven tiles plus the widow) double dummy, best first, for "
                                   "one declaration or for every Moon declaration.")
    p.add_argument("file", nargs="?",
                   help="Moon deal JSON with \"widow\", or JSON Lines (default: stdin)")
    p.add_argument("--trump", metavar="NAME",
                   help="declaration to score (overrides contract.trump; default: every one)")
    p.add_argument("--json", action="store_true", help="one JSON object per deal")
    p.set_defaults(run=run_discard)


def format_table(table: DiscardTable) -> str:
    """The table as text: one row per discard for one declaration, else one per declaration."""
    first = table.rows[0].position
    lines = [f"Moon, 3 players: {table.declarer} declares"
             + (f", bids {table.bid}" if table.bid is not None else "")
             + f"; widow {table.widow}"]
    for seat, tiles in first.hands.items():
        held = " ".join(table.hand) if seat == first.contract.declarer else \
            " ".join(sorted((name_of(t) for t in tiles), reverse=True))
        lines.append(f"  {'NESW'[seat]}: {held}")
    lines.append("")
    makes = table.bid is not None
    if len(table.declarations) == 1:
        lines.append(f"{table.rows[0].trump}: tricks for {table.declarer} after each discard")
        lines.append("  discard  tricks" + ("  makes" if makes else ""))
        for row in table.rows:
            verdict = f"  {'yes' if row.makes else 'no':>5}" if makes else ""
            mark = "  best" if row.value == table.value else ""
            lines.append(f"  {row.discard:7}  {row.value:6}{verdict}{mark}")
    else:
        lines.append(f"Tricks for {table.declarer} by declaration and discard, best first")
        lines.append("  trump       best  discards (tricks)")
        for trump in table.declarations:
            rows = table.for_trump(trump)
            listed = ", ".join(f"{r.discard} {r.value}" for r in rows)
            lines.append(f"  {trump:10}  {rows[0].value:4}  {listed}")
    best: dict[str, list[str]] = {}
    for row in table.best:
        best.setdefault(row.trump, []).append(row.discard)
    choices = "; ".join(f"{trump}, discard {' or '.join(tiles)}" for trump, tiles in best.items())
    lines.append("")
    lines.append(f"Best: {table.value} tricks ({choices})")
    return "\n".join(lines)


def discard_record(data, *, trump: str | None = None) -> tuple[dict, Callable[[], str]]:
    """One Moon deal: (JSON answer, its text's renderer), for `t42 discard` and
    `t42 batch discard`."""
    table = best_discards(data, trump)
    return table.to_json(), lambda: format_table(table)


@guarded
def run_discard(args: argparse.Namespace) -> int:
    return run_records(read_records(args.file), args.json,
                       lambda data: discard_record(data, trump=args.trump))
