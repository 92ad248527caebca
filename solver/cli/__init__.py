"""The `t42` command line: one module per command, each with a `register(subparsers)`."""

from __future__ import annotations

import argparse
import importlib
import sys

#: Command modules of this package; each adds its sub-command(s).
COMMAND_MODULES = ("solve_cmd", "discard_cmd", "serve_cmd", "analyze_cmd", "table_cmd",
                   "deal_cmd", "batch_cmd", "report_cmd", "bid_cmd", "hint_cmd", "arena_cmd")


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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="t42", description="Exact double-dummy solver for Texas 42 and Moon.")
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return 2
    return args.run(args)
