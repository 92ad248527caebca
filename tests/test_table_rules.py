"""The table's rules and its store, below the service: a table's state survives a new
store on the same file, two requests racing on one table record one bot decision, a
damaged state or a stray file is a clear error, and the store refuses an old version."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading

import pytest

from solver.game.errors import PositionError
from solver.play.table import Table, TableRefused, Tables
from solver.play.table_store import SCHEMA_VERSION, StoreError, TableStore

RULE_BOTS = {s: {"name": "rule", "advice_deals": 100, "hint_deals": 100} for s in "NEW"}
HEADER = {"game": "42", "first_shaker": "N"}


def opened(tables: Tables) -> tuple[str, dict]:
    dealt = tables.open(HEADER, "S", RULE_BOTS)
    return dealt["token"], {**HEADER, "hands": [{"hands": {"S": dealt["hand"]},
                                                 "auction": []}]}


def test_a_table_survives_a_new_store_on_its_file(tmp_path):
    path = str(tmp_path / "tables.sqlite")
    first = Tables(TableStore(path))
    token, record = opened(first)
    _, found, by_bot = first.next_action(token, record, "E")
    assert by_bot and found["action"] == "call"
    first.store.close()
    again = Tables(TableStore(path))   # the key is the file's: the token opens
    _, replay, _ = again.next_action(token, record, "E")
    assert replay["answer"] == found["answer"]
    assert again.resume(token)["record"]["hands"][0]["auction"] == [
        {"seat": "E", "bid": found["answer"]}]


def test_two_requests_racing_record_one_decision():
    """Both threads ask for E's call on the same state; each gets the same answer and the
    table holds that one call (the loser of the save tries again and replays it)."""
    tables = Tables(TableStore())
    token, record = opened(tables)
    answers, errors = [], []
    start = threading.Barrier(4)

    def ask():
        start.wait()
        try:
            answers.append(tables.next_action(token, record, "E")[1]["answer"])
        except Exception as exc:   # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(set(answers)) == 1 and len(answers) == 4
    assert len(tables.resume(token)["record"]["hands"][0]["auction"]) == 1


def test_a_damaged_state_is_a_clear_error(tmp_path):
    path = str(tmp_path / "tables.sqlite")
    tables = Tables(TableStore(path))
    token, record = opened(tables)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE tables SET state = ? WHERE id = ?",
                   ('{"v": 1, "seat": "S"}', token.split(".")[0]))
    with pytest.raises(PositionError) as err:
        Tables(TableStore(path)).check(token, record)
    assert (err.value.field, err.value.code) == ("sealed", "TABLE_UNKNOWN")
    assert "damaged" in err.value.reason


def test_the_store_refuses_what_it_cannot_read(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a database at all, just some words " * 40)
    with pytest.raises(StoreError, match="not a table database"):
        TableStore(str(text))
    with pytest.raises(StoreError, match="not a regular file"):
        TableStore(str(tmp_path))
    newer = str(tmp_path / "newer.sqlite")
    with sqlite3.connect(newer) as db:
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer version"):
        TableStore(newer)


def test_serve_names_a_bad_table_database(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_text("garbage " * 300)
    run = subprocess.run([sys.executable, "-m", "solver", "serve", "--port", "0",
                          "--table-db", str(bad)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.startswith("t42: error: cannot open the table database")
    assert "Traceback" not in run.stderr


def test_the_next_hand_waits_for_the_hand_and_the_game_stops_at_its_end():
    tables = Tables(TableStore())
    token, record = opened(tables)
    with pytest.raises(TableRefused) as err:
        tables.deal_next(token, record)
    assert err.value.code == "HAND_NOT_OVER"
    table = tables.table_of(token)
    assert isinstance(table, Table) and table.index == 0 and not table.practice


def test_a_seed_deals_only_at_a_practice_table():
    tables = Tables(TableStore())
    with pytest.raises(PositionError) as err:
        tables.open(HEADER, "S", RULE_BOTS, seed=5)
    assert (err.value.field, err.value.code) == ("seed", "SEED_AT_SEALED_TABLE")
    practice = tables.open(HEADER, "S", RULE_BOTS, practice=True, seed=5)
    assert practice["practice"]
    sealed = [tables.open(HEADER, "S", RULE_BOTS)["hand"] for _ in range(3)]
    assert len({tuple(h) for h in sealed}) == 3   # each table's secret deals its own
