"""MkDocs hooks: the generated reference pages.

A page holding ``<!-- generated: cli -->``, ``<!-- generated: proto -->`` or
``<!-- generated: modules -->`` gets that reference in its place, written at build
time from the parsers, the .proto files and the package's modules, so the site never
lags the code.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from cli_ref import cli_reference  # noqa: E402
from modules_ref import modules_reference  # noqa: E402
from proto_ref import proto_reference  # noqa: E402

GENERATORS = {"<!-- generated: cli -->": cli_reference,
              "<!-- generated: proto -->": proto_reference,
              "<!-- generated: modules -->": modules_reference}


def on_page_markdown(markdown: str, **_: object) -> str:
    for marker, generate in GENERATORS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, generate())
    return markdown
