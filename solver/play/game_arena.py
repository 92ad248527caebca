"""The game arena: whole games between two bots, in duplicate, with statistics.

Duplicate game ``i`` is a seeded sequence of deals played twice: at table 0 bot A
sits N-S and B sits E-W, at table 1 the seats swap. Both tables get the same deals
in the same order and the same first shaker, and every seat a bot of its own seeded
by the game and the seat alone (`solver.play.bots.seat_seed`: the bot in N has the
same seed at both tables, whichever it is); the auctions, contracts and plays are
the bots' own, so the two games may last a different number of hands. Each table is
a game record (docs/formats.md; `solver.play.game_play.play_game`, a 42 hand stopped once its
outcome is decided), with ``meta.arena`` naming the run, the game's ``index``, the ``table`` and who
sat where, so a run's records are its whole result: `summarize_games` computes the
statistics from them alone, and a run can resume from the records it wrote.

Statistics (`GameArenaStats`):

* games won by each bot, over both tables of every game, with a 95% Wilson interval,
  and per duplicate game whether one bot won both tables or they split;
* marks (Moon: points) per hand for each side, and the paired difference per deal:
  on each deal dealt at both tables, d = A's net marks (A's marks - B's) at table 0
  plus the same at table 1, halved: A's lead per hand on that deal with the luck of
  the cards cancelled. Its mean, standard error, 95% t interval and size in standard
  errors;
* make and set rates by contract kind (pip trump, doubles, follow-me, sevens, nello,
  plunge, splash; Moon's 21 apart) for each bot, with Wilson intervals;
* how often each bot declared, and how many hands were thrown in.

Four-player games only (42, four-player Moon): three-player Moon has no sides to swap.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from ..game.auction import SEATS, read_rules
from ..game.errors import PositionError, quoted
from ..game.game_record import GameRecord, read_game
from ..game.jsondoc import check_keys, json_object
from ..game.rules import PIP_NAMES
from ..hidden.stats import MeanEstimate, mean_of, wilson_interval
from .arena import MAX_HINT_DEALS, MAX_SEED, MAX_WORKERS, GapShare, check_count, worker_count
from .bot_protocol import ALL_DECLARATIONS
from .bots import GAME_BOT_NAMES, SEAT_VIEW_ABLATIONS, seat_bots
from .game_play import play_game
from .processes import ProcessPool
from .program_bot import (COMMAND_PREFIX, DEFAULT_TIME_LIMIT, ProgramSpec, check_seating,
                          check_time_limit, command_spec)

#: The bots of the game arena: every game bot, and ``hint`` (advice's calls, the full
#: hint's play).
ARENA_BOTS = GAME_BOT_NAMES + ("hint",) + tuple(SEAT_VIEW_ABLATIONS)
#: Bounds of a run's arguments, checked before any game is played.
MAX_GAMES = 100_000
#: A game's deals and bots are seeded from the run's seed and the game's index.
_SEED_STRIDE = 1_000_003


@dataclass(frozen=True)
class GameArenaRun:
    """What a game arena run plays (`run_game_arena`; ``t42 arena A B --games N``).

    Attributes:
        a: The first bot's name (``random``, ``rule``, ``advice``, ``cheat``,
            ``advice-auction``, ``advice-plays``, ``advice-both``, ``advice-lead``,
            ``seat-view``, ``seat-view-calls``, ``hint``, or a variant of
            ``seat-view`` for ablations).
        b: The second bot's name.
        seed: The run's seed; each game's deals and bots are seeded from it and
            the game's index (each seat's bot: and the seat).
        game: ``"42"`` or ``"moon"`` (four players).
        rules: The house options (docs/formats.md); None: the standard rules.
        hint_deals: Deals a searching bot scores per play.
        advice_deals: Deals a searching bot scores per call.
        programs: The program bots among ``a`` and ``b``
            (`solver.play.program_bot.ProgramSpec`: ``cmd:COMMAND``, or a name
            given a command); each table's processes answer by the bot protocol.

    >>> from solver import GameArenaRun
    >>> GameArenaRun("rule", "random", seed=1).seats(table=1)
    ('random', 'rule')
    """

    a: str
    b: str
    seed: int = 0
    game: str = "42"
    rules: Mapping[str, Any] | None = None
    hint_deals: int = 100
    advice_deals: int = 100
    programs: tuple[ProgramSpec, ...] = ()

    @property
    def program_specs(self) -> dict[str, ProgramSpec]:
        """The program bots by name."""
        return {spec.name: spec for spec in self.programs}

    def check(self) -> None:
        """Raise `PositionError` (field: the argument's name) for a bad argument."""
        for name, bot in (("a", self.a), ("b", self.b)):
            if bot not in ARENA_BOTS and bot not in self.program_specs:
                raise PositionError(name, f"unknown bot {quoted(bot)} (one of "
                                    f"{', '.join(ARENA_BOTS)}, or a program: cmd:COMMAND)",
                                    "INVALID_VALUE")
        if self.game not in ("42", "moon"):
            raise PositionError("game", f"must be 42 or moon, not {quoted(self.game)}",
                                "INVALID_VALUE")
        for name, value, least, most in (("seed", self.seed, 0, MAX_SEED),
                                         ("hint_deals", self.hint_deals, 1, MAX_HINT_DEALS),
                                         ("advice_deals", self.advice_deals, 1, MAX_HINT_DEALS)):
            check_count(name, value, least, most)
        read_rules(dict(self.rules) if self.rules else None, self.game, 4)

    def check_programs(self) -> None:
        """Start each program bot and refuse one whose hello does not fit whole games
        (it plays only, or not this game, or not every declaration): `PositionError`
        naming ``a`` or ``b``."""
        for side, bot in (("a", self.a), ("b", self.b)):
            spec = self.program_specs.get(bot)
            if spec is not None:
                check_seating(spec, self.game, True, ALL_DECLARATIONS[self.game],
                              "whole games", side)

    def to_json(self) -> dict[str, Any]:
        """The run's part of each record's ``meta.arena`` (compared when resuming): with
        program bots, their commands too."""
        out = {"a": self.a, "b": self.b, "seed": self.seed, "game": self.game,
               "rules": dict(self.rules or {}), "hint_deals": self.hint_deals,
               "advice_deals": self.advice_deals}
        specs = self.program_specs
        if specs:
            out["programs"] = {name: list(spec.command) for name, spec in specs.items()
                               if name in (self.a, self.b)}
        return out

    def game_seed(self, index: int) -> int:
        """The seed of duplicate game ``index`` (both tables)."""
        return self.seed * _SEED_STRIDE + index

    def seats(self, table: int) -> tuple[str, str]:
        """(N-S bot, E-W bot) at a table."""
        return (self.a, self.b) if table == 0 else (self.b, self.a)


def play_table(run: GameArenaRun, index: int, table: int) -> dict[str, Any]:
    """One ``table`` (0 or 1) of duplicate game ``index`` of ``run``, played to the end:
    its game record as JSON."""
    game_seed = run.game_seed(index)
    ns_name, ew_name = run.seats(table)
    programs = run.program_specs
    # A bot per seat, seeded by the game and the seat alone (`seat_seed`): the same at
    # both tables, so a bot against itself plays them alike.
    ns = seat_bots(ns_name, game_seed, run.hint_deals, run.advice_deals, programs=programs)
    ew = seat_bots(ew_name, game_seed, run.hint_deals, run.advice_deals, programs=programs)
    meta = {"arena": dict(run.to_json(), index=index, table=table, NS=ns_name, EW=ew_name)}
    record = play_game(ns, ew, game=run.game, players=4, rules=run.rules,
                       first_shaker=SEATS[index % 4], seed=game_seed,
                       game_id=f"{run.a} vs {run.b}, seed {run.seed}, game {index}, "
                               f"table {table}",
                       meta=meta, play_out=False)
    return record.to_json()


def play_duplicate_game(run: GameArenaRun, index: int) -> list[dict[str, Any]]:
    """Both tables of duplicate game ``index`` of ``run``: two game records as JSON."""
    return [play_table(run, index, table) for table in (0, 1)]


def _game_job(job: tuple[GameArenaRun, int]) -> list[dict[str, Any]]:
    return play_duplicate_game(*job)


#: The fields of a game spec, one record of `t42 batch arena-game`.
GAME_FIELDS = ("index", "seed", "bots", "game", "rules", "hint_deals", "advice_deals",
               "bot_time_limit")


def game_from_json(data: Mapping[str, Any] | str) -> tuple[GameArenaRun, int]:
    """A game spec ``data`` (``{"index": 3, "seed": 0, "bots": ["rule", "random"]}``, a
    dict or JSON text; ``game``, ``rules``, ``hint_deals``, ``advice_deals`` as the run's, and
    ``bot_time_limit`` for a bot that is a program, ``cmd:COMMAND``) -> the run and the
    index of the duplicate game to play (`play_duplicate_game`), checked: a program bot's
    hello too (`GameArenaRun.check_programs`).

    >>> run, index = game_from_json('{"index": 2, "seed": 5, "bots": ["rule", "random"]}')
    >>> run.seats(table=0), index
    (('rule', 'random'), 2)
    """
    spec = json_object(data, "game spec", "a game spec")
    check_keys(spec, GAME_FIELDS, "", "a game spec")
    bots = spec.get("bots")
    if not isinstance(bots, list) or len(bots) != 2 or \
            not all(isinstance(b, str) for b in bots):
        raise PositionError("bots", "required: a list of two bot names", "INVALID_TYPE")
    limit = check_time_limit(spec.get("bot_time_limit", DEFAULT_TIME_LIMIT), "bot_time_limit")
    programs = tuple(command_spec(b, limit) for b in dict.fromkeys(bots)
                     if b.startswith(COMMAND_PREFIX))
    index = spec.get("index")
    if index is None:
        raise PositionError("index", "required: the duplicate game's index", "MISSING_FIELD")
    check_count("index", index, 0, MAX_SEED - MAX_GAMES)
    run = GameArenaRun(bots[0], bots[1], spec.get("seed", 0), spec.get("game", "42"),
                       spec.get("rules"), spec.get("hint_deals", 100),
                       spec.get("advice_deals", 100), programs)
    run.check()
    run.check_programs()
    return run, index


def check_game_run(run: GameArenaRun, games: int, workers: int, first_game: int = 0) -> None:
    """Raise `PositionError` (field: the argument's name) for a run's bad argument: the
    run's (`GameArenaRun.check`), 1..100,000 games, 1..1024 workers, a ``first_game``
    of 0 or more; then a program bot whose hello does not fit
    (`GameArenaRun.check_programs`)."""
    run.check()
    check_count("games", games, 1, MAX_GAMES)
    check_count("workers", workers, 1, MAX_WORKERS)
    check_count("first_game", first_game, 0, MAX_SEED - MAX_GAMES)
    run.check_programs()


def run_game_arena(run: GameArenaRun, games: int, *, workers: int = 1, first_game: int = 0,
                   skip: Iterable[int] = (),
                   progress: Callable[[int, int], None] | None = None,
                   sink: Callable[[list[dict[str, Any]]], None] | None = None,
                   map_unordered: Callable[[Callable[[Any], Any], list[Any]], Iterable[Any]]
                   | None = None) -> list[dict[str, Any]]:
    """Play duplicate games ``first_game`` .. ``first_game + games - 1`` (but those in
    ``skip``, already played); the records of each, two per game, by game then table.

    Each game is seeded by its index, so the records do not depend on the number
    of workers, and a run can resume from the records it wrote.

    Args:
        run: The bots, seed, game and rules.
        games: How many duplicate games.
        workers: Processes to play in (no more than the cores nor the games).
        first_game: The index of the first game.
        skip: Indices already played.
        progress: Called with (done, total) after each game.
        sink: Receives each game's two records as soon as it is played.
        map_unordered: Plays the games elsewhere: called with the function that plays one
            game and the games' jobs, it yields each job's result as it is done (in any
            order), e.g. on a Dask cluster (``t42 arena --scheduler``); None: here, in
            ``workers`` processes.

    Returns:
        Game records (dicts, docs/formats.md) with ``meta.arena`` naming the run,
        the game's ``index``, the ``table`` and who sat where.

    Raises:
        PositionError: A bad argument (the field is its name).

    >>> from solver import GameArenaRun, run_game_arena
    >>> records = run_game_arena(GameArenaRun("rule", "random", seed=1), games=1)
    >>> [(r["meta"]["arena"]["NS"], r["meta"]["arena"]["EW"]) for r in records]
    [('rule', 'random'), ('random', 'rule')]
    """
    check_game_run(run, games, workers, first_game)
    done = set(skip)
    todo = [i for i in range(first_game, first_game + games) if i not in done]
    jobs = ((run, i) for i in todo)
    out: list[dict[str, Any]] = []
    n = worker_count(workers, len(todo))

    def take(records: list[dict[str, Any]], k: int) -> None:
        out.extend(records)
        if sink:
            sink(records)
        if progress:
            progress(k + 1, len(todo))

    if map_unordered is not None:
        for k, records in enumerate(map_unordered(_game_job, list(jobs))):
            take(records, k)
    elif n == 1:
        for k, job in enumerate(jobs):
            take(_game_job(job), k)
    else:
        with ProcessPool(n) as pool:
            for k, records in enumerate(pool.imap_unordered(_game_job, jobs)):
                take(records, k)
    out.sort(key=lambda r: (r["meta"]["arena"]["index"], r["meta"]["arena"]["table"]))
    return out


# ------------------------------------------------------------------ reading records back

@dataclass(frozen=True)
class ArenaRecords:
    """What a records file holds for a run (`read_arena_records`).

    Attributes:
        records: The tables of the run played to their end (game records as JSON), in
            the file's order.
        unfinished: (line, game index, table) of each table whose game is not won
            (a record cut back): that game is to be played again, both tables.
        cut: Whether the last line was cut short (a run stopped while writing it); it
            is dropped and its game played again.
    """

    records: list[dict[str, Any]]
    unfinished: list[tuple[int, int, int]]
    cut: bool


def read_arena_records(lines: Iterable[str], run: GameArenaRun, where: str = "records"
                       ) -> ArenaRecords:
    """The records of ``run`` in the lines of a records file, read one line at a time.

    Raises `PositionError` for a line that is not a record of this run (another run's
    file is never mixed in), naming the line (``where`` prefixes the field). A table
    whose game is not won, or a last line cut short, is no error: the `ArenaRecords`
    say which, and their games are played again.
    """
    out: list[dict[str, Any]] = []
    unfinished: list[tuple[int, int, int]] = []
    for number, line, last in _numbered(lines):
        if not line.strip():
            continue
        here = f"{where}: line {number}"
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):
            if last and not line.endswith("\n"):
                return ArenaRecords(out, unfinished, True)
            raise PositionError(here, "not JSON", "INVALID_JSON") from None
        index, table = _place(data, run, here)
        try:
            game = read_game(data)
        except PositionError as exc:
            raise PositionError(f"{here}: {exc.field}", exc.reason, exc.code) from None
        if game.is_over:
            out.append(data)
        else:
            unfinished.append((number, index, table))
    return ArenaRecords(out, unfinished, False)


