"""Helpers shared by the service tests: polling, metrics scraping, seeded deals,
checking INVALID_ARGUMENT answers, and calls to the HTTP/JSON (Connect) port."""

from __future__ import annotations

import base64
import json
import random
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar

import grpc
import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from server.convert import position_from_json
from server.pool import HOLD_FILE_ENV
from solver.game.tiles import NAMES
from texas42.v1 import position_pb2 as pb

T = TypeVar("T")


def wait_for(probe: Callable[[], Optional[T]], attempts: int = 400, pause: float = 0.05) -> T:
    """Poll ``probe`` until it returns something truthy (servers log and count asynchronously)."""
    for _ in range(attempts):
        value = probe()
        if value:
            return value
        time.sleep(pause)
    raise AssertionError("condition not reached")


class Hold:
    """Holds the server's searches open: while on, a worker that takes a job waits
    (counted busy) until the hold is off or the job's token stops (cancel, deadline).

    Pass ``env`` to the `ServerProcess`; then ``on()``/``off()`` (or ``with hold:``).
    """

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="t42-hold-")
        self.path = Path(self._dir.name) / "hold"

    @property
    def env(self) -> dict[str, str]:
        return {HOLD_FILE_ENV: str(self.path)}

    def on(self) -> None:
        self.path.touch()

    def off(self) -> None:
        self.path.unlink(missing_ok=True)

    @property
    def held(self) -> int:
        """Jobs that found the hold on (and so waited, until it was off or they stopped)."""
        marks = Path(f"{self.path}.held")
        return len(marks.read_text(encoding="utf-8").splitlines()) if marks.exists() else 0

    def __enter__(self) -> "Hold":
        self.on()
        return self

    def __exit__(self, *exc: object) -> None:
        self.off()


class Metric:
    """Counter deltas from a `/metrics` snapshot taken now (other tests' calls cancel out)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.before = scrape(port)

    def delta(self, name: str, samples: Optional[dict[str, float]] = None) -> float:
        samples = scrape(self.port) if samples is None else samples
        return samples.get(name, 0.0) - self.before.get(name, 0.0)


def busy_workers(port: int) -> float:
    return scrape(port).get("t42_solver_busy_workers", 0.0)


def scrape(port: int) -> dict[str, float]:
    """Prometheus samples of ``/metrics`` as {'name{labels}': value}."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as response:
        text = response.read().decode()
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)
    return samples


def full_deals(count: int, seed: int) -> list[pb.Position]:
    """Seeded random deals from the opening lead, declarer's longest suit as trump."""
    rng = random.Random(seed)
    pips = ("blanks", "ones", "deuces", "treys", "fours", "fives", "sixes")
    out = []
    for _ in range(count):
        tiles = list(NAMES)
        rng.shuffle(tiles)
        hands = {seat: tiles[7 * i:7 * i + 7] for i, seat in enumerate("NESW")}
        declarer = rng.choice("NESW")
        length = [sum(str(p) in t for t in hands[declarer]) for p in range(7)]
        trump = max(range(7), key=lambda p: (length[p], p))
        out.append(position_from_json({"hands": hands, "contract": {
            "declarer": declarer, "trump": pips[trump], "bid": 30}}))
    return out


def bad_request(error: grpc.RpcError) -> tuple[list[tuple[str, str]], str]:
    """(field violations as (field, description), ErrorInfo reason) of a rich status."""
    status = rpc_status.from_call(error)
    assert status is not None, "no google.rpc.Status in the trailers"
    violations, reason = [], ""
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            request = error_details_pb2.BadRequest()
            detail.Unpack(request)
            violations += [(v.field, v.description) for v in request.field_violations]
        elif detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason = info.reason
            assert info.domain == "texas42.v1"
            assert info.metadata["field"] == violations[0][0]
    return violations, reason


def connect_violations(error: dict) -> tuple[list[tuple[str, str]], str]:
    """(field violations, ErrorInfo reason) from a Connect error's binary details, as
    `bad_request` gives them from a gRPC status; each BadRequest's readable ``debug``
    copy must name the same first field."""
    violations, reason = [], ""
    for detail in error["details"]:
        value = base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
        if detail["type"] == "google.rpc.BadRequest":
            parsed = error_details_pb2.BadRequest.FromString(value)
            violations += [(v.field, v.description) for v in parsed.field_violations]
            assert detail["debug"]["fieldViolations"][0]["field"] == violations[0][0]
        elif detail["type"] == "google.rpc.ErrorInfo":
            reason = error_details_pb2.ErrorInfo.FromString(value).reason
    return violations, reason


def assert_invalid(call, field: str, code: str) -> None:
    with pytest.raises(grpc.RpcError) as err:
        call()
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    violations, reason = bad_request(err.value)
    assert len(violations) == 1
    assert violations[0][0] == field
    assert violations[0][1]  # a reason in words
    assert reason == code
    assert err.value.details().startswith(field + ": ")


#: How long an HTTP call may take: a guard against a hang, not a speed check.
HTTP_TIMEOUT = 120


def http_post(server: Any, path: str, body: bytes, headers: Optional[dict] = None
              ) -> tuple[int, bytes, Optional[str]]:
    """POST to the server's HTTP port; (HTTP status, body, content type), errors included."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.http_port}{path}", data=body,
        headers=headers or {"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as response:
            return response.status, response.read(), response.headers["Content-Type"]
    except urllib.error.HTTPError as err:
        return err.code, err.read(), err.headers["Content-Type"]


def connect_post(server: Any, method: str, body: bytes,
                 content_type: str = "application/json") -> tuple[int, bytes, Optional[str]]:
    """POST to /texas42.v1.HintService/<method>; (HTTP status, body, content type)."""
    return http_post(server, f"/texas42.v1.HintService/{method}", body,
                     {"Content-Type": content_type})


def connect_json(server: Any, method: str, request: Any,
                 headers: Optional[dict] = None) -> tuple[int, dict]:
    """A request message sent as Connect JSON; (HTTP status, decoded JSON answer)."""
    status, body, _ = http_post(server, f"/texas42.v1.HintService/{method}",
                                json_format.MessageToJson(request).encode(),
                                {"Content-Type": "application/json", **(headers or {})})
    return status, json.loads(body)
