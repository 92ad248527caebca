"""`t42 arena`: two bots play duplicate pairs of hands (``--pairs``) or duplicate whole
games (``--games``); statistics of who did better."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import stat
import sys
from typing import Any, BinaryIO, Callable, Iterator

from ..batch.store import BatchError
from ..game.errors import PositionError, quoted
from ..game.game_record import read_game
from ..game.jsondoc import parse_json
from ..game.quick import parse_contract
from ..hidden.hint import default_threads
from ..play.arena import (MAX_HINT_DEALS, MAX_PAIRS, MAX_WORKERS, ArenaStats, check_run,
                          check_start, pair_from_json, play_pair, run_arena, stderr_progress,
                          summarize)
from ..play.bots import BOT_NAMES
from ..play.game_arena import (ARENA_BOTS, MAX_GAMES, GameArenaRun, check_game_run,
                               complete_games, format_game_stats, game_from_json,
                               play_duplicate_game, read_arena_records, run_game_arena,
                               summarize_games)
from ..play.program_bot import (COMMAND_PREFIX, DEFAULT_TIME_LIMIT, BotError, ProgramSpec,
                                check_time_limit, command_spec, named_spec)
from .common import guarded


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("arena", help="play two bots against each other in duplicate",
                       description="Duplicate play. --pairs: each seeded deal is played twice "
                                   "with the bots' seats swapped; the declarer rotates N, E, "
                                   "S, W and bids 30 in its longest pip suit (bots: "
                                   f"{', '.join(BOT_NAMES)}). Reports make and set rates, the "
                                   "paired points difference with a 95% interval and "
                                   "McNemar's test. --games: whole games to 7 marks (Moon: "
                                   "21 points), auctions and all, each a seeded sequence of "
                                   "deals played twice with the sides swapped (bots: "
                                   f"{', '.join(ARENA_BOTS)}). Reports games won, marks per "
                                   "hand paired by deal with a 95% t interval, make and set "
                                   "rates by contract kind and who declared; --records keeps "
                                   "every game as a game record and resumes from them. A bot "
                                   "may be a program of its own that speaks the bot protocol "
                                   "(docs/reference/bot-protocol.md): cmd:COMMAND, or a name "
                                   "given by --bot NAME=COMMAND.")
    p.add_argument("a", metavar="A", help="first bot: one of the project's, cmd:COMMAND (a "
                                          "program, its command split as a shell does), "
                                          "or a NAME of --bot")
    p.add_argument("b", metavar="B", help="second bot, likewise")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--pairs", type=int, default=None,
                      help=f"duplicate pairs of hands to play, 1..{MAX_PAIRS} (default 50)")
    size.add_argument("--games", type=int, default=None,
                      help=f"duplicate games to play, 1..{MAX_GAMES} (each twice)")
    p.add_argument("--game", choices=("42", "moon"), default="42",
                   help="with --games: 42 (default) or four-player Moon")
    p.add_argument("--rules", metavar="JSON", default=None,
                   help='with --games: house rules as the game record\'s "rules" object, '
                        'e.g. \'{"splash": true}\'')
    p.add_argument("--advice-deals", type=int, default=100,
                   help="with --games: deals per bid advice of the advice and hint bots "
                        "(default 100)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals, 0..2**63-1 (default 0)")
    p.add_argument("--hint-deals", type=int, default=100,
                   help=f"deals per hint of the hint bot, 1..{MAX_HINT_DEALS} (default 100)")
    p.add_argument("--workers", type=int, default=default_threads(),
                   help=f"processes playing pairs in parallel, 1..{MAX_WORKERS}; no more are "
                        "started than there are cores or pairs (default: one per core)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="with --games: play the games on the Dask cluster at ADDRESS "
                        "(tcp://host:port, as t42 batch takes it; each worker starts its "
                        "own bot processes); the records and the figures are those of a "
                        "local run at the same seed, and --records resumes as it does here")
    p.add_argument("--records", metavar="FILE",
                   help="write every hand (--games: every game, a game record) played to "
                        "FILE as JSON Lines as it is played; --games resumes from the "
                        "games FILE (a regular file) already holds, and plays again a "
                        "game not written whole or not played to its end")
    p.add_argument("--bot", action="append", default=[], metavar="NAME=COMMAND",
                   help="a program bot named NAME (repeatable): COMMAND runs it, split as a "
                        "shell does, e.g. --bot 'mine=python3 my_bot.py'")
    p.add_argument("--bot-time-limit", type=float, default=DEFAULT_TIME_LIMIT,
                   metavar="SECONDS",
                   help="seconds a program bot has for each decision; a late one stops the "
                        f"run (default {DEFAULT_TIME_LIMIT:g})")
    p.add_argument("--contract", action="append", default=[], metavar="D:DECL:BID",
                   help="with --pairs: play every seeded deal in this contract (e.g. "
                        "N:sixes:30, or JSON) instead of the rotating one; repeated, pair i "
                        "takes the next in turn")
    p.add_argument("--deals", metavar="FILE",
                   help="with --pairs: the deals and their contracts, one position a line "
                        "(e.g. from t42 deal --contract); pair i plays line i; --pairs "
                        "defaults to the lines")
    p.add_argument("--json", action="store_true", help="print the statistics as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    p.set_defaults(run=run_arena_cmd)


def format_stats(s: ArenaStats) -> str:
    d = s.difference
    # The bot column is as wide as the longer name (at least 8), so the columns align.
    w = max([8] + [len(b.name) for b in s.bots.values()])
    lines = [f"{s.a} vs {s.b}: {s.pairs} duplicate pairs, {s.hands} hands", "",
             f"  {'bot':{w}} {'declared':>8} {'made':>6} {'make rate':>10}  {'95%':>13}"
             f"  {'set rate':>9}  {'95%':>13}  {'mean pts declaring':>18}"]
    for b in s.bots.values():
        lines.append(f"  {b.name:{w}} {b.declared:8} {b.made:6} {b.make_rate:10.3f}  "
                     f"{b.make_rate_ci[0]:.3f} - {b.make_rate_ci[1]:.3f}  {b.set_rate:9.3f}  "
                     f"{b.set_rate_ci[0]:.3f} - {b.set_rate_ci[1]:.3f}  "
                     f"{b.mean_points_declaring:18.2f}")
    lines += ["",
              f"Paired difference ({s.a} - {s.b}, declaring points on the same deal): "
              f"{d.mean:+.2f} points, 95% CI {d.low:+.2f} .. {d.high:+.2f} "
              f"(se {d.se:.2f}, {s.z:+.1f} standard errors)",
              f"McNemar: {s.mcnemar.b} pairs only {s.a} made, {s.mcnemar.c} only {s.b} made; "
              f"exact p = {s.mcnemar.p_value:.3g}"]
    return "\n".join(lines)


def arena_record(data) -> tuple[dict, Callable[[], str]]:
    """One pair spec -> (both games of the pair, as `t42 arena --records` writes them, and a
    line of text), for `t42 batch arena`: the pairs of a long run spread over a cluster."""
    pair, seed, a, b, hint_deals, programs, start = pair_from_json(data)
    try:
        games = play_pair(pair, seed, a, b, hint_deals, programs, start)
    except BotError as exc:
        # The pair's line answers with the error; the other pairs go on.
        raise PositionError(f"bots[{[a, b].index(exc.bot)}]", str(exc), "BOT_FAILED") \
            from None
    answer = {"pair": pair, "seed": seed, "games": [g.to_json() for g in games]}
    return answer, lambda: f"pair {pair} (seed {seed}): " + "; ".join(
        f"{g.declaring_bot} declares {g.declarer} {g.trump}: {g.points} points, "
        f"{'made' if g.made else 'set'}" for g in games)


def arena_game_record(data) -> tuple[dict, Callable[[], str]]:
    """One game spec -> (both tables of the duplicate game, game records as `t42 arena
    --games --records` writes them, and a line of text), for `t42 batch arena-game`: the
    games of a long run spread over a cluster."""
    run, index = game_from_json(data)
    try:
        tables = play_duplicate_game(run, index)
    except BotError as exc:
        # The game's line answers with the error; the other games go on.
        raise PositionError(f"bots[{[run.a, run.b].index(exc.bot)}]", str(exc),
                            "BOT_FAILED") from None
    answer = {"index": index, "seed": run.seed, "tables": tables}
    return answer, lambda: f"game {index} (seed {run.seed}): " + "; ".join(
        f"table {t}: {r['meta']['arena']['NS']} N-S, {r['meta']['arena']['EW']} E-W, "
        f"{read_game(r).winner} won" for t, r in enumerate(tables))


class _RecordsFile:
    """``--records``: JSON Lines written as a run goes (nothing when no path is given)."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.file: Any = None

    def open(self, rows: list[dict] | None = None) -> str | None:
        """Create the file with ``rows`` in it; the refusal's text when it cannot be."""
        if not self.path:
            return None
        try:
            self.file = open(self.path, "w", encoding="utf-8")
            for row in rows or []:
                self.file.write(json.dumps(row) + "\n")
            self.file.flush()
        except (OSError, ValueError) as exc:     # ValueError: a NUL in the path
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return f"--records: cannot write {quoted(self.path)}: {reason}"
        return None

    def write(self, rows: list[dict]) -> None:
        """Append ``rows`` and flush; a failure (a full disk) stops the run with one line."""
        if self.file is None:
            return
        try:
            for row in rows:
                self.file.write(json.dumps(row) + "\n")
            self.file.flush()
        except OSError as exc:
            raise PositionError("--records", f"cannot write {quoted(self.path)}: "
                                f"{exc.strerror or exc}", "WRITE_FAILED") from None

    def close(self) -> None:
        if self.file is not None:
            try:
                self.file.close()
            except OSError:
                pass              # its error is the one a write raised