def _numbered(lines: Iterable[str]) -> Iterator[tuple[int, str, bool]]:
    """(1-based number, line, whether it is the last) for each of ``lines``."""
    rows = iter(lines)
    line = next(rows, None)
    number = 0
    while line is not None:
        number += 1
        following = next(rows, None)
        yield number, line, following is None
        line = following


def _place(data: Any, run: GameArenaRun, here: str) -> tuple[int, int]:
    """(game index, table) of a record of ``run``; `PositionError` (field ``here``) for a
    record of no arena run or of another one."""
    arena = data.get("meta", {}).get("arena") if isinstance(data, dict) and \
        isinstance(data.get("meta"), dict) else None
    if not isinstance(arena, dict):
        raise PositionError(here, "not a record of the game arena (no meta.arena)",
                            "INVALID_VALUE")
    expected = run.to_json()
    settings = {k: arena.get(k) for k in expected}
    if settings != expected:
        differ = [k for k in expected if settings[k] != expected[k]]
        raise PositionError(here, "a record of another run ("
                            + ", ".join(f"{k} {json.dumps(settings[k])}" for k in differ)
                            + ")", "INVALID_VALUE")
    index, table = arena.get("index"), arena.get("table")
    if type(index) is not int or not 0 <= index <= MAX_SEED or type(table) is not int \
            or table not in (0, 1):
        raise PositionError(here, "meta.arena: index must be a game number and table 0 or 1",
                            "INVALID_VALUE")
    if (arena.get("NS"), arena.get("EW")) != run.seats(table):
        raise PositionError(here, f"meta.arena: NS and EW must be the bots of table {table}",
                            "INVALID_VALUE")
    return index, table


