"""Hostile input to the arena and its bots.

* Every exception class of the project pickles: an error raised in a worker
  process is rebuilt in the parent (it used to hang `t42 arena` for good).
* Bad options are refused before any game is played or any process started;
  workers are clamped to the cores and the pairs; jobs are made lazily.
* `--records` naming a directory or an unwritable path: one error line.
* Bots but cheat are handed the seat's view only, never the deal.
"""

from __future__ import annotations

import enum
import gc
import importlib
import inspect
import json
import os
import pickle
import pkgutil
import subprocess
import sys
import tracemalloc
import types
import typing

import pytest

import server
import solver
from solver.game import tiles as T
from solver.game.errors import ArgumentError, PositionError
from solver.game.position import SEATS, Position
from solver.game.view import View
from solver.play import arena
from solver.play.arena import deal_for_pair, play_hand, run_arena
from solver.play.bots import BOT_NAMES, CheatBot, make_bot, seat_bots, seat_view

TIMEOUT = 120     # seconds: a hung command fails the test instead of hanging the suite


# ------------------------------------------------------------------ pickling


def _project_modules() -> list[types.ModuleType]:
    mods = []
    for pkg in (solver, server):
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            if info.name.rsplit(".", 1)[-1] == "__main__":
                continue
            mods.append(importlib.import_module(info.name))
    return mods


def _exception_classes() -> list[type]:
    found = {}
    for mod in _project_modules():
        for obj in vars(mod).values():
            if inspect.isclass(obj) and issubclass(obj, BaseException) and \
                    obj.__module__ == mod.__name__:
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return [found[k] for k in sorted(found)]


def _sample(cls: type, name: str, annotation: object) -> object:
    """A value for parameter ``name`` of ``cls.__init__``, from its annotation."""
    if annotation is str:
        return f"{name} of {cls.__name__}, with ünïcode"
    if annotation is int:
        return 15
    if inspect.isclass(annotation) and issubclass(annotation, enum.Enum):
        return list(annotation)[-1]
    if inspect.isclass(annotation) and issubclass(annotation, BaseException):
        return _instance(annotation)
    raise AssertionError(f"{cls.__qualname__}.__init__ takes {name}: {annotation!r}; "
                         "teach _sample a value for it")


def _instance(cls: type) -> BaseException:
    init = cls.__init__
    if init in (BaseException.__init__, Exception.__init__) or \
            not isinstance(init, types.FunctionType):
        return cls("a message, with ünïcode")
    if cls.__module__.startswith("connectrpc"):       # a library's error held by ours
        from connectrpc.code import Code
        return cls(Code.INVALID_ARGUMENT, "a message")
    hints = typing.get_type_hints(init)
    params = list(inspect.signature(init).parameters.values())[1:]
    return cls(*(_sample(cls, p.name, hints.get(p.name)) for p in params
                 if p.default is inspect.Parameter.empty))


def _state(value: object, depth: int = 0) -> object:
    """What makes two errors equal: type, message, args and attributes (errors held in
    attributes compared the same way)."""
    if isinstance(value, BaseException) and depth < 3:
        return (type(value), str(value), value.args,
                {k: _state(v, depth + 1) for k, v in sorted(vars(value).items())})
    return value


def test_the_walk_finds_the_exceptions_of_solver_and_server():
    names = {c.__qualname__ for c in _exception_classes()}
    assert {"PositionError", "ArgumentError", "SearchCancelled", "Aborted", "BadRequest",
            "BatchInterrupted", "Overloaded"} <= names


@pytest.mark.parametrize("cls", _exception_classes(), ids=lambda c: f"{c.__module__}.{c.__name__}")
def test_every_exception_class_pickles_to_an_equal_error(cls):
    exc = _instance(cls)
    exc.add_note("a note added on the way up (kept in the error's __dict__)")
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(exc, protocol))
        assert type(back) is cls
        assert _state(back) == _state(exc)


