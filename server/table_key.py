"""The table key: the secret that signs the tokens of the table RPCs (which table, which
hand). A token signed with another key does not open here.

Where it comes from: ``t42 serve --table-key FILE`` (made with a new key, mode 0600,
when missing), else the environment variable `KEY_ENV` (the key itself), else the
table database (`solver.play.table_store.TableStore.key`: made on first use and kept
with the tables, so that a server restarted on the same database honours its tokens).
"""

from __future__ import annotations

import base64
import binascii
import os
import secrets

from .errors import ServerError

#: The environment variable that may hold the key itself.
KEY_ENV = "T42_TABLE_KEY"


def _new_key() -> bytes:
    return base64.urlsafe_b64encode(secrets.token_bytes(32))


def load_key(path: str | None) -> bytes | None:
    """The table key: from ``path`` (created with a new key, mode 0600, when missing),
    else from `KEY_ENV`, else None (the table database's own). A key is 32 bytes in
    url-safe base64. Raises `ServerError` for a bad key or an unreadable file."""
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
                out.write(_new_key() + b"\n")
        try:
            with open(path, "rb") as f:
                key = f.read(4096).strip()
        except OSError as exc:
            raise ServerError(f"cannot read the table key file {path}: "
                              f"{exc.strerror or exc}") from None
        source = path
    elif os.environ.get(KEY_ENV):
        key, source = os.environ[KEY_ENV].strip().encode(), KEY_ENV
    else:
        return None
    try:
        if len(base64.urlsafe_b64decode(key)) != 32:
            raise ValueError
    except (ValueError, binascii.Error):
        raise ServerError(f"{source}: not a table key (32 bytes in url-safe "
                          "base64)") from None
    return key


__all__ = ["KEY_ENV", "load_key"]
