"""Reading the JSON documents the API takes: a mapping, or JSON text of one."""

from __future__ import annotations

import json
from typing import Any, Mapping

from .errors import PositionError


def json_object(data: object, field: str, what: str) -> Mapping[str, Any]:
    """``data`` as a JSON object: a mapping as it is, JSON text (str or bytes) parsed.

    Raises `PositionError` on ``field`` for text that is not JSON
    (``INVALID_JSON``) and for anything that is not an object, naming it
    ``what`` ("a position", "a deal", ...) in the reason (``INVALID_TYPE``).
    """
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except ValueError as exc:
            raise PositionError(field, f"not valid JSON: {exc}", "INVALID_JSON") from None
    if not isinstance(data, Mapping):
        raise PositionError(field, f"{what} must be a JSON object", "INVALID_TYPE")
    return data