def test_a_clipped_position_error_pickles_unchanged():
    exc = PositionError("f" * 500, "r" * 5000, "TOO_LONG")
    back = pickle.loads(pickle.dumps(exc))
    assert (back.field, back.reason, back.code, str(back)) == \
        (exc.field, exc.reason, exc.code, str(exc))
    assert len(back.field) == 200 and back.field.endswith("...")
    arg = pickle.loads(pickle.dumps(ArgumentError("deadline", "must be finite")))
    assert (arg.argument, arg.reason, str(arg)) == ("deadline", "must be finite",
                                                   "deadline: must be finite")


#: Run first in every child Python of these tests: a bounded address space (a job list of
#: 2**63 pairs fails fast instead of filling the memory) and, when asked, no process pool
#: (a run that would start one fails instead of forking without bound).
_GUARD = """import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
"""
_NO_POOL = """import concurrent.futures, multiprocessing.context
def _no_pool(*args, **kwargs):
    raise SystemExit("a process pool was started")
multiprocessing.context.BaseContext.Pool = _no_pool
concurrent.futures.ProcessPoolExecutor.__init__ = _no_pool
"""


def _run(code: str, *args: str, no_pool: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _GUARD + (_NO_POOL if no_pool else "") + code,
                           *args], capture_output=True, text=True, timeout=TIMEOUT)


def test_an_error_in_a_worker_process_reaches_the_caller():
    # A pair that raises in a worker: the caller gets the same error, not a pool that
    # waits for good (the subprocess's timeout fails the test if it hangs).
    out = _run("""
import json, solver.play.arena as a
from solver.game.errors import PositionError
real = a.play_pair
def play_pair(pair, *rest):
    if pair == 1:
        raise PositionError("hint_deals", "a worker's error", "WORKER")
    return real(pair, *rest)
a.play_pair = play_pair
a.cores = lambda: 2
try:
    a.run_arena("random", "random", 2, workers=2)
except PositionError as exc:
    print(json.dumps(exc.to_json()))
""")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"field": "hint_deals", "reason": "a worker's error",
                                      "code": "WORKER"}


def test_an_error_that_does_not_pickle_still_reaches_the_caller():
    out = _run("""
import solver.play.arena as a
class Odd(Exception):
    def __init__(self, x, y):
        super().__init__(f"odd {x} {y}")
def play_pair(*args):
    raise Odd(1, 2)
a.play_pair = play_pair
a.cores = lambda: 2
# Many runs: stopping a pool on an error while other jobs are in flight once hung
# (multiprocessing.Pool.terminate, now and then); every run must come back.
for _ in range(12):
    try:
        a.run_arena("random", "random", 6, workers=2)
    except Exception as exc:
        print(type(exc).__name__, exc)
""")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["RuntimeError Odd: odd 1 2"] * 12


# ------------------------------------------------------------- the options


def t42(*args: str, no_pool: bool = False) -> subprocess.CompletedProcess:
    return _run("from solver.cli import main\nsys.exit(main(sys.argv[1:]))", *args,
                no_pool=no_pool)


def _one_error_line(out: subprocess.CompletedProcess, *words: str) -> str:
    assert out.returncode == 2, (out.returncode, out.stderr[-2000:])
    lines = out.stderr.splitlines()
    assert len(lines) == 1, out.stderr[-2000:]
    assert lines[0].startswith("t42: error: ")
    assert "Traceback" not in out.stderr
    for w in words:
        assert w in lines[0]
    assert out.stdout == ""
    return lines[0]


@pytest.mark.parametrize("option, value, words", [
    ("--hint-deals", "0", ("--hint-deals", "1..")),
    ("--hint-deals", "-1", ("--hint-deals",)),
    ("--hint-deals", str(10 ** 9), ("--hint-deals", "100000")),
    ("--pairs", "0", ("--pairs",)),
    ("--pairs", str(2 ** 63), ("--pairs", "100000")),
    ("--seed", "-1", ("--seed",)),
    ("--seed", str(2 ** 64), ("--seed",)),
    ("--workers", "0", ("--workers",)),
    ("--workers", "-3", ("--workers",)),
    ("--workers", str(2 ** 63), ("--workers", "1024")),
])
def test_bad_options_are_refused_before_anything_runs(option, value, words):
    out = t42("arena", "hint", "random", "--pairs", "1", "--no-progress", option, value,
              no_pool=True)
    _one_error_line(out, *words)


