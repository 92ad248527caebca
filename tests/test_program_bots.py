"""Program bots (docs/reference/bot-protocol.md) in the arena, as real processes:

* the example bots, in Python and in Node.js, play whole games and hand pairs in `t42 arena`
  run as a real command; worker processes each start their own and play the same games;
* a bot that plays only is refused in whole games before any game, and plays hand pairs in
  the contracts given (`--contract`, `--deals`);
* a bot that hangs, crashes, answers illegally or writes garbage stops the run with one exact
  error line (a crash is restarted once first), a refused answer is logged with its request,
  and the records file holds only whole games;
* a bot is sent only what its seat sees (a bot that logs its input), and every line either
  side writes is valid by the protocol's JSON Schema;
* `t42 batch arena` seats a program bot on a Dask cluster.

The time limit of the hanging bot is 1 s, set here; no other figure depends on the machine.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from solver.game.game_record import read_game
from solver.game.position import Position

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 300
PY = shlex.quote(sys.executable)
# By absolute path: a test may run from any directory.
RANDOM_PY = f"{PY} {shlex.quote(str(ROOT / 'examples' / 'bots' / 'random_bot.py'))}"
RANDOM_JS = f"node {shlex.quote(str(ROOT / 'examples' / 'bots' / 'random_bot.mjs'))}"
ROGUE = f"{PY} {shlex.quote(str(ROOT / 'tests' / 'bots' / 'rogue_bot.py'))}"
SCHEMA = json.loads((ROOT / "docs" / "reference" / "bot-protocol.schema.json").read_text())
TILE = re.compile(r'"([0-6]-[0-6])"')

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def t42(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *args], cwd=ROOT, text=True,
                          capture_output=True, timeout=TIMEOUT)


def arena(a: str, b: str, *args: str) -> subprocess.CompletedProcess:
    """`t42 arena` with the bot ``a`` given as --bot, one worker, no progress line."""
    return t42("arena", "mine", b, "--bot", f"mine={a}", "--workers", "1", "--no-progress",
               *args)


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def error_line(proc: subprocess.CompletedProcess) -> str:
    """The last line of standard error: the run's error."""
    return proc.stderr.strip().splitlines()[-1]


# ------------------------------------------------------------------ playing

@pytest.mark.parametrize("command", [RANDOM_PY, pytest.param(RANDOM_JS, marks=needs_node)],
                         ids=["python", "node"])
def test_an_example_bot_plays_whole_games_and_hand_pairs(tmp_path, command):
    records = tmp_path / "games.jsonl"
    games = arena(command, "rule", "--games", "2", "--seed", "3", "--records", str(records),
                  "--json")
    assert games.returncode == 0, games.stderr
    stats = json.loads(games.stdout)
    assert (stats["a"], stats["games"], stats["tables"]) == ("mine", 2, 4)
    rows = lines_of(records)
    assert len(rows) == 4
    calls = 0
    for row in rows:
        arena_meta = row["meta"]["arena"]
        assert arena_meta["programs"] == {"mine": shlex.split(command)}
        game = read_game(row)     # every call and play legal, the game won
        assert game.is_over and game.winner in ("NS", "EW")
        mine = [s for s in "NESW" if arena_meta["NS" if s in "NS" else "EW"] == "mine"]
        calls += sum(1 for hand in row["hands"] for call in hand["auction"]
                     if call["seat"] in mine)
    assert calls > 0   # the program bot called, not only played

    records = tmp_path / "pairs.jsonl"
    pairs = arena(command, "rule", "--pairs", "3", "--seed", "3", "--records", str(records),
                  "--json")
    assert pairs.returncode == 0, pairs.stderr
    assert json.loads(pairs.stdout)["pairs"] == 3
    rows = lines_of(records)
    assert [(r["pair"], r["game"]) for r in rows] == [(p, g) for p in range(3) for g in (0, 1)]
    for row in rows:
        assert {row["ns"], row["ew"]} == {"mine", "rule"}
        start = Position({"hands": row["hands"], "contract": {
            "declarer": row["declarer"], "trump": row["trump"], "bid": 30}})
        end = start.with_plays(row["plays"])   # every play legal
        assert end.is_complete and end.points == row["points"]


