"""GradeHand, GradeGame and ListFinishedGames messages <-> the Python API
(`solver.hidden.coaching`, `solver.play.table.Tables.finished_games`).

The options of a request become `grade_hand`'s or `grade_game`'s keyword arguments
(checked by the coaching module itself: a bad one is a `PositionError` naming the
option, which `grade_field_path` puts under ``options``); the grades become their
messages field for field, as `HandGrades.to_json` writes them. `grades_from_proto`
is the way back (a client-side convenience: the tests compare the two).
"""

from __future__ import annotations

from typing import Any, Mapping

from solver.game.auction import SEATS
from solver.game.errors import PositionError
from solver.hidden.coaching import (DEFAULT_ADVICE_DEALS, DEFAULT_ADVICE_SEED, DEFAULT_DEALS,
                                    DEFAULT_SEED, DecisionGrade, GameGrades, HandGrades, Loss)
from solver.hidden.hint import DEFAULT_ENUMERATION_LIMIT
from solver.hidden.seat_view import DEFAULT_DEPTH
from texas42.v1 import coaching_pb2 as coach_pb
from texas42.v1 import hand_analysis_pb2 as hand_pb

from . import convert, game_convert

#: The options of a request, by their names in `GradeOptions` and the Python API.
OPTION_FIELDS = ("deals", "seed", "enumerate_limit", "search", "depth", "advice_deals",
                 "advice_seed")
KIND_ENUM = {"call": coach_pb.DECISION_KIND_CALL,
             "declaration": coach_pb.DECISION_KIND_DECLARATION,
             "discard": coach_pb.DECISION_KIND_DISCARD, "play": coach_pb.DECISION_KIND_PLAY}
METHOD_ENUM = {"enumerated": coach_pb.GRADE_METHOD_ENUMERATED,
               "sampled": coach_pb.GRADE_METHOD_SAMPLED,
               "forced": coach_pb.GRADE_METHOD_FORCED,
               "ungraded": coach_pb.GRADE_METHOD_UNGRADED}
KIND_OF_ENUM = {v: k for k, v in KIND_ENUM.items()}
METHOD_OF_ENUM = {v: k for k, v in METHOD_ENUM.items()}
UNIT_OF_ENUM = {v: k for k, v in convert.UNITS.items()}
#: The most tokens a ListFinishedGames call takes.
MAX_TOKENS = 500


def grade_options(message: coach_pb.GradeOptions, game: bool) -> dict[str, Any]:
    """Keyword arguments of `grade_hand` (``game`` False: no advice options) or
    `grade_game` from the request's options, defaults filled in (the coaching module
    checks them: a bad one is a `PositionError` naming it)."""
    def given(name: str, default: Any) -> Any:
        return getattr(message, name) if message.HasField(name) else default

    out: dict[str, Any] = {
        "deals": given("deals", DEFAULT_DEALS), "seed": given("seed", DEFAULT_SEED),
        "enumerate_limit": given("enumerate_limit", DEFAULT_ENUMERATION_LIMIT),
        "search": message.search or "double-dummy", "depth": given("depth", DEFAULT_DEPTH)}
    advice = {"advice_deals": given("advice_deals", DEFAULT_ADVICE_DEALS),
              "advice_seed": given("advice_seed", DEFAULT_ADVICE_SEED)}
    if not game:
        for name in advice:
            if message.HasField(name):
                raise PositionError(name, "only GradeGame grades calls: a hand record has no "
                                    "auction to advise", "INVALID_OPTION")
        return out
    return {**out, **advice}


def grade_field_path(json_field: str) -> str:
    """The request field of a `PositionError` on a GradeHand request: an option under
    ``options``, else a field of the hand record (as AnalyzeHand)."""
    if json_field in OPTION_FIELDS:
        return f"options.{json_field}"
    return convert.record_field_path(json_field)


def game_field_path(json_field: str) -> str:
    """The request field of a `PositionError` on a GradeGame request: an option under
    ``options``; else the field as it is (the request's ``hands``, or a field of the
    record already mapped by `read_record`)."""
    return f"options.{json_field}" if json_field in OPTION_FIELDS else json_field


def read_record(message: Any) -> Any:
    """The `GameRecord` of a GradeGame request's record; a bad one raises `PositionError`
    naming the request's field (``record.hands[0].hands.north[3]``)."""
    from solver.game.game_record import read_game
    from solver.game.jsondoc import CheckedObject
    try:
        return read_game(CheckedObject(game_convert.record_to_json(message)))
    except PositionError as exc:
        raise PositionError(game_convert.record_field_path(exc.field), exc.reason,
                            exc.code) from None


# ------------------------------------------------------------------ to proto


def _loss(loss: Loss | None) -> coach_pb.GradeLoss | None:
    if loss is None:
        return None
    data = loss.to_json()
    out = coach_pb.GradeLoss(value=data["value"], exact=data["exact"])
    if data["low"] is not None:
        out.low, out.high = data["low"], data["high"]
    return out


