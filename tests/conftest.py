"""Fixtures shared by the test modules: a real `t42 serve` process per module."""

from __future__ import annotations

import grpc
import pytest
from grpc_helpers import Hold
from web_helpers import axe, browser, web_server  # noqa: F401 - of the web pages' tests

from server.launcher import ServerProcess
from texas42.v1 import hint_service_pb2_grpc as service_grpc


@pytest.fixture(scope="module")
def hold():
    """Holds the module server's searches open on demand (off unless a test turns it on)."""
    hold = Hold()
    yield hold
    hold.off()


@pytest.fixture(scope="module")
def server(hold):
    with ServerProcess("--workers", "2", "--metrics-port", "0", env=hold.env) as proc:
        yield proc


@pytest.fixture(scope="module")
def http_server():
    """A `t42 serve` per module with the HTTP/JSON (Connect) port open too."""
    with ServerProcess("--workers", "2", "--http-port", "0") as proc:
        assert proc.http_port
        yield proc


@pytest.fixture(scope="module")
def http_stub(http_server):
    with grpc.insecure_channel(http_server.address) as channel:
        yield service_grpc.HintServiceStub(channel)


@pytest.fixture(scope="module")
def channel(server):
    with grpc.insecure_channel(server.address) as ch:
        yield ch


@pytest.fixture(scope="module")
def stub(channel):
    return service_grpc.HintServiceStub(channel)