def _refuse(message: str) -> int:
    print(f"t42: error: {message}", file=sys.stderr)
    return 2


def _programs(args: argparse.Namespace) -> dict[str, ProgramSpec]:
    """The program bots of the run: each --bot NAME=COMMAND, and A or B if cmd:COMMAND."""
    limit = check_time_limit(args.bot_time_limit, "--bot-time-limit")
    specs: dict[str, ProgramSpec] = {}
    for text in args.bot:
        spec = named_spec(text, limit, set(ARENA_BOTS) | set(BOT_NAMES))
        if spec.name in specs:
            raise PositionError("--bot", f"{spec.name} is named twice", "INVALID_VALUE")
        specs[spec.name] = spec
    for field, name in (("a", args.a), ("b", args.b)):
        if name.startswith(COMMAND_PREFIX):
            try:
                specs[name] = command_spec(name, limit)
            except PositionError as exc:
                raise PositionError(field, f"{name}: {exc.reason}", exc.code) from None
    return specs


def _option_error(exc: PositionError) -> str:
    """A refused argument in one line: the bots' own errors name the bot already."""
    if exc.field in ("a", "b"):
        return exc.reason
    # An argument's name is an option's (contracts[i]: the i-th --contract); a file's line
    # is named as it is.
    head = re.match(r"[a-z_]+(?=$|[.\[:])", exc.field)
    if head is None:
        return f"{exc.field}: {exc.reason}"
    option = "--contract" if head.group() == "contracts" else \
        f"--{head.group().replace('_', '-')}"
    return f"{option}{exc.field[head.end():]}: {exc.reason}"