def decision_to_proto(d: DecisionGrade) -> coach_pb.DecisionGrade:
    """A `DecisionGrade` as its message (figures rounded as `DecisionGrade.to_json`)."""
    data = d.to_json()
    out = coach_pb.DecisionGrade(
        kind=KIND_ENUM[d.kind], index=d.index, seat=convert.ENUM_OF_SEAT[d.seat],
        choice=d.choice, trick=d.trick or 0, best=d.best or "",
        best_for_make=d.best_for_make or "", method=METHOD_ENUM[d.method], deals=d.deals,
        unit=convert.UNITS.get(d.unit or "", hand_pb.VALUE_UNIT_UNSPECIFIED),
        mistake=d.mistake, note=d.note or "")
    if d.count is not None:
        out.count = d.count
    if d.information_price is not None:
        out.information_price = data["information_price"]
    for name in ("loss", "p_make_loss", "marks_loss"):
        loss = _loss(getattr(d, name))
        if loss is not None:
            getattr(out, name).CopyFrom(loss)
    if d.dd_before is not None:
        out.dd_before, out.dd_after, out.dd_cost = data["dd_before"], data["dd_after"], \
            data["dd_cost"]
        out.skill, out.luck = data["skill"], data["luck"]
        out.information = data["information"]
    for option in data["options"]:
        o = out.options.add(option=option["option"], declaration=option.get("declaration", ""))
        for name in ("mean", "p_make", "e_marks"):
            if option[name] is not None:
                setattr(o, name, option[name])
    return out


def hand_grades_to_proto(h: HandGrades) -> coach_pb.HandGrades:
    """A `HandGrades` as its message (figures rounded as `HandGrades.to_json`)."""
    data = h.to_json()
    out = coach_pb.HandGrades(hand=h.index or 0, id="" if h.id is None else str(h.id))
    a = h.analysis
    if a is not None:
        out.contract.CopyFrom(game_convert._contract_to_proto(data["contract"]))
        position = a.position
        out.declaring.extend(convert.ENUM_OF_SEAT[SEATS[s]] for s in range(len(position.scorer))
                             if position.scorer[s] and SEATS[s] in convert.ENUM_OF_SEAT)
        out.unit = convert.UNITS[data["unit"]]
        out.value, out.dd_start, out.result = data["value"], data["dd_start"], data["result"]
        out.complete, out.final_value = data["complete"], data["final_value"]
        if data["made"] is not None:
            out.made = data["made"]
        out.skill, out.luck, out.dd_change = data["skill"], data["luck"], data["dd_change"]
        out.information = data["information"]
    out.decisions.extend(decision_to_proto(d) for d in h.decisions)
    for seat, grades in data["seats"].items():
        out.seats.add(seat=convert.ENUM_OF_SEAT[seat], **grades)
    return out


def settings_to_proto(settings: Mapping[str, Any]) -> coach_pb.GradeSettings:
    """The ``seat_view`` settings of a grading's JSON as their message."""
    out = coach_pb.GradeSettings(
        deals=settings["deals"], seed=settings["seed"],
        enumerate_limit=settings["enumerate_limit"], search=settings["search"],
        depth=settings.get("depth", 0), advice_deals=settings.get("advice_deals", 0),
        advice_seed=settings.get("advice_seed", 0), p_make=settings.get("p_make", ""))
    out.mistake.points = settings["mistake"]["points"]
    out.mistake.tricks = settings["mistake"]["tricks"]
    out.mistake.marks = settings["mistake"]["marks"]
    return out


def hand_response(h: HandGrades) -> coach_pb.GradeHandResponse:
    """`grade_hand`'s answer as the GradeHand response (its settings beside it)."""
    return coach_pb.GradeHandResponse(grades=hand_grades_to_proto(h),
                                      settings=settings_to_proto(h.settings))


def game_response(g: GameGrades) -> coach_pb.GradeGameResponse:
    """`grade_game`'s answer as the GradeGame response."""
    return coach_pb.GradeGameResponse(hands=[hand_grades_to_proto(h) for h in g.hands],
                                      settings=settings_to_proto(g.settings))


# --------------------------------------------------------------- finished games


def finished_request(request: coach_pb.ListFinishedGamesRequest) -> list[str]:
    """The tokens of a ListFinishedGames request (at most `MAX_TOKENS`)."""
    tokens = list(request.sealed)
    if len(tokens) > MAX_TOKENS:
        raise PositionError("sealed", f"{len(tokens)} tokens; a call takes at most "
                            f"{MAX_TOKENS}", "TOO_MANY_TOKENS")
    return tokens


