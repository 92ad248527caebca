"""The messages of the bot protocol (docs/reference/bot-protocol.md): what the arena and
the service send a bot that runs as a program of its own, and how its answers are read.

A program bot speaks JSON Lines on its standard input and output. The engine's first
line is a hello (``{"type": "hello", "protocol": 1}``), which the bot answers with its
own: its name and what it plays (`Hello`). Then each decision is one request holding
the seat's view and the legal options (`call_request`, `declare_request`,
`discard_request`, `play_request`), answered by one line that copies one of the options
(`read_answer`). This module only builds and reads the messages; `solver.play.program_bot`
runs the process.

Nothing of another hand goes into a request: the views it is built from
(`CallView`, `View`) hold none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..game import tiles as T
from ..game.auction import BASE_DECLARATIONS, OPTIONS, SEATS
from ..game.call_view import CallView, Declaration
from ..game.errors import PositionError, quoted
from ..game.jsondoc import parse_json
from ..game.view import View

#: The version of the protocol this engine speaks.
PROTOCOL = 1
#: The games a bot may say it plays (``moon``: three and four players).
GAMES = ("42", "moon")
#: Every declaration a game may be played in: what a bot plays when its hello names none.
ALL_DECLARATIONS = {"42": BASE_DECLARATIONS + ("nello", "sevens"), "moon": BASE_DECLARATIONS}
#: The kinds of request, one per decision.
REQUEST_TYPES = ("call", "declare", "discard", "play")
#: A line of a bot longer than this (bytes) is no message: a request is a few kB.
MAX_LINE = 64 * 1024
#: Request seeds are below this, so that any language holds them in a 32-bit integer.
SEED_BOUND = 2 ** 32
#: The fields of a bot's hello, and of an answer.
HELLO_FIELDS = ("type", "protocol", "name", "games", "calls", "declarations")
ANSWER_FIELDS = ("id", "choice")
#: A bot's name in its hello: at most this many characters.
MAX_NAME = 64


class ProtocolError(Exception):
    """A bot's line that breaks the protocol (not JSON, a wrong field, an option that was
    not offered); the message says what, in words, without quoting what the bot wrote
    (its choice may be a tile of its own hand, which an error shown at a table must not
    tell).

    >>> str(ProtocolError("not JSON"))
    'not JSON'
    """


@dataclass(frozen=True)
class Hello:
    """What a bot says it plays, from its hello.

    Attributes:
        name: The name the bot gives itself.
        games: The games it plays (``"42"``, ``"moon"``).
        calls: Whether it calls, declares and discards (False: it plays only, so
            it is seated only where the contract is given).
        declarations: The declarations it plays a hand of, as declarer or defender
            (its hello may leave them out: every declaration of its games).

    >>> hello = read_hello('{"type": "hello", "protocol": 1, "name": "b", "games": ["42"], '
    ...                    '"calls": false, "declarations": ["sixes"]}')
    >>> hello.calls, hello.declarations
    (False, ('sixes',))
    """

    name: str
    games: tuple[str, ...]
    calls: bool
    declarations: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """The hello as the bot would write it, every field given."""
        return {"type": "hello", "protocol": PROTOCOL, "name": self.name,
                "games": list(self.games), "calls": self.calls,
                "declarations": list(self.declarations)}


def engine_hello() -> dict[str, Any]:
    """The engine's first line to a bot."""
    return {"type": "hello", "protocol": PROTOCOL}


def _parse(line: bytes | str, what: str) -> Any:
    try:
        return parse_json(line, what)
    except PositionError as exc:
        raise ProtocolError(f"{what}: {exc.reason}") from None


def read_hello(line: bytes | str) -> Hello:
    """A bot's hello line, checked.

    Raises:
        ProtocolError: A line that is not a hello of this protocol.
    """
    data = _parse(line, "its hello")
    if not isinstance(data, dict) or data.get("type") != "hello":
        raise ProtocolError('its first line is no hello ({"type": "hello", ...})')
    for key in data:
        if key not in HELLO_FIELDS:
            raise ProtocolError(f"its hello has an unknown field {quoted(key)} (known: "
                                f"{', '.join(HELLO_FIELDS)})")
    protocol = data.get("protocol")
    if protocol != PROTOCOL or type(protocol) is not int:
        raise ProtocolError(f"its hello speaks protocol {quoted(protocol)}; this engine "
                            f"speaks {PROTOCOL}")
    name = data.get("name")
    if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME:
        raise ProtocolError(f"its hello's name must be text of 1..{MAX_NAME} characters, "
                            f"not {quoted(name)}")
    games = data.get("games")
    if not isinstance(games, list) or not games or any(g not in GAMES for g in games) \
            or len(set(games)) != len(games):
        raise ProtocolError(f"its hello's games must list some of {', '.join(GAMES)}, "
                            f"each once, not {quoted(games)}")
    calls = data.get("calls")
    if not isinstance(calls, bool):
        raise ProtocolError(f"its hello's calls must be true (it calls, declares and "
                            f"discards) or false (it plays only), not {quoted(calls)}")
    known = tuple(dict.fromkeys(d for g in games for d in ALL_DECLARATIONS[g]))
    declarations = data.get("declarations", list(known))
    if not isinstance(declarations, list) or not declarations or \
            any(d not in known for d in declarations) or \
            len(set(declarations)) != len(declarations):
        raise ProtocolError(f"its hello's declarations must list some of {', '.join(known)}, "
                            f"each once, not {quoted(declarations)}")
    return Hello(name, tuple(games), calls, tuple(declarations))


