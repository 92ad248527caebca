"""The exceptions the solver raises for bad input and stopped searches."""

from __future__ import annotations


class PositionError(ValueError):
    """Bad input: names the field at fault, the reason, and a stable code.

    ``field`` is a path into the SPEC JSON (``hands.N[3]``, ``contract.bid``,
    ``plays[5]``); ``code`` is an upper-case reason code that clients can
    rely on (``DUPLICATE_TILE``, ``ILLEGAL_PLAY``, ...).
    """

    def __init__(self, field: str, reason: str, code: str = "INVALID_VALUE") -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason
        self.code = code

    def to_json(self) -> dict:
        return {"field": self.field, "reason": self.reason, "code": self.code}


class SearchCancelled(RuntimeError):
    """The search was stopped by its cancel token (deadline, cancel or node budget)."""


class ArgumentError(ValueError):
    """A bad argument to the API (not bad input in a position): a cancel token's
    deadline or node budget, a transposition table size.

    ``argument`` names the parameter, ``reason`` says what is wrong in words.
    """

    def __init__(self, argument: str, reason: str) -> None:
        super().__init__(f"{argument}: {reason}")
        self.argument = argument
        self.reason = reason