def complete_games(records: Iterable[Mapping[str, Any]]) -> dict[int, list[Mapping[str, Any]]]:
    """game index -> its two tables' records (table 0, table 1); only games with both."""
    by_game: dict[int, dict[int, Mapping[str, Any]]] = {}
    for r in records:
        arena = r["meta"]["arena"]
        by_game.setdefault(arena["index"], {})[arena["table"]] = r
    return {i: [t[0], t[1]] for i, t in sorted(by_game.items()) if set(t) == {0, 1}}


# ------------------------------------------------------------------ statistics

@dataclass(frozen=True)
class KindFigures:
    """One bot's contracts of one kind: as declarer (made) and as defender (set).

    Attributes:
        declared: Contracts of the kind it declared.
        made: ... of which it made.
        make_rate: ``made / declared`` (None without any).
        make_rate_ci: Its 95% Wilson interval.
        defended: Contracts of the kind it defended.
        set: ... of which it set.
        set_rate: ``set / defended`` (None without any).
        set_rate_ci: Its 95% Wilson interval.
    """

    declared: int
    made: int
    make_rate: float | None
    make_rate_ci: tuple[float, float] | None
    defended: int
    set: int
    set_rate: float | None
    set_rate_ci: tuple[float, float] | None


@dataclass(frozen=True)
class BotGameFigures:
    """One bot's results over the run (`GameArenaStats.bots`).

    Attributes:
        role: ``"A"`` or ``"B"``: the run's first or second bot.
        name: The bot's name.
        tables_won: Games (tables) it won.
        won_both: Duplicate games in which it won both tables.
        per_hand: Marks (Moon: points) it scored per hand played.
        declared: Hands it declared.
        declared_share: ... of the hands with a contract.
        by_kind: Its `KindFigures` by contract kind.
    """

    role: str
    name: str
    tables_won: int
    won_both: int                   # duplicate games in which it won both tables
    per_hand: float                 # marks (points) it scored per hand played
    declared: int                   # hands it declared
    declared_share: float | None    # of the hands with a contract
    by_kind: dict[str, KindFigures] = field(default_factory=dict)


