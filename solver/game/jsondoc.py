"""Reading the JSON documents the API takes: a mapping, or JSON text of one.

Every parser of the package reads its input through here, so every one
treats hostile input alike:

* bytes are decoded as JSON text is (UTF-8, or UTF-16/32 recognised by a
  byte-order mark or by the zero bytes of its first characters); a UTF-8
  byte-order mark is accepted, bytes that do not decode are bad input;
* a document nested deeper than `MAX_DEPTH` is bad input (the json module
  would raise RecursionError on very deep text, and deep values cannot be
  printed or re-encoded safely);
* a document must be JSON data: objects with string keys, lists, strings
  (valid Unicode), finite numbers, integers of at most 4,300 digits,
  true/false/null; no key appears twice in an object;
* `check_keys` rejects fields a schema does not know, naming the known ones.
"""

from __future__ import annotations

import json
import math
from typing import Any, Mapping, Union

from ._plainjson import count_keys, is_plain, object_from_pairs
from .errors import PositionError, key_text, quoted

#: Any value JSON text can hold (a record's ``id`` is one, passed through unread).
JSONValue = Union[None, bool, int, float, str, list, dict]

#: Deepest nesting a document may have: a hand record (the deepest input) is 4
#: levels deep (record.meta.auction[i].bid); the rest is headroom for ``id`` and ``meta``.
MAX_DEPTH = 32
#: Python refuses to convert integers over 4,300 digits to and from text
#: (sys.int_info.str_digits_check_threshold); 14,284 bits is that size.
MAX_INT_BITS = 14_284
MAX_DIGITS = 4300


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = object_from_pairs(pairs)
    if obj is None:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


#: json.loads with these options, made once (json.loads makes a decoder per call).
_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant)
#: The same without the hook that catches a repeated key (it costs a sixth of the decoding).
_SCAN = json.JSONDecoder(parse_constant=_no_constant).scan_once


def _loads(text: str) -> Any:
    """``_DECODER.decode(text)``, most often without its hook.

    A document that starts at the first character and is followed by blanks only is
    scanned without the hook; then a key that appeared twice would be lost, so the
    colons are counted: outside strings JSON text has one per key, so when the text
    holds exactly as many colons as the decoded objects hold keys, no key was lost
    (and no string holds a colon). Any other text, every error, and a count that
    differs go through ``decode``, which finds the repeated key or words the error.
    """
    try:
        data, end = _SCAN(text, 0)
    except Exception:  # StopIteration (no value at 0) or an error: decode raises its own
        return _DECODER.decode(text)
    if (end == len(text) or not text[end:].strip(" \t\n\r")) \
            and text.count(":") == count_keys(data):
        return data
    return _DECODER.decode(text)


def decode(data: bytes, field: str) -> str:
    """JSON text from the bytes ``data``: UTF-8 (a byte-order mark is dropped), UTF-16 or
    UTF-32; errors name ``field``.

    Raises `PositionError` (``INVALID_ENCODING``) when the bytes do not decode.
    """
    encoding = json.detect_encoding(data)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        name = "UTF-8" if encoding.startswith("utf-8") else encoding.upper()
        raise PositionError(field, f"not valid {name} text: {exc.reason} at byte {exc.start}",
                            "INVALID_ENCODING") from None


def parse_json(text: str | bytes | bytearray, field: str) -> Any:
    """Parse JSON text (str, or bytes decoded by `decode`) and check it is JSON data
    of sane depth (`check_document`). Raises `PositionError` on ``field``."""
    if not isinstance(text, str):
        text = decode(bytes(text), field)
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        data = _loads(text)
    except RecursionError:
        raise _too_deep(field) from None
    except _DuplicateKey as exc:
        raise PositionError(field, f"key {quoted(exc.key)} appears twice in one object",
                            "DUPLICATE_KEY") from None
    except ValueError as exc:
        reason = str(exc)
        if "integer string conversion" in reason:
            reason = f"a number has more than {MAX_DIGITS} digits"
        raise PositionError(field, f"not valid JSON: {reason}", "INVALID_JSON") from None
    check_document(data, field)
    return CheckedObject(data) if data.__class__ is dict else data


class CheckedObject(dict):
    """A JSON object that `parse_json` has read and checked: `json_object` takes it as it
    is, without walking it again (a position read by the CLI is checked once)."""


def _too_deep(field: str) -> PositionError:
    return PositionError(field, f"nested more than {MAX_DEPTH} levels deep", "TOO_DEEP")


#: Where a value sits: None for the document itself, else (parent, key or list index).
_Path = Any


