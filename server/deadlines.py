"""A call's deadline as the server sees it, and whether a call that ended early ran out of time.

The client's deadline fires first: the server's copy of it starts when the
request arrives, so it runs late by the request's transit time, and under load
the client's cancellation (sent when its own deadline fires) can reach the
server before the server's copy expires. A call that ends within a small slack
before its deadline is therefore a call whose deadline passed (logged
DEADLINE_EXCEEDED), not one the client cancelled.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Optional

import grpc

#: Longest slack: a cancellation this close to the deadline is the deadline's.
MAX_SLACK_S = 0.25
#: ... and at most this fraction of the call's timeout, so short calls keep it tight.
SLACK_FRACTION = 0.1


@dataclass(frozen=True)
class CallDeadline:
    """When a call started and when its deadline (if any) passes, on the monotonic clock.

    Attributes:
        start: The call's start.
        deadline: Its deadline, or None.
    """

    start: float
    deadline: Optional[float]

    @classmethod
    def of(cls, context: grpc.aio.ServicerContext) -> "CallDeadline":
        """Read while the call is alive: its C-level parts may be gone once it has ended."""
        now = time.monotonic()
        remaining = context.time_remaining()
        return cls(now, None if remaining is None else now + max(remaining, 0.0))

    def expired(self, now: Optional[float] = None) -> bool:
        """Whether the deadline has passed (allowing for the client's copy firing first)."""
        if self.deadline is None:
            return False
        now = time.monotonic() if now is None else now
        slack = min(MAX_SLACK_S, SLACK_FRACTION * (self.deadline - self.start))
        return now >= self.deadline - slack