@dataclass(frozen=True)
class GameArenaStats:
    """The statistics of a game arena run, as `summarize_games` returns them.

    Attributes:
        a: The first bot.
        b: The second bot.
        unit: ``"marks"`` or ``"points"``.
        games: Complete duplicate games.
        tables: Games played (two per duplicate game).
        hands: Hands dealt, both tables.
        thrown_in: Hands thrown in.
        split: Duplicate games in which each bot won one table.
        a_win_share: A's share of the tables won.
        a_win_share_ci: Its 95% Wilson interval.
        deals_paired: Deals dealt at both tables of their game.
        difference: Per paired deal, A's lead per hand with the luck of the
            cards cancelled: its mean, standard error and 95% interval.
        z: The difference's mean in standard errors.
        bots: ``{"A": ..., "B": ...}``, each bot's `BotGameFigures`.
    """

    a: str
    b: str
    unit: str                       # "marks" or "points"
    games: int                      # complete duplicate games
    tables: int
    hands: int                      # hands dealt, both tables
    thrown_in: int
    split: int                      # games in which each bot won one table
    a_win_share: float | None       # A's share of the tables won
    a_win_share_ci: tuple[float, float]
    deals_paired: int               # deals dealt at both tables of their game
    difference: MeanEstimate        # per paired deal: A's lead per hand (see above)
    z: float
    bots: dict[str, BotGameFigures]

    def to_json(self) -> dict[str, Any]:
        """The statistics JSON, as `t42 arena --json` prints it (no NaN: null)."""
        d = self.difference
        return {"a": self.a, "b": self.b, "unit": self.unit, "games": self.games,
                "tables": self.tables, "hands": self.hands, "thrown_in": self.thrown_in,
                "split": self.split,
                "a_win_share": self.a_win_share, "a_win_share_ci": list(self.a_win_share_ci),
                "deals_paired": self.deals_paired,
                # JSON has no NaN or Infinity: a figure that does not exist is null.
                "difference": {"mean": _finite(d.mean), "se": _finite(d.se),
                               "ci95": [_finite(d.low), _finite(d.high)],
                               "z": _finite(self.z)},
                "bots": {k: asdict(v) for k, v in self.bots.items()}}


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def contract_kind(record: GameRecord, index: int) -> str | None:
    """The kind of hand ``index``'s contract in ``record`` for the make/set table
    (``"pip trump"``, ``"doubles"``, ``"sevens"``, ...), None when thrown in."""
    c = record.hands[index].contract
    if c is None:
        return None
    if c.kind != "standard":
        return c.kind                               # plunge, splash
    name = c.declaration.name
    if record.rules.game == "moon" and c.bid == 21:
        return "shoot the moon"
    return "pip trump" if name in PIP_NAMES else name


