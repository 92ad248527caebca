"""The HTTP face of the service: Connect (HTTP/JSON) RPCs, the web page, health.

`t42 serve --http-port PORT` runs this beside the gRPC server, in the same
event loop and over the same `SolverPool`:

- ``POST /texas42.v1.HintService/<Method>``: the Connect protocol (JSON or
  binary protobuf), served by the connect-python runtime generated from the
  same .proto files (``texas42.v1.hint_service_connect``). Every RPC runs the
  one `HintServicer` the gRPC server uses, through `ConnectContext`, which
  gives it the gRPC context methods it calls; an abort becomes a
  `ConnectError` carrying the same details (BadRequest, ErrorInfo).
- ``GET /``: the web page (``solver/web``, package data), and its files.
- ``GET /healthz``: ``{"status": "SERVING"}``, 503 ``NOT_SERVING`` while draining.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import mimetypes
import re
import socket
import time
from importlib import resources
from typing import Any, Awaitable, Callable, Iterator, NoReturn, Optional

import grpc
import uvicorn
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext
from google.protobuf import json_format
from google.protobuf.message import DecodeError
from google.protobuf.message_factory import GetMessageClass
from google.rpc import status_pb2

from texas42.v1 import hint_service_connect, hint_service_pb2

from .servicer import SERVICE_NAME, HintServicer
# One request size limit for both transports.
from . import status
from .telemetry import MAX_REQUEST_BYTES, Metrics, log_rpc

#: gRPC status metadata key holding the rich google.rpc.Status (details).
_STATUS_DETAILS_KEY = "grpc-status-details-bin"

_SERVICE = hint_service_pb2.DESCRIPTOR.services_by_name["HintService"]
#: The generated code's attribute name (snake case) of each RPC -> the RPC's name.
_RPC_OF_ATTRIBUTE = {re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_",
                            method.name).lower(): method.name for method in _SERVICE.methods}

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def connect_code(code: grpc.StatusCode) -> Code:
    """The Connect code of a gRPC status code (same names; Connect spells CANCELED)."""
    return Code.CANCELED if code == grpc.StatusCode.CANCELLED else Code[code.name]


class _Aborted(Exception):
    """Internal: the servicer aborted the call (its ConnectError is attached)."""

    def __init__(self, error: ConnectError, code: grpc.StatusCode) -> None:
        super().__init__(error.message)
        self.error, self.code = error, code


class ConnectContext:
    """What `HintServicer` needs of a `grpc.aio.ServicerContext`, over a Connect request.

    The call's deadline comes from the Connect timeout header; done callbacks
    run when the HTTP call ends (so a search still running is cancelled).
    """

    def __init__(self, ctx: RequestContext) -> None:
        self._ctx = ctx
        self._callbacks: list[Callable[[Any], None]] = []
        self._code: Optional[grpc.StatusCode] = None

    def time_remaining(self) -> Optional[float]:
        remaining_ms = self._ctx.timeout_ms()
        return None if remaining_ms is None else max(remaining_ms / 1000.0, 0.0)

    def add_done_callback(self, callback: Callable[[Any], None]) -> None:
        self._callbacks.append(callback)

    def peer(self) -> str:
        return self._ctx.client_address() or ""

    def code(self) -> Optional[grpc.StatusCode]:
        return self._code

    def set_code(self, code: grpc.StatusCode) -> None:
        self._code = code

    def is_active(self) -> bool:
        return self._code is None

    async def abort(self, code: grpc.StatusCode, details: str = "",
                    trailing_metadata: Any = ()) -> NoReturn:
        """End the call with ``code``; rich details (BadRequest, ErrorInfo) go along."""
        self._code = code
        extra = []
        for key, value in trailing_metadata or ():
            if key == _STATUS_DETAILS_KEY:
                extra = list(status_pb2.Status.FromString(value).details)
        raise _Aborted(ConnectError(connect_code(code), details, extra), code)

    def done(self) -> None:
        for callback in self._callbacks:
            callback(self)


class ConnectHintService:
    """The generated Connect service protocol, answered by the one `HintServicer`.

    ``solve_position`` etc. (the names the generated code calls) resolve to the
    servicer's ``SolvePosition`` etc., so an RPC added to the servicer is
    served over HTTP as soon as its Connect code is generated.
    """

    def __init__(self, servicer: HintServicer, metrics: Optional[Metrics]) -> None:
        self._servicer = servicer
        self._metrics = metrics

    def __getattr__(self, name: str) -> Callable[[Any, RequestContext], Awaitable[Any]]:
        rpc = _RPC_OF_ATTRIBUTE.get(name)
        handler = getattr(self._servicer, rpc, None) if rpc else None
        if handler is None:
            raise AttributeError(name)
        method = f"/{SERVICE_NAME}/{rpc}"

        async def call(request: Any, ctx: RequestContext) -> Any:
            context = ConnectContext(ctx)
            start, code = time.monotonic(), "OK"
            if self._metrics:
                self._metrics.in_flight.labels(method).inc()
            try:
                return await handler(request, context)
            except _Aborted as aborted:
                code = aborted.code.name
                raise aborted.error from None
            except asyncio.CancelledError:
                code = "CANCELLED"
                raise
            except Exception:
                code = "INTERNAL"
                raise
            finally:
                context.done()
                latency = time.monotonic() - start
                if self._metrics:
                    self._metrics.in_flight.labels(method).dec()
                    self._metrics.calls.labels(method, code).inc()
                    self._metrics.latency.labels(method).observe(latency)
                log_rpc(method, code, latency, context.peer(), transport="connect")
        return call


def _connect_detail(packed: Any) -> dict[str, str]:
    """A google.protobuf.Any as an error detail of the Connect protocol (unpadded base64)."""
    return {"type": packed.type_url.rsplit("/", 1)[-1],
            "value": base64.b64encode(packed.value).decode().rstrip("=")}


def _web_file(name: str) -> Optional[bytes]:
    """A file of the web page (package data in solver/web), or None."""
    if not re.fullmatch(r"[a-z0-9_-]+\.(html|css|js|json|svg)", name):
        return None  # no paths: only the page's own flat files
    resource = resources.files("solver.web").joinpath(name)
    return resource.read_bytes() if resource.is_file() else None


class HttpApp:
    """The ASGI application: Connect RPCs, the web page and health."""

    def __init__(self, servicer: HintServicer, metrics: Optional[Metrics] = None) -> None:
        self.connect = hint_service_connect.HintServiceASGIApplication(
            ConnectHintService(servicer, metrics), read_max_bytes=MAX_REQUEST_BYTES)
        self.serving = True
        self.metrics = metrics
        self._inputs = {f"{self.connect.path}/{m.name}": GetMessageClass(m.input_type)
                        for m in _SERVICE.methods}

    async def _connect_call(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Hand a call to the Connect runtime, answering a body that is not a request
        message with ``invalid_argument`` (the runtime would call it ``unknown``) and one
        over `MAX_REQUEST_BYTES` with ``resource_exhausted``, as the gRPC face does."""
        message_class = self._inputs.get(scope["path"])
        headers = dict(scope.get("headers", ()))
        content_type = headers.get(b"content-type", b"").split(b";")[0].strip()
        encoded = headers.get(b"content-encoding", b"identity") != b"identity"
        if scope["method"] != "POST" or message_class is None or encoded or \
                content_type not in (b"application/json", b"application/proto"):
            await self.connect(scope, receive, send)
            return
        start, received = time.monotonic(), bytearray()
        while True:
            event = await receive()
            received += event.get("body", b"")
            if not event.get("more_body") or len(received) > MAX_REQUEST_BYTES:
                break
        body, method = bytes(received), scope["path"]
        if len(body) > MAX_REQUEST_BYTES:
            await self._refuse(scope, send, method, start, "too_large", 429, {
                "code": "resource_exhausted",
                "message": f"request over the {MAX_REQUEST_BYTES} byte limit"})
            return
        try:
            if content_type == b"application/json":
                json_format.Parse(body, message_class())
            else:
                message_class.FromString(body)
        except (json_format.ParseError, DecodeError, UnicodeDecodeError) as exc:
            # The gRPC face's status: a short quotation of the parser's message, and the
            # UNDECODABLE_REQUEST reason (protobuf's message can hold a whole bad value).
            rich = status.undecodable_request(str(exc))
            await self._refuse(scope, send, method, start, "undecodable", 400, {
                "code": "invalid_argument", "message": rich.details,
                "details": [_connect_detail(d) for d in status_pb2.Status.FromString(
                    dict(rich.trailing_metadata)[_STATUS_DETAILS_KEY]).details]})
            return
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if replayed:
                return await receive()  # later events: the client's disconnect
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.connect(scope, replay, send)

    async def _refuse(self, scope: Scope, send: Send, method: str, start: float, reason: str,
                      http_status: int, error: dict[str, Any]) -> None:
        """Answer a request refused before its handler ran (a Connect error), counted and
        logged as the gRPC face counts and logs its own (before the answer is sent)."""
        code = error["code"].upper()
        latency = time.monotonic() - start
        if self.metrics:
            self.metrics.rejected.labels(method, reason).inc()
            self.metrics.calls.labels(method, code).inc()
            self.metrics.latency.labels(method).observe(latency)
        client = scope.get("client")
        log_rpc(method, code, latency, f"{client[0]}:{client[1]}" if client else "",
                rejected=reason, transport="connect")
        await _respond(send, http_status, json.dumps(error).encode(), "application/json")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        path: str = scope["path"]
        if path.startswith(self.connect.path + "/"):
            await self._connect_call(scope, receive, send)
        elif scope["method"] not in ("GET", "HEAD"):
            await _respond(send, 405, b"method not allowed\n", "text/plain")
        elif path == "/healthz":
            status = "SERVING" if self.serving else "NOT_SERVING"
            await _respond(send, 200 if self.serving else 503,
                           json.dumps({"status": status}).encode(), "application/json")
        else:
            name = "index.html" if path == "/" else path.lstrip("/")
            body = _web_file(name)
            if body is None:
                await _respond(send, 404, b"not found\n", "text/plain")
            else:
                kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
                await _respond(send, 200, body, kind + ("; charset=utf-8"
                                                        if kind.startswith("text/") or
                                                        kind.endswith(("json", "javascript"))
                                                        else ""))


