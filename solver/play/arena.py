"""The arena: whole hands played between bots, in duplicate, with statistics.

Duplicate play: pair ``i`` deals the same seeded hand twice, bot A sitting
N/S in the first game and E/W in the second, so the luck of the deal
cancels; every seat has a bot of its own, seeded by the pair and the seat
(`solver.play.bots.seat_seed`), the same in both games. Contract of pair
``i``: the declarer rotates N, E, S, W; it bids 30 in its longest pip suit
(ties: the higher pip) and leads. In one game of
the pair A declares and B defends, in the other the roles swap, on the same
cards.

Fixed contracts: a run may give the contracts instead (``contracts``: each pair's
seeded deal in the next of them, in turn) or the deals with their contracts
(``deals``: pair ``i`` plays position ``i``). No bot calls in this arena, so a
program bot that plays only (`solver.play.program_bot`) is compared here on the same
cards and contracts as any other.

Statistics (`summarize`, computed from the hand records alone):

* each bot's make rate as declarer and set rate as defender, and its mean
  points as declarer;
* the paired difference per pair, d = (A's points as declarer) - (B's
  points as declarer) on the same deal (= half of A's total lead over B
  across the two games), its mean, standard error and 95% t interval;
* McNemar's test on the pairs whose make/set results differ;
* `gap_share`: the share of the gap between a baseline and an upper bound
  (rule and cheat) that a third bot (hint) closes, from two runs on the
  same seeds.
"""

from __future__ import annotations

import math
import random
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from ..game import tiles as T
from ..game.errors import PositionError, quoted
from ..game.jsondoc import json_object
from ..game.position import SEATS, Position
from ..game.rules import PIP_NAMES
from ..hidden.hint import default_threads
from ..hidden.stats import McNemar, MeanEstimate, mcnemar, mean_of, ratio_of_means, wilson_interval
from .bots import BOT_NAMES, Bot, bots_for_seats, seat_bots, seat_view
from .processes import ProcessPool
from .program_bot import ProgramSpec, check_seating, check_time_limit, command_spec

BID = 30

#: Bounds of the arguments of a run (and of a pair spec of `t42 batch arena`), checked
#: before any game is played. A pair of rule bots takes milliseconds and one of hint bots
#: of 100 deals seconds; 100,000 pairs is 50 times the benchmark's run, and their records
#: (kept for the statistics) a few hundred MB.
MAX_PAIRS = 100_000
#: Deals per hint of the hint bot: the bound of bid advice (`solver.hidden.bidding.MAX_DEALS`).
MAX_HINT_DEALS = 100_000
#: Seeds and pair indices are below 2**63.
MAX_SEED = 2 ** 63 - 1
#: More worker processes than this is refused as a mistake; fewer are clamped to the
#: cores and the pairs (`worker_count`).
MAX_WORKERS = 1024


def deal_for_pair(pair: int, seed: int) -> Position:
    """The opening position of ``pair``: a deal seeded by the run's ``seed`` and the pair's
    index, and the rotating contract."""
    rng = random.Random(seed * 1_000_003 + pair)
    tiles = list(range(T.N_TILES))
    rng.shuffle(tiles)
    hands = {SEATS[s]: sorted(tiles[7 * s:7 * s + 7], reverse=True) for s in range(4)}
    declarer = SEATS[pair % 4]
    trump = longest_suit(hands[declarer])
    return Position({"hands": {s: [T.name_of(t) for t in h] for s, h in hands.items()},
                     "contract": {"declarer": declarer, "trump": trump, "bid": BID},
                     "plays": []})


def longest_suit(hand: Sequence[int]) -> int:
    """The pip borne by the most tiles of the hand (ties: the higher pip)."""
    return max(range(7), key=lambda pip: (sum(1 for t in hand if pip in T.ENDS[t]), pip))


