"""The exceptions the solver raises for bad input and stopped searches, and the
helpers that quote bad input into their messages safely."""

from __future__ import annotations

import reprlib

#: Longest quotation of a bad value in a message: enough to recognise it,
#: short enough that a 50 MB value still gives a one-line error (and a gRPC
#: error that fits in the trailers).
QUOTE_LIMIT = 60
#: Longest field path and reason an error keeps (a safety net: the parsers
#: quote values with `quoted` and keys with `key_text` already).
FIELD_LIMIT = 200
REASON_LIMIT = 1000
#: Integers longer than this (in bits, about 78 digits) are described, not printed.
_LONG_INT_BITS = 256


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


class _ShortRepr(reprlib.Repr):
    """`repr` that never raises and never recurses deep: containers are cut at a
    few levels and items, strings and bytes at a prefix, huge integers described."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxdict = self.maxlist = self.maxtuple = self.maxset = self.maxfrozenset = 4
        self.maxstring = self.maxother = QUOTE_LIMIT

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > _LONG_INT_BITS:
            # repr() of an integer over 4,300 digits raises; the size is what matters.
            return f"<an integer of about {int(x.bit_length() * 0.30103) + 1} digits>"
        return repr(x)

    def repr_str(self, x: str, level: int) -> str:
        if len(x) <= self.maxstring:
            return repr(x)
        return f"{x[:self.maxstring]!r}... ({len(x)} characters)"

    def repr_bytes(self, x: bytes, level: int) -> str:
        if len(x) <= self.maxstring:
            return repr(x)
        return f"{x[:self.maxstring]!r}... ({len(x)} bytes)"


_SHORT = _ShortRepr()


def quoted(value: object) -> str:
    """``repr(value)`` for an error message, at most a short prefix of it.

    Safe for any value: a 50 MB string, an integer of a million digits, a
    list nested 10,000 deep, an object whose ``__repr__`` raises.
    """
    try:
        text = _SHORT.repr(value)
    except Exception:  # a __repr__ that raises, or something reprlib cannot walk
        text = f"<{type(value).__name__}>"
    return _clip(text, 2 * QUOTE_LIMIT)


def key_text(key: object) -> str:
    """An object key as it appears in a field path: the key itself when it is a short
    name (ASCII letters, digits, ``-`` and ``_``), else its quotation, so that a key
    such as ``"N[0]"`` or ``""`` cannot pass for a path."""
    if isinstance(key, str) and 0 < len(key) <= QUOTE_LIMIT and key.isascii() \
            and key.replace("-", "a").replace("_", "a").isalnum():
        return key
    return quoted(key)


class PositionError(ValueError):
    """Bad input: names the field at fault, the reason, and a stable code.

    Every reader of the package (positions, views, records, requests) raises it
    for bad input; it is a ValueError. The codes are listed in docs/formats.md.

    Args:
        field: A path into the input JSON (``hands.N[3]``, ``contract.bid``,
            ``plays[5]``).
        reason: What is wrong, in words; bad values are quoted by a prefix only.
        code: An upper-case reason code that clients can rely on
            (``DUPLICATE_TILE``, ``ILLEGAL_PLAY``, ...).

    Attributes:
        field: As given (cut to 200 characters).
        reason: As given (cut to 1,000 characters).
        code: As given.

    >>> from solver import Position, PositionError
    >>> try:
    ...     Position('{"hands": 1}')
    ... except PositionError as error:
    ...     print(error.field, error.code)
    hands INVALID_TYPE
    """

    def __init__(self, field: str, reason: str, code: str = "INVALID_VALUE") -> None:
        field, reason = _clip(field, FIELD_LIMIT), _clip(reason, REASON_LIMIT)
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason
        self.code = code

    def __reduce__(self):
        # The default rebuilds from ``args`` (the message alone), which this __init__ does
        # not take: an error raised in a worker process could not be rebuilt in the parent.
        return type(self), (self.field, self.reason, self.code), self.__dict__

    def to_json(self) -> dict:
        """The error JSON of the faces: ``{"field", "reason", "code"}``."""
        return {"field": self.field, "reason": self.reason, "code": self.code}


class SearchCancelled(RuntimeError):
    """The search was stopped by its cancel token (deadline, cancel or node budget).

    Raised by every function that takes a ``token`` (`CancelToken`); it is a
    RuntimeError and carries no partial answer.

    >>> from solver import CancelToken, SearchCancelled, solve
    >>> try:
    ...     solve(open("examples/deal.json").read(), token=CancelToken(deadline=0))
    ... except SearchCancelled as error:
    ...     print(error)
    search stopped before it finished
    """


class ArgumentError(ValueError):
    """A bad argument to the API (not bad input in a position): a cancel token's
    deadline or node budget, a transposition table size.

    Args:
        argument: The name of the parameter at fault.
        reason: What is wrong, in words.

    Attributes:
        argument: As given.
        reason: As given.

    >>> from solver import ArgumentError, CancelToken
    >>> try:
    ...     CancelToken(node_budget=0)
    ... except ArgumentError as error:
    ...     print(error.argument)
    node_budget
    """

    def __init__(self, argument: str, reason: str) -> None:
        super().__init__(f"{argument}: {reason}")
        self.argument = argument
        self.reason = reason

    def __reduce__(self):
        # As PositionError: rebuilt from its fields, not from the message.
        return type(self), (self.argument, self.reason), self.__dict__