async def _respond(send: Send, status: int, body: bytes, content_type: str) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type.encode()),
                            (b"cache-control", b"no-cache")]})
    await send({"type": "http.response.body", "body": body})


class _EmbeddedServer(uvicorn.Server):
    """uvicorn inside the gRPC server's loop: the caller owns the signals."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class HttpServer:
    """The HTTP listener; `start` binds (port 0: a free one), `stop` drains."""

    def __init__(self, app: HttpApp, host: str, port: int) -> None:
        self.app = app
        self.host = host
        self.requested_port = port
        self.port = 0
        self._server: Optional[_EmbeddedServer] = None
        self._task: Optional[asyncio.Task[None]] = None

    async def start(self) -> int:
        """Bind and serve; the bound port. Raises OSError when the address is taken."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.bind((self.host, self.requested_port))
        except OSError:
            sock.close()
            raise
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_config=None, access_log=False, lifespan="off",
                                timeout_graceful_shutdown=None)
        self._server = _EmbeddedServer(config)
        self._task = asyncio.ensure_future(self._server.serve(sockets=[sock]))
        while not self._server.started:
            if self._task.done():
                self._task.result()  # raises what stopped it
                raise OSError(f"HTTP server on {self.host}:{self.port} did not start")
            await asyncio.sleep(0.01)
        return self.port

    async def stop(self, grace: float) -> None:
        """Stop listening; requests in flight get ``grace`` seconds, then are cancelled."""
        self.app.serving = False
        if self._server is None or self._task is None:
            return
        self._server.config.timeout_graceful_shutdown = grace
        self._server.should_exit = True
        await self._task


async def start_http(host: str, port: int, servicer: HintServicer,
                     metrics: Optional[Metrics]) -> HttpServer:
    """Start the HTTP listener for `t42 serve --http-port` (raises `ServerError`)."""
    from .app import ServerError

    http = HttpServer(HttpApp(servicer, metrics), host, port)
    try:
        await http.start()
    except OSError as exc:
        raise ServerError(f"cannot listen on {host}:{port} (HTTP): {exc.strerror or exc}") \
            from None
    return http
