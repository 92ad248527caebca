"""Every public name documents itself: ``help(name)`` shows what it takes, of which
type, and an example that runs.

The public names are ``solver.__all__`` and ``server.__all__`` (the API reference
page is written from the same docstrings). For each: a docstring; every parameter
named in it; no parameter or return annotated as bare ``object`` or ``Any`` (a
``**options`` catch-all excepted); a ``>>>`` example, run here as a doctest from the
repository root; for classes, every public method and property documented and
every dataclass field named.
"""

from __future__ import annotations

import dataclasses
import doctest
import importlib
import inspect
import re
import sys
from pathlib import Path

import pytest

import server
import solver

ROOT = Path(__file__).resolve().parent.parent
#: Data, not callables: documented by their comment in the source.
CONSTANTS = {"SEATS"}
PUBLIC = [(f"solver.{n}", getattr(solver, n)) for n in solver.__all__ if n not in CONSTANTS]
PUBLIC += [(f"server.{n}", getattr(server, n)) for n in server.__all__]
#: Known gaps, each with what closes it; a gap closed shows as XPASS (then drop it here).
PENDING: dict[tuple[str, str], str] = {}


def cases(test: str, objects: list | None = None) -> list:
    """The (name, object) pairs of ``objects`` (the public names), a known gap xfail."""
    return [pytest.param(name, obj, id=name, marks=pytest.mark.xfail(
                reason=PENDING[(name, test)], strict=False)) if (name, test) in PENDING
            else pytest.param(name, obj, id=name)
            for name, obj in (PUBLIC if objects is None else objects)]


#: The results' parts that the public functions return inside their results (a hint's
#: moves, bid advice's declarations, ...): documented attribute by attribute too.
RESULT_PARTS = ["solver.search.table.SeatBest", "solver.search.analysis.PlayAnalysis",
                "solver.search.analysis.SeatSummary", "solver.search.discard.DiscardRow",
                "solver.hidden.hint.MoveFigures", "solver.hidden.hint.Example",
                "solver.hidden.bidding.DeclarationAdvice", "solver.hidden.bidding.BidChance",
                "solver.hidden.bidding.Recommendation", "solver.hidden.bidding.AdvisedDeal",
                "solver.hidden.game_analysis.GameAnalysis",
                "solver.hidden.game_analysis.GameHandAnalysis",
                "solver.hidden.game_analysis.CallAnalysis",
                "solver.hidden.game_analysis.CallFigures",
                "solver.hidden.coaching.HandGrades", "solver.hidden.coaching.GameGrades",
                "solver.hidden.coaching.DecisionGrade", "solver.hidden.coaching.Loss",
                "solver.hidden.coaching.OptionFigures", "solver.hidden.coaching.SeatGrades",
                "solver.play.game_arena.GameArenaStats", "solver.play.game_arena.BotGameFigures",
                "solver.play.game_arena.KindFigures"]
PARTS = [(name, getattr(importlib.import_module(name.rsplit(".", 1)[0]), name.rsplit(".", 1)[1]))
         for name in RESULT_PARTS]
VAGUE = {"object", "Any", "typing.Any"}


def docstring(obj: object) -> str:
    """The text help() shows for ``obj``: a class's docstring and its __init__'s."""
    text = inspect.getdoc(obj) or ""
    init = vars(obj).get("__init__") if inspect.isclass(obj) else None
    if init is not None and getattr(init, "__doc__", None):
        text += "\n" + (inspect.getdoc(init) or "")
    return text


def parameters(obj: object) -> list[inspect.Parameter]:
    if getattr(obj, "_is_protocol", False):  # a Protocol's signature is typing's, not its own
        return []
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):  # a compiled class or an exception: no signature
        return []
    return [p for p in signature.parameters.values() if p.name not in ("self", "cls")]


def test_the_public_names_are_many() -> None:
    assert len(PUBLIC) >= 50


@pytest.mark.parametrize(("name", "obj"), cases("example"))
def test_documented_with_an_example(name: str, obj: object) -> None:
    text = docstring(obj)
    assert len(text.split()) >= 8, f"{name}: no docstring to speak of"
    assert ">>>" in text, f"{name}: no example"


@pytest.mark.parametrize(("name", "obj"), cases("parameters"))
def test_every_parameter_is_named(name: str, obj: object) -> None:
    text = docstring(obj)
    missing = [p.name for p in parameters(obj) if not re.search(rf"\b{p.name}\b", text)]
    assert missing == [], f"{name}: parameters not described: {missing}"


@pytest.mark.parametrize(("name", "obj"), cases("annotations"))
def test_annotations_say_the_type(name: str, obj: object) -> None:
    params = parameters(obj)
    vague = [p.name for p in params if p.kind is not p.VAR_KEYWORD
             and str(p.annotation).strip("'\"") in VAGUE]
    unannotated = [p.name for p in params if p.annotation is inspect.Parameter.empty]
    assert vague == [] and unannotated == [], f"{name}: vague {vague}, bare {unannotated}"
    if callable(obj) and not inspect.isclass(obj) and params is not None:
        returns = inspect.signature(obj).return_annotation
        assert str(returns).strip("'\"") not in VAGUE, f"{name}: returns {returns}"


CLASSES = [p for p in PUBLIC + PARTS if inspect.isclass(p[1])]