@dataclass(frozen=True)
class HandRecord:
    """One game: who sat where, the deal, the plays and the declaring side's points.

    Attributes:
        pair: The pair's index.
        game: 0: A sits N/S, 1: A sits E/W.
        ns: The bot at N and S.
        ew: The bot at E and W.
        declarer: The declarer's seat.
        trump: The declaration.
        hands: The deal.
        plays: The plays, in order.
        points: The declaring side's points.
        made: Whether the contract made.
        contract: The whole contract when the run gave it (fixed contracts), else
            None: the rotating contract at 30.
    """

    pair: int
    game: int            # 0: A sits N/S, 1: A sits E/W
    ns: str
    ew: str
    declarer: str
    trump: str
    hands: dict[str, list[str]]
    plays: list[str]
    points: int
    made: bool
    contract: dict[str, Any] | None = None

    @property
    def declaring_bot(self) -> str:
        """The bot on the declaring side."""
        return self.ns if self.declarer in "NS" else self.ew

    def to_json(self) -> dict:
        out = asdict(self)
        if self.contract is None:
            del out["contract"]   # the rotating contract: records as they always were
        return out


def play_hand(start: Position, ns: Callable[[int], Bot], ew: Callable[[int], Bot]
              ) -> Position:
    """Play a hand from ``start`` to the end, each seat's tile chosen by a bot of its
    own: ``ns(seat)`` makes the bots of N and S, ``ew(seat)`` those of E and W (e.g.
    `solver.play.bots.seat_bots`; `solver.play.bots.bots_for_seats` refuses one
    object for two seats).

    A bot is handed the seat's `View` only (`solver.play.bots.seat_view`); the one
    that declares ``sees_deal`` (cheat) is handed the position itself.
    """
    bots = bots_for_seats(ns, ew, range(len(start.hands)))
    plays: list[int] = list(start.plays)
    p = start
    while not p.is_complete:
        bot = bots[p.to_move_index]
        plays.append(bot.choose(p if getattr(bot, "sees_deal", False) else seat_view(p)))
        p = start.with_plays(plays)
    return p


def play_pair(pair: int, seed: int, a: str, b: str, hint_deals: int = 100,
              programs: Mapping[str, ProgramSpec] | None = None,
              start: Mapping[str, Any] | None = None) -> list[HandRecord]:
    """Both games of ``pair`` of the run ``seed`` (bot ``a`` at N/S, then ``a`` at E/W,
    against ``b``); searching bots score ``hint_deals`` deals a play.

    ``programs`` names the program bots among ``a`` and ``b``; ``start`` is the pair's
    position when the run gives it (a fixed contract), else the deal and contract are
    `deal_for_pair`'s."""
    given = start is not None
    opening = Position(dict(start)) if start is not None else deal_for_pair(pair, seed)
    records = []
    for game, (ns_name, ew_name) in enumerate(((a, b), (b, a))):
        # A bot per seat, seeded by the pair and the seat alone (`seat_seed`): the same
        # in both games of the pair.
        bot_seed = seed * 1_000_003 + pair
        end = play_hand(opening, seat_bots(ns_name, bot_seed, hint_deals, programs=programs),
                        seat_bots(ew_name, bot_seed, hint_deals, programs=programs))
        records.append(HandRecord(
            pair=pair, game=game, ns=ns_name, ew=ew_name,
            declarer=SEATS[opening.contract.declarer],
            trump=opening.contract.declaration.name,
            hands={SEATS[s]: [T.name_of(t) for t in h] for s, h in opening.hands.items()},
            plays=[T.name_of(t) for t in end.plays], points=end.points,
            made=end.makes(end.points),
            contract=opening.contract.to_json() if given else None))
    return records


def contract_start(pair: int, seed: int, contract: Mapping[str, Any]) -> dict[str, Any]:
    """Pair ``pair``'s deal seeded by the run's ``seed`` (as `deal_for_pair` deals it), in
    ``contract``: a position's JSON."""
    deal = deal_for_pair(pair, seed).to_json()
    return {"hands": deal["hands"], "contract": dict(contract), "plays": []}


def check_start(data: Mapping[str, Any] | str, where: str) -> dict[str, Any]:
    """A position a fixed-contract pair starts from, ``data`` (a dict or JSON text): a 42
    deal with its contract and no play, checked (`PositionError` naming ``where``); its
    JSON."""
    try:
        position = Position(data)
    except PositionError as exc:
        raise PositionError(f"{where}: {exc.field}", exc.reason, exc.code) from None
    if position.game != "42":
        raise PositionError(where, "the hand pairs are 42 deals", "INVALID_VALUE")
    if position.plays:
        raise PositionError(where, "a pair starts at the opening lead: give no plays",
                            "INVALID_VALUE")
    return position.to_json()