def test_worker_processes_start_their_own_bots_and_play_the_same_games(tmp_path):
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    for path, workers in ((one, "1"), (two, "2")):
        proc = t42("arena", f"cmd:{RANDOM_PY}", "random", "--games", "2", "--seed", "5",
                   "--workers", workers, "--no-progress", "--records", str(path))
        assert proc.returncode == 0, proc.stderr
    key = lambda r: (r["meta"]["arena"]["index"], r["meta"]["arena"]["table"])  # noqa: E731
    assert sorted(lines_of(one), key=key) == sorted(lines_of(two), key=key)
    assert len(lines_of(one)) == 4


def test_a_run_with_a_program_bot_resumes_from_its_records(tmp_path):
    records = tmp_path / "games.jsonl"
    proc = arena(RANDOM_PY, "rule", "--games", "1", "--seed", "7", "--records", str(records))
    assert proc.returncode == 0, proc.stderr
    first = records.read_text()
    proc = arena(RANDOM_PY, "rule", "--games", "2", "--seed", "7", "--records", str(records))
    assert proc.returncode == 0, proc.stderr
    assert records.read_text().startswith(first) and len(lines_of(records)) == 4
    # The same name for another program is another run: its records are not mixed in.
    proc = arena(f"{ROGUE} good", "rule", "--games", "2", "--seed", "7", "--records",
                 str(records))
    assert proc.returncode == 2
    assert error_line(proc).startswith(f"t42: error: {records}: line 1: a record of another "
                                       'run (programs {"mine": ')