@pytest.mark.parametrize("kwargs, field", [
    ({"hint_deals": 0}, "hint_deals"), ({"hint_deals": -1}, "hint_deals"),
    ({"hint_deals": 100_001}, "hint_deals"), ({"hint_deals": True}, "hint_deals"),
    ({"pairs": 0}, "pairs"), ({"pairs": 2.0}, "pairs"), ({"seed": -1}, "seed"),
    ({"seed": 2 ** 63}, "seed"), ({"workers": 0}, "workers"), ({"workers": 1025}, "workers"),
    ({"first_pair": -1}, "first_pair"), ({"a": "oracle"}, "a"),
])
def test_run_arena_refuses_bad_arguments_before_playing(kwargs, field, monkeypatch):
    played = []
    monkeypatch.setattr(arena, "play_pair", lambda *a: played.append(a) or [])
    args = {"a": "hint", "b": "random", "pairs": 1, **kwargs}
    with pytest.raises(PositionError) as err:
        run_arena(args.pop("a"), args.pop("b"), args.pop("pairs"), **args)
    assert err.value.field == field
    assert played == []


@pytest.mark.parametrize("kwargs, field", [
    ({"pairs": 2 ** 63}, "pairs"), ({"workers": 2 ** 63}, "workers"),
    ({"first_pair": 2 ** 63}, "first_pair"), ({"pairs": 10 ** 6, "workers": 2}, "pairs"),
])
def test_run_arena_refuses_huge_arguments_before_playing(kwargs, field):
    # In a child Python with a bounded address space and no process pool: these are the
    # values that built a job list of 2**63 pairs, or forked without bound.
    out = _run(f"""
import json, solver.play.arena as a
a.play_pair = lambda *args: sys.exit("a pair was played")
try:
    a.run_arena("hint", "random", **{{"pairs": 1, **{kwargs!r}}})
except a.PositionError as exc:
    print(json.dumps(exc.to_json()))
""", no_pool=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout)["field"] == field


def test_a_pair_spec_with_a_seed_out_of_range_is_refused():
    with pytest.raises(PositionError) as err:
        arena.pair_from_json({"pair": 0, "seed": 2 ** 63, "bots": ["rule", "rule"]})
    assert err.value.field == "seed"
    with pytest.raises(PositionError) as err:
        arena.pair_from_json({"pair": 0, "bots": ["hint", "rule"], "hint_deals": 10 ** 6})
    assert err.value.field == "hint_deals"


class _CountingPool:
    """Stands in for the process pool: records its size and plays the jobs in process."""

    sizes: list[int] = []

    def __init__(self, workers: int) -> None:
        self.sizes.append(workers)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def imap_unordered(self, func, jobs):
        return map(func, jobs)


@pytest.mark.parametrize("workers, pairs, cores, expected", [
    (40, 1, 2, None),         # one pair: played here, no pool at all
    (40, 3, 2, 2),            # no more processes than cores
    (40, 3, 8, 3),            # nor than pairs
    (2, 5, 8, 2),
    (1, 5, 8, None),
])
def test_workers_are_clamped_to_the_cores_and_the_pairs(workers, pairs, cores, expected,
                                                        monkeypatch):
    _CountingPool.sizes = []
    monkeypatch.setattr(arena, "_process_pool", _CountingPool)
    monkeypatch.setattr(arena, "cores", lambda: cores)
    monkeypatch.setattr(arena, "play_pair",
                        lambda pair, *rest: [types.SimpleNamespace(pair=pair, game=0)])
    done = run_arena("random", "random", pairs, workers=workers)
    assert [r.pair for r in done] == list(range(pairs))
    assert _CountingPool.sizes == ([] if expected is None else [expected])
    assert arena.worker_count(workers, pairs) == (expected or 1)


