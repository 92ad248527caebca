"""The `t42` command line: one module per command, each with a `register(subparsers)`."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NoReturn

#: Command modules of this package; each adds its sub-command(s).
COMMAND_MODULES = ("solve_cmd", "discard_cmd", "serve_cmd", "analyze_cmd", "table_cmd",
                   "deal_cmd", "batch_cmd", "report_cmd", "bid_cmd", "hint_cmd", "arena_cmd",
                   "game_cmd")
#: The module of each sub-command: a run of one imports that module only (importing them
#: all costs more start-up time than solving 10,000 late positions). A command missing
#: here still works: the parser is then built from every module.
COMMAND_MODULE = {"solve": "solve_cmd", "make-or-set": "solve_cmd", "discard": "discard_cmd",
                  "serve": "serve_cmd", "analyze": "analyze_cmd", "table": "table_cmd",
                  "deal": "deal_cmd", "batch": "batch_cmd", "report": "report_cmd",
                  "bid": "bid_cmd", "hint": "hint_cmd", "arena": "arena_cmd",
                  "game": "game_cmd"}


def package_version() -> str:
    """The installed package's version (its metadata), or "unknown" when run from a bare tree."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("texas42-solver")
    except PackageNotFoundError:
        return "unknown"


class VersionAction(argparse.Action):
    """--version: the package metadata is read only when asked (reading it costs a
    tenth of a second at every start)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show program's version number and exit")

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # type: ignore[no-untyped-def]
        print(f"{parser.prog} {package_version()}")
        parser.exit()


#: Longest message of a bad argument (the arguments are quoted in it).
MESSAGE_LIMIT = 300


class Parser(argparse.ArgumentParser):
    """A parser whose errors are one stderr line, ``t42: error: ...``, and exit status 2
    (argparse's own print the usage block first); ``--help`` prints the full help."""

    def error(self, message: str) -> NoReturn:
        message = " ".join(message.split())  # one line, whatever the arguments hold
        if len(message) > MESSAGE_LIMIT:  # an argument of megabytes: a prefix of it
            message = message[:MESSAGE_LIMIT - 3] + "..."
        self.exit(2, f"t42: error: {message} (see {self.prog} --help)\n")

    def parse_args(self, args=None, namespace=None):  # type: ignore[no-untyped-def,override]
        """As argparse's, but arguments that no parser knows are the command's error
        (argparse's names the top level), so that its help is the one pointed to."""
        namespace, extras = self.parse_known_args(args, namespace)
        if extras:
            self._command_parser(namespace).error(
                f"unrecognized arguments: {' '.join(extras)}")
        return namespace

    def _command_parser(self, namespace: argparse.Namespace) -> argparse.ArgumentParser:
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return action.choices.get(getattr(namespace, action.dest, None), self)
        return self


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or only of ``command`` when it is a known one."""
    parser = Parser(prog="t42", description="Exact double-dummy solver for Texas 42 and Moon.")
    parser.add_argument("--version", action=VersionAction)
    # parser_class: every command's parser is a Parser too.
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    names = (COMMAND_MODULE[command],) if command in COMMAND_MODULE else COMMAND_MODULES
    for name in names:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # The command is the first argument that is no option (t42's own are flags only).
    command = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(command)
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return 2
    status = args.run(args)
    try:
        sys.stdout.flush()  # here, not at exit, where a reader gone away makes a traceback
    except BrokenPipeError:
        # The reader went away (t42 ... | head): the command is done; stop quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return status
