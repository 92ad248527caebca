"""Where tables live: an embedded SQLite database of each table's state, shared by the
threads of a server and by the servers that point at the same file.

A table's state is one JSON document (`solver.play.table.Table` reads and writes it)
with a version number: a change is saved only over the version it was made from
(compare and swap), so that two requests racing on one table cannot both win. The
database also keeps the table key (the secret that signs the tables' tokens), made on
first use, so that a server restarted on the same file honours the tokens it gave.

``path`` None or ``":memory:"`` keeps everything in this process's memory (tests, a
server whose games may end with it). A file is opened in WAL mode, so that several
server processes on one host share it; SQLite over a network file system is not safe:
servers on several hosts need one table host, or a route that sends each table's
requests to the server that holds it (docs/guides/apps.md, The table).
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: The schema's version, in SQLite's user_version: a newer file is refused.
SCHEMA_VERSION = 1
#: How long a writer waits for another process's lock (seconds).
BUSY_TIMEOUT = 10.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tables_finished ON tables (finished, updated);
"""


class StoreError(Exception):
    """The database cannot be opened or is not a table database (the message says
    which file and why)."""


class TableStore:
    """The tables of one database.

    Args:
        path: The SQLite file (created when missing); None or ``":memory:"``: in
            memory, for this object's lifetime.

    Raises:
        StoreError: The file cannot be opened, or holds another schema.

    >>> store = TableStore()
    >>> table_id = store.create({"seat": "S"})
    >>> state, version = store.load(table_id)
    >>> state, version
    ({'seat': 'S'}, 1)
    >>> store.save(table_id, {"seat": "S", "hands": 1}, version)
    True
    >>> store.save(table_id, {"seat": "S", "hands": 2}, version)   # an old version loses
    False
    """

    def __init__(self, path: str | None = None) -> None:
        self.path = path if path not in (None, "", ":memory:") else None
        # One connection, guarded by a lock: SQLite serialises writers anyway, and a
        # table's requests take microseconds here (the searches run outside the lock).
        self._lock = threading.Lock()
        try:
            if self.path is not None:
                if os.path.exists(self.path) and not os.path.isfile(self.path):
                    raise StoreError(f"{self.path}: not a regular file")
                self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT,
                                           check_same_thread=False, isolation_level=None)
                self._db.execute("PRAGMA journal_mode=WAL")
            else:
                self._db = sqlite3.connect(":memory:", check_same_thread=False,
                                           isolation_level=None)
            found = self._db.execute("PRAGMA user_version").fetchone()[0]
            if found > SCHEMA_VERSION:
                raise StoreError(f"{self.path}: a table database of a newer version "
                                 f"({found}; this program reads {SCHEMA_VERSION})")
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path or ':memory:'}: not a table database "
                             f"({exc})") from None

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def key(self) -> bytes:
        """The table key kept in the database (32 random bytes, made on first use)."""
        with self._transaction() as db:
            row = db.execute("SELECT value FROM meta WHERE name = 'table_key'").fetchone()
            if row is not None:
                return bytes(row[0])
            key = secrets.token_bytes(32)
            db.execute("INSERT INTO meta (name, value) VALUES ('table_key', ?)", (key,))
            return key

    def create(self, state: dict[str, Any]) -> str:
        """Store a new table; returns its id (22 url-safe characters, 128 random bits)."""
        now = time.time()
        table_id = secrets.token_urlsafe(16)
        with self._transaction() as db:
            db.execute("INSERT INTO tables (id, version, created, updated, finished, state) "
                       "VALUES (?, 1, ?, ?, ?, ?)",
                       (table_id, now, now, int(bool(state.get("finished"))),
                        json.dumps(state, separators=(",", ":"))))
        return table_id

    def load(self, table_id: str) -> tuple[dict[str, Any], int] | None:
        """A table's state and version; None when there is no such table."""
        with self._lock:
            row = self._db.execute("SELECT state, version FROM tables WHERE id = ?",
                                   (table_id,)).fetchone()
        if row is None:
            return None
        return json.loads(row[0]), row[1]

    def save(self, table_id: str, state: dict[str, Any], version: int) -> bool:
        """Write ``state`` over ``version``; False (nothing written) when the table has
        moved on since that version was loaded."""
        with self._transaction() as db:
            cursor = db.execute(
                "UPDATE tables SET state = ?, version = version + 1, updated = ?, "
                "finished = ? WHERE id = ? AND version = ?",
                (json.dumps(state, separators=(",", ":")), time.time(),
                 int(bool(state.get("finished"))), table_id, version))
            return cursor.rowcount == 1

    def finished(self, limit: int = 100) -> list[tuple[str, dict[str, Any]]]:
        """The finished tables, the latest first (at most ``limit``)."""
        with self._lock:
            rows = self._db.execute("SELECT id, state FROM tables WHERE finished = 1 "
                                    "ORDER BY updated DESC LIMIT ?", (limit,)).fetchall()
        return [(table_id, json.loads(state)) for table_id, state in rows]

    def finished_of(self, table_ids: list[str]) -> list[tuple[str, dict[str, Any], float]]:
        """Of the tables ``table_ids``, those finished, with their state and the time
        (seconds since the epoch) of their last change, the latest first."""
        out: list[tuple[str, dict[str, Any], float]] = []
        ids = list(dict.fromkeys(table_ids))
        for start in range(0, len(ids), 500):   # SQLite's limit on a query's parameters
            chunk = ids[start:start + 500]
            with self._lock:
                rows = self._db.execute(
                    "SELECT id, state, updated FROM tables WHERE finished = 1 AND id IN "
                    f"({', '.join('?' * len(chunk))})", chunk).fetchall()
            out += [(table_id, json.loads(state), updated) for table_id, state, updated in rows]
        return sorted(out, key=lambda row: -row[2])

    def close(self) -> None:
        with self._lock:
            self._db.close()


__all__ = ["BUSY_TIMEOUT", "SCHEMA_VERSION", "StoreError", "TableStore"]