def _path_text(path: _Path, field: str, keys: int = MAX_DEPTH) -> str:
    """``meta.auction[2].bid`` (at most the first ``keys`` keys); ``field`` for the
    document itself, and for any place in a document that is a list."""
    names: list[object] = []
    while path is not None:
        path, key = path
        names.append(key)
    names.reverse()
    if names and isinstance(names[0], int):
        return field
    text = ""
    for key in names[:keys]:
        text = f"{text}[{key}]" if isinstance(key, int) else \
            (f"{text}.{key_text(key)}" if text else key_text(key))
    return text or field


def check_document(data: object, field: str) -> None:
    """Check that ``data`` is JSON data (see the module docstring), without recursion.

    Field paths of errors start at the document (``meta.x[2]``); ``field``
    names the document itself.
    """
    if is_plain(data, MAX_DEPTH):
        return  # plain data (nearly every document), recognised in C
    # Exact-type tests first: dict, list, ASCII str and small int are nearly all of every
    # document, and isinstance() against the Mapping ABC costs a microsecond a value.
    stack: list[tuple[object, _Path, int]] = [(data, None, 1)]  # containers to visit
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _too_deep(_path_text(path, field, keys=3))
        if value.__class__ is list:
            items: Any = enumerate(value)
        elif value.__class__ is dict or isinstance(value, Mapping):
            for key in value:
                if key.__class__ is not str and not isinstance(key, str):
                    raise PositionError(_path_text(path, field), f"object key {quoted(key)} is "
                                        "not a string", "INVALID_TYPE")
            items = value.items()
        elif isinstance(value, (list, tuple)):
            items = enumerate(value)
        else:
            _check_scalar(value, path, field)
            continue
        for key, item in items:
            cls = item.__class__
            if cls is str:
                if item.isascii():
                    continue
            elif cls is int:
                if item.bit_length() <= MAX_INT_BITS:
                    continue
            elif cls is dict or cls is list or isinstance(item, (Mapping, list, tuple)):
                stack.append((item, (path, key), depth + 1))
                continue
            _check_scalar(item, (path, key), field)


def _check_scalar(value: object, path: _Path, field: str) -> None:
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, str):
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise PositionError(_path_text(path, field), f"{quoted(value)} is not valid "
                                    "Unicode text (a lone surrogate)", "INVALID_TEXT") from None
        return
    if isinstance(value, int):
        if value.bit_length() > MAX_INT_BITS:
            raise PositionError(_path_text(path, field), f"{quoted(value)}: a number has at "
                                f"most {MAX_DIGITS} digits", "INVALID_VALUE")
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise PositionError(_path_text(path, field), f"{quoted(value)} is not a JSON "
                                "number", "INVALID_VALUE")
        return
    raise PositionError(_path_text(path, field), f"{quoted(value)} is not a JSON value (an "
                        "object, list, string, number, true, false or null)", "INVALID_TYPE")


def json_object(data: object, field: str, what: str) -> Mapping[str, Any]:
    """``data`` as a JSON object: a mapping as it is, JSON text (str or bytes) parsed.

    Raises `PositionError` on ``field`` for text that is not JSON
    (``INVALID_JSON``, ``INVALID_ENCODING``, ``DUPLICATE_KEY``, ``TOO_DEEP``),
    for data that is not JSON (`check_document`) and for anything that is not
    an object, naming it ``what`` ("a position", "a deal", ...) in the reason
    (``INVALID_TYPE``).
    """
    if data.__class__ is CheckedObject:
        return data  # type: ignore[return-value]
    if isinstance(data, (str, bytes, bytearray)):
        data = parse_json(data, field)
    elif data.__class__ is dict or isinstance(data, Mapping):
        check_document(data, field)
        return data  # type: ignore[return-value]
    if data.__class__ is not dict and not isinstance(data, Mapping):
        raise PositionError(field, f"{what} must be a JSON object", "INVALID_TYPE")
    return data


def check_keys(obj: Mapping[str, Any], known: tuple[str, ...], where: str, what: str) -> None:
    """Reject a key of ``obj`` that is not in ``known``: a misspelt field must not be
    silently ignored. ``where`` is the object's field path ("" at the top), ``what``
    names the object in the message ("a contract")."""
    for key in obj:
        if key not in known:
            name = key_text(key)
            raise PositionError(f"{where}.{name}" if where else name,
                                f"unknown field of {what} (known: {', '.join(known)})",
                                "UNKNOWN_FIELD")


#: What str.strip() strips of ASCII text (bytes.strip() leaves 0x1C-0x1F).
_ASCII_SPACE = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"


def blank_line(line: bytes) -> bool:
    """Is this line of JSON Lines input blank (skipped)? Whitespace only, as str.strip()
    sees it; a line that is not UTF-8 is not blank. `t42 batch` skips the same lines."""
    if line.isascii():
        return not line.strip(_ASCII_SPACE)
    try:
        return not line.decode("utf-8").strip()
    except UnicodeDecodeError:
        return False
