"""A griffe extension: docstrings as the API page shows them.

A docstring is plain text, so ``help()`` shows it as written. On the site:

- a run of lines that starts with ``>>>`` becomes a ``pycon`` code block, so its
  output is not read as Markdown (a list would be a link);
- a page named by its path (``docs/formats.md``, ``docs/rules/moon.md``) becomes a
  link to that page, relative to the API page (docs/reference/python.md);
- a compiled class whose docstring opens with its signature (``CancelToken(deadline:
  float | None = None, ...)``, as Cython's ``embedsignature`` writes it) gets that
  signature, which inspecting the compiled module cannot see.
"""

from __future__ import annotations

import ast
import re
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


#: A docs page named in a docstring (not inside backticks or a longer path).
PAGE = re.compile(r"(?<![\w/`])docs/((?:[\w-]+/)*[\w-]+\.md)")


#: A fence line (the two captured groups keep it in the split).
FENCE = re.compile(r"(\n[ \t]*```[^\n]*)(\n)")


def link_pages(text: str) -> str:
    """``docs/formats.md`` -> a Markdown link to that page from docs/reference/."""
    return PAGE.sub(lambda m: f"[{m.group(1)}](../{m.group(1)})", text)


class PyconExamples(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is None:
            return
        text = obj.docstring.value
        if ">>>" in text:
            text = fence_examples(text)
        # Pages are linked outside code blocks only: split, the text parts are every third,
        # and every other one of those is inside a fence.
        parts = FENCE.split(text)
        obj.docstring.value = "".join(link_pages(part) if i % 6 == 0 else part
                                      for i, part in enumerate(parts))


def signature_parameters(text: str, name: str) -> griffe.Parameters | None:
    """The parameters of a docstring's first line ``name(...)``, or None."""
    first = text.strip().split("\n", 1)[0]
    if not (first.startswith(f"{name}(") and first.endswith(")")):
        return None
    args = ast.parse(f"def f(self, {first[len(name) + 1:-1]}): pass").body[0].args
    defaults = [None] * (len(args.args) - len(args.defaults)) + list(args.defaults)
    return griffe.Parameters(*[
        griffe.Parameter(a.arg, annotation=ast.unparse(a.annotation) if a.annotation else None,
                         kind=griffe.ParameterKind.positional_or_keyword,
                         default=ast.unparse(d) if d is not None else None)
        for a, d in zip(args.args, defaults)])


class CompiledSignatures(griffe.Extension):
    def on_class_members(self, *, cls: griffe.Class, **kwargs: Any) -> None:
        if cls.docstring is None:
            return
        parameters = signature_parameters(cls.docstring.value, cls.name)
        if parameters is None:
            return
        init = griffe.Function("__init__", parameters=parameters, returns="None")
        cls.set_member("__init__", init)
        # The signature line is shown as the signature now, not as text.
        cls.docstring.value = cls.docstring.value.strip().split("\n", 1)[1].lstrip("\n")
