"""BidAdvice messages <-> the bid advice API (`solver.hidden.bidding`).

A request becomes the keyword arguments of `solver.hidden.bidding.advise`, which
judges them; its `PositionError` field paths (``hand[3]``, ``auction[1].bid``,
``declarations[0]``) are already the request's, but for an auction call, which
is always a message here (``auction[1]`` -> ``auction[1].bid``).
"""

from __future__ import annotations

import re
from typing import Any

from solver.game.errors import PositionError
from solver.hidden.bidding import BidAdvice, BidChance, DeclarationAdvice
from solver.hidden.deals import check_deal_count
from solver.play.bots import defence_players
from texas42.v1 import bidding_pb2 as bid_pb
from texas42.v1 import hand_analysis_pb2 as hand_pb
from texas42.v1 import position_pb2 as pb

from .convert import (DECLARATIONS, DOUBLES, ENUM_OF_DECLARATION, ENUM_OF_DOUBLES, ENUM_OF_SEAT,
                      GAMES, SEAT_OF_ENUM, UNITS, inference_option, inference_to_proto)

KIND_NAMES = {pb.CONTRACT_KIND_PLUNGE: "plunge", pb.CONTRACT_KIND_SPLASH: "splash"}
ENUM_OF_KIND = {name: value for value, name in KIND_NAMES.items()}
ENUM_OF_GAME = {name: value for value, name in GAMES.items()}
_AUCTION_CALL = re.compile(r"^auction\[(\d+)\]$")


def _declaration_name(choice: bid_pb.BidDeclaration, index: int) -> str:
    if choice.kind in KIND_NAMES:
        return KIND_NAMES[choice.kind]
    if choice.kind not in (pb.CONTRACT_KIND_UNSPECIFIED, pb.CONTRACT_KIND_STANDARD):
        raise PositionError(f"declarations[{index}].kind", f"unknown kind value {choice.kind}",
                            "UNKNOWN_KIND")
    if choice.declaration not in DECLARATIONS:
        raise PositionError(f"declarations[{index}].declaration", "a declaration (or kind "
                            "plunge or splash) is required", "UNKNOWN_DECLARATION")
    return DECLARATIONS[choice.declaration]


def _call(call: hand_pb.AuctionCall, index: int) -> Any:
    """An auction call as `advise` takes it: its bid (or ``"pass"``), with its seat when
    the call names one (`advise` checks that the seat plays)."""
    bid = call.bid or "pass"
    if call.seat == pb.SEAT_UNSPECIFIED:
        return bid
    if call.seat not in SEAT_OF_ENUM:
        raise PositionError(f"auction[{index}].seat", f"unknown seat value {call.seat}",
                            "UNKNOWN_SEAT")
    return {"seat": SEAT_OF_ENUM[call.seat], "bid": bid}


def request_to_kwargs(request: bid_pb.BidAdviceRequest) -> dict[str, Any]:
    """The `advise` keyword arguments of a request (unset fields: the defaults)."""
    if request.seat not in SEAT_OF_ENUM:
        raise PositionError("seat", "required (north, east, south or west)", "MISSING_FIELD")
    kwargs: dict[str, Any] = {"hand": list(request.hand), "seat": SEAT_OF_ENUM[request.seat]}
    if request.game:
        if request.game not in GAMES:
            raise PositionError("game", f"unknown game value {request.game}", "UNKNOWN_GAME")
        kwargs["game"] = GAMES[request.game]
    if request.players:
        kwargs["players"] = request.players
    if request.auction:
        kwargs["auction"] = [_call(call, i) for i, call in enumerate(request.auction)]
    if request.doubles:
        if request.doubles not in DOUBLES:
            raise PositionError("doubles", f"unknown doubles value {request.doubles}",
                                "INVALID_OPTION")
        kwargs["doubles"] = DOUBLES[request.doubles]
    if request.deals:
        # Checked here too (as `advise` does): refused before the call waits for a worker.
        kwargs["deals"] = check_deal_count("deals", request.deals)
    if request.HasField("seed"):
        kwargs["seed"] = request.seed
    if request.HasField("threshold"):
        kwargs["threshold"] = request.threshold
    if request.declarations:
        kwargs["declarations"] = [_declaration_name(c, i) for i, c in
                                  enumerate(request.declarations)]
    kwargs["adaptive"] = request.adaptive
    kwargs["calibrated"] = request.calibrated
    kwargs["fixed_lead"] = request.fixed_lead
    inference = inference_option(request.inference)
    if inference is not None:
        kwargs["inference"] = inference
    if request.search:
        kwargs["search"] = request.search
    if request.HasField("inner_deals"):
        kwargs["inner_deals"] = request.inner_deals
    if request.HasField("screen"):
        kwargs["screen"] = request.screen
    if request.HasField("lead_deals"):
        kwargs["lead_deals"] = request.lead_deals
    if request.defence:
        kwargs["defence"] = request.defence
        kwargs["defenders"] = defence_players(request.defence)
    return kwargs


