"""A readable text diagram of a position: hands, contract, trick in progress."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..game import tiles as T

if TYPE_CHECKING:
    from ..game.position import Position

SEAT_NAMES = ("N", "E", "S", "W")


def _hand(position: "Position", seat: int) -> str:
    if seat not in position.hands:
        return "-"
    if seat not in position.active_seats:
        return "(sits out) " + " ".join(T.name_of(t) for t in position.hands[seat])
    tiles = sorted(T.tiles_of(position.remaining[seat]), reverse=True)
    return " ".join(T.name_of(t) for t in tiles) or "(empty)"


def contract_line(position: "Position") -> str:
    """The diagram's first line: the game, the contract and its declarer for ``position``."""
    c = position.contract
    game = "Moon" if position.game == "moon" else "42"
    players = f", {len(position.active_seats)} players" if position.game == "moon" else ""
    kind = f" {c.kind}" if c.kind != "standard" else ""
    doubles = f", doubles {c.doubles}" if c.doubles != "high" else ""
    return f"{game}{players}: {SEAT_NAMES[c.declarer]} bids {c.bid}{kind}, " \
           f"{c.declaration.name}{doubles}"


def render(position: "Position") -> str:
    """The text diagram of ``position``: four hands around a table, then the contract,
    score and trick in progress (as `t42 solve` prints it)."""
    width = 26
    north, east, south, west = (_hand(position, s) for s in range(4))
    # Three-player Moon has no West: East sits alone on the right.
    left = f"W: {west}" if 3 in position.hands else ""
    lines = [
        contract_line(position),
        "",
        " " * width + "N: " + north,
        left.ljust(width * 2) + f"E: {east}",
        " " * width + "S: " + south,
        "",
    ]
    if position.widow is not None and position.discard is not None:
        lines.append(f"Widow {T.name_of(position.widow)}, discarded "
                     f"{T.name_of(position.discard)}")
    unit = "tricks" if position.max_value == 7 else "points"
    who = "declarer has" if sum(position.scorer) == 1 else "declaring side has"
    lines.append(f"Trick {len(position.completed_tricks) + (0 if position.is_complete else 1)}"
                 f" of 7; {who} {position.points} {unit}")
    if position.trick:
        lines.append("On the table: " + ", ".join(f"{SEAT_NAMES[s]} {T.name_of(t)}"
                                                  for s, t in position.trick))
    lines.append("Hand over" if position.to_move is None else f"{position.to_move} to play")
    return "\n".join(lines)