def test_forty_workers_for_one_pair_start_no_process():
    # Real pairs, real processes: the children alive while each pair's records arrive.
    seen = []
    import multiprocessing

    def sink(records):
        seen.append(len(multiprocessing.active_children()))

    records = run_arena("random", "rule", 1, seed=3, workers=40, sink=sink)
    assert [r.pair for r in records] == [0, 0]
    assert seen == [0]


def test_forty_workers_on_two_cores_start_two_processes(monkeypatch):
    import multiprocessing
    monkeypatch.setattr(arena, "cores", lambda: 2)
    seen = []
    records = run_arena("random", "rule", 4, seed=3, workers=40,
                        sink=lambda r: seen.append(len(multiprocessing.active_children())))
    assert sorted({r.pair for r in records}) == [0, 1, 2, 3]
    assert len(seen) == 4 and max(seen) == 2


def test_jobs_are_made_lazily(monkeypatch):
    # The most pairs allowed, stopped after two: nothing close to a job list is built.
    calls = []

    def play_pair(*job):
        calls.append(job)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return []

    monkeypatch.setattr(arena, "play_pair", play_pair)
    tracemalloc.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_arena("random", "random", arena.MAX_PAIRS, workers=1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [c[0] for c in calls] == [0, 1]
    assert peak < 200_000, peak          # a list of 100,000 jobs takes megabytes


# ------------------------------------------------------------ --records


@pytest.mark.parametrize("where", ["dir", "under_file", "missing_dir", "readonly"])
def test_records_that_cannot_be_written_are_refused_before_play(where, tmp_path):
    target = {"dir": tmp_path, "under_file": tmp_path / "f" / "r.jsonl",
              "missing_dir": tmp_path / "nope" / "r.jsonl",
              "readonly": tmp_path / "ro" / "r.jsonl"}[where]
    (tmp_path / "f").write_text("x")
    if where == "readonly":
        (tmp_path / "ro").mkdir()
        (tmp_path / "ro").chmod(0o500)
        if os.access(tmp_path / "ro", os.W_OK):      # root writes anywhere
            pytest.skip("running as root: a read-only directory is writable")
    # hint-deals 100000 on 100000 pairs would run for days: refused before any game
    out = t42("arena", "hint", "hint", "--pairs", "100000", "--hint-deals", "100000",
              "--no-progress", "--records", str(target))
    line = _one_error_line(out, "--records")
    assert len(line) < 300


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_records_on_a_full_disk_end_with_one_error_line():
    out = t42("arena", "rule", "random", "--pairs", "3", "--workers", "1", "--no-progress",
              "--records", "/dev/full")
    _one_error_line(out, "--records", "No space left on device")


def test_records_are_written(tmp_path):
    out = t42("arena", "rule", "random", "--pairs", "2", "--no-progress", "--json",
              "--records", str(tmp_path / "r.jsonl"))
    assert out.returncode == 0, out.stderr
    rows = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert sorted((r["pair"], r["game"]) for r in rows) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert json.loads(out.stdout)["pairs"] == 2


# ------------------------------------------------------ bots see their view


def _twin_deals() -> list[tuple[Position, Position]]:
    """Pairs of positions in which the seat to move sees the same view on different deals:
    two unplayed tiles of two other seats swapped."""
    twins = []
    for pair in range(4):
        start = deal_for_pair(pair, 11)
        end = play_hand(start, seat_bots("rule"), seat_bots("rule"))
        for n in (0, 1, 2, 5, 9, 14, 17, 22):
            p = start.with_plays(list(end.plays[:n]))
            me = p.to_move_index
            others = [s for s in range(4) if s != me]
            rem = {s: [t for t in p.hands[s] if t not in p.plays] for s in others}
            x, y = others[0], others[1]
            hands = {s: list(h) for s, h in p.hands.items()}
            # swap a tile of x and a tile of y that keeps every earlier play legal
            for tx in rem[x]:
                for ty in rem[y]:
                    hands2 = {s: list(h) for s, h in hands.items()}
                    hands2[x][hands2[x].index(tx)] = ty
                    hands2[y][hands2[y].index(ty)] = tx
                    try:
                        q = Position({"hands": {SEATS[s]: [T.name_of(t) for t in h]
                                                for s, h in hands2.items()},
                                      "contract": p.contract.to_json(),
                                      "plays": [T.name_of(t) for t in p.plays]})
                    except PositionError:
                        continue
                    twins.append((p, q))
                    break
                else:
                    continue
                break
    return twins


def test_twin_deals_differ_but_look_the_same_to_the_seat_to_move():
    twins = _twin_deals()
    assert len(twins) >= 20
    for p, q in twins:
        assert p.hands != q.hands
        assert seat_view(p).to_json() == seat_view(q).to_json()


@pytest.mark.parametrize("name", ["random", "rule", "hint"])
def test_a_bot_plays_the_same_on_deals_it_cannot_tell_apart(name):
    for p, q in _twin_deals()[:12 if name == "hint" else None]:
        a, b = make_bot(name, 5, hint_deals=6), make_bot(name, 5, hint_deals=6)
        assert a.choose(seat_view(p)) == b.choose(seat_view(q))


def test_the_cheat_sees_the_difference():
    # The same twins tell the cheat apart: it is handed the deal.
    differs = 0
    for p, q in _twin_deals():
        differs += CheatBot().choose(p) != CheatBot().choose(q)
    assert differs > 0


class _Spy:
    """Records what the arena hands a bot."""

    def __init__(self, inner, sees_deal: bool = False) -> None:
        self.inner, self.sees_deal, self.name, self.seen = inner, sees_deal, inner.name, []

    def choose(self, seen):
        self.seen.append(seen)
        return self.inner.choose(seen)


def _reachable(root: object) -> list[object]:
    """Every object reachable from ``root`` (not through classes, modules or functions)."""
    skip = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
            types.MethodType, types.CodeType)
    seen, todo, out = {id(root)}, [root], []
    while todo:
        obj = todo.pop()
        out.append(obj)
        for ref in gc.get_referents(obj):
            if id(ref) not in seen and not isinstance(ref, skip):
                seen.add(id(ref))
                todo.append(ref)
    return out


