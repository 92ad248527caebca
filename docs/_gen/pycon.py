"""A griffe extension: ``>>>`` examples in docstrings shown as Python sessions.

A docstring's example is plain text (so ``help()`` shows it as written); on the
site a run of lines that starts with ``>>>`` becomes a ``pycon`` code block, so
its output is not read as Markdown (a list would be a link).
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_examples(text: str) -> str:
    """Put each run of ``>>>`` lines and their output, up to a blank line, in a fence."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if not stripped.startswith(">>>"):
            out.append(line)
            i += 1
            continue
        indent = line[:len(line) - len(stripped)]
        out.append(f"{indent}```pycon")
        while i < len(lines) and lines[i].strip():
            out.append(lines[i])
            i += 1
        out.append(f"{indent}```")
    return "\n".join(out)


class PyconExamples(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_examples(obj.docstring.value)