@pytest.mark.parametrize("args, line", [
    (["cmd:", "rule", "--pairs", "1"], "cmd:: the command is empty"),
    (["cmd:/no/such/bot", "rule", "--pairs", "1"],
     "bot cmd:/no/such/bot: cannot start '/no/such/bot': No such file or directory"),
    (["mine", "rule", "--pairs", "1"], "unknown bot 'mine' (one of random, rule, hint, "
                                       "cheat, or a program: cmd:COMMAND)"),
    (["rule", "random", "--bot", "rule=./bot"],
     "--bot: rule is the name of a bot of the project's own"),
    (["m", "rule", "--bot", "m=./a", "--bot", "m=./b"], "--bot: m is named twice"),
    (["rule", "random", "--bot-time-limit", "0"],
     "--bot-time-limit: must be a number of seconds above 0 and at most 86400, not 0.0"),
    (["rule", "random", "--games", "1", "--contract", "N:sixes:30"],
     "--contract: only with --pairs (whole games have auctions)"),
    (["rule", "random", "--contract", "N:sixes:5"],
     "--contract[0]: contract.bid: bid 5 is out of range (30..41 points or 42*k marks, "
     "42..294)"),
    (["rule", "random", "--contract", "N:sixes", "--contract", "N:sixes:30"],
     "--contract: the bid is missing: DECLARER:DECLARATION:BID, e.g. W:fours:30"),
    (["rule", "random", "--contract", "S:plunge-sixes"],
     "--contract: a plunge or splash needs its declarer's doubles, which a seeded deal does "
     "not promise: give the deals with --deals"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_bad_arguments_are_refused_in_one_line(args, line):
    proc = t42("arena", *args, "--no-progress")
    assert (proc.returncode, proc.stderr) == (2, f"t42: error: {line}\n")


def test_a_bad_deals_file_is_refused_naming_its_line(tmp_path):
    deals = tmp_path / "deals.jsonl"
    made = t42("deal", "--seed", "1", "--count", "2", "--contract", "N:sixes:30").stdout
    deals.write_text(made + '{"hands": {}}\n')
    proc = t42("arena", "rule", "random", "--deals", str(deals))
    assert (proc.returncode, proc.stderr) == (2, f"t42: error: {deals}: line 3: hands.N: "
                                                 "missing hand\n")
    proc = t42("arena", "rule", "random", "--deals", str(deals), "--games", "1")
    assert proc.stderr == "t42: error: --deals: only with --pairs (whole games have auctions)\n"
    deals.write_text(made)
    proc = t42("arena", "rule", "random", "--deals", str(deals), "--pairs", "3")
    assert proc.stderr == "t42: error: --pairs: 3 pairs asked for, 2 deals given\n"


# ------------------------------------------------------------------ play-only bots

def test_a_play_only_bot_is_refused_in_whole_games_before_any_game(tmp_path):
    records = tmp_path / "records.jsonl"
    proc = arena(f"{ROGUE} plays-only", "rule", "--games", "1", "--records", str(records))
    assert proc.returncode == 2
    assert proc.stderr == (
        "t42: error: mine plays only (its hello says calls: false): it cannot be seated in "
        "whole games, where it would call: seat it in hand pairs, whose contracts are given "
        "(--pairs, --contract, --deals)\n")
    assert not records.exists()


def test_a_play_only_bot_plays_the_contracts_given(tmp_path):
    records = tmp_path / "contracts.jsonl"
    proc = arena(f"{ROGUE} plays-only", "rule", "--pairs", "4", "--seed", "2",
                 "--contract", "N:sixes:30", "--contract", "E:fives:31", "--records",
                 str(records))
    assert proc.returncode == 0, proc.stderr
    rows = lines_of(records)
    assert [(r["pair"], r["contract"]["declarer"], r["contract"]["trump"], r["contract"]["bid"])
            for r in rows if r["game"] == 0] == [(0, "N", "sixes", 30), (1, "E", "fives", 31),
                                                (2, "N", "sixes", 30), (3, "E", "fives", 31)]
    for row in rows:
        end = Position({"hands": row["hands"], "contract": row["contract"]}).with_plays(
            row["plays"])
        assert end.is_complete and end.points == row["points"]
        assert end.makes(end.points) == row["made"]

    deals = tmp_path / "deals.jsonl"
    made = t42("deal", "--seed", "8", "--count", "3", "--contract", "W:doubles:34")
    deals.write_text(made.stdout)
    records = tmp_path / "deals-records.jsonl"
    proc = arena(f"{ROGUE} plays-only", "rule", "--deals", str(deals), "--records",
                 str(records))
    assert proc.returncode == 0, proc.stderr
    given = [json.loads(line) for line in made.stdout.splitlines()]
    rows = lines_of(records)
    assert len(rows) == 6     # --pairs defaults to the deals of the file
    for row in rows:
        assert row["hands"] == given[row["pair"]]["hands"]
        assert row["contract"] == given[row["pair"]]["contract"]


def test_a_bot_is_seated_only_in_the_declarations_it_plays(tmp_path):
    bot = f"{ROGUE} plays-only --declarations sixes,fives"
    proc = arena(bot, "rule", "--pairs", "2", "--contract", "N:fours:30")
    assert proc.returncode == 2
    assert error_line(proc) == (
        "t42: error: mine does not play fours (its hello says declarations: sixes, fives), "
        "which these hand pairs may be played in")
    proc = arena(bot, "rule", "--pairs", "2")   # the rotating contract: any pip suit
    assert proc.returncode == 2 and "does not play blanks, ones, deuces, treys, fours" \
        in proc.stderr
    proc = arena(bot, "rule", "--pairs", "2", "--contract", "N:fives:30")
    assert proc.returncode == 0, proc.stderr


# ------------------------------------------------------------------ bad bots

BAD = {
    "hang": "no answer within 1 s to its call request at S (id 1)",
    "crash": "its process ended twice on its call request at S (id 1) (started again once; "
             "exit status 3); its last line on stderr: 'rogue bot: crashing as asked'",
    "illegal": "its choice is not one of the legal options, answering its call request at S "
               "(id 1): refused; it wrote '{\"id\": 1, \"choice\": 29}'",
    "garbage": "its answer: not valid JSON: Expecting value: line 1 column 1 (char 0), "
               "answering its call request at S (id 1): refused; it wrote 'this is not JSON'",
}


@pytest.mark.parametrize("mode", sorted(BAD))
def test_a_bad_bot_stops_the_run_with_a_clear_error(tmp_path, mode):
    records = tmp_path / "records.jsonl"
    proc = arena(f"{ROGUE} {mode}", "rule", "--games", "2", "--bot-time-limit", "1",
                 "--records", str(records))
    assert proc.returncode == 1
    assert error_line(proc) == f"t42: error: bot mine: {BAD[mode]}; the run stopped; the " \
                               f"finished ones are in {records}"
    assert "Traceback" not in proc.stderr
    assert records.read_text() == ""   # the game that failed wrote nothing
    events = [json.loads(line) for line in proc.stderr.splitlines() if line.startswith("{")]
    if mode in ("illegal", "garbage"):
        [refused] = events
        assert refused["event"] == "bot_answer_refused" and refused["bot"] == "mine"
        assert refused["request"]["type"] == "call" and refused["request"]["id"] == 1
        assert refused["request"]["view"]["seat"] == "S"
        assert refused["answer"].startswith('{"id": 1, "choice": 29}' if mode == "illegal"
                                            else "this is not JSON")
    if mode == "crash":
        assert [e["restarted"] for e in events] == [True, False]


def test_the_public_error_holds_nothing_the_bot_wrote():
    from solver.game.view import View
    from solver.play.program_bot import BotError, ProgramBot, ProgramSpec

    bot = ProgramBot(ProgramSpec("rogue", tuple(shlex.split(f"{ROGUE} illegal"))), seed=1)
    with pytest.raises(BotError) as caught:
        bot.choose(View(json.loads((ROOT / "examples" / "view.json").read_text())))
    assert caught.value.public == ("bot rogue: its choice is not one of the legal options, "
                                   "answering its play request at E (id 1): refused")
    assert "7-7" not in caught.value.public and "7-7" in str(caught.value)


def test_the_bots_a_table_may_seat_are_those_that_call_every_declaration():
    from solver.play import program_bot
    from solver.play.bots import make_bot

    specs = [program_bot.ProgramSpec(name, tuple(shlex.split(command))) for name, command in (
        ("t-calls", RANDOM_PY), ("t-plays", f"{ROGUE} plays-only"),
        ("t-some", f"{ROGUE} good --declarations sixes,fives"))]
    hellos = program_bot.configure(specs)
    assert [(h.name, h.calls) for h in hellos.values()] == [
        ("random-py", True), ("rogue-plays-only", False), ("rogue-good", True)]
    assert [n for n in program_bot.table_programs("42") if n.startswith("t-")] == ["t-calls"]
    assert make_bot("t-plays", seed=3).name == "t-plays"   # make_bot knows them by name
    with pytest.raises(program_bot.BotError):
        program_bot.configure([program_bot.ProgramSpec("t-none", ("/no/such/bot",))])
    assert program_bot.registered("t-none") is None


def test_a_bot_that_crashes_once_is_started_again_and_plays_on(tmp_path):
    marker = tmp_path / "crashed"
    proc = arena(f"{ROGUE} crash-once --after 5 --marker {marker}", "rule", "--games", "1",
                 "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["games"] == 1
    assert marker.exists()
    [ended] = [json.loads(line) for line in proc.stderr.splitlines() if line.startswith("{")]
    assert ended["event"] == "bot_ended" and ended["restarted"] is True
    assert ended["request"]["id"] == 6


def _requests(log: Path) -> list[dict]:
    return [json.loads(e["line"]) for e in lines_of(log)
            if e["dir"] == "in" and json.loads(e["line"])["type"] != "hello"]


@pytest.mark.parametrize("size", [["--games", "2"], ["--pairs", "3"]], ids=["games", "pairs"])
def test_a_failure_mid_run_keeps_the_finished_games_whole(tmp_path, size):
    # How many requests the first game (pair) takes: the same bot, well behaved, alone.
    log = tmp_path / "count.jsonl"
    one = [size[0], "1"]
    proc = arena(f"{ROGUE} good --log {log}", "rule", *one, "--seed", "4")
    assert proc.returncode == 0, proc.stderr
    first = len(_requests(log))
    records = tmp_path / "records.jsonl"
    proc = arena(f"{ROGUE} garbage --after {first + 2}", "rule", *size, "--seed", "4",
                 "--records", str(records))
    assert proc.returncode == 1
    assert error_line(proc).startswith("t42: error: bot mine: its answer: not valid JSON")
    rows = lines_of(records)      # every line a whole record
    if size[0] == "--games":
        assert [(r["meta"]["arena"]["index"], r["meta"]["arena"]["table"]) for r in rows] == \
            [(0, 0), (0, 1)]
        assert all(read_game(r).is_over for r in rows)
    else:
        assert [(r["pair"], r["game"]) for r in rows] == [(0, 0), (0, 1)]


# ------------------------------------------------------------------ what a bot is sent

def _validator(part: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator({**SCHEMA, "$ref": f"#/$defs/{part}"})


def test_the_schema_is_a_schema_and_refuses_a_bad_message():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    from_bot = _validator("from_bot")
    from_bot.validate({"id": 3, "choice": {"trump": "nello", "doubles": "low"}})
    with pytest.raises(jsonschema.ValidationError):
        from_bot.validate({"id": 3, "choice": "6-4", "note": "a field of no version"})


def check_traffic(log: Path) -> list[dict]:
    """Every line of the spy's log valid by the schema, each way; the requests."""
    to_bot, from_bot = _validator("to_bot"), _validator("from_bot")
    requests = []
    for entry in lines_of(log):
        message = json.loads(entry["line"])
        (to_bot if entry["dir"] == "in" else from_bot).validate(message)
        if entry["dir"] == "in" and message["type"] != "hello":
            requests.append(message)
    assert requests
    return requests


def check_seen(request: dict, deals: list[dict]) -> None:
    """No tile of another hand that is not played yet appears in ``request``: ``deals``
    are the deals (seat -> tiles as dealt, and a three-player Moon ``widow``) the request
    may be from; its seat's hand picks one."""
    view = request["view"]
    seat = view["seat"]
    assert list(view["hands"]) == [seat]
    own = set(view["hands"][seat])
    widow, discard = view.get("widow"), view.get("discard")
    # The Moon declarer plays the widow in place of its discard; it sees both.
    dealt = own - {widow} | {discard} if widow and discard and widow != discard else own
    # Both tables of a duplicate game (both games of a pair) have the same deals.
    [deal] = {json.dumps(d, sort_keys=True): d for d in deals
              if set(d.get(seat, ())) in (own, dealt)}.values()
    hidden = {t for s, tiles in deal.items() if s not in (seat, "widow") for t in tiles}
    if widow is None and deal.get("widow"):
        hidden.add(deal["widow"])
    hidden -= set(view.get("plays", []))
    shown = set(TILE.findall(json.dumps(request)))
    assert not shown & hidden, (request["type"], request["id"])
    assert shown <= own | dealt | set(view.get("plays", [])) | {widow, discard}


def test_the_check_finds_a_hidden_tile():
    deal = json.loads((ROOT / "examples" / "deal.json").read_text())["hands"]
    request = {"type": "play", "id": 1, "view": {
        "seat": "E", "hands": {"E": deal["E"]}, "plays": ["1-1", "2-2"],
        "contract": {"declarer": "W", "trump": "fours", "bid": 30}}, "legal": ["6-6"]}
    check_seen(request, [deal])
    request["legal"].append("6-3")    # North's, not played
    with pytest.raises(AssertionError):
        check_seen(request, [deal])


def test_a_bot_is_sent_only_what_its_seat_sees(tmp_path):
    log, records = tmp_path / "spy.jsonl", tmp_path / "games.jsonl"
    proc = arena(f"{ROGUE} good --log {log}", "rule", "--games", "1", "--seed", "6",
                 "--records", str(records))
    assert proc.returncode == 0, proc.stderr
    requests = check_traffic(log)
    assert {r["type"] for r in requests} >= {"call", "declare", "play"}
    deals = [hand["hands"] for row in lines_of(records) for hand in row["hands"]]
    for request in requests:
        check_seen(request, deals)

    log, records = tmp_path / "spy-moon.jsonl", tmp_path / "moon.jsonl"
    proc = arena(f"{ROGUE} good --log {log}", "random", "--games", "1", "--game", "moon",
                 "--records", str(records))
    assert proc.returncode == 0, proc.stderr
    deals = [hand["hands"] for row in lines_of(records) for hand in row["hands"]]
    for request in check_traffic(log):
        assert request["view"]["game"] == "moon"
        assert "widow" not in request["view"]   # four players: no widow
        check_seen(request, deals)

    log, records = tmp_path / "spy-pairs.jsonl", tmp_path / "pairs.jsonl"
    proc = arena(f"{ROGUE} good --log {log}", "rule", "--pairs", "2", "--contract",
                 "S:nello:84", "--records", str(records))
    assert proc.returncode == 0, proc.stderr
    deals = [row["hands"] for row in lines_of(records)]
    for request in check_traffic(log):
        assert request["type"] == "play" and "auction" not in request["view"]
        check_seen(request, deals)


# ------------------------------------------------------------------ on Dask

def test_batch_arena_seats_a_program_bot_on_dask(tmp_path):
    pytest.importorskip("distributed")
    specs = tmp_path / "specs.jsonl"
    bot = f"cmd:{RANDOM_PY}"
    specs.write_text("\n".join(json.dumps(s) for s in (
        {"pair": 0, "seed": 1, "bots": [bot, "rule"]},
        {"pair": 1, "seed": 1, "bots": ["rule", bot],
         "contract": {"declarer": "W", "trump": "sixes", "bid": 32}},
        {"pair": 2, "seed": 1, "bots": [f"cmd:{ROGUE} crash", "rule"]})) + "\n")
    out = tmp_path / "out"
    proc = t42("batch", "arena", str(specs), "-o", str(out), "--workers", "1", "--no-progress")
    rows = lines_of(out / "results.jsonl")
    assert len(rows) == 3, proc.stderr
    assert proc.returncode == 2       # a record answered with an error; the others played
    assert [g["ns"] for g in rows[0]["games"]] == [bot, "rule"]
    assert all(g["contract"] == {"declarer": "W", "trump": "sixes", "bid": 32,
                                 "kind": "standard", "doubles": "high"}
               for g in rows[1]["games"])
    error = rows[2]["error"]
    assert (error["field"], error["code"]) == ("bots[0]", "BOT_FAILED")
    assert error["reason"] == (f"bot cmd:{ROGUE} crash: its process ended twice on its play "
                               "request at S (id 1) (started again once; exit status 3); its "
                               "last line on stderr: 'rogue bot: crashing as asked'")

    # Whole duplicate games, one a line, as `t42 arena --games --records` writes them.
    specs.write_text("\n".join(json.dumps(s) for s in (
        {"index": 0, "seed": 1, "bots": [bot, "rule"]},
        {"index": 1, "seed": 1, "bots": [bot, "rule"]},
        {"index": 2, "seed": 1, "bots": [f"cmd:{ROGUE} plays-only", "rule"]})) + "\n")
    out = tmp_path / "games"
    proc = t42("batch", "arena-game", str(specs), "-o", str(out), "--workers", "1",
               "--no-progress")
    assert proc.returncode == 2, proc.stderr
    rows = lines_of(out / "results.jsonl")
    assert [r.get("index") for r in rows] == [0, 1, None]
    local = tmp_path / "local.jsonl"
    t42("arena", bot, "rule", "--games", "2", "--seed", "1", "--workers", "1", "--no-progress",
        "--records", str(local))
    assert [t for r in rows[:2] for t in r["tables"]] == lines_of(local)   # the same games
    error = rows[2]["error"]
    assert (error["field"], error["code"]) == ("a", "BOT_PLAYS_ONLY")
    assert "plays only (its hello says calls: false)" in error["reason"]