@pytest.mark.parametrize("name", ["random", "rule", "hint"])
def test_the_arena_hands_a_bot_but_cheat_its_view_and_nothing_else(name):
    start = deal_for_pair(1, 4)
    spies = {seat: _Spy(make_bot(name, 3 + seat, hint_deals=4)) for seat in (0, 2)}
    end = play_hand(start, spies.__getitem__, seat_bots("random", 8))
    for seat, spy in spies.items():
        # a bot of its own a seat: the spy of N is handed N's views alone
        assert len(spy.seen) == 7 and {seen.seat for seen in spy.seen} == {seat}
        for i, seen in enumerate(spy.seen):
            assert type(seen) is View
            assert set(seen.hands) == {seen.seat}
            assert not hasattr(seen, "position")
            held = [o for o in _reachable(seen) if isinstance(o, Position)]
            assert held == []
            # the view is the one the seat had: its own hand, the contract, the plays
            assert seen.hand_ids == start.hands[seen.seat]
            assert seen.to_move_index == seen.seat
        for bot_seen in _reachable(spy.inner):
            assert not isinstance(bot_seen, Position)
    assert end.is_complete


def test_the_cheat_is_handed_the_deal():
    start = deal_for_pair(2, 4)
    spy = _Spy(make_bot("cheat"), sees_deal=True)
    play_hand(start, lambda seat: spy if seat == 0 else _Spy(make_bot("cheat"), True),
              seat_bots("rule"))
    assert all(type(s) is Position and s.hands == start.hands for s in spy.seen)
    assert make_bot("cheat").sees_deal and not any(make_bot(n).sees_deal for n in BOT_NAMES
                                                   if n != "cheat")


def test_one_pair_gives_json_without_nan_or_infinity():
    # One pair has no standard error: its figures are null, never NaN or Infinity.
    done = t42("arena", "random", "rule", "--pairs", "1", "--json", "--no-progress")
    assert done.returncode == 0, done.stderr
    stats = json.loads(done.stdout, parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))
    assert stats["difference"]["se"] is None and stats["difference"]["ci95"] == [None, None]
    assert isinstance(stats["difference"]["mean"], float)
