"""The Hint RPC's messages <-> the Python API's `hint` options and `Hint` result."""

from __future__ import annotations

from typing import Any

from solver.game.errors import PositionError
from solver.hidden.hint import DEFAULT_DEALS, DEFAULT_ENUMERATION_LIMIT, Hint, check_options
from solver.hidden.seat_view import DEFAULT_DEPTH, DEFAULT_INNER_DEALS, SeatViewHint
from texas42.v1 import hint_pb2

from . import convert

OBJECTIVES = {hint_pb2.HINT_OBJECTIVE_UNSPECIFIED: "make", hint_pb2.HINT_OBJECTIVE_MAKE: "make",
              hint_pb2.HINT_OBJECTIVE_POINTS: "points"}
ENUM_OF_OBJECTIVE = {"make": hint_pb2.HINT_OBJECTIVE_MAKE, "points": hint_pb2.HINT_OBJECTIVE_POINTS}
ENUM_OF_METHOD = {"enumerated": hint_pb2.HINT_METHOD_ENUMERATED,
                  "sampled": hint_pb2.HINT_METHOD_SAMPLED}
#: option fields of the Python API that are fields of the request under the same name
OPTION_FIELDS = ("deals", "enumerate_limit", "objective", "seed", "max_deals", "examples",
                 "inference", "search", "depth", "inner_deals", "adaptive")
#: The searches a request may name (empty: double dummy).
SEARCHES = ("", "double-dummy", "postponed", "playout")


def hint_options(request: hint_pb2.HintRequest) -> dict[str, Any]:
    """Keyword arguments of `solver.hidden.hint.hint` (the view aside) from the request.

    The counts are checked here (`solver.hidden.hint.check_options`: ``deals=2**32-1``
    is a `PositionError` naming ``deals``), so that the service refuses them
    before the call waits for a worker.
    """
    options = {
        "deals": request.deals or DEFAULT_DEALS,
        "enumerate_limit": request.enumerate_limit if request.HasField("enumerate_limit")
        else DEFAULT_ENUMERATION_LIMIT,
        "objective": convert._enum(OBJECTIVES, request.objective, "objective", "objective",
                                   "INVALID_OPTION"),
        "seed": request.seed if request.HasField("seed") else None,
        "adaptive": request.adaptive,
        "max_deals": request.max_deals or None,
        "examples": request.examples,
        "inference": convert.inference_option(request.inference),
    }
    check_options(deals=options["deals"], enumerate_limit=options["enumerate_limit"],
                  max_deals=options["max_deals"], examples=options["examples"])
    if request.search not in SEARCHES:
        raise PositionError("search", f"unknown search {request.search[:20]!r} (double-dummy, "
                            "postponed or playout)", "INVALID_OPTION")
    if request.search in ("postponed", "playout"):
        for name in ("adaptive", "examples", "max_deals"):
            if getattr(request, name):
                raise PositionError(name, "only with the double-dummy search",
                                    "INVALID_OPTION")
        if options["inference"] not in (None, "off"):
            raise PositionError("inference", "only with the double-dummy search",
                                "INVALID_OPTION")
        return {"method": request.search, "deals": options["deals"],
                "enumerate_limit": options["enumerate_limit"],
                "objective": options["objective"], "seed": options["seed"],
                "depth": request.depth if request.HasField("depth") else DEFAULT_DEPTH,
                "inner_deals": request.inner_deals if request.HasField("inner_deals")
                else DEFAULT_INNER_DEALS}
    return options


def seat_view_to_proto(h: SeatViewHint) -> hint_pb2.HintResponse:
    """The `HintResponse` message of a seat-view hint ``h`` (its ``search`` named)."""
    out = hint_pb2.HintResponse(
        to_move=convert.ENUM_OF_SEAT[h.seat], declaring=h.declaring, count=h.count,
        method=ENUM_OF_METHOD["enumerated" if h.enumerated else "sampled"], deals=h.deals,
        objective=ENUM_OF_OBJECTIVE[h.objective], best=h.best, unit=convert.UNITS[h.unit],
        search=h.method, depth=h.depth, inner_deals=h.inner_deals)
    _add_moves(out, h)
    return out


def hint_field_path(json_field: str) -> str:
    """The request field of a `PositionError` at the JSON path ``json_field``: an option
    by name, else a field of ``view``."""
    return json_field if json_field in OPTION_FIELDS else convert.view_field_path(json_field)


def _interval(pair: tuple[float, float] | None) -> hint_pb2.Interval | None:
    return None if pair is None else hint_pb2.Interval(low=pair[0], high=pair[1])


def _add_moves(out: hint_pb2.HintResponse, h: Hint | SeatViewHint) -> None:
    """The seed and every move's figures of a hint (either search) into ``out``."""
    if h.seed is not None:
        out.seed = h.seed
    for tile, m in h.moves.items():
        out.moves.append(hint_pb2.MoveHint(
            tile=tile, mean=m.mean, p_make=m.p_make, p_best=m.p_best,
            mean_interval=_interval(m.mean_ci), p_make_interval=_interval(m.p_make_ci),
            best=tile in h.best))


def hint_to_proto(h: Hint) -> hint_pb2.HintResponse:
    """The `HintResponse` message of the hint ``h``."""
    out = hint_pb2.HintResponse(
        to_move=convert.ENUM_OF_SEAT[h.to_move], declaring=h.side == "declaring", count=h.count,
        method=ENUM_OF_METHOD[h.method], deals=h.deals, objective=ENUM_OF_OBJECTIVE[h.objective],
        best=h.best, unit=convert.UNITS[h.unit], stopped=h.stopped or "",
        search="double-dummy")
    _add_moves(out, h)
    for ex in h.examples:
        out.examples.append(hint_pb2.HintExample(
            position=convert.position_from_json(ex.position.to_json()),
            values=[hint_pb2.TileValue(tile=t, value=v) for t, v in ex.values.items()]))
    if h.inference is not None:
        out.inference.CopyFrom(convert.inference_to_proto(h.inference))
    return out
