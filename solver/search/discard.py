"""Best discard in three-player Moon: what each of the declarer's eight discards is worth.

The declarer of three-player Moon picks up the widow and lays one of the
eight tiles away before leading. `best_discards` scores every choice double
dummy (the other two hands known, the declarer on lead) for one declaration
or for every Moon declaration, so the declarer sees which trump and which
discard go together.

Input is a Moon position (docs/formats.md) whose declarer's hand is the seven tiles
held *before* taking the widow::

    {"game": "moon",
     "hands": {"N": [7 tiles], "E": [7 tiles], "S": [7 tiles]},
     "widow": "5-5",
     "contract": {"declarer": "N", "trump": "sixes", "bid": 5}}

``contract.trump`` and ``contract.bid`` are optional: without a trump (and
without the ``declaration`` argument) every declaration is scored; without a
bid the rows carry no ``makes``. Each candidate is checked as the ordinary
Moon position it stands for (``"widow"`` and ``"discard"`` set), so bad
input raises the same `PositionError` as `solver.Position`, plus the
discard table's own errors (four hands, a ``discard`` or ``plays`` given,
a widow that is also in a hand).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Union

from ..game import tiles as T
from ..game.errors import PositionError
from ..game.jsondoc import check_keys, json_object
from ..game.position import MOON3_SET, POSITION_FIELDS, SEATS, Position
from ..game.rules import PIP_NAMES, parse_declaration
from ._core import CancelToken
from .solve import DealSolver

#: Every Moon declaration, in the order ties are listed.
MOON_DECLARATIONS: tuple[str, ...] = PIP_NAMES + ("doubles", "follow-me")

#: Small transposition table: a three-player Moon search visits thousands of
#: nodes, not millions, and a smaller table is cheaper to allocate.
TT_BITS = 16

#: Bid used only to validate candidates when the input names none.
_PLACEHOLDER_BID = 4

DealLike = Union[Mapping[str, Any], str]


@dataclass(frozen=True)
class DiscardRow:
    """One discard under one declaration and its exact double-dummy value.

    Attributes:
        trump: The declaration.
        discard: The tile laid away.
        value: The tricks the declarer takes (0..7) after laying it away.
        makes: Whether that makes the bid; None when the input named no bid.
        position: The Moon position the row scores, ready for `solve`.
    """

    trump: str
    discard: str
    value: int
    makes: bool | None
    position: Position = field(repr=False, compare=False)

    def to_json(self) -> dict:
        """``{"trump", "discard", "value"}``, and ``makes`` when a bid was named."""
        out: dict[str, Any] = {"trump": self.trump, "discard": self.discard, "value": self.value}
        if self.makes is not None:
            out["makes"] = self.makes
        return out


@dataclass
class DiscardTable:
    """Every discard's value, as `best_discards` returns it.

    Attributes:
        declarer: The declarer's seat.
        widow: The widow the declarer picked up.
        hand: The declarer's seven tiles before taking the widow.
        bid: The contract's bid, or None when the input named none.
        rows: Every (declaration, discard) scored (`DiscardRow`), best first,
            then in declaration order, then higher tile first.
        nodes: Nodes searched in all.

    >>> from solver import best_discards
    >>> table = best_discards(open("examples/moon-discard.json").read())
    >>> table.value, table.best[0].trump, table.best[0].discard
    (5, 'fours', '3-2')
    """

    declarer: str
    widow: str
    hand: list[str]
    bid: int | None
    rows: list[DiscardRow]
    nodes: int = 0

    @property
    def value(self) -> int:
        """The best value over every row: the declarer's best trump and discard."""
        return self.rows[0].value

    @property
    def best(self) -> list[DiscardRow]:
        """Every row worth the best value."""
        return [r for r in self.rows if r.value == self.value]

    @property
    def declarations(self) -> list[str]:
        """Declarations in the table, best first (by their best discard)."""
        return list(dict.fromkeys(r.trump for r in self.rows))

    def for_trump(self, trump: str) -> list[DiscardRow]:
        """The eight rows of one declaration (any alias), best first."""
        name = parse_declaration(trump, "trump").name
        return [r for r in self.rows if r.trump == name]

    def to_json(self) -> dict:
        """The table JSON, as `t42 discard --json` writes it."""
        out: dict[str, Any] = {"declarer": self.declarer, "widow": self.widow,
                               "hand": list(self.hand)}
        if self.bid is not None:
            out["bid"] = self.bid
        out["value"] = self.value
        out["discards"] = [r.to_json() for r in self.rows]
        return out


