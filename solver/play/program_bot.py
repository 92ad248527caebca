"""Bots that run as programs of their own, spoken to by the bot protocol
(docs/reference/bot-protocol.md; the messages are `solver.play.bot_protocol`'s).

A `ProgramSpec` names a program: the name it is seated under, its command line and the
time it has for each decision. `ProgramBot` is the project's `Bot` interface on top of
it, so that the arenas, the games and the service seat it as they seat the bots built
in (`solver.play.bots.make_bot` takes the specs by name).

The processes are kept in a pool per process of ours and lent out one decision at a
time: a request holds all its seat knows, so any process of a program may answer it,
and a pooled process serves the next table, seat or game. Dask workers and the
arena's worker processes each start their own (a process forked from one that had
programs running leaves them to its parent).

What goes wrong is bounded:

- each decision has ``time_limit`` seconds (the hello 30 at least); a bot that is
  late is stopped and the decision fails (`BotError`);
- a process that ends (a crash) is started again once for the same request; if that
  one ends too, the decision fails naming the bot and the request;
- an answer that is not JSON, not an answer to the request, or none of its legal
  options is refused: the decision fails and the refusal is logged with the request
  (logger ``t42.bots``, one JSON line), and the process, out of step, is stopped.

A failed decision raises; nothing the bot answered enters a record.

`solver.play.bots.make_bot` seats a program bot by a name this process knows
(`register`): the arenas register the programs of their options (in each process
that plays), a server the ones it was configured with when it starts (`configure`,
``t42 serve --bot NAME=COMMAND``); a client only ever names one of those.
"""

from __future__ import annotations

import atexit
import collections
import json
import logging
import multiprocessing.util
import os
import queue
import random
import re
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from ..game.call_view import CallView, Declaration
from ..game.errors import PositionError, SearchCancelled, quoted
from ..game.view import View
from . import bot_protocol as P

#: Seconds a bot has for each decision unless told otherwise.
DEFAULT_TIME_LIMIT = 10.0
#: The most a time limit may be (a day): past that it is a mistake.
MAX_TIME_LIMIT = 86400.0
#: Seconds a starting bot has for its hello, at least (a cold start of an interpreter).
START_LIMIT = 30.0
#: Seconds a bot has to exit once its input is closed, before it is killed.
EXIT_GRACE = 1.0
#: The prefix of a bot named by its command line (``cmd:python3 my_bot.py``).
COMMAND_PREFIX = "cmd:"
#: A configured bot's name: letters, digits, ``.``, ``_``, ``-``.
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")
#: Lines of a bot's standard error kept for its error message, and their length.
_STDERR_LINES, _STDERR_WIDTH = 3, 200
#: Idle processes kept per program; more are closed when handed back.
_MAX_IDLE = 8

log = logging.getLogger("t42.bots")


class BotError(Exception):
    """A program bot failed a decision: it was late, its process ended twice, or its
    answer was refused.

    Args:
        bot: The bot's name.
        reason: What went wrong, and with which request: its kind, seat and id, never a
            tile (`public` is fit to show at a table).
        detail: What the bot itself wrote (its answer, its last line on standard
            error), for its author: it may name the bot's own tiles.

    >>> error = BotError("b", "it ended (id 4)", "its last line on stderr: '6-6?'")
    >>> error.public
    'bot b: it ended (id 4)'
    >>> str(error)
    "bot b: it ended (id 4); its last line on stderr: '6-6?'"
    """

    def __init__(self, bot: str, reason: str, detail: str = "") -> None:
        super().__init__(bot, reason, detail)
        self.bot = bot
        self.reason = reason
        self.detail = detail

    @property
    def public(self) -> str:
        """The bot and what went wrong, without the bot's own words."""
        return f"bot {self.bot}: {self.reason}"

    def __str__(self) -> str:
        return self.public + (f"; {self.detail}" if self.detail else "")


@dataclass(frozen=True)
class ProgramSpec:
    """A program bot: its name, its command line and its time for a decision.

    Attributes:
        name: The name it is seated under (``cmd:...`` or a configured name).
        command: The program and its arguments.
        time_limit: Seconds it has for each decision.

    >>> command_spec("cmd:python3 examples/bots/random_bot.py").command
    ('python3', 'examples/bots/random_bot.py')
    """

    name: str
    command: tuple[str, ...]
    time_limit: float = DEFAULT_TIME_LIMIT