@pytest.mark.parametrize(("name", "obj"), CLASSES, ids=[n for n, _ in CLASSES])
def test_class_members_are_documented(name: str, obj: type) -> None:
    undocumented = []
    for member, value in vars(obj).items():
        if member.startswith("_"):
            continue
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if inspect.isfunction(value) or isinstance(value, property) \
                or inspect.ismethoddescriptor(value) or inspect.isgetsetdescriptor(value):
            if not (getattr(value, "__doc__", None) or "").strip():
                undocumented.append(member)
    assert undocumented == [], f"{name}: members without a docstring: {undocumented}"
    if dataclasses.is_dataclass(obj):
        text = docstring(obj)
        unnamed = [f.name for f in dataclasses.fields(obj)
                   if f.init and not re.search(rf"\b{f.name}\b", text)]
        assert unnamed == [], f"{name}: fields not described: {unnamed}"


@pytest.mark.parametrize(("name", "obj"), cases("runs"))
def test_the_example_runs(name: str, obj: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # examples read examples/*.json
    module = sys.modules[obj.__module__]
    finder = doctest.DocTestFinder(recurse=False)
    tests = [t for t in finder.find(obj, name, module=module, globs=dict(vars(module)))
             if t.examples]
    assert tests, f"{name}: no example to run"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0, f"{name}: its example fails"


#: Modules whose every public function and class (its ``__all__``, else every public name
#: it defines) names each parameter in its docstring with a type that says something. A
#: module joins once it holds.
DOCUMENTED_MODULES = ["solver.game.auction", "solver.game.bid_request", "solver.game.call_view",
                      "solver.game.game_record", "solver.game.progress", "solver.game.score",
                      "solver.search.solve", "solver.search.table", "solver.search.analysis",
                      "solver.search.discard", "solver.hidden.bidding",
                      "solver.hidden.calibration", "solver.hidden.game_analysis",
                      "solver.hidden.inference", "solver.hidden.play_model",
                      "solver.hidden.quick_play", "solver.play.calibration_run",
                      "solver.play.calling", "solver.play.game_arena", "solver.play.game_play",
                      "solver.play.arena", "solver.hidden.deals", "solver.hidden.stats",
                      "solver.game.tiles", "solver.game.jsondoc", "server.table_key",
                      "solver.play.table", "solver.play.table_store",
                      "server.table_convert", "server.convert", "server.app",
                      "server.bid_convert", "server.deadlines", "server.errors",
                      "server.game_convert", "server.hint_convert", "server.http_app",
                      "server.launcher", "server.pool", "server.servicer", "server.status",
                      "server.telemetry", "solver.search.split", "solver.game.rules",
                      "solver.game.errors", "solver.game.contract_layout",
                      "solver.game.completions", "solver.hidden.call_model",
                      "solver.play.processes", "solver.show.svg",
                      "solver.show.diagram", "solver.show.report", "solver.show.grade_report",
                      "solver.batch.run", "solver.batch.cluster",
                      "solver.batch.jobs", "solver.batch.chunks", "solver.batch.store",
                      "solver.game.position", "solver.game.view", "solver.game.quick",
                      "solver.hidden.hint", "solver.hidden.dealer", "solver.play.bots",
                      "solver.play.bot_protocol", "solver.play.program_bot",
                      # compiled: a class shows no signature, so only its docstring counts
                      "solver.game._plainjson", "solver.game._replay", "solver.hidden._pool",
                      "solver.search._core", "solver.search._line"]


def module_names() -> list:
    out = []
    for module_name in DOCUMENTED_MODULES:
        module = importlib.import_module(module_name)
        names = getattr(module, "__all__", None) or [n for n in vars(module)
                                                      if not n.startswith("_")]
        for name in names:
            obj = getattr(module, name)
            if callable(obj) and getattr(obj, "__module__", None) == module_name:
                out.append(pytest.param(f"{module_name}.{name}", obj,
                                        id=f"{module_name}.{name}"))
    return out


#: Readers of untrusted input, and the quoting of any value into an error: they take any
#: value by design, so ``object`` is their parameter's type.
VALIDATORS = {"solver.search.solve.check_threads", "solver.play.arena.check_count",
              "solver.game.rules.parse_declaration", "solver.game.errors.quoted",
              "solver.game.errors.key_text",
              "solver.hidden.deals.check_deal_count",
              "solver.hidden.deals.check_seed", "solver.hidden.deals.check_seconds",
              "solver.game.tiles.parse_tile", "solver.game.jsondoc.check_document",
              "solver.game.jsondoc.json_object", "solver.game.position.parse_game",
              "solver.hidden.hint.check_options", "solver.game.quick.is_game_record",
              "solver.game.quick.read_subject"}


@pytest.mark.parametrize(("name", "obj"), module_names())
def test_module_names_are_documented(name: str, obj: object) -> None:
    text = docstring(obj)
    assert len(text.split()) >= 5, f"{name}: no docstring to speak of"
    params = parameters(obj)
    missing = [p.name for p in params if not re.search(rf"\b{p.name}\b", text)]
    vague = [p.name for p in params if p.kind is not p.VAR_KEYWORD and name not in VALIDATORS
             and str(p.annotation).strip("'\"") in VAGUE]
    assert (missing, vague) == ([], []), f"{name}: not described {missing}, vague {vague}"


@pytest.mark.parametrize(("name", "obj"), [p for p in module_names()
                                           if ">>>" in docstring(p.values[1])])
def test_module_examples_run(name: str, obj: object, monkeypatch: pytest.MonkeyPatch) -> None:
    test_the_example_runs(name, obj, monkeypatch)


def test_the_package_names_its_docs_not_the_spec() -> None:
    naming = {str(path.relative_to(ROOT)) for folder in ("solver", "server")
              for path in (ROOT / folder).rglob("*.py*")
              if path.suffix in (".py", ".pyx")
              and re.search(r"\bSPEC\b", path.read_text(encoding="utf-8"))}
    # The docs pages (docs/formats.md, docs/rules/) are where a reader goes instead.
    assert naming == set(), sorted(naming)