def _contracts(texts: list[str]) -> list[dict]:
    """--contract: each a contract in JSON or the quick notation (N:sixes:30)."""
    out = []
    for text in texts:
        contract = parse_json(text, "--contract") if text.lstrip().startswith("{") \
            else parse_contract(text)
        if not isinstance(contract, dict):
            raise PositionError("--contract", "must be a contract object", "INVALID_TYPE")
        if contract.get("kind", "standard") != "standard":
            raise PositionError("--contract", "a plunge or splash needs its declarer's "
                                "doubles, which a seeded deal does not promise: give the "
                                "deals with --deals", "INVALID_VALUE")
        out.append(contract)
    return out


def _deals(path: str | None) -> list[dict]:
    """--deals FILE: positions (a deal and its contract, no plays), one a line."""
    if path is None:
        return []
    f = _open_records(path, "--deals")
    if f is None:
        raise PositionError("--deals", f"cannot read {quoted(path)}: no such file",
                            "READ_FAILED")
    out = []
    with f:
        for number, line in enumerate(_record_lines(f, path), 1):
            if not line.strip():
                continue
            if len(out) == MAX_PAIRS:
                raise PositionError("--deals", f"{quoted(path)} holds more than {MAX_PAIRS} "
                                    "deals", "OUT_OF_RANGE")
            out.append(check_start(line, f"{path}: line {number}"))
    if not out:
        raise PositionError("--deals", f"{quoted(path)} holds no deal", "INVALID_VALUE")
    return out