def check_time_limit(value: float, field: str = "time_limit") -> float:
    """``value`` when it is a number of seconds above 0 and at most a day, else
    `PositionError` naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not 0 < value <= MAX_TIME_LIMIT:
        raise PositionError(field, f"must be a number of seconds above 0 and at most "
                            f"{MAX_TIME_LIMIT:g}, not {quoted(value)}", "OUT_OF_RANGE")
    return float(value)


def parse_command(text: str, field: str) -> tuple[str, ...]:
    """The command line ``text`` split as a shell would (quotes kept together), without a
    shell; an error names ``field``."""
    try:
        words = tuple(shlex.split(text))
    except ValueError as exc:
        raise PositionError(field, f"cannot split the command {quoted(text)}: {exc}",
                            "INVALID_VALUE") from None
    if not words:
        raise PositionError(field, "the command is empty", "INVALID_VALUE")
    return words


def command_spec(name: str, time_limit: float = DEFAULT_TIME_LIMIT) -> ProgramSpec:
    """The program a ``cmd:COMMAND`` bot ``name`` runs, named by the whole text, with
    ``time_limit`` seconds for each decision."""
    if not name.startswith(COMMAND_PREFIX):
        raise PositionError("bot", f"{quoted(name)} does not start with {COMMAND_PREFIX}",
                            "INVALID_VALUE")
    return ProgramSpec(name, parse_command(name[len(COMMAND_PREFIX):], name),
                       check_time_limit(time_limit))


def named_spec(text: str, time_limit: float = DEFAULT_TIME_LIMIT,
               taken: Iterable[str] = (), field: str = "--bot") -> ProgramSpec:
    """A ``NAME=COMMAND`` option: a program bot seated as NAME.

    Args:
        text: The option's text, e.g. ``mybot=python3 my_bot.py --fast``.
        time_limit: Seconds for each decision.
        taken: Names that are not free (the bots built in).
        field: The option, for errors.
    """
    name, sep, command = text.partition("=")
    if not sep:
        raise PositionError(field, f"expected NAME=COMMAND, not {quoted(text)}",
                            "INVALID_VALUE")
    if not NAME_PATTERN.fullmatch(name):
        raise PositionError(field, f"the name {quoted(name)} must be 1..40 letters, digits, "
                            ". _ or - (starting with a letter or digit)", "INVALID_VALUE")
    if name in set(taken):
        raise PositionError(field, f"{name} is the name of a bot of the project's own",
                            "INVALID_VALUE")
    return ProgramSpec(name, parse_command(command, f"{field} {name}"),
                       check_time_limit(time_limit))


# ------------------------------------------------------------------ one process

class _Ended(Exception):
    """The process ended (or closed its output) before it answered."""


class _Program:
    """One running bot process: its hello read, asked one request at a time."""

    def __init__(self, spec: ProgramSpec) -> None:
        self.spec = spec
        self.requests = 0
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        try:
            # A session of its own: a Ctrl-C at the terminal reaches us, not the bot, and
            # stopping it stops whatever it started too.
            self.process = subprocess.Popen(spec.command, stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                            start_new_session=True)
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise BotError(spec.name, f"cannot start {quoted(' '.join(spec.command))}: "
                           f"{reason}") from None
        threading.Thread(target=self._read_out, daemon=True).start()
        self._err_reader = threading.Thread(target=self._read_err, daemon=True)
        self._err_reader.start()
        try:
            self._send(P.engine_hello())
            line = self._line(time.monotonic() + max(START_LIMIT, spec.time_limit), None)
        except _Ended:
            self.kill()
            how, last = self.ended()
            raise BotError(spec.name, f"it ended before its hello ({how})", last) from None
        except TimeoutError:
            self.kill()
            raise BotError(spec.name, f"no hello within {max(START_LIMIT, spec.time_limit):g}"
                           " s of its start") from None
        try:
            self.hello = P.read_hello(line)
        except P.ProtocolError as exc:
            self.kill()
            raise BotError(spec.name, str(exc), _said(line)) from None

    def _read_out(self) -> None:
        out = self.process.stdout
        assert out is not None
        try:
            while True:
                line = out.readline(P.MAX_LINE + 1)
                if not line:
                    break
                self._lines.put(line)
                if len(line) > P.MAX_LINE:
                    break   # no message is this long: the reader stops, the line is refused
        except (OSError, ValueError):
            pass
        self._lines.put(None)

    def _read_err(self) -> None:
        err = self.process.stderr
        assert err is not None
        try:
            for raw in iter(lambda: err.readline(P.MAX_LINE), b""):
                text = raw.decode("utf-8", "replace").strip()
                if text:
                    self._stderr.append(text[:_STDERR_WIDTH])
        except (OSError, ValueError):
            pass

    def _send(self, message: Mapping[str, Any]) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps(message).encode("utf-8") + b"\n")
            stdin.flush()
        except (OSError, ValueError):
            raise _Ended from None

    def _line(self, deadline: float, token: Any) -> bytes:
        """The bot's next line; `_Ended` at its end, TimeoutError past ``deadline``,
        `SearchCancelled` when ``token`` is cancelled or its deadline passes."""
        while True:
            now = time.monotonic()
            if token is not None and (token.cancelled or (token.deadline is not None
                                                          and now >= token.deadline)):
                raise SearchCancelled("the call was cancelled while the bot decided")
            wait = deadline - now
            if wait <= 0:
                raise TimeoutError
            try:
                # Short waits while a token may stop the call; one wait otherwise.
                line = self._lines.get(timeout=min(wait, 0.05) if token is not None else wait)
            except queue.Empty:
                continue
            if line is None:
                raise _Ended
            return line

    def ask(self, request: Mapping[str, Any], token: Any) -> bytes:
        """Send ``request`` and return the line that answers it."""
        self.requests += 1
        self._send(request)
        return self._line(time.monotonic() + self.spec.time_limit, token)

    def ended(self) -> tuple[str, str]:
        """How the process ended, and the last line of its standard error ("" if none)."""
        try:
            status = self.process.wait(EXIT_GRACE)
            how = f"exit status {status}" if status >= 0 else \
                f"killed by {signal.Signals(-status).name}"
        except (subprocess.TimeoutExpired, ValueError):
            how = "its output closed"
        # The reader may not have taken the process's last lines yet when it ends: wait
        # for it to reach the end of the pipe (a grandchild holding it open: the grace).
        self._err_reader.join(EXIT_GRACE)
        last = list(self._stderr)
        return how, f"its last line on stderr: {quoted(last[-1])}" if last else ""

    def kill(self) -> None:
        """Stop the process and everything it started, at once."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except OSError:
            pass
        self._reap()

    def close(self) -> None:
        """End of input: the bot should exit; it is killed if it does not, soon."""
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
            self.process.wait(EXIT_GRACE)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
        self.kill()

    def _reap(self) -> None:
        try:
            self.process.wait(EXIT_GRACE)
        except subprocess.TimeoutExpired:
            pass
        # Its output pipes are left to their reader threads, which end at their end of
        # file: closing one while its thread reads would wait for that read.
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
        except (OSError, ValueError):
            pass

    def forget(self) -> None:
        """In a forked copy of the process that started it: let go of its pipes, so that
        the bot sees its input end when its parent closes it (the bot stays the
        parent's). By descriptor: a reader thread of the parent may have held a pipe's
        lock when it forked, and the child has no such thread to free it."""
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            if pipe is None:
                continue
            try:
                os.close(pipe.fileno())
            except (OSError, ValueError):
                pass