#: The fields of a pair spec, one record of `t42 batch arena`.
PAIR_FIELDS = ("pair", "seed", "bots", "hint_deals", "contract", "bot_time_limit")


def pair_from_json(data: Mapping[str, Any] | str) -> tuple[int, int, str, str, int,
                                                            dict[str, ProgramSpec],
                                                            dict[str, Any] | None]:
    """A pair spec ``data`` (``{"pair": 3, "seed": 0, "bots": ["rule", "random"],
    "hint_deals": 100}``; seed 0 and 100 hint deals by default; a dict or JSON text) ->
    the arguments of `play_pair`.

    A bot may be a program, ``cmd:COMMAND`` (its ``bot_time_limit`` seconds a decision,
    10 by default); ``contract`` (a contract JSON) plays the pair's seeded deal in that
    contract instead of the rotating one."""
    spec = json_object(data, "pair", "a pair spec")
    for key in spec:
        if key not in PAIR_FIELDS:
            raise PositionError(str(key), "unknown field of a pair spec", "UNKNOWN_FIELD")

    def count(name: str, default: int | None, least: int, most: int) -> int:
        value = spec.get(name, default)
        if value is None:
            raise PositionError(name, "required", "MISSING_FIELD")
        if type(value) is not int:
            raise PositionError(name, "must be an integer", "INVALID_TYPE")
        if value < least:
            raise PositionError(name, f"must be at least {least}", "OUT_OF_RANGE")
        if value > most:
            raise PositionError(name, f"must be at most {most}", "OUT_OF_RANGE")
        return value

    pair, seed = count("pair", None, 0, MAX_SEED), count("seed", 0, 0, MAX_SEED)
    hint_deals = count("hint_deals", 100, 1, MAX_HINT_DEALS)
    bots = spec.get("bots")
    if bots is None:
        raise PositionError("bots", "required (two bot names)", "MISSING_FIELD")
    if not isinstance(bots, list) or len(bots) != 2:
        raise PositionError("bots", "must be a list of two bot names", "INVALID_TYPE")
    limit = check_time_limit(spec.get("bot_time_limit", 10.0), "bot_time_limit")
    programs: dict[str, ProgramSpec] = {}
    for i, name in enumerate(bots):
        if isinstance(name, str) and name.startswith("cmd:"):
            programs[name] = command_spec(name, limit)
        elif name not in BOT_NAMES:
            raise PositionError(f"bots[{i}]", f"unknown bot (one of {', '.join(BOT_NAMES)}, "
                                "or a program: cmd:COMMAND)", "INVALID_VALUE")
    start = None
    if spec.get("contract") is not None:
        start = check_start(contract_start(pair, seed, spec["contract"]), "contract")
    return pair, seed, bots[0], bots[1], hint_deals, programs, start


def _pair_job(job: tuple) -> list[HandRecord]:
    return play_pair(*job)


def cores() -> int:
    """The cores this process may run on."""
    return default_threads()


def worker_count(workers: int, pairs: int) -> int:
    """The processes a run of ``pairs`` pairs uses when asked for ``workers``: no more
    than the cores (the work is CPU-bound) nor than the pairs. 1: played in this process."""
    return max(1, min(workers, cores(), pairs))