def _net(awarded: Mapping[str, int], mine: str, theirs: str) -> int:
    return awarded.get(mine, 0) - awarded.get(theirs, 0)


def finished_games(records: Iterable[Mapping[str, Any]]) -> dict[int, list[GameRecord]]:
    """game index -> its two tables (`GameRecord`), for the duplicate games of ``records``
    whose tables were both played to their end (an unfinished table has no winner)."""
    games = {}
    for index, pair in complete_games(records).items():
        played = [read_game(r) for r in pair]
        if all(g.is_over for g in played):
            games[index] = played
    return games


#: A deal of a run: (game index, hand index, the deal's tiles by seat).
DealKey = tuple[int, int, tuple[tuple[int, ...], ...]]


def deal_leads(games: Mapping[int, list[GameRecord]]) -> dict[DealKey, float]:
    """A's lead per hand on each deal dealt at both tables of its game, for the ``games``
    of a run (`finished_games`; A sits NS at table 0, EW at table 1): the mean of A's net
    marks at the two tables, so the luck of the deal cancels. Keyed by the deal itself
    too, so that runs of other bots on the same seed pair up by deal (`game_gap_share`)."""
    leads = {}
    for index, played in games.items():
        for k in range(min(len(played[0].hands), len(played[1].hands))):
            deal = played[0].hands[k].deal_ids
            key = (index, k, tuple(tuple(deal[s]) for s in sorted(deal)))
            leads[key] = (_net(played[0].hands[k].awarded, "NS", "EW")
                          + _net(played[1].hands[k].awarded, "EW", "NS")) / 2
    return leads


