"""The CLI reference, written from `t42`'s own argparse parsers.

The page is rebuilt at every site build, so an option added to a command is
documented as soon as it has a ``help=``.
"""

from __future__ import annotations

import argparse
import html
import re

from solver.cli import build_parser


def _escape(text: str) -> str:
    """Help text as Markdown that shows it literally (argparse help is plain text)."""
    text = html.escape(" ".join(text.split()), quote=False)
    return re.sub(r"([\\`*_|\[\]])", r"\\\1", text)


def _described(parser: argparse.ArgumentParser, text: str | None) -> str:
    """A parser's description as its own formatter shows it (some fill in names)."""
    if not text:
        return ""
    formatter = parser._get_formatter()
    formatter.add_text(text)
    return _escape(formatter.format_help())


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:
    return next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)),
                None)


def _value(action: argparse.Action) -> str:
    """What an option takes: its metavar, its choices, or nothing (a flag)."""
    if action.nargs == 0:
        return ""
    if action.metavar is not None:
        metavar = action.metavar
        return " ".join(metavar) if isinstance(metavar, tuple) else str(metavar)
    if action.choices is not None:
        return "{" + ",".join(map(str, action.choices)) + "}"
    return action.dest.upper() if action.option_strings else action.dest


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    if not action.help or action.help is argparse.SUPPRESS:
        return ""
    return _escape(parser._get_formatter()._expand_help(action))


def _table(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)) \
                or action.help is argparse.SUPPRESS:
            continue
        names = ", ".join(f"`{n}`" for n in action.option_strings) or f"`{action.dest}`"
        value = _value(action) if action.option_strings else ""
        rows.append(f"| {names} | {f'`{value}`' if value else ''} | {_help(parser, action)} |")
    if not rows:
        return []
    return ["| argument | value | meaning |", "|---|---|---|", *rows, ""]


def _command(parser: argparse.ArgumentParser, path: list[str], level: int,
             children: bool = True) -> list[str]:
    name = " ".join(path)
    lines = [f"{'#' * level} `{name}`", ""]
    description = _described(parser, parser.description)
    if description:
        lines += [description, ""]
    lines += ["```text", parser.format_usage().strip(), "```", ""]
    lines += _table(parser)
    if parser.epilog:
        lines += [_described(parser, parser.epilog), ""]
    sub = _subparsers(parser) if children else None
    if sub is not None:
        for child_name, child in sub.choices.items():
            lines += _command(child, [*path, child_name], min(level + 1, 6))
    return lines


def cli_reference() -> str:
    """The Markdown of every `t42` command: usage, arguments and their help."""
    parser = build_parser()
    sub = _subparsers(parser)
    assert sub is not None, "t42 has sub-commands"
    helps = {a.dest: a.help for a in sub._choices_actions}
    lines = ["| command | what it does |", "|---|---|"]
    lines += [f"| [`t42 {name}`](#t42-{name}) | {_escape(helps.get(name) or '')} |"
              for name in sub.choices]
    lines += ["", *_command(parser, ["t42"], 2, children=False)]
    for name, child in sub.choices.items():
        lines += _command(child, ["t42", name], 2)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(cli_reference())