def check_run(a: str, b: str, pairs: int, seed: int, hint_deals: int, workers: int,
              first_pair: int, programs: Mapping[str, ProgramSpec] | None = None,
              contracts: Sequence[Mapping[str, Any]] = (),
              deals: Sequence[Mapping[str, Any]] = ()) -> None:
    """Raise `PositionError` (field: the argument's name) for a bad argument of
    `run_arena`: the bots ``a`` and ``b`` (built in, or named in ``programs``),
    ``pairs``, ``seed``, ``hint_deals``, ``workers``, ``first_pair``, ``contracts`` and
    ``deals``; then a program bot whose hello does not fit (not 42, or not every
    declaration the pairs are played in)."""
    programs = programs or {}
    for field, name in (("a", a), ("b", b)):
        if name not in BOT_NAMES and name not in programs:
            raise PositionError(field, f"unknown bot {quoted(name)} (one of "
                                f"{', '.join(BOT_NAMES)}, or a program: cmd:COMMAND)",
                                "INVALID_VALUE")
    for field, value, least, most in (("pairs", pairs, 1, MAX_PAIRS),
                                      ("seed", seed, 0, MAX_SEED),
                                      ("hint_deals", hint_deals, 1, MAX_HINT_DEALS),
                                      ("workers", workers, 1, MAX_WORKERS),
                                      ("first_pair", first_pair, 0, MAX_SEED - MAX_PAIRS)):
        check_count(field, value, least, most)
    if contracts and deals:
        raise PositionError("contracts", "give the contracts or the deals, not both",
                            "INVALID_VALUE")
    for i, contract in enumerate(contracts):
        check_start(contract_start(first_pair, seed, contract), f"contracts[{i}]")
    if deals and first_pair + pairs > len(deals):
        raise PositionError("pairs", f"{first_pair + pairs} pairs asked for, "
                            f"{len(deals)} deals given", "OUT_OF_RANGE")
    if contracts or deals:
        played = [c["trump"] for c in contracts] or \
            [d["contract"]["trump"] for d in deals[first_pair:first_pair + pairs]]
    else:
        played = list(PIP_NAMES)   # the rotating contract: the declarer's longest suit
    for field, name in (("a", a), ("b", b)):
        if name in programs:
            check_seating(programs[name], "42", False, played, "these hand pairs", field)


def pair_starts(pairs: int, seed: int, first_pair: int = 0,
                contracts: Sequence[Mapping[str, Any]] = (),
                deals: Sequence[Mapping[str, Any]] = ()) -> Iterator[dict[str, Any] | None]:
    """Each pair's given start (`play_pair`'s ``start``) for ``pairs`` pairs from
    ``first_pair`` of the run ``seed``, made as it is asked for: the seeded deal in the
    next of ``contracts``, or the pair's position of ``deals``; None for the rotating
    contract when neither is given."""
    for i in range(first_pair, first_pair + pairs):
        if contracts:
            yield contract_start(i, seed, contracts[(i - first_pair) % len(contracts)])
        elif deals:
            yield dict(deals[i])
        else:
            yield None


def check_count(field: str, value: object, least: int, most: int) -> None:
    """Raise `PositionError` naming ``field`` unless ``value`` is a whole number in
    ``least..most`` (a bool is not one)."""
    if type(value) is not int:
        raise PositionError(field, f"must be a whole number, not {quoted(value)}",
                            "INVALID_TYPE")
    if not least <= value <= most:
        raise PositionError(field, f"must be {least}..{most}, not {quoted(value)}",
                            "OUT_OF_RANGE")


def _process_pool(workers: int) -> ProcessPool:
    return ProcessPool(workers)


def run_arena(a: str, b: str, pairs: int, seed: int = 0, *, hint_deals: int = 100,
              workers: int = 1, first_pair: int = 0,
              progress: Callable[[int, int], None] | None = None,
              sink: Callable[[list[HandRecord]], None] | None = None,
              programs: Mapping[str, ProgramSpec] | None = None,
              contracts: Sequence[Mapping[str, Any]] = (),
              deals: Sequence[Mapping[str, Any]] = ()) -> list[HandRecord]:
    """Play ``pairs`` duplicate pairs of bot ``a`` against bot ``b`` from pair
    ``first_pair``, dealt from ``seed``, the searching bots scoring ``hint_deals`` deals
    a play; the records, by pair then game. ``progress`` gets (done, total) after each
    pair.

    ``workers`` > 1 plays pairs in up to that many processes, no more than the
    cores nor than the pairs (`worker_count`; each pair is seeded by its index,
    so the records do not depend on the number of workers). ``sink`` receives
    each pair's records as soon as it is played (to save a long run as it goes).

    ``programs`` names the program bots among ``a`` and ``b``. Fixed contracts:
    ``contracts`` (contract JSON) plays each pair's seeded deal in the next of them, in
    turn; ``deals`` (positions: a deal and its contract) plays pair ``i`` from
    ``deals[i]``.

    Raises `PositionError` for an argument out of range (`check_run`: 1..100,000
    pairs, 1..100,000 hint deals, 1..1024 workers, seeds 0..2**63-1) or a program bot
    whose hello does not fit, before any game is played; `BotError` when a program
    bot fails a decision (the pairs done are in ``sink`` already). Jobs are made as
    the workers take them, not listed first.
    """
    check_run(a, b, pairs, seed, hint_deals, workers, first_pair, programs, contracts, deals)
    programs = {name: programs[name] for name in (a, b) if programs and name in programs}
    jobs = ((i, seed, a, b, hint_deals, programs, start) for i, start in
            zip(range(first_pair, first_pair + pairs),
                pair_starts(pairs, seed, first_pair, contracts, deals)))
    out: list[HandRecord] = []
    n = worker_count(workers, pairs)
    if n == 1:
        for k, job in enumerate(jobs):
            recs = play_pair(*job)
            out.extend(recs)
            if sink:
                sink(recs)
            if progress:
                progress(k + 1, pairs)
    else:
        with _process_pool(n) as pool:
            for k, recs in enumerate(pool.imap_unordered(_pair_job, jobs)):
                out.extend(recs)
                if sink:
                    sink(recs)
                if progress:
                    progress(k + 1, pairs)
    out.sort(key=lambda r: (r.pair, r.game))
    return out