def game_gap_share(bot_vs_base: Iterable[Mapping[str, Any]] | None,
                   low_vs_base: Iterable[Mapping[str, Any]],
                   high_vs_base: Iterable[Mapping[str, Any]]) -> GapShare:
    """The share of the gap between a weaker bot (``low``) and a stronger one (``high``)
    that a bot closes, from the records of game-arena runs against one opponent
    (``base``) on the same seed, each with its bot first (A): ``bot_vs_base`` (None: the
    bot is ``base`` itself, whose lead over itself is 0 on every deal), ``low_vs_base``
    and ``high_vs_base``. On the deals dealt at both tables in every run,
    ``mean(bot - low) / mean(high - low)`` of the leads per hand over ``base``
    (`deal_leads`), with a 95% interval by the delta method on the deals (deals of one
    game are taken as independent, as the arena's paired difference takes them).

    Returns:
        The `solver.play.arena.GapShare`: ``pairs`` the deals common to the runs,
        ``bot_lead`` mean(bot - low), ``bound_lead`` mean(high - low), marks a hand.
    """
    low, high = (deal_leads(finished_games(run)) for run in (low_vs_base, high_vs_base))
    common = set(low) & set(high)
    bot: dict[DealKey, float] = {}
    if bot_vs_base is not None:
        bot = deal_leads(finished_games(bot_vs_base))
        common &= set(bot)
    deals = sorted(common)
    x = [bot.get(k, 0.0) - low[k] for k in deals]
    y = [high[k] - low[k] for k in deals]
    return GapShare.of(x, y)