class _Pool:
    """The idle processes of each program in this process, lent one decision at a time."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.idle: dict[tuple[str, ...], list[_Program]] = {}
        #: Programs a forked child let go of: kept, so that their pipes are never
        #: closed twice (their descriptors' numbers may be another file's by then).
        self.forgotten: list[_Program] = []
        self.hooked = 0   # the process whose exit closes the pool

    def borrow(self, spec: ProgramSpec) -> _Program:
        with self.lock:
            waiting = self.idle.get(spec.command) or []
            program = None
            while waiting and program is None:
                program = waiting.pop()
                if program.process.poll() is not None:   # it ended while idle
                    program = None
            if self.hooked != os.getpid():
                # Here rather than at import: a multiprocessing worker clears the
                # finalizers it inherits, and ends without running atexit.
                self.hooked = os.getpid()
                atexit.register(self.close_all)
                multiprocessing.util.Finalize(None, self.close_all, exitpriority=0)
        if program is None:
            return _Program(spec)
        program.spec = spec   # the same program under this name and time limit
        return program

    def give_back(self, program: _Program) -> None:
        with self.lock:
            waiting = self.idle.setdefault(program.spec.command, [])
            if len(waiting) < _MAX_IDLE and program.process.poll() is None:
                waiting.append(program)
                return
        program.close()

    def close_all(self) -> None:
        with self.lock:
            programs = [p for waiting in self.idle.values() for p in waiting]
            self.idle.clear()
        for program in programs:
            program.close()

    def after_fork(self) -> None:
        """In a forked child: the processes are the parent's; start afresh."""
        self.lock = threading.Lock()
        for waiting in self.idle.values():
            for program in waiting:
                program.forget()
                self.forgotten.append(program)
        self.idle = {}