def stderr_progress(label: str, unit: str = "pairs") -> Callable[[int, int], None]:
    """A progress line on standard error, headed ``label``: done/total ``unit``, time spent
    and time left."""
    start = time.monotonic()
    tty = sys.stderr.isatty()

    def show(done: int, total: int) -> None:
        # A terminal gets one line redrawn; a log gets a line every 5%.
        if not tty and done != total and done % max(1, total // 20):
            return
        elapsed = time.monotonic() - start
        left = elapsed / done * (total - done) if done else 0.0
        sys.stderr.write(f"{chr(13) if tty else ''}{label}: {done}/{total} {unit}, "
                         f"{elapsed:.0f} s, about {left:.0f} s left" + ("" if tty else "\n"))
        if tty and done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()
    return show


@dataclass(frozen=True)
class BotFigures:
    """One bot's results over the run (`ArenaStats.bots`).

    Attributes:
        name: The bot.
        declared: Hands it declared.
        made: ... of which it made.
        make_rate: Their share.
        make_rate_ci: Its 95% Wilson interval.
        defended: Hands it defended.
        set: ... of which it set.
        set_rate: Their share.
        set_rate_ci: Its 95% Wilson interval.
        mean_points_declaring: Its mean points as declarer.
    """

    name: str
    declared: int
    made: int
    make_rate: float
    make_rate_ci: tuple[float, float]
    defended: int
    set: int
    set_rate: float
    set_rate_ci: tuple[float, float]
    mean_points_declaring: float


@dataclass(frozen=True)
class ArenaStats:
    """The statistics of a duplicate run of A against B (see the module docstring).

    Attributes:
        a: Bot A.
        b: Bot B.
        pairs: Complete pairs.
        hands: Hands played.
        bots: Each bot's `BotFigures`.
        difference: Per pair, A's declaring points minus B's on the same deal.
        z: ``difference.mean / difference.se``.
        mcnemar: McNemar's test: b, A made and B did not; c, B made and A did not.
    """

    a: str
    b: str
    pairs: int
    hands: int
    bots: dict[str, BotFigures]
    difference: MeanEstimate      # per pair: A's declaring points - B's on the same deal
    z: float                      # difference.mean / difference.se
    mcnemar: McNemar              # b: A made and B did not; c: B made and A did not

    def to_json(self) -> dict:
        """The statistics JSON, as `t42 arena --pairs --json` prints it."""
        d = self.difference
        return {
            "a": self.a, "b": self.b, "pairs": self.pairs, "hands": self.hands,
            "bots": {k: asdict(v) for k, v in self.bots.items()},
            # One pair (or pairs that all differ alike) gives no standard error: null,
            # since JSON has no NaN or Infinity.
            "difference": {"mean": d.mean, "se": _finite(d.se),
                           "ci95": [_finite(d.low), _finite(d.high)], "z": _finite(self.z)},
            "mcnemar": {"a_only_made": self.mcnemar.b, "b_only_made": self.mcnemar.c,
                        "chi2": self.mcnemar.chi2, "p_value": self.mcnemar.p_value},
        }


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _pairs_of(records: Iterable[HandRecord], a: str, b: str) -> dict[int, dict[str, HandRecord]]:
    """pair -> {declaring bot: its game}; only complete pairs."""
    by_pair: dict[int, dict[str, HandRecord]] = {}
    for r in records:
        by_pair.setdefault(r.pair, {})[r.declaring_bot if a != b else str(r.game)] = r
    keys = {a, b} if a != b else {"0", "1"}
    return {k: v for k, v in sorted(by_pair.items()) if set(v) == keys}


def summarize(records: Sequence[HandRecord], a: str, b: str) -> ArenaStats:
    """Statistics of a run of bot ``a`` against bot ``b`` from its hand ``records``."""
    pairs = _pairs_of(records, a, b)
    ka, kb = (a, b) if a != b else ("0", "1")
    bots = {}
    for name, me, other in ((a, ka, kb), (b, kb, ka)):
        decl = [g[me] for g in pairs.values()]
        dfn = [g[other] for g in pairs.values()]
        made = sum(r.made for r in decl)
        sets = sum(not r.made for r in dfn)
        n = len(decl)
        bots[name if a != b else me] = BotFigures(
            name=name, declared=n, made=made, make_rate=made / n if n else math.nan,
            make_rate_ci=wilson_interval(made, n), defended=n, set=sets,
            set_rate=sets / n if n else math.nan, set_rate_ci=wilson_interval(sets, n),
            mean_points_declaring=sum(r.points for r in decl) / n if n else math.nan)
    diffs = [g[ka].points - g[kb].points for g in pairs.values()]
    est = mean_of(diffs)
    z = est.mean / est.se if est.se and est.se > 0 else (0.0 if est.mean == 0 else math.inf)
    only_a = sum(1 for g in pairs.values() if g[ka].made and not g[kb].made)
    only_b = sum(1 for g in pairs.values() if g[kb].made and not g[ka].made)
    return ArenaStats(a=a, b=b, pairs=len(pairs), hands=2 * len(pairs), bots=bots,
                      difference=est, z=z, mcnemar=mcnemar(only_a, only_b))


@dataclass(frozen=True)
class GapShare:
    """Share of the baseline-to-bound gap a bot closes, from paired runs on the same pairs.

    Attributes:
        pairs: The pairs in both runs.
        closed: mean(d_bot) / mean(d_bound).
        low: The 95% interval's low end (delta method).
        high: ... and its high end.
        bot_lead: mean(d_bot): the bot's lead over the baseline, points per pair.
        bound_lead: mean(d_bound).
    """

    pairs: int
    closed: float           # mean(d_bot) / mean(d_bound)
    low: float              # 95% interval by the delta method
    high: float
    bot_lead: float         # mean(d_bot): the bot's lead over the baseline, points per pair
    bound_lead: float       # mean(d_bound)

    @classmethod
    def of(cls, x: Sequence[float], y: Sequence[float]) -> "GapShare":
        """From the paired leads: ``x[i]`` the bot's over the baseline, ``y[i]`` the
        bound's, on the same unit ``i``."""
        n = len(x)
        if n < 2:
            return cls(n, math.nan, math.nan, math.nan, math.nan, math.nan)
        r, low, high = ratio_of_means(x, y)
        return cls(n, r, low, high, sum(x) / n, sum(y) / n)

    def to_json(self) -> dict:
        """The share's fields as JSON."""
        return asdict(self)


def gap_share(bot_vs_base: Sequence[HandRecord], bound_vs_base: Sequence[HandRecord],
              bot: str, bound: str, base: str) -> GapShare:
    """How much of the (bound - base) lead the bot's (bot - base) lead covers, from the
    records of the runs ``bot_vs_base`` and ``bound_vs_base``.

    Both runs must use the same seed: only the pairs present in both count,
    and the per-pair leads are paired, so the interval (delta method on the
    ratio of means) accounts for their correlation.
    """
    p1, p2 = _pairs_of(bot_vs_base, bot, base), _pairs_of(bound_vs_base, bound, base)
    common = sorted(set(p1) & set(p2))
    x = [p1[i][bot].points - p1[i][base].points for i in common]
    y = [p2[i][bound].points - p2[i][base].points for i in common]
    return GapShare.of(x, y)


def records_from_json(rows: Iterable[dict[str, Any]]) -> list[HandRecord]:
    """The arena's hand records from their JSON ``rows`` (a records file read back)."""
    return [HandRecord(**row) for row in rows]