def summarize_games(records: Iterable[Mapping[str, Any]], a: str, b: str) -> GameArenaStats:
    """Statistics of a run from its records (complete duplicate games only).

    Args:
        records: The run's game records (dicts with ``meta.arena``), in any
            order; a game with one table only, or with a table not played to its
            end, is left out.
        a: The first bot's name.
        b: The second bot's name.

    Returns:
        The `GameArenaStats`.

    >>> from solver import GameArenaRun, run_game_arena, summarize_games
    >>> records = run_game_arena(GameArenaRun("rule", "random", seed=1), games=1)
    >>> stats = summarize_games(records, "rule", "random")
    >>> stats.games, stats.bots["A"].tables_won, stats.unit
    (1, 2, 'marks')
    """
    games = finished_games(records)
    roles = {"A": a, "B": b}
    tables_won = {"A": 0, "B": 0}
    won_both = {"A": 0, "B": 0}
    scored = {"A": 0, "B": 0}
    declared = {"A": 0, "B": 0}
    kinds: dict[str, dict[str, list[int]]] = {"A": {}, "B": {}}
    hands = thrown = contracts = split = 0
    unit = "marks"
    for played in games.values():
        unit = "marks" if played[0].rules.in_marks else "points"
        winners = []
        for table, rec in enumerate(played):
            key_of = {"A": ("NS", "EW")[table], "B": ("EW", "NS")[table]}
            winner = next(role for role, key in key_of.items() if key == rec.winner)
            winners.append(winner)
            tables_won[winner] += 1
            for i, hand in enumerate(rec.hands):
                hands += 1
                for role, key in key_of.items():
                    scored[role] += hand.awarded.get(key, 0)
                kind = contract_kind(rec, i)
                if kind is None:
                    thrown += 1
                    continue
                contracts += 1
                assert hand.contract is not None
                decl = next(r for r, key in key_of.items()
                            if key == rec.rules.key_of(hand.contract.declarer))
                declared[decl] += 1
                defender = "B" if decl == "A" else "A"
                row_d = kinds[decl].setdefault(kind, [0, 0, 0, 0])
                row_d[0] += 1
                row_d[1] += bool(hand.made)
                row_f = kinds[defender].setdefault(kind, [0, 0, 0, 0])
                row_f[2] += 1
                row_f[3] += not hand.made
        if winners[0] == winners[1]:
            won_both[winners[0]] += 1
        else:
            split += 1
    diffs = list(deal_leads(games).values())
    paired = len(diffs)
    est = mean_of(diffs)
    z = est.mean / est.se if est.se and est.se > 0 else (0.0 if est.mean == 0 else math.inf)
    bots = {}
    for role in ("A", "B"):
        by_kind = {}
        for kind, (n_decl, made, n_def, sets) in sorted(kinds[role].items()):
            by_kind[kind] = KindFigures(
                declared=n_decl, made=made, make_rate=made / n_decl if n_decl else None,
                make_rate_ci=wilson_interval(made, n_decl) if n_decl else None,
                defended=n_def, set=sets, set_rate=sets / n_def if n_def else None,
                set_rate_ci=wilson_interval(sets, n_def) if n_def else None)
        bots[role] = BotGameFigures(
            role=role, name=roles[role], tables_won=tables_won[role], won_both=won_both[role],
            per_hand=scored[role] / hands if hands else math.nan, declared=declared[role],
            declared_share=declared[role] / contracts if contracts else None, by_kind=by_kind)
    n_tables = 2 * len(games)
    return GameArenaStats(
        a=a, b=b, unit=unit, games=len(games), tables=n_tables, hands=hands, thrown_in=thrown,
        split=split, a_win_share=tables_won["A"] / n_tables if n_tables else None,
        a_win_share_ci=wilson_interval(tables_won["A"], n_tables), deals_paired=paired,
        difference=est, z=z, bots=bots)