_POOL = _Pool()
os.register_at_fork(after_in_child=_POOL.after_fork)


def close_all() -> None:
    """Close every idle program process of this process (their input ends; they exit)."""
    _POOL.close_all()


def hello_of(spec: ProgramSpec) -> P.Hello:
    """Start the program of ``spec`` (or take an idle one) and return its hello.

    Raises:
        BotError: It cannot be started or says no valid hello.
    """
    program = _POOL.borrow(spec)
    _POOL.give_back(program)
    return program.hello


# ------------------------------------------------------------------ the bot

def _log(event: str, spec: ProgramSpec, **fields: Any) -> None:
    log.warning(json.dumps({"event": event, "bot": spec.name, **fields}))


def _said(line: bytes) -> str:
    """What the bot wrote, quoted short, for its author."""
    return f"it wrote {quoted(line.decode('utf-8', 'replace').rstrip())}"


class ProgramBot:
    """The `Bot` interface spoken to a program by the bot protocol.

    Each decision is one request with the seat's view and its legal options, and a
    seed drawn from ``seed`` (the same seed, the same requests). A request for what the
    bot's hello says it does not play (a call of a bot that plays only, another game, a
    declaration it does not play) is refused with a `PositionError` naming ``bot``.

    Args:
        spec: The program.
        seed: Seeds the requests' seeds.

    Raises:
        BotError: From a decision: the bot was late, ended twice or answered wrongly.

    >>> import json
    >>> from solver import View
    >>> bot = ProgramBot(command_spec("cmd:python3 examples/bots/random_bot.py"), seed=1)
    >>> bot.choose(View(json.load(open("examples/view.json")))) in range(28)
    True
    """

    sees_deal = False

    def __init__(self, spec: ProgramSpec, seed: int = 0) -> None:
        self.spec = spec
        self.name = spec.name
        self.rng = random.Random(seed)
        #: A `CancelToken` a service call's deadline stops the decision with, or None.
        self.token: Any = None

    def call(self, view: CallView) -> int | str:
        return self._decide(P.call_request, view)  # type: ignore[return-value]

    def declare(self, view: CallView) -> Declaration:
        return self._decide(P.declare_request, view)  # type: ignore[return-value]

    def discard(self, view: CallView) -> int:
        return self._decide(P.discard_request, view)  # type: ignore[return-value]

    def choose(self, view: View) -> int:
        return self._decide(P.play_request, view)  # type: ignore[return-value]

    def _decide(self, build: Callable[..., dict[str, Any]], view: Any
                ) -> int | str | Declaration:
        seed = self.rng.randrange(P.SEED_BOUND)
        how = last = ""
        for attempt in (0, 1):
            program = _POOL.borrow(self.spec)
            request = build(view, program.requests + 1, seed)
            try:
                self._fits(program.hello, request)
                line = program.ask(request, self.token)
            except PositionError:
                _POOL.give_back(program)
                raise
            except _Ended:
                how, last = program.ended()
                program.kill()
                _log("bot_ended", self.spec, request=request, how=how, stderr=last,
                     restarted=attempt == 0)
                continue
            except TimeoutError:
                program.kill()
                _log("bot_late", self.spec, request=request, seconds=self.spec.time_limit)
                raise BotError(self.name, f"no answer within {self.spec.time_limit:g} s to "
                               f"{P.request_summary(request)}") from None
            except SearchCancelled:
                program.kill()
                raise
            try:
                choice = P.read_answer(request, line)
            except P.ProtocolError as exc:
                program.kill()   # out of step with us: a new process for the next request
                _log("bot_answer_refused", self.spec, reason=str(exc), request=request,
                     answer=line[:1000].decode("utf-8", "replace"))
                raise BotError(self.name, f"{exc}, answering {P.request_summary(request)}: "
                               "refused", _said(line)) from None
            _POOL.give_back(program)
            return choice
        raise BotError(self.name, f"its process ended twice on {P.request_summary(request)} "
                       f"(started again once; {how})", last)

    def _fits(self, hello: P.Hello, request: Mapping[str, Any]) -> None:
        """Refuse a request for what the bot's hello says it does not play."""
        view = request["view"]
        if request["type"] != "play" and not hello.calls:
            raise PositionError("bot", f"{self.name} plays only (its hello says calls: "
                                f"false): it cannot {request['type']}", "BOT_PLAYS_ONLY")
        if view["game"] not in hello.games:
            raise PositionError("bot", f"{self.name} does not play {view['game']} (its hello "
                                f"says games: {', '.join(hello.games)})", "BOT_GAME")
        trump = view.get("contract", {}).get("trump")
        if trump is not None and trump not in hello.declarations:
            raise PositionError("bot", f"{self.name} does not play {trump} (its hello says "
                                f"declarations: {', '.join(hello.declarations)})",
                                "BOT_DECLARATION")


