"""Translation between the gRPC messages and the solver's JSON (docs/formats.md) and results.

The service never validates a position itself: it turns the proto `Position`
into the position JSON dict and lets `solver.Position` judge it. The solver names
bad fields by their JSON paths (``hands.N[3]``, ``contract.trump``); this
module maps them to the proto paths a client sees (``position.hands.north[3]``,
``position.contract.declaration``). Hand records (AnalyzeHand) and deals
(SolveDeal) go the same way: JSON in for `solver.search.analysis` and `solver.search.table`,
their results back as messages, their field paths mapped to the request's.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Mapping

from solver import SEATS, MakeOrSetResult, Position, PositionError, SolveResult
from solver.game.rules import parse_declaration
from solver.search.analysis import HandAnalysis
from solver.search.table import MARK_DECLARATIONS, POINT_DECLARATIONS, DealTable, SeatBest
from texas42.v1 import deal_table_pb2 as table_pb
from texas42.v1 import hand_analysis_pb2 as hand_pb
from texas42.v1 import hint_service_pb2 as service_pb
from texas42.v1 import inference_pb2
from texas42.v1 import position_pb2 as pb
from texas42.v1 import view_pb2 as view_pb

if TYPE_CHECKING:  # the hidden layer is imported by the calls that use it
    from solver.hidden.inference import InferenceReport

#: JSON seat letter <-> proto Seat value and Hands field name.
SEAT_OF_ENUM: dict[Any, str] = {pb.SEAT_NORTH: "N", pb.SEAT_EAST: "E", pb.SEAT_SOUTH: "S",
                                pb.SEAT_WEST: "W"}
ENUM_OF_SEAT: dict[str, Any] = {letter: value for value, letter in SEAT_OF_ENUM.items()}
HAND_FIELD: dict[str, str] = {"N": "north", "E": "east", "S": "south", "W": "west"}

GAMES: dict[Any, str] = {pb.GAME_FORTY_TWO: "42", pb.GAME_MOON: "moon"}
DECLARATIONS: dict[Any, str] = {
    pb.DECLARATION_BLANKS: "blanks", pb.DECLARATION_ONES: "ones",
    pb.DECLARATION_DEUCES: "deuces", pb.DECLARATION_TREYS: "treys",
    pb.DECLARATION_FOURS: "fours", pb.DECLARATION_FIVES: "fives",
    pb.DECLARATION_SIXES: "sixes", pb.DECLARATION_DOUBLES: "doubles",
    pb.DECLARATION_FOLLOW_ME: "follow-me", pb.DECLARATION_NELLO: "nello",
    pb.DECLARATION_SEVENS: "sevens",
}
KINDS: dict[Any, str] = {pb.CONTRACT_KIND_STANDARD: "standard", pb.CONTRACT_KIND_PLUNGE: "plunge",
                         pb.CONTRACT_KIND_SPLASH: "splash"}
DOUBLES: dict[Any, str] = {pb.DOUBLES_OPTION_HIGH: "high", pb.DOUBLES_OPTION_LOW: "low",
                           pb.DOUBLES_OPTION_SUIT: "suit"}
ENUM_OF_DECLARATION: dict[str, Any] = {name: value for value, name in DECLARATIONS.items()}
ENUM_OF_DOUBLES: dict[str, Any] = {name: value for value, name in DOUBLES.items()}
UNITS: dict[str, Any] = {"points": hand_pb.VALUE_UNIT_POINTS, "tricks": hand_pb.VALUE_UNIT_TRICKS}

#: JSON field names that the proto spells differently.
_RENAMED = {"contract.trump": "contract.declaration"}
_HAND_PATH = re.compile(r"^hands\.([NESW])(.*)$")
_QUOTED_HAND = re.compile(r"\bhands\.([NESW])\b")
_PLAYER_PATH = re.compile(r"^meta\.players\.([NESW])$")


def _enum(table: Mapping[Any, str], value: int, field: str, what: str, code: str) -> str:
    """The JSON name of an enum value; values this server does not know are bad input."""
    try:
        return table[value]
    except KeyError:
        raise PositionError(field, f"unknown {what} value {value}", code) from None


def position_to_json(message: pb.Position) -> dict[str, Any]:
    """The position JSON dict of the proto `Position` ``message``; unset fields are left
    out.

    Raises `PositionError` (with a JSON field path) only for what JSON cannot
    express: an enum number outside the API.
    """
    data: dict[str, Any] = {}
    if message.game:
        data["game"] = _enum(GAMES, message.game, "game", "game", "UNKNOWN_GAME")
    if message.HasField("hands"):
        data["hands"] = _hands_to_json(message.hands)
    if message.HasField("contract"):
        data["contract"] = _contract_to_json(message.contract)
    data["plays"] = list(message.plays)
    if message.widow:
        data["widow"] = message.widow
    if message.discard:
        data["discard"] = message.discard
    return data


def _hands_to_json(hands: pb.Hands) -> dict[str, list[str]]:
    return {seat: list(getattr(hands, name)) for seat, name in HAND_FIELD.items()
            if getattr(hands, name)}


def _contract_to_json(c: pb.Contract) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if c.declarer:
        out["declarer"] = _enum(SEAT_OF_ENUM, c.declarer, "contract.declarer", "seat",
                                "UNKNOWN_SEAT")
    if c.declaration:
        out["trump"] = _enum(DECLARATIONS, c.declaration, "contract.trump", "declaration",
                             "UNKNOWN_DECLARATION")
    if c.bid:
        out["bid"] = c.bid
    if c.kind:
        out["kind"] = _enum(KINDS, c.kind, "contract.kind", "contract kind", "UNKNOWN_KIND")
    if c.doubles:
        out["doubles"] = _enum(DOUBLES, c.doubles, "contract.doubles", "doubles option",
                               "INVALID_OPTION")
    return out


def position_from_json(data: Mapping[str, Any]) -> pb.Position:
    """A proto `Position` from the position JSON dict ``data`` (a client-side
    convenience).

    Names are normalised as the solver reads them (``"4"``, ``"no-trump"``,
    ``"W"``); the server still validates everything. Tiles are sent as strings.
    """
    message = pb.Position(plays=[str(t) for t in data.get("plays") or []])
    game = str(data.get("game", "42")).lower()
    message.game = _value_of(GAMES, game, "game")
    _hands_from_json(data.get("hands") or {}, message.hands)
    contract = data.get("contract")
    if contract is not None:
        c = message.contract
        if contract.get("declarer") is not None:
            c.declarer = _value_of(SEAT_OF_ENUM, str(contract["declarer"]).upper(),
                                   "contract.declarer")
        if contract.get("trump") is not None:
            c.declaration = _value_of(DECLARATIONS, parse_declaration(contract["trump"]).name,
                                      "contract.trump")
        if contract.get("bid") is not None:
            c.bid = int(contract["bid"])
        if contract.get("kind") is not None:
            c.kind = _value_of(KINDS, str(contract["kind"]).lower(), "contract.kind")
        if contract.get("doubles") is not None:
            c.doubles = _value_of(DOUBLES, str(contract["doubles"]).lower(), "contract.doubles")
    for name in ("widow", "discard"):
        if data.get(name) is not None:
            setattr(message, name, str(data[name]))
    return message


def _hands_from_json(hands: Mapping[str, Any], message: pb.Hands) -> None:
    for seat, name in HAND_FIELD.items():
        getattr(message, name).extend(str(t) for t in hands.get(seat, []))


def _value_of(table: Mapping[Any, str], name: str, field: str) -> Any:
    for value, known in table.items():
        if known == name:
            return value
    raise PositionError(field, f"unknown value {name!r}", "INVALID_VALUE")


def proto_field_path(json_field: str, position_path: str = "position") -> str:
    """The request field path of a `PositionError` raised on a position at
    ``position_path``, for its JSON path ``json_field``.

    ``bid`` (the make-or-set bid of the request, not the contract's) stays at
    the request's top level.
    """
    if json_field == "bid":
        return "bid"
    if json_field == "position":
        return position_path
    json_field = _proto_hand_path(json_field)
    return f"{position_path}.{_RENAMED.get(json_field, json_field)}"


def _proto_hand_path(json_field: str) -> str:
    """``hands.N[3]`` as ``hands.north[3]``; other paths unchanged."""
    match = _HAND_PATH.match(json_field)
    return f"hands.{HAND_FIELD[match.group(1)]}{match.group(2)}" if match else json_field


def solution_to_proto(result: SolveResult, position: Position | None = None) -> pb.Solution:
    """A solver `SolveResult` ``result`` as a proto `Solution` (moves best first), with the
    takers of the ``position``'s completed tricks when it is given."""
    return pb.Solution(
        value=result.value,
        makes=result.makes,
        to_move=ENUM_OF_SEAT[result.to_move] if result.to_move else pb.SEAT_UNSPECIFIED,
        moves=[pb.MoveValue(tile=tile, value=value) for tile, value in result.moves.items()],
        line=result.line,
        nodes=result.nodes,
        trick_winners=[ENUM_OF_SEAT[SEATS[winner]]
                       for winner, _ in (position.completed_tricks if position else ())],
    )


def make_or_set_to_proto(result: MakeOrSetResult) -> service_pb.MakeOrSetResponse:
    """A solver `MakeOrSetResult` ``result`` as the RPC's response (value only when
    computed)."""
    response = service_pb.MakeOrSetResponse(makes=result.makes, bid=result.bid, nodes=result.nodes)
    if result.value is not None:
        response.value = result.value
    return response


def proto_reason(reason: str) -> str:
    """A solver reason with the JSON seat paths it quotes (``hands.N[3]``) in proto spelling."""
    return _QUOTED_HAND.sub(lambda m: f"hands.{HAND_FIELD[m.group(1)]}", reason)


def position_error_to_proto(error: PositionError, position_path: str) -> pb.PositionError:
    """A `PositionError` ``error`` as the proto message of a batch slot, its field path
    made the proto's for a position at ``position_path``."""
    return pb.PositionError(field=proto_field_path(error.field, position_path),
                            reason=proto_reason(error.reason), code=error.code)


# ------------------------------------------------------- AnalyzeHand, SolveDeal


def hand_record_to_json(request: service_pb.AnalyzeHandRequest) -> dict[str, Any]:
    """The hand record (`solver.search.analysis`) of an AnalyzeHand request: the position's
    fields, and ``id`` and ``meta`` when given.

    Raises `PositionError` (JSON field path) for an enum number outside the API.
    """
    record = position_to_json(request.position)
    if request.id:
        record["id"] = request.id
    if request.HasField("meta"):
        record["meta"] = _meta_to_json(request.meta)
    return record


def _meta_to_json(meta: hand_pb.HandMeta) -> dict[str, Any]:
    out: dict[str, Any] = {}
    players = {seat: getattr(meta.players, name) for seat, name in HAND_FIELD.items()
               if getattr(meta.players, name)}
    if players:
        out["players"] = players
    if meta.date:
        out["date"] = meta.date
    if meta.event:
        out["event"] = meta.event
    if meta.auction:
        out["auction"] = [_call_to_json(call, f"meta.auction[{i}]")
                          for i, call in enumerate(meta.auction)]
    return out


def _call_to_json(call: hand_pb.AuctionCall, field: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if call.seat:
        out["seat"] = _enum(SEAT_OF_ENUM, call.seat, f"{field}.seat", "seat", "UNKNOWN_SEAT")
    out["bid"] = call.bid or "pass"
    return out


def hand_record_from_json(record: Mapping[str, Any]) -> service_pb.AnalyzeHandRequest:
    """An AnalyzeHand request from a hand record dict (a client-side convenience).

    The position as `position_from_json` reads it; ``id`` as a string; of
    ``meta`` the keys the API carries (``players``, ``date``, ``event``,
    ``auction`` of ``{"seat": ..., "bid": 30 | "pass"}`` calls); other keys
    of ``meta`` are left out.
    """
    request = service_pb.AnalyzeHandRequest(position=position_from_json(record))
    if record.get("id") is not None:
        request.id = str(record["id"])
    meta = record.get("meta")
    if meta is not None:
        request.meta.SetInParent()
        for seat, player in (meta.get("players") or {}).items():
            name = HAND_FIELD.get(str(seat).upper())
            if name is None:
                raise PositionError(f"meta.players.{seat}", f"unknown seat {seat!r}",
                                    "UNKNOWN_SEAT")
            setattr(request.meta.players, name, str(player))
        for key in ("date", "event"):
            if meta.get(key) is not None:
                setattr(request.meta, key, str(meta[key]))
        for i, call in enumerate(meta.get("auction") or []):
            message = request.meta.auction.add()
            if call.get("seat") is not None:
                message.seat = _value_of(SEAT_OF_ENUM, str(call["seat"]).upper(),
                                         f"meta.auction[{i}].seat")
            bid = call.get("bid", "pass")
            if str(bid).lower() == "pass":
                continue
            try:
                message.bid = int(bid)
            except (TypeError, ValueError):
                raise PositionError(f"meta.auction[{i}].bid", f"not a bid: {bid!r} (a number "
                                    "or \"pass\")", "INVALID_VALUE") from None
    return request


def record_field_path(json_field: str) -> str:
    """The AnalyzeHand request field path of a `PositionError` raised on a hand record at
    its JSON path ``json_field``.

    The record's position fields live under ``position``, its metadata under
    ``meta`` (``meta.players.W`` -> ``meta.players.west``).
    """
    if json_field == "meta" or json_field.startswith("meta."):
        match = _PLAYER_PATH.match(json_field)
        return f"meta.players.{HAND_FIELD[match.group(1)]}" if match else json_field
    return proto_field_path(json_field)


def hand_analysis_to_proto(analysis: HandAnalysis) -> hand_pb.HandAnalysis:
    """A solver `HandAnalysis` ``analysis`` as its message (``made`` unset while
    undecided)."""
    message = hand_pb.HandAnalysis(
        id="" if analysis.id is None else str(analysis.id),
        unit=UNITS[analysis.unit],
        value=analysis.value,
        makes=analysis.makes,
        result=analysis.result,
        complete=analysis.complete,
        final_value=analysis.final_value,
        plays=[hand_pb.PlayAnalysis(
            index=p.index, trick=p.trick, seat=ENUM_OF_SEAT[p.seat], tile=p.tile,
            value_before=p.value_before, value_after=p.value_after, cost=p.cost,
            optimal=p.optimal, alternatives=p.alternatives) for p in analysis.plays],
        seats=[hand_pb.SeatSummary(seat=ENUM_OF_SEAT[seat], plays=s.plays,
                                   costly_plays=s.costly_plays, total_cost=s.total_cost)
               for seat, s in analysis.seats.items()],
        nodes=analysis.nodes,
    )
    if analysis.made is not None:
        message.made = analysis.made
    return message


def deal_to_json(request: service_pb.SolveDealRequest) -> dict[str, Any]:
    """The deal (`solver.search.table`) of a SolveDeal request: hands, and ``doubles`` and ``id``
    when given.

    Raises `PositionError` (JSON field path) for an enum number outside the API.
    """
    deal: dict[str, Any] = {}
    if request.HasField("hands"):
        deal["hands"] = _hands_to_json(request.hands)
    if request.doubles:
        deal["doubles"] = _enum(DOUBLES, request.doubles, "doubles", "doubles option",
                                "INVALID_OPTION")
    if request.id:
        deal["id"] = request.id
    return deal


def deal_from_json(deal: Mapping[str, Any]) -> service_pb.SolveDealRequest:
    """A SolveDeal request from a deal dict (``hands``, ``doubles``, ``id``; a position's
    contract and plays are ignored): a client-side convenience."""
    request = service_pb.SolveDealRequest()
    _hands_from_json(deal.get("hands") or {}, request.hands)
    if deal.get("doubles") is not None:
        request.doubles = _value_of(DOUBLES, str(deal["doubles"]).lower(), "doubles")
    if deal.get("id") is not None:
        request.id = str(deal["id"])
    return request


def deal_field_path(json_field: str) -> str:
    """The SolveDeal request field path of a `PositionError` raised on a deal at its JSON
    path ``json_field``
    (``hands.N[3]`` -> ``hands.north[3]``; the hands are at the request's top level)."""
    return _proto_hand_path(json_field)


def deal_table_to_proto(table: DealTable) -> table_pb.DealTable:
    """A solver `DealTable` ``table`` as its message (rows in the order of
    `DealTable.to_json`)."""
    return table_pb.DealTable(
        id="" if table.id is None else str(table.id),
        doubles=ENUM_OF_DOUBLES[table.doubles],
        points=[table_pb.DeclarationPoints(
            declaration=ENUM_OF_DECLARATION[trump],
            **{HAND_FIELD[seat]: points for seat, points in table.points[trump].items()})
            for trump in POINT_DECLARATIONS],
        makes=[table_pb.DeclarationMakes(
            declaration=ENUM_OF_DECLARATION[trump],
            **{HAND_FIELD[seat]: makes for seat, makes in table.makes[trump].items()})
            for trump in MARK_DECLARATIONS],
        best=[_seat_best_to_proto(seat, best) for seat, best in table.best.items()],
        nodes=table.nodes,
    )


def _seat_best_to_proto(seat: str, best: SeatBest) -> table_pb.SeatBest:
    message = table_pb.SeatBest(seat=ENUM_OF_SEAT[seat],
                                declaration=ENUM_OF_DECLARATION[best.trump])
    if best.points is not None:
        message.points = best.points
    if best.bid is not None:
        message.bid = best.bid
    return message


# ------------------------------------------------------------------ views


#: JSON place name (solver.hidden.deals) <-> proto Place value.
ENUM_OF_PLACE: dict[str, Any] = {"N": view_pb.PLACE_NORTH, "E": view_pb.PLACE_EAST,
                                 "S": view_pb.PLACE_SOUTH, "W": view_pb.PLACE_WEST,
                                 "discard": view_pb.PLACE_DISCARD}


def view_to_json(message: view_pb.View) -> dict[str, Any]:
    """The view JSON of the proto `View` ``message``; unset fields are left out.

    The position fields go through `position_to_json`; ``seat``, ``players``
    and ``auction`` are the view's own. Raises `PositionError` (JSON path)
    only for an enum number outside the API.
    """
    data = position_to_json(pb.Position(
        game=message.game, hands=message.hands if message.HasField("hands") else None,
        contract=message.contract if message.HasField("contract") else None,
        plays=message.plays, widow=message.widow, discard=message.discard))
    if message.seat:
        data["seat"] = _enum(SEAT_OF_ENUM, message.seat, "seat", "seat", "UNKNOWN_SEAT")
    if message.players:
        data["players"] = message.players
    if message.auction:
        data["auction"] = [_call_to_json(call, f"auction[{i}]")
                           for i, call in enumerate(message.auction)]
    return data


def view_from_json(data: Mapping[str, Any]) -> view_pb.View:
    """A proto `View` from the view JSON ``data`` (a client-side convenience; the
    server validates). Position fields as `position_from_json` reads them."""
    position = position_from_json(data)
    message = view_pb.View(game=position.game, hands=position.hands,
                           contract=position.contract if data.get("contract") is not None
                           else None,
                           plays=position.plays, widow=position.widow, discard=position.discard)
    if data.get("seat") is not None:
        message.seat = _value_of(SEAT_OF_ENUM, str(data["seat"]).upper(), "seat")
    if data.get("players") is not None:
        message.players = int(data["players"])
    for i, call in enumerate(data.get("auction") or []):
        entry = message.auction.add()
        if call.get("seat") is not None:
            entry.seat = _value_of(SEAT_OF_ENUM, str(call["seat"]).upper(), f"auction[{i}].seat")
        bid = call.get("bid", "pass")
        if str(bid).lower() != "pass":
            entry.bid = int(bid)
    return message


def view_field_path(json_field: str) -> str:
    """The request field path of a `PositionError` raised on the request's ``view`` at
    its JSON path ``json_field``."""
    return "view" if json_field == "view" else proto_field_path(json_field, "view")


def count_deals_to_proto(count: int, probabilities: Mapping[str, Mapping[str, float]],
                         to_move: str | None, side: str) -> view_pb.CountDealsResponse:
    """The CountDeals response: the ``count``, each tile's place ``probabilities`` in
    order, the seat ``to_move`` and whether the viewer's ``side`` is declaring."""
    return view_pb.CountDealsResponse(
        count=count,
        tiles=[view_pb.TileProbabilities(tile=tile, places=[
            view_pb.PlaceProbability(place=ENUM_OF_PLACE[place], probability=p)
            for place, p in places.items()]) for tile, places in probabilities.items()],
        to_move=ENUM_OF_SEAT[to_move] if to_move else pb.SEAT_UNSPECIFIED,
        declaring=side == "declaring")


# ------------------------------------------------------------------- inference


def inference_option(value: str) -> str | None:
    """The ``inference`` option ``value`` of a request: None when empty (off), else the
    name as given. A name that is no mode at all is refused here, by the API's own reader (a
    `PositionError` naming ``inference``), before the call waits for a worker; the API
    judges the rest (``auction`` in Moon, ``plays`` for bid advice)."""
    if not value:
        return None
    from solver.hidden.inference import MODES, read_inference
    if value.lower() not in MODES:
        read_inference(value)   # raises: unknown inference
    return value


def inference_to_proto(report: InferenceReport) -> inference_pb2.Inference:
    """An answer's `solver.hidden.inference.InferenceReport` ``report`` as its message (the figures
    of its ``to_json()``, so that every face gives the same)."""
    data = report.to_json()
    return inference_pb2.Inference(
        mode=data["mode"], calls_model=(data.get("calls") or {}).get("name", ""),
        plays_model=(data.get("plays") or {}).get("name", ""), drawn=data["drawn"],
        kept=data["kept"], effective_deals=data["effective_deals"],
        fallback=data["fallback"] or "", notes=data.get("notes", []))
