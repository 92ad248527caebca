"""The modules page: one mkdocstrings block per module of every layer, written at build time.

A module added to the package is on the page at the next build. The classes that the
Python API page shows already (the result types, named there by their full path) are left
out here, so that each name has one page.
"""

from __future__ import annotations

import pkgutil
import re
from importlib import import_module
from pathlib import Path

#: The layers, bottom up, and their titles.
LAYERS = (("solver.game", "The game as data"), ("solver.search", "The search"),
          ("solver.hidden", "What a seat cannot see"), ("solver.play", "Players"),
          ("solver.show", "Pictures"), ("solver.batch", "Batch work"),
          ("server", "The service"))
API_PAGE = Path(__file__).resolve().parents[1] / "reference" / "python.md"


def shown_on_api_page() -> dict[str, list[str]]:
    """Module -> the names the API page shows by their full path."""
    shown: dict[str, list[str]] = {}
    for path in re.findall(r"^::: ((?:solver|server)\.[\w.]+)$", API_PAGE.read_text(), re.M):
        module, name = path.rsplit(".", 1)
        shown.setdefault(module, []).append(name)
    return shown


def modules_reference() -> str:
    """The Markdown of the modules page (mkdocstrings blocks)."""
    shown = shown_on_api_page()
    lines: list[str] = []
    for package, title in LAYERS:
        lines += [f"## {title} (`{package}`)", ""]
        modules = pkgutil.iter_modules(import_module(package).__path__)
        for info in sorted(modules, key=lambda m: m.name):
            if info.name.startswith("_") or info.ispkg:
                continue
            module = f"{package}.{info.name}"
            filters = ['"!^_"'] + [f'"!^{name}$"' for name in shown.get(module, [])]
            lines += [f"::: {module}", "    options:", "      heading_level: 3",
                      "      show_root_full_path: true",
                      f"      filters: [{', '.join(filters)}]", ""]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(modules_reference())