# ------------------------------------------------------------------ seating

def check_seating(spec: ProgramSpec, game: str, calls: bool,
                  declarations: Iterable[str], where: str, field: str = "bot") -> P.Hello:
    """Start the program and check that its hello fits where it is to be seated.

    Args:
        spec: The program.
        game: ``"42"`` or ``"moon"``.
        calls: Whether it will call, declare and discard (whole games).
        declarations: The declarations its hands may be played in.
        where: The run in words (``"whole games"``), for the errors.
        field: The field a `PositionError` names.

    Raises:
        PositionError: It plays only where it must call, or not this game, or not
            every declaration; or it cannot be started or says no valid hello.
    """
    try:
        hello = hello_of(spec)
    except BotError as exc:
        raise PositionError(field, str(exc), "BOT_FAILED") from None
    if game not in hello.games:
        raise PositionError(field, f"{spec.name} does not play {game} (its hello says "
                            f"games: {', '.join(hello.games)})", "BOT_GAME")
    if calls and not hello.calls:
        raise PositionError(field, f"{spec.name} plays only (its hello says calls: false): "
                            f"it cannot be seated in {where}, where it would call: seat it "
                            "in hand pairs, whose contracts are given (--pairs, --contract, "
                            "--deals)", "BOT_PLAYS_ONLY")
    missing = [d for d in dict.fromkeys(declarations) if d not in hello.declarations]
    if missing:
        raise PositionError(field, f"{spec.name} does not play {', '.join(missing)} (its "
                            f"hello says declarations: {', '.join(hello.declarations)}), "
                            f"which {where} may be played in", "BOT_DECLARATION")
    return hello


# ------------------------------------------------------------------ the bots known by name

#: The program bots this process seats by name (`solver.play.bots.make_bot` asks here).
_KNOWN: dict[str, ProgramSpec] = {}
#: The hellos of the bots a server was configured with.
_HELLOS: dict[str, P.Hello] = {}


def register(specs: Iterable[ProgramSpec]) -> None:
    """Let `solver.play.bots.make_bot` seat the program bots ``specs`` by name in this
    process (a name given again takes its new command). Only the arenas' own options and a
    server's configuration come here, never a client's request."""
    for spec in specs:
        _KNOWN[spec.name] = spec


def registered(name: str) -> ProgramSpec | None:
    """The program bot this process knows by that name, or None."""
    return _KNOWN.get(name)


def configure(specs: Iterable[ProgramSpec]) -> dict[str, P.Hello]:
    """The program bots ``specs`` a server seats by name (``t42 serve --bot
    NAME=COMMAND``): each is started and its hello read before any is registered.

    Returns:
        Each name's hello.

    Raises:
        BotError: A program that cannot be started or says no valid hello (none is
            registered then).
    """
    specs = list(specs)
    hellos = {spec.name: hello_of(spec) for spec in specs}
    register(specs)
    _HELLOS.update(hellos)
    return dict(hellos)


def configured_hellos() -> dict[str, P.Hello]:
    """Each configured program bot's name and hello (`configure`), in the order
    configured: the program bots a server offers."""
    return dict(_HELLOS)


def table_programs(game: str) -> tuple[str, ...]:
    """The configured program bots that may sit at a table of ``game`` (``"42"`` or
    ``"moon"``): those whose hello says they call and play every declaration of it (a
    table's bots call, and their opponents may declare anything)."""
    return tuple(name for name, hello in _HELLOS.items()
                 if hello.calls and game in hello.games
                 and set(P.ALL_DECLARATIONS[game]) <= set(hello.declarations))


__all__ = ["BotError", "COMMAND_PREFIX", "DEFAULT_TIME_LIMIT", "ProgramBot", "ProgramSpec",
           "check_seating", "check_time_limit", "close_all", "command_spec", "configure",
           "configured_hellos", "hello_of", "named_spec", "parse_command", "register",
           "registered", "table_programs"]