def finished_to_proto(found: Mapping[str, Any]) -> coach_pb.ListFinishedGamesResponse:
    """`Tables.finished_games`'s answer as the response."""
    out = coach_pb.ListFinishedGamesResponse(pending=found["pending"])
    for g in found["games"]:
        game = out.games.add(sealed=g["token"], seat=convert.ENUM_OF_SEAT[g["seat"]],
                             practice=g["practice"], carried=g["carried"])
        game.record.CopyFrom(game_convert.record_from_json(g["record"]))
        game.finished.FromNanoseconds(int(g["finished"] * 1e9))
        pad = game_convert.summary_to_proto(g["game"])
        game.hands.extend(pad.hands)
        game.score.update(pad.score)
        game.winner = pad.winner
    return out


# ------------------------------------------------------------------ from proto


def _loss_json(loss: coach_pb.GradeLoss, present: bool) -> dict | None:
    if not present:
        return None
    return {"value": loss.value, "low": loss.low if loss.HasField("low") else None,
            "high": loss.high if loss.HasField("high") else None, "exact": loss.exact}


def decision_from_proto(d: coach_pb.DecisionGrade) -> dict[str, Any]:
    """A DecisionGrade message in the shape of `DecisionGrade.to_json`."""
    out: dict[str, Any] = {"kind": KIND_OF_ENUM[d.kind], "index": d.index,
                           "seat": convert.SEAT_OF_ENUM[d.seat], "choice": d.choice}
    if d.trick:
        out["trick"] = d.trick
    out.update({
        "best": d.best or None, "best_for_make": d.best_for_make or None,
        "method": METHOD_OF_ENUM[d.method], "deals": d.deals,
        "count": d.count if d.HasField("count") else None,
        "unit": UNIT_OF_ENUM.get(d.unit), "loss": _loss_json(d.loss, d.HasField("loss")),
        "p_make_loss": _loss_json(d.p_make_loss, d.HasField("p_make_loss")),
        "marks_loss": _loss_json(d.marks_loss, d.HasField("marks_loss")),
        "mistake": d.mistake})
    if d.HasField("information_price"):
        out["information_price"] = d.information_price
    if d.HasField("dd_before"):
        out.update({"dd_before": d.dd_before, "dd_after": d.dd_after, "dd_cost": d.dd_cost,
                    "skill": d.skill, "information": d.information, "luck": d.luck})
    if d.note:
        out["note"] = d.note
    options = []
    for o in d.options:
        option: dict[str, Any] = {"option": o.option}
        for name in ("mean", "p_make", "e_marks"):
            option[name] = getattr(o, name) if o.HasField(name) else None
        if o.declaration:
            option["declaration"] = o.declaration
        options.append(option)
    out["options"] = options
    return out


def hand_grades_from_proto(h: coach_pb.HandGrades) -> dict[str, Any]:
    """A HandGrades message in the shape of `HandGrades.to_json` (less ``game`` and the
    settings, which the response carries once)."""
    out: dict[str, Any] = {"hand": h.hand}
    if h.id:
        out["id"] = h.id
    if h.HasField("contract"):
        out["contract"] = _contract_json(h.contract)
        out.update({"declaring": [convert.SEAT_OF_ENUM[s] for s in h.declaring],
                    "unit": UNIT_OF_ENUM[h.unit], "value": h.value, "dd_start": h.dd_start,
                    "result": h.result, "complete": h.complete, "final_value": h.final_value,
                    "made": h.made if h.HasField("made") else None, "skill": h.skill,
                    "information": h.information, "luck": h.luck,
                    "dd_change": h.dd_change})
    out["decisions"] = [decision_from_proto(d) for d in h.decisions]
    out["seats"] = {convert.SEAT_OF_ENUM[s.seat]: {
        "decisions": s.decisions, "mistakes": s.mistakes, "loss": s.loss,
        "marks_loss": s.marks_loss, "skill": s.skill, "information": s.information,
        "luck": s.luck} for s in h.seats}
    return out


def _contract_json(c: Any) -> dict[str, Any]:
    """A Contract message as `Contract.to_json` writes it."""
    return {"declarer": convert.SEAT_OF_ENUM[c.declarer],
            "trump": convert.DECLARATIONS[c.declaration], "bid": c.bid,
            "kind": convert.KINDS.get(c.kind, "standard"),
            "doubles": convert.DOUBLES.get(c.doubles, "high")}


def settings_from_proto(s: coach_pb.GradeSettings) -> dict[str, Any]:
    """GradeSettings in the shape of the grades' ``seat_view`` JSON."""
    out: dict[str, Any] = {"deals": s.deals, "seed": s.seed,
                           "enumerate_limit": s.enumerate_limit, "search": s.search}
    if s.search == "postponed":
        out["depth"] = s.depth
    if s.p_make:
        out.update({"advice_deals": s.advice_deals, "advice_seed": s.advice_seed,
                    "p_make": s.p_make})
    out["mistake"] = {"points": s.mistake.points, "tricks": s.mistake.tricks,
                      "marks": s.mistake.marks}
    return out