def format_game_stats(s: GameArenaStats) -> str:
    """The statistics ``s`` as text (`t42 arena --games`)."""
    d = s.difference
    a, b = s.bots["A"], s.bots["B"]
    share = "-" if s.a_win_share is None else f"{s.a_win_share:.3f}"
    lines = [f"{s.a} vs {s.b}: {s.games} duplicate games, {s.tables} games played, "
             f"{s.hands} hands ({s.thrown_in} thrown in)", "",
             f"Games won: {s.a} {a.tables_won}, {s.b} {b.tables_won}; {s.a}'s share {share} "
             f"(95% interval {s.a_win_share_ci[0]:.3f} - {s.a_win_share_ci[1]:.3f})",
             f"Duplicate games: {s.a} won both tables {a.won_both}, {s.b} won both "
             f"{b.won_both}, split {s.split}",
             f"{s.unit.capitalize()} per hand: {s.a} {a.per_hand:.3f}, {s.b} {b.per_hand:.3f}",
             f"Paired by deal ({s.deals_paired} deals at both tables), {s.a} - {s.b}: "
             f"{_signed(d.mean)} {s.unit} per hand, 95% CI {_signed(d.low)} .. "
             f"{_signed(d.high)} (se {_plain(d.se)}, {_signed(s.z, 1)} standard errors)", ""]
    # The bot column is as wide as the longer name (at least 8), so the columns align.
    w = max(8, len(a.name), len(b.name))
    lines.append(f"  {'bot':{w}} {'kind':15} {'declared':>8} {'make rate':>9} {'95%':>13}"
                 f"  {'defended':>8} {'set rate':>8} {'95%':>13}")
    for bot in (a, b):
        lines.append(f"  {bot.name:{w}} {'(all)':15} {bot.declared:8}  declared "
                     f"{_plain(bot.declared_share)} of the contracts")
        for kind, k in bot.by_kind.items():
            lines.append(f"  {bot.name:{w}} {kind:15} {k.declared:8} "
                         f"{_rate(k.make_rate, k.make_rate_ci)}"
                         f"  {k.defended:8} {_rate(k.set_rate, k.set_rate_ci)}")
    return "\n".join(lines)


def _signed(x: float, places: int = 3) -> str:
    return f"{x:+.{places}f}" if math.isfinite(x) else "-"


def _plain(x: float | None) -> str:
    return f"{x:.3f}" if x is not None and math.isfinite(x) else "-"


def _rate(rate: float | None, ci: Sequence[float] | None) -> str:
    if rate is None or ci is None:
        return f"{'-':>9} {'-':>13}"
    return f"{rate:9.3f} {ci[0]:.3f} - {ci[1]:.3f}"


__all__ = ["ARENA_BOTS", "ArenaRecords", "GAME_FIELDS", "GameArenaRun", "GameArenaStats",
           "check_game_run", "complete_games", "contract_kind", "deal_leads", "finished_games",
           "format_game_stats", "game_from_json", "game_gap_share", "play_duplicate_game",
           "play_table", "read_arena_records", "run_game_arena", "summarize_games"]
