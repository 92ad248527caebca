"""Sealed hands of a table: the deal a person may not see, as a token only this server
(or one sharing its key) can open.

A token is Fernet (AES-128-CBC + HMAC-SHA256, with its time of issue) over JSON: the
deal (every hand, the three-player Moon widow), its seed, the person's seat, the hand's
index in the game, the bots' actions so far (calls, declaration, a discard, plays), and
the SHA-256 of the canonical JSON of
the game's header and earlier hands, so that a token opens for that game and that hand
only. Tokens live `TTL` seconds.

The key: ``t42 serve --table-key FILE`` (made with a new key, mode 0600, when missing),
else the environment variable `KEY_ENV` (the key itself), else a fresh key per process.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from cryptography.fernet import Fernet, InvalidToken

from solver.game.errors import PositionError
from solver.game.game_record import GameRecord

from .errors import ServerError

#: How long a token opens (seconds).
TTL = 24 * 3600
#: The environment variable that may hold the key itself.
KEY_ENV = "T42_TABLE_KEY"
#: The longest token read (a sealed hand is well under 1 kB).
MAX_TOKEN = 4096
_VERSION = 1


def load_key(path: str | None) -> bytes:
    """The table key: from ``path`` (created with a new key, mode 0600, when missing),
    else from `KEY_ENV`, else a new one. Raises `ServerError` for a bad key."""
    if path:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        except OSError as exc:
            raise ServerError(f"cannot create the table key file {path}: "
                              f"{exc.strerror or exc}") from None
        else:
            with os.fdopen(fd, "wb") as out:
                out.write(Fernet.generate_key() + b"\n")
        try:
            with open(path, "rb") as f:
                key = f.read().strip()
        except OSError as exc:
            raise ServerError(f"cannot read the table key file {path}: "
                              f"{exc.strerror or exc}") from None
        source = path
    elif os.environ.get(KEY_ENV):
        key, source = os.environ[KEY_ENV].strip().encode(), KEY_ENV
    else:
        return Fernet.generate_key()
    try:
        Fernet(key)
    except (ValueError, TypeError):
        raise ServerError(f"{source}: not a table key (a Fernet key: 32 bytes in url-safe "
                          "base64)") from None
    return key


def record_digest(earlier: GameRecord) -> str:
    """SHA-256 (hex) of the canonical JSON of a game's header and hands (``earlier``: the
    game read up to, not including, the sealed hand). ``id`` and ``meta`` are free data
    and not bound."""
    data = earlier.to_json()
    data.pop("id", None)
    data.pop("meta", None)
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class Sealer:
    """Seals and opens the tokens of one table key."""

    def __init__(self, key: bytes | None = None) -> None:
        self._fernet = Fernet(key or Fernet.generate_key())

    def seal(self, content: dict[str, Any]) -> str:
        body = json.dumps({"v": _VERSION, **content}, separators=(",", ":"))
        return self._fernet.encrypt(body.encode()).decode("ascii")

    def open(self, token: str, field: str = "sealed") -> dict[str, Any]:
        """The content of a token; a `PositionError` naming ``field`` when it does not
        open (tampered, another key, expired, not a token)."""
        if not token:
            raise PositionError(field, "required: the token of the hand (DealHand)",
                                "MISSING_FIELD")
        try:
            if len(token) > MAX_TOKEN:
                raise InvalidToken
            body = self._fernet.decrypt(token.encode("ascii"), ttl=TTL)
            content = json.loads(body)
            if not isinstance(content, dict) or content.get("v") != _VERSION:
                raise InvalidToken
        except (InvalidToken, UnicodeError, ValueError):
            raise PositionError(field, "the token does not open here (altered, from another "
                                "server, or expired): start a new hand", "SEALED_INVALID") \
                from None
        return content

    @staticmethod
    def check_binding(content: dict[str, Any], index: int, digest: str, game: str,
                      players: int, field: str = "sealed") -> None:
        """Refuse a token of another game or another hand of it."""
        if (content.get("index"), content.get("digest"), content.get("game"),
                content.get("players")) != (index, digest, game, players):
            raise PositionError(field, "the token belongs to another game or hand: pass the "
                                "token DealHand gave for this hand of this game (or start a "
                                "new hand)", "SEALED_MISMATCH")


__all__ = ["KEY_ENV", "TTL", "Sealer", "load_key", "record_digest"]