@guarded
def run_arena_cmd(args: argparse.Namespace) -> int:
    try:
        programs = _programs(args)
    except PositionError as exc:
        return _refuse(_option_error(exc))
    if args.games is not None:
        return run_games_cmd(args, programs)
    for flag, given in (("--game", args.game != "42"), ("--rules", args.rules is not None),
                        ("--advice-deals", args.advice_deals != 100),
                        ("--scheduler", args.scheduler is not None)):
        if given:
            return _refuse(f"{flag}: only with --games")
    for name in (args.a, args.b):
        if name in ARENA_BOTS and name not in BOT_NAMES:
            return _refuse(f"{name}: a bot of --games only (--pairs: {', '.join(BOT_NAMES)})")
    # Every option is checked, and the records file opened, before any game is played.
    try:
        contracts = _contracts(args.contract)
        deals = _deals(args.deals)
        if args.pairs is None:
            args.pairs = len(deals) or 50
        check_run(args.a, args.b, args.pairs, args.seed, args.hint_deals, args.workers, 0,
                  programs, contracts, deals)
    except PositionError as exc:
        return _refuse(_option_error(exc))
    out = _RecordsFile(args.records)
    refused = out.open()
    if refused:
        return _refuse(refused)

    def sink(records):
        out.write([r.to_json() for r in records])

    try:
        progress = None if args.no_progress else stderr_progress(f"{args.a} vs {args.b}")
        records = run_arena(args.a, args.b, args.pairs, args.seed, hint_deals=args.hint_deals,
                            workers=args.workers, progress=progress, sink=sink,
                            programs=programs, contracts=contracts, deals=deals)
    except BotError as exc:
        return _bot_failed(exc, args.records)
    finally:
        out.close()
    stats = summarize(records, args.a, args.b)
    print(json.dumps(stats.to_json()) if args.json else format_stats(stats))
    return 0


def _bot_failed(exc: BotError, records: str | None) -> int:
    """A program bot failed a decision: the run stops; what was played is kept."""
    kept = f"; the finished ones are in {records}" if records else ""
    print(f"t42: error: {exc}; the run stopped{kept}", file=sys.stderr)
    return 1


def _rules_option(text: str | None) -> dict | None:
    if text is None:
        return None
    try:
        rules = json.loads(text)
    except ValueError:
        raise PositionError("--rules", f"not JSON: {quoted(text)}", "INVALID_JSON") from None
    if not isinstance(rules, dict):
        raise PositionError("--rules", "must be a JSON object of house rules", "INVALID_TYPE")
    return rules


#: The longest line a records file may hold. A game record is a few kB; a line past this
#: is no record, and is refused without being read whole.
MAX_RECORD_LINE = 4 * 2 ** 20

#: What `stat` calls the kinds of file that are not regular files.
_FILE_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
               (stat.S_ISSOCK, "a socket"))


def _open_records(path: str, option: str = "--records") -> BinaryIO | None:
    """The records file at ``path`` opened to be read, None when there is none.

    Only a regular file is read: a device (/dev/full, /dev/zero) never ends, a FIFO
    waits for a writer, and none of them can hold the games to resume from.
    """
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer (no effect on a file).
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:         # ValueError: a NUL in the path
        raise PositionError(option, f"cannot read {quoted(path)}: "
                            f"{getattr(exc, 'strerror', None) or exc}", "READ_FAILED") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = next((name for test, name in _FILE_KINDS if test(mode)), "not a file")
        keep = ": give a file to keep the games in" if option == "--records" else ""
        raise PositionError(option, f"{quoted(path)} is {kind}, not a regular file{keep}",
                            "NOT_A_FILE")
    return os.fdopen(fd, "rb")