def best_discards(deal: DealLike, declaration: str | int | None = None, *,
                  token: CancelToken | None = None) -> DiscardTable:
    """Exact value of each of the declarer's eight discards in three-player Moon.

    Values are the tricks the declarer takes with the declarer on lead, the
    other two hands playing together against the declarer.

    Args:
        deal: A three-player Moon position before the discard (a dict or JSON
            text): the three hands, the declarer's seven tiles *before* taking
            the ``widow``, and a contract whose ``trump`` and ``bid`` are
            optional (docs/formats.md; docs/rules/moon.md for the discard).
        declaration: Any name or alias of a pip suit, ``doubles`` or
            ``follow-me``; overrides ``contract.trump``. When neither is given,
            all nine Moon declarations are scored (72 rows).
        token: Stops the searches (`CancelToken`); each declaration has its
            own engine, so a node budget applies to each in turn.

    Returns:
        The `DiscardTable`.

    Raises:
        PositionError: Bad input: as for `Position`, or four hands, a
            ``discard`` or ``plays`` given, a widow that is also in a hand.
        SearchCancelled: ``token`` stopped a search.

    >>> from solver import best_discards
    >>> rows = best_discards(open("examples/moon-discard.json").read(), "sixes").rows
    >>> rows[0].discard, rows[0].value, rows[0].makes
    ('3-2', 4, False)
    """
    data = json_object(deal, "position", "a deal")
    hands, contract, widow = _check_shape(data)
    trump_field = "contract.trump"
    if declaration is not None:
        trump_field = "trump"
        contract["trump"] = declaration
    names = [_moon_declaration(contract["trump"], trump_field)] if "trump" in contract \
        else list(MOON_DECLARATIONS)
    bid = contract.get("bid")
    if bid is None:
        contract["bid"] = _PLACEHOLDER_BID

    # Validate hands, declarer and bid once, on the deal without its widow.
    base = Position({"game": "moon", "hands": hands, "contract": {**contract, "trump": names[0]}})
    declarer = base.contract.declarer
    widow_tile = _check_widow(base, widow)
    eight = sorted(base.hands[declarer] + (widow_tile,), reverse=True)

    rows: list[DiscardRow] = []
    nodes = 0
    for name in names:
        found, used = _score_declaration(hands, contract, name, declarer, eight, widow_tile,
                                         bid is not None, token)
        rows.extend(found)
        nodes += used
    order = {name: i for i, name in enumerate(MOON_DECLARATIONS)}
    rows.sort(key=lambda r: (-r.value, order[r.trump], -T.NAMES.index(r.discard)))
    return DiscardTable(declarer=SEATS[declarer], widow=T.name_of(widow_tile),
                        hand=[T.name_of(t) for t in base.hands[declarer]],
                        bid=None if bid is None else base.contract.bid, rows=rows, nodes=nodes)


def _score_declaration(hands: Mapping[str, Any], contract: dict, name: str, declarer: int,
                       eight: list[int], widow: int, with_bid: bool,
                       token: CancelToken | None) -> tuple[list[DiscardRow], int]:
    """The eight rows of one declaration, searched with one shared engine."""
    seat = SEATS[declarer]
    rows = []
    solver: DealSolver | None = None
    guess = -1
    for discard in eight:
        kept = [T.name_of(t) for t in eight if t != discard]
        position = Position({"game": "moon", "hands": {**hands, seat: kept},
                             "widow": T.name_of(widow), "discard": T.name_of(discard),
                             "contract": {**contract, "trump": name}})
        # One engine (one transposition table) serves all eight discards: a
        # table key is the set of tiles still held plus the leader, and every
        # tile has the same owner in all eight deals (the declarer's eight
        # tiles are always the declarer's), so a key means the same state in
        # each of them. Later discards reuse what earlier ones proved.
        if solver is None:
            solver = DealSolver(position, token, tt_bits=TT_BITS)
        else:
            solver.load(position)
        # The previous discard's value is a close first guess for the search.
        value = solver.value(guess)
        guess = value
        makes = position.makes(value) if with_bid else None
        rows.append(DiscardRow(name, T.name_of(discard), value, makes, position))
    assert solver is not None
    return rows, solver.nodes


def _check_shape(data: Mapping[str, Any]) -> tuple[Mapping[str, Any], dict, object]:
    """The discard table's own requirements; Position checks the rest."""
    check_keys(data, POSITION_FIELDS, "", "a Moon deal")
    game = data.get("game")
    if not (isinstance(game, str) and game.lower() == "moon"):
        raise PositionError("game", "the best discard is for three-player Moon: "
                            "set \"game\": \"moon\"", "UNSUPPORTED_GAME")
    hands = data.get("hands")
    if isinstance(hands, Mapping) and "W" in hands:
        raise PositionError("hands.W", "the best discard is for three-player Moon (hands N, E "
                            "and S and a widow); a four-player deal has no widow",
                            "NOT_THREE_PLAYER")
    if data.get("plays"):
        raise PositionError("plays", "the discard table is scored from the opening lead; "
                            "leave plays out", "UNEXPECTED_FIELD")
    if "discard" in data:
        raise PositionError("discard", "leave the discard out: the table scores every discard",
                            "UNEXPECTED_FIELD")
    if "widow" not in data:
        raise PositionError("widow", "required: the tile left over after the deal",
                            "MISSING_FIELD")
    contract = data.get("contract")
    if contract is None:
        raise PositionError("contract", "required (at least the declarer)", "MISSING_FIELD")
    if not isinstance(contract, Mapping):
        raise PositionError("contract", "must be an object", "INVALID_TYPE")
    contract = dict(contract)
    if contract.get("trump") is None:
        contract.pop("trump", None)
    return hands, contract, data["widow"]  # type: ignore[return-value]


def _moon_declaration(value: object, field_name: str) -> str:
    name = parse_declaration(value, field_name).name
    if name not in MOON_DECLARATIONS:
        raise PositionError(field_name, f"{name} is not a Moon declaration (a pip suit, "
                            "doubles or follow-me)", "UNKNOWN_DECLARATION")
    return name


def _check_widow(base: Position, raw: object) -> int:
    """Parse the widow: a tile of the 22-tile set that no hand holds."""
    widow = T.parse_tile(raw, "widow")
    if widow not in MOON3_SET:
        raise PositionError("widow", f"{T.name_of(widow)} is not in the 22-tile set of "
                            "three-player Moon (of the blanks only 0-0 stays)", "NOT_IN_TILE_SET")
    for seat, tiles in base.hands.items():
        if widow in tiles:
            raise PositionError("widow", f"{T.name_of(widow)} is also in "
                                f"hands.{SEATS[seat]}[{tiles.index(widow)}]", "DUPLICATE_TILE")
    return widow


__all__ = ["DiscardRow", "DiscardTable", "MOON_DECLARATIONS", "best_discards"]