def bid_field_path(json_field: str) -> str:
    """The request field path of a `PositionError` raised by `advise` at its JSON path
    ``json_field``."""
    call = _AUCTION_CALL.match(json_field)
    return f"auction[{call.group(1)}].bid" if call else json_field


def _choice(name: str) -> bid_pb.BidDeclaration:
    if name in ENUM_OF_KIND:
        return bid_pb.BidDeclaration(kind=ENUM_OF_KIND[name])
    return bid_pb.BidDeclaration(declaration=ENUM_OF_DECLARATION[name],
                                 kind=pb.CONTRACT_KIND_STANDARD)


def _chance(chance: BidChance) -> bid_pb.BidChance:
    low, high = chance.interval
    message = bid_pb.BidChance(bid=chance.bid, made=chance.made, p_make=chance.p_make, low=low,
                               high=high, e_marks=chance.e_marks)
    calibrated = chance.p_calibrated
    if calibrated is not None:
        message.p_make_calibrated = calibrated
        message.e_marks_calibrated = chance.marks * (2 * calibrated - 1)
    return message


def _row(row: DeclarationAdvice) -> bid_pb.DeclarationAdvice:
    message = bid_pb.DeclarationAdvice(
        declaration=_choice(row.declaration),
        unit=UNITS[row.unit] if row.unit else hand_pb.VALUE_UNIT_UNSPECIFIED,
        distribution=list(row.distribution or ()), bids=[_chance(c) for c in row.bids])
    if row.mean is not None:
        message.mean = row.mean
    if row.made is not None:
        message.made = row.made
    return message


def advice_to_proto(advice: BidAdvice) -> bid_pb.BidAdvice:
    """The `BidAdvice` ``advice`` as its message (declarations best first, as in
    `to_json`)."""
    rec = advice.recommendation
    recommendation = bid_pb.Recommendation(is_pass=True) if rec.chance is None or \
        rec.declaration is None else bid_pb.Recommendation(
            declaration=_choice(rec.declaration), chance=_chance(rec.chance))
    message = bid_pb.BidAdvice(
        game=ENUM_OF_GAME[advice.game], players=advice.players, seat=ENUM_OF_SEAT[advice.seat],
        hand=advice.hand, doubles=ENUM_OF_DOUBLES[advice.doubles], threshold=advice.threshold,
        deals=advice.deals, seed=advice.seed, adaptive=advice.adaptive,
        recommendation=recommendation, declarations=[_row(r) for r in advice.declarations],
        seconds=advice.seconds, nodes=advice.nodes, fixed_lead=advice.fixed_lead,
        search=advice.search, inner_deals=advice.inner_deals, lead_deals=advice.lead_deals,
        defence=advice.defence or "",
        screened=[_choice(d) for d in advice.screened])
    if advice.highest_bid is not None:
        message.highest_bid = advice.highest_bid
    if advice.calibration is not None:
        source = advice.calibration.source
        message.calibrated = True
        message.calibration.CopyFrom(bid_pb.BidCalibration(
            hands=source.get("hands", 0), seed=source.get("seed", 0),
            measured=source.get("measured", ""), advice_deals=source.get("advice_deals", 0),
            hint_deals=source.get("hint_deals", 0), mode=source.get("mode", ""),
            fixed_lead=bool(source.get("fixed_lead", False)),
            predicted=[x for x, _ in advice.calibration.knots],
            observed=[y for _, y in advice.calibration.knots]))
    if advice.inference is not None:
        message.inference.CopyFrom(inference_to_proto(advice.inference))
    return message
