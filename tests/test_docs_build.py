"""The documentation site builds with ``mkdocs build --strict`` (a broken link, a missing
page or an unresolved API reference fails it), and its generated pages hold what the
code defines: every public name, every ``t42`` command and option, every RPC.

Skipped when MkDocs is not installed (``pip install -e '.[docs]'``).
"""

from __future__ import annotations

import argparse
import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs")
pytest.importorskip("mkdocstrings_handlers.python")
pytest.importorskip("material")
pytest.importorskip("grpc_tools")  # protoc, for the gRPC page (in the docs extra)

import server  # noqa: E402
import solver  # noqa: E402
from solver.cli import build_parser  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
                          cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out


def text_of(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def test_every_public_name_has_its_entry(site: Path) -> None:
    page = (site / "reference" / "python" / "index.html").read_text(encoding="utf-8")
    ids = set(re.findall(r'id="([^"]+)"', page))
    names = [f"solver.{n}" for n in solver.__all__ if n != "SEATS"]  # SEATS: a constant
    names += [f"server.{n}" for n in server.__all__]
    assert [n for n in names if n not in ids] == []


def test_result_attributes_are_listed(site: Path) -> None:
    page = (site / "reference" / "python" / "index.html").read_text(encoding="utf-8")
    ids = set(re.findall(r'id="([^"]+)"', page))
    for name in ("solver.SolveResult.value", "solver.SolveResult.moves",
                 "solver.Hint.moves", "solver.BidAdvice.recommendation",
                 "solver.hidden.hint.MoveFigures.p_make",
                 "solver.hidden.bidding.BidChance.p_make"):
        assert name in ids, name


def test_modules_page_has_every_module(site: Path) -> None:
    import pkgutil
    from importlib import import_module
    page = (site / "reference" / "modules" / "index.html").read_text(encoding="utf-8")
    ids = set(re.findall(r'id="([^"]+)"', page))
    for package in ("solver.game", "solver.search", "solver.hidden", "solver.play",
                    "solver.show", "solver.batch", "server"):
        for info in pkgutil.iter_modules(import_module(package).__path__):
            if not info.name.startswith("_") and not info.ispkg:
                assert f"{package}.{info.name}" in ids
    assert "solver.hidden.deals.tile_probabilities" in ids


def test_cli_page_has_every_command_and_option(site: Path) -> None:
    text = text_of(site / "reference" / "cli" / "index.html")
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) >= {"solve", "hint", "bid", "serve", "batch", "game"}
    for name, command in sub.choices.items():
        assert f"t42 {name}" in text
        for action in command._actions:
            for flag in action.option_strings:
                assert flag in text, (name, flag)


def test_proto_page_has_every_rpc_and_message(site: Path) -> None:
    from texas42.v1 import hint_service_pb2
    text = text_of(site / "reference" / "proto" / "index.html")
    service = hint_service_pb2.DESCRIPTOR.services_by_name["HintService"]
    for method in service.methods:
        assert method.name in text
        assert method.input_type.name in text and method.output_type.name in text
    # a field with its number and comment
    assert re.search(r"north\s*1\s*repeated string\s*North's seven tiles", text)


def test_benchmarks_and_changelog_pages(site: Path) -> None:
    bench = text_of(site / "benchmarks" / "index.html")
    assert "model name" in bench or "CPU" in bench
    changelog = text_of(site / "changelog" / "index.html")
    assert "Unreleased" in changelog or "0.1.0" in changelog


def test_the_site_names_its_own_pages_not_the_spec(site: Path) -> None:
    pages = {str(p.relative_to(site)): text_of(p) for p in site.rglob("*.html")}
    naming = sorted(name for name, text in pages.items() if re.search(r"\bSPEC\b", text))
    assert naming == []