# ------------------------------------------------------------------ requests

def full_rules(view: CallView) -> dict[str, Any]:
    """Every house option of the view's game, given or not (the bot needs no defaults)."""
    return {name: getattr(view.rules, name) for name in OPTIONS[view.rules.game]}


def call_view_json(view: CallView) -> dict[str, Any]:
    """The seat's view between the deal and the opening lead: its own tiles, the rules,
    the shaker, the calls and the score (the three-player Moon declarer: the widow)."""
    out: dict[str, Any] = {"game": view.rules.game, "players": view.rules.players,
                           "rules": full_rules(view)}
    for key, value in view.to_json().items():
        out.setdefault(key, value)
    return out


def play_view_json(view: View) -> dict[str, Any]:
    """The seat's view during the play (docs/formats.md, a view), the game always named."""
    out: dict[str, Any] = {"game": view.game, "players": view.players}
    for key, value in view.to_json().items():
        out.setdefault(key, value)
    return out


def _request(kind: str, number: int, seed: int, view: dict, legal: list) -> dict[str, Any]:
    return {"type": kind, "id": number, "seed": seed, "view": view, "legal": legal}


def call_request(view: CallView, number: int, seed: int) -> dict[str, Any]:
    """The request for a call: its options are ``"pass"``, bids, ``"plunge"``, ``"splash"``.

    Args:
        view: The seat's view.
        number: The request's ``id``.
        seed: A seed the bot may draw its choice from (0..2**32-1).
    """
    return _request("call", number, seed, call_view_json(view), list(view.legal_calls()))


def declare_request(view: CallView, number: int, seed: int) -> dict[str, Any]:
    """The request for a declaration (``view``, ``number`` and ``seed`` as for
    `call_request`): each option is ``{"trump", "doubles"}``."""
    legal = [{"trump": trump, "doubles": doubles} for trump in view.legal_declarations()
             for doubles in view.doubles_options(trump)]
    return _request("declare", number, seed, call_view_json(view), legal)


def discard_request(view: CallView, number: int, seed: int) -> dict[str, Any]:
    """The three-player Moon declarer's discard (``view``, ``number`` and ``seed`` as for
    `call_request`): its options are its eight tiles."""
    return _request("discard", number, seed, call_view_json(view), view.eight())


def play_request(view: View, number: int, seed: int) -> dict[str, Any]:
    """The request for a play from the seat's ``view`` (``number`` and ``seed`` as for
    `call_request`): its options are the legal tiles."""
    return _request("play", number, seed, play_view_json(view), view.legal_tiles())


# ------------------------------------------------------------------ answers

def _same(a: Any, b: Any) -> bool:
    """JSON values equal in type too (30 is not 30.0 nor true)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def read_answer(request: Mapping[str, Any], line: bytes | str
                ) -> int | str | Declaration:
    """The choice a bot's answer line makes, checked against the request.

    Returns:
        A call (a bid, ``"pass"``, ``"plunge"``, ``"splash"``), a `Declaration`, or a
        tile number (a discard or a play).

    Raises:
        ProtocolError: A line that is not an answer to this request, or whose choice
            is none of its legal options.

    >>> request = {"type": "call", "id": 3, "legal": ["pass", 30, 31]}
    >>> read_answer(request, '{"id": 3, "choice": 31}')
    31
    """
    data = _parse(line, "its answer")
    if not isinstance(data, dict):
        raise ProtocolError('its answer is not an object {"id": ..., "choice": ...}')
    for key in data:
        if key not in ANSWER_FIELDS:
            raise ProtocolError(f"its answer has an unknown field {quoted(key)} (known: id, "
                                "choice)")
    if not _same(data.get("id"), request["id"]):
        raise ProtocolError(f"its answer's id is not the request's "
                            f"{request['id']}")
    if "choice" not in data:
        raise ProtocolError("its answer has no choice")
    choice = data["choice"]
    if not any(_same(choice, option) for option in request["legal"]):
        raise ProtocolError("its choice is not one of the legal options")
    kind = request["type"]
    if kind == "declare":
        return Declaration(choice["trump"], choice["doubles"])
    if kind in ("discard", "play"):
        return T.parse_tile(choice, "choice")
    return choice


def request_summary(request: Mapping[str, Any]) -> str:
    """The request in a few words, for an error: its kind, id and seat (never its tiles)."""
    seat = request.get("view", {}).get("seat")
    at = f" at {seat}" if seat in SEATS else ""
    return f"its {request['type']} request{at} (id {request['id']})"


__all__ = ["ALL_DECLARATIONS", "GAMES", "Hello", "MAX_LINE", "PROTOCOL", "ProtocolError",
           "REQUEST_TYPES", "call_request", "call_view_json", "declare_request",
           "discard_request", "engine_hello", "play_request", "play_view_json", "read_answer",
           "read_hello", "request_summary"]