def _record_lines(f: BinaryIO, path: str) -> Iterator[str]:
    """The lines of the records file ``f`` (at ``path``), each read with a bound."""
    for number, raw in enumerate(iter(lambda: f.readline(MAX_RECORD_LINE + 1), b""), 1):
        if len(raw) > MAX_RECORD_LINE:
            raise PositionError(f"{path}: line {number}", f"longer than "
                                f"{MAX_RECORD_LINE // 2 ** 20} MB: not a game record",
                                "LINE_TOO_LONG")
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError:
            raise PositionError(f"{path}: line {number}", "not UTF-8 text: not a game record",
                                "INVALID_ENCODING") from None


def _resume(path: str, run: GameArenaRun, first: int, games: int
            ) -> tuple[list[dict], int, list[str]]:
    """The complete games of ``run`` a records file already holds (the file is rewritten
    with them alone: a game with a table not written whole, or not played to its end,
    is played again), how many of games ``first`` .. ``first + games - 1`` they are,
    and a line for each game to be played again."""
    f = _open_records(path)
    if f is None:
        return [], 0, []
    try:
        with f:
            held = read_arena_records(_record_lines(f, path), run, path)
    except OSError as exc:
        raise PositionError("--records", f"cannot read {quoted(path)}: "
                            f"{exc.strerror or exc}", "READ_FAILED") from None
    notes = [f"line {line} of {path} is game {index}, table {table}, not played to its end:"
             f" game {index} is played again" for line, index, table in held.unfinished]
    if held.cut:
        notes.append(f"the last line of {path} was cut short: its game is played again")
    kept = [r for pair in complete_games(held.records).values() for r in pair]
    indices = {r["meta"]["arena"]["index"] for r in kept}
    return kept, sum(1 for i in indices if first <= i < first + games), notes


@contextlib.contextmanager
def _cluster(scheduler: str | None) -> Iterator[Any]:
    """``map_unordered`` on the Dask cluster at ``scheduler`` (`solver.batch.cluster.dask_map`),
    or None: the games are played here."""
    if scheduler is None:
        yield None
        return
    from ..batch.cluster import dask_map
    with dask_map(scheduler) as map_unordered:
        yield map_unordered


def run_games_cmd(args: argparse.Namespace, programs: dict[str, ProgramSpec]) -> int:
    """`t42 arena A B --games N`: the game arena."""
    for flag, given in (("--contract", bool(args.contract)), ("--deals", args.deals)):
        if given:
            return _refuse(f"{flag}: only with --pairs (whole games have auctions)")
    try:
        run = GameArenaRun(args.a, args.b, args.seed, args.game, _rules_option(args.rules),
                           args.hint_deals, args.advice_deals,
                           tuple(spec for name, spec in programs.items()
                                 if name in (args.a, args.b)))
        check_game_run(run, args.games, args.workers)
    except PositionError as exc:
        return _refuse(_option_error(exc))
    kept: list[dict] = []
    resumed = 0
    if args.records:
        kept, resumed, notes = _resume(args.records, run, 0, args.games)
        for note in notes:
            print(f"t42 arena: {note}", file=sys.stderr)
    out = _RecordsFile(args.records)
    # The file is written anew with the games it already held, then each game played.
    refused = out.open(kept)
    if refused:
        return _refuse(refused)
    if resumed and not args.no_progress:
        print(f"t42 arena: {resumed} of {args.games} games already in {args.records}",
              file=sys.stderr)

    done = {r["meta"]["arena"]["index"] for r in kept}
    try:
        progress = None if args.no_progress else \
            stderr_progress(f"{args.a} vs {args.b}", "games")
        with _cluster(args.scheduler) as map_unordered:
            played = run_game_arena(run, args.games, workers=args.workers, skip=done,
                                    progress=progress, sink=out.write,
                                    map_unordered=map_unordered) \
                if len(done & set(range(args.games))) < args.games else []
    except BotError as exc:
        return _bot_failed(exc, args.records)
    except BatchError as exc:   # a scheduler that does not answer
        return _refuse(f"--scheduler: {str(exc).replace(' (--connect-timeout)', '')}")
    finally:
        out.close()
    wanted = [r for r in kept if r["meta"]["arena"]["index"] < args.games] + played
    stats = summarize_games(wanted, args.a, args.b)
    print(json.dumps(stats.to_json()) if args.json else format_game_stats(stats))
    return 0
