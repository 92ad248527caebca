"""`t42 game`: check a game record and print its score pad."""

from __future__ import annotations

import argparse
from typing import Callable

from ..game.auction import SEATS
from ..game.game_record import GameRecord, HandRecord
from .common import guarded, read_records, run_records


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("game", help="check a game record and print its score pad",
                       description="Check a game record (docs/formats.md, \"Game record\": the auction, "
                                   "contract and plays of every hand) and print the score pad: "
                                   "hand by hand the shaker, the auction, the contract, the "
                                   "result and the score after it; then the score, the winner "
                                   "and what is next.")
    p.add_argument("file", nargs="?", help="game record JSON, or JSON Lines of records "
                                           "(default: stdin)")
    p.add_argument("--json", action="store_true",
                   help="one JSON object per record: hands, score, winner, next")
    p.set_defaults(run=run_game)


def _contract_text(hand: HandRecord) -> str:
    c = hand.contract_json()
    if c is None:
        return "thrown in" if hand.thrown_in else "-"
    text = f"{c['declarer']} {c['trump']} {c['bid']}"
    if "kind" in c:
        text += f" {c['kind']}"
    if "doubles" in c:
        text += f" (doubles {c['doubles']})"
    if "discard" in c:
        text += f", discard {c['discard']}"
    return text


def _result_text(hand: HandRecord) -> str:
    if hand.made is None:
        return "thrown in" if hand.thrown_in else "playing"
    return "made" if hand.made else "set"


def format_pad(game: GameRecord) -> str:
    """The score pad as text."""
    rules = game.rules
    name = "42" if rules.game == "42" else f"Moon, {rules.players} players"
    unit = "marks" if rules.in_marks else "points"
    head = f"{name}, to {rules.target} {unit}; first shaker {SEATS[game.first_shaker]}"
    if rules.given:
        head += "; rules " + ", ".join(f"{k} {str(v).lower()}" for k, v in rules.given)
    keys = rules.score_keys
    rows = [("hand", "shaker", "auction", "contract", "result") + keys]
    for hand in game.hands:
        calls = ", ".join(f"{SEATS[c.seat]} {c.bid}" for c in hand.auction.calls) or "-"
        rows.append((str(hand.index + 1), SEATS[hand.shaker], calls, _contract_text(hand),
                     _result_text(hand)) + tuple(str(hand.score[k]) for k in keys))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [head, ""]
    for row in rows:
        cells = [cell.ljust(w) if i < 5 else cell.rjust(w)
                 for i, (cell, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    lines.append("")
    score = ", ".join(f"{k} {game.score[k]}" for k in keys)
    lines.append(f"Score: {score}. " + (f"{game.winner} wins." if game.winner
                                          else "No winner yet."))
    action = game.next_action()
    if action is not None:
        lines.append(f"Next: {action['seat']} to {action['action']}.")
    return "\n".join(lines)


def game_record(data) -> tuple[dict, Callable[[], str]]:
    """One game record: (JSON answer, its text's renderer)."""
    game = GameRecord(data)
    return game.summary_json(), lambda: format_pad(game)


@guarded
def run_game(args: argparse.Namespace) -> int:
    return run_records(read_records(args.file), args.json, game_record)
