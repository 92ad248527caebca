"""The package's layers stay true: no import circle, no import that runs up a layer.

The layers, from the bottom (docs/development.md, "Package layout"): ``solver.game`` (the game as
data), ``solver.search`` (the double-dummy search), ``solver.hidden`` (what one seat
cannot see), ``solver.play`` (bots and the arena), ``solver.show`` (pictures), and
the faces on top: ``solver.cli``, ``solver.batch``, ``server`` and the public
``solver`` package itself. The imports are read from the source with `ast`, so a
test needs nothing installed and sees imports that a run may never execute.
"""

from __future__ import annotations

import ast
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("solver", "server")

#: Rank of each layer: a module may import modules of its own rank or lower.
LAYER_RANK = {"solver.game": 0, "solver.search": 1, "solver.hidden": 2, "solver.play": 3,
              "solver.show": 4, "solver.cli": 5, "solver.batch": 5, "solver.__main__": 5,
              "server": 5, "solver": 5}
#: Imports inside a function that may run up a layer: a type's own pictures, drawn
#: only when asked for (as python-chess's ``Board._repr_svg_`` does).
LAZY_UPWARD = {("solver.game.position", "solver.show.svg"),
               ("solver.game.position", "solver.show.diagram")}

_CIMPORT = re.compile(r"^\s*from\s+([\w.]+)\s+c?import\b", re.M)


@dataclass(frozen=True)
class Import:
    source: str      # the importing module
    target: str      # the imported module (a package stands for its __init__)
    line: int
    lazy: bool       # inside a function or method


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules(root: Path) -> dict[str, Path]:
    files = [p for package in PACKAGES for p in (root / package).rglob("*")
             if p.suffix in (".py", ".pyx")]
    return {module_name(root, p): p for p in files}


def _target(modules: dict[str, Path], name: str) -> str | None:
    """The project module an import names (the longest prefix that is one)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _absolute(source: str, is_package: bool, level: int, module: str | None) -> str:
    base = source.split(".")
    if not is_package:
        base = base[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def imports_of(root: Path) -> list[Import]:
    modules = project_modules(root)
    found: list[Import] = []
    for source, path in modules.items():
        is_package = path.stem == "__init__"
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".pyx":   # Cython: its module-level imports, by their lines
            for m in _CIMPORT.finditer(text):
                name = m.group(1)
                dots = len(name) - len(name.lstrip("."))
                full = _absolute(source, is_package, dots, name.lstrip(".") or None) \
                    if dots else name
                target = _target(modules, full)
                if target and target != source:
                    found.append(Import(source, target, text.count("\n", 0, m.start()) + 1,
                                        False))
            continue
        tree = ast.parse(text)
        lazy_lines = {n.lineno for f in ast.walk(tree)
                      if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                      for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))}
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(source, is_package, node.level, node.module) \
                    if node.level else node.module or ""
                names = [f"{base}.{a.name}" for a in node.names]
            for name in names:
                target = _target(modules, name)
                if target and target != source:
                    found.append(Import(source, target, node.lineno, node.lineno in lazy_lines))
    return found


def layer_of(module: str) -> str:
    """The layer a module belongs to: the longest LAYER_RANK key that prefixes it."""
    keys = [k for k in LAYER_RANK if module == k or module.startswith(k + ".")]
    if not keys:
        raise AssertionError(f"{module} is in no layer: add its package to LAYER_RANK")
    return max(keys, key=len)


def upward_imports(imports: list[Import]) -> list[str]:
    bad = []
    for imp in imports:
        if imp.lazy and (imp.source, imp.target) in LAZY_UPWARD:
            continue
        if LAYER_RANK[layer_of(imp.target)] > LAYER_RANK[layer_of(imp.source)]:
            bad.append(f"{imp.source} (line {imp.line}) imports {imp.target}, a layer above "
                       f"({layer_of(imp.source)} -> {layer_of(imp.target)})")
    return bad


def import_circles(imports: list[Import]) -> list[list[str]]:
    """Circles among the imports, those inside functions too (but for LAZY_UPWARD)."""
    graph: dict[str, set[str]] = {}
    for imp in imports:
        if (imp.source, imp.target) not in LAZY_UPWARD:
            graph.setdefault(imp.source, set()).add(imp.target)
    circles, state = [], {}   # state: 1 on the current path, 2 done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                circles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return circles


def check(root: Path) -> list[str]:
    imports = imports_of(root)
    return upward_imports(imports) + [" -> ".join(c) for c in import_circles(imports)]


def test_no_import_circle_and_no_upward_import() -> None:
    assert check(ROOT) == []


def test_every_module_is_in_a_layer() -> None:
    for module in project_modules(ROOT):
        layer_of(module)


def test_the_check_finds_a_planted_circle_and_an_upward_import(tmp_path: Path) -> None:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("*.so", "*.c", "__pycache__"))
    assert check(tmp_path) == []
    stats = tmp_path / "solver" / "hidden" / "stats.py"      # hint imports stats
    stats.write_text(stats.read_text() + "\nfrom .hint import hint\n")
    problems = check(tmp_path)
    assert len(problems) == 1, problems
    assert set(problems[0].split(" -> ")) == {"solver.hidden.hint", "solver.hidden.stats"}
    tiles = tmp_path / "solver" / "game" / "tiles.py"
    tiles.write_text(tiles.read_text() + "\nfrom ..show import svg\n")
    problems = check(tmp_path)
    assert any(p.startswith("solver.game.tiles (line") and "solver.show.svg" in p
               for p in problems), problems
    assert len(problems) > 2   # the upward import closes circles through svg's imports too


def test_the_public_face_names_resolve() -> None:
    import solver
    for name in solver.__all__:
        assert getattr(solver, name) is not None, name
    assert solver.hint.__module__ == "solver.hidden.hint"
    assert "advise" in dir(solver)
