"""`t42 COMMAND` builds the parser of that command only (start-up time): the map of
commands to modules must name every command, and each command must parse and print
its help exactly as the parser of every command does. Budget: about 1 s."""

from __future__ import annotations

import argparse

import pytest

from solver.cli import COMMAND_MODULE, build_parser


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


FULL = subcommands(build_parser())


def test_every_command_is_mapped():
    assert sorted(COMMAND_MODULE) == sorted(FULL)


@pytest.mark.parametrize("command", sorted(COMMAND_MODULE))
def test_a_command_alone_parses_as_with_every_command(command):
    alone = subcommands(build_parser(command))
    assert command in alone  # its module is the one mapped
    assert len(alone) < len(FULL)
    assert alone[command].format_help() == FULL[command].format_help()
    assert alone[command].format_usage() == FULL[command].format_usage()
