"""The HTTP face of the service: Connect (HTTP/JSON) RPCs, the web page, health.

`t42 serve --http-port PORT` runs this beside the gRPC server, in the same
event loop and over the same `SolverPool`:

- ``POST /texas42.v1.HintService/<Method>``: the Connect protocol (JSON or
  binary protobuf), served by the connect-python runtime generated from the
  same .proto files (``texas42.v1.hint_service_connect``). Every RPC runs the
  one `HintServicer` the gRPC server uses, through `ConnectContext`, which
  gives it the gRPC context methods it calls; an abort becomes a
  `ConnectError` carrying the same details (BadRequest, ErrorInfo).
- ``POST /document``: the web page's reader of a pasted position or hand record
  (the text as pasted): `read_document` checks it with the CLI's reader and
  answers the canonical document and the request messages (proto JSON) the
  page sends, or the field and reason at fault.
- ``GET /``: the web page (``solver/show/web``, package data), and its files.
- ``GET /healthz``: ``{"status": "SERVING"}``, 503 ``NOT_SERVING`` while draining.

Every answer carries `SECURITY_HEADERS` (a strict Content-Security-Policy, nosniff,
no referrer, no framing). A body over `MAX_REQUEST_BYTES` is HTTP 413 with a Connect
``resource_exhausted`` error. uvicorn serves HTTP/1.1 only (no HTTP/2, no TLS): a
client that closes its connection before the answer cancels its call, and so its
search, as a gRPC cancel does (`HttpApp._until_disconnect`).
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
import zlib
from importlib import resources
from typing import Any, Awaitable, Callable, Iterator, NoReturn, Optional

import grpc
import uvicorn
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import DecodeError
from google.protobuf.message_factory import GetMessageClass
from google.rpc import error_details_pb2, status_pb2

from texas42.v1 import hint_service_connect, hint_service_pb2

from solver.game.errors import PositionError, key_text, quoted
from solver.game.jsondoc import JSONValue

from .deadlines import CallDeadline
from .servicer import SERVICE_NAME, HintServicer
# One request size limit for both transports.
from . import status
from .errors import ServerError
from .telemetry import MAX_REQUEST_BYTES, Metrics, log_rpc

#: gRPC status metadata key holding the rich google.rpc.Status (details).
_STATUS_DETAILS_KEY = "grpc-status-details-bin"

_SERVICE = hint_service_pb2.DESCRIPTOR.services_by_name["HintService"]
#: The generated code's attribute name (snake case) of each RPC -> the RPC's name.
_RPC_OF_ATTRIBUTE = {re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_",
                            method.name).lower(): method.name for method in _SERVICE.methods}

#: The path of the web page's document reader (`read_document`).
DOCUMENT_PATH = "/document"

#: Headers of every answer (pages, their files, JSON). The pages load their scripts and
#: styles as files of their own and write no inline style or script, so the policy
#: allows nothing inline; ``data:`` images only for the pages' empty favicon.
CONTENT_SECURITY_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; "
                           "img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
                           "form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = ((b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                    # frame-ancestors' older spelling, for browsers without CSP level 2
                    (b"x-frame-options", b"DENY"))

#: HTTP status of a body over `MAX_REQUEST_BYTES`. Connect maps resource_exhausted to
#: 429, which tells a client to retry later; 413 says the request itself is too large.
#: Connect clients read the code from the error's JSON body, whatever the status.
TOO_LARGE_STATUS = 413

#: The error details this service sends, by type name (shown decoded as ``debug``).
_DETAIL_TYPES = {"google.rpc.BadRequest": error_details_pb2.BadRequest,
                 "google.rpc.ErrorInfo": error_details_pb2.ErrorInfo}

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

    def __reduce__(self):
        # A ConnectError does not pickle (its code is not in its args): rebuilt from its parts.
        e, rest = self.error, {k: v for k, v in vars(self).items() if k not in ("error", "code")}
        return _Aborted._rebuild, (e.code, e.message, tuple(e.details), self.code), rest

    @classmethod
    def _rebuild(cls, connect_code, message, details, code) -> "_Aborted":
        return cls(ConnectError(connect_code, message, details), code)


class ConnectContext:
    """What `HintServicer` needs of a `grpc.aio.ServicerContext`, over a Connect request.

    The call's deadline comes from the Connect timeout header; done callbacks
    run when the HTTP call ends (so a search still running is cancelled). ``ctx`` is
    connect-python's request context.
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
    """The generated Connect service protocol, answered by the one `HintServicer`
    ``servicer``; ``metrics`` (None: none) counts rejected requests.

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
            deadline = CallDeadline.of(context)
            start, code = time.monotonic(), "OK"
            if self._metrics:
                self._metrics.in_flight.labels(method).inc()
            try:
                return await handler(request, context)
            except _Aborted as aborted:
                code = aborted.code.name
                raise aborted.error from None
            except asyncio.CancelledError:
                # The client hung up (`HttpApp._until_disconnect`) or the server stopped; a
                # client that hung up at its own deadline ran out of time, as over gRPC.
                code = "DEADLINE_EXCEEDED" if deadline.expired() else "CANCELLED"
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


def _connect_detail(packed: Any) -> dict[str, Any]:
    """A google.protobuf.Any as an error detail of the Connect protocol (unpadded base64,
    and the message decoded as ``debug``, as the Connect runtime sends it)."""
    kind = packed.type_url.rsplit("/", 1)[-1]
    detail: dict[str, Any] = {"type": kind,
                              "value": base64.b64encode(packed.value).decode().rstrip("=")}
    message_class = _DETAIL_TYPES.get(kind)
    if message_class is not None:
        detail["debug"] = json_format.MessageToDict(message_class.FromString(packed.value))
    return detail


def _connect_error(rich: grpc.Status) -> dict[str, Any]:
    """The Connect error body of a rich gRPC status (`server.status`)."""
    packed = status_pb2.Status.FromString(dict(rich.trailing_metadata)[_STATUS_DETAILS_KEY])
    return {"code": rich.code.name.lower(), "message": rich.details,
            "details": [_connect_detail(d) for d in packed.details]}


def json_violation(data: JSONValue, descriptor: Descriptor,
                   path: str = "") -> Optional[tuple[str, str, str]]:
    """The first field of a request's JSON ``data`` (decoded) that its message type
    (``descriptor``) cannot take: (field path under ``path``, reason, reason code), or
    None.

    Names what protobuf's parser only reports in a long message (which the answer
    must cut short): a field the message does not have, an enum name it does not
    know, a message that is not a JSON object. Paths use the proto field names, as
    the service's other field violations do (``position.contract.declaration``).
    """
    if not isinstance(data, dict):
        return (path or "request"), f"must be a JSON object, not {quoted(data)}", "INVALID_TYPE"
    fields = {f.json_name: f for f in descriptor.fields}
    fields.update({f.name: f for f in descriptor.fields})
    for key, value in data.items():
        field = fields.get(key)
        where = f"{path}.{key_text(key)}" if path else key_text(key)
        if field is None:
            known = ", ".join(f.name for f in descriptor.fields)
            return where, f"unknown field of {descriptor.name} (known: {known})", "UNKNOWN_FIELD"
        where = f"{path}.{field.name}" if path else field.name
        if value is None:
            continue
        repeated = _is_repeated(field)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            continue  # no map fields in this API
        if field.message_type is None and not (field.enum_type is not None and
                                               isinstance(value, str)):
            # A scalar (or a list of them): does protobuf take it alone?
            try:
                json_format.ParseDict({key: value}, GetMessageClass(descriptor)())
            except json_format.ParseError:
                kind = "list" if repeated and not isinstance(value, list) else \
                    _SCALAR_KIND.get(field.type, "value")
                return where, f"not a valid {kind}: {quoted(value)}", "INVALID_TYPE"
            continue
        items = list(enumerate(value)) if repeated and isinstance(value, list) else \
            [(None, value)] if not repeated else []
        for i, item in items:
            at = where if i is None else f"{where}[{i}]"
            if field.message_type is not None and \
                    not field.message_type.full_name.startswith("google.protobuf."):
                found = json_violation(item, field.message_type, at)
                if found:
                    return found
            elif field.enum_type is not None and isinstance(item, str) and \
                    field.enum_type.values_by_name.get(item) is None:
                known = ", ".join(v.name for v in field.enum_type.values)
                return at, f"unknown value {quoted(item)} (one of {known})", "INVALID_VALUE"
    return None


def _is_repeated(field: Any) -> bool:
    """Whether a field descriptor is a repeated field (``label`` in protobuf before 6)."""
    repeated = getattr(field, "is_repeated", None)
    return bool(repeated) if repeated is not None else field.label == field.LABEL_REPEATED


#: How a field violation names a scalar field's kind (FieldDescriptor.TYPE_*).
_SCALAR_KIND = {FieldDescriptor.TYPE_DOUBLE: "number", FieldDescriptor.TYPE_FLOAT: "number",
                **{kind: "whole number" for kind in (
                    FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64,
                    FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_UINT64,
                    FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64,
                    FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_FIXED64,
                    FieldDescriptor.TYPE_SFIXED32, FieldDescriptor.TYPE_SFIXED64)},
                FieldDescriptor.TYPE_BOOL: "boolean", FieldDescriptor.TYPE_STRING: "string",
                FieldDescriptor.TYPE_BYTES: "bytes", FieldDescriptor.TYPE_ENUM: "enum value"}


def read_document(body: bytes) -> dict[str, Any]:
    """The web page's pasted position or hand record (the request ``body``), read as
    `t42 analyze` reads its
    input (one JSON document; of JSON Lines, the first line) and checked by the
    solver (`solver.search.analysis.parse_record`: a position, with optional ``id`` and
    ``meta``).

    Returns ``document`` (the canonical JSON of docs/formats.md: tiles as H-L, the contract in
    full), and the requests the page sends, as proto JSON: ``position`` (every
    play), ``record`` (AnalyzeHand) and, for a 42 deal, ``deal`` (SolveDeal).
    Raises `PositionError` (the field at fault, as the CLI names it).
    """
    from solver.cli.common import InputError, records_of
    from solver.search.analysis import parse_record

    from .convert import deal_from_json, hand_record_from_json, position_from_json

    try:
        first = records_of(body)[0]
    except InputError:
        raise PositionError("position", "empty: paste a position or a hand record (JSON)",
                            "INVALID_JSON") from None
    if first.error is not None:
        raise first.error
    position, ident, meta = parse_record(first.data)
    document = position.to_json()
    if ident is not None:
        document["id"] = ident
    if meta is not None:
        document["meta"] = meta
    answer = {"document": document,
              "position": json_format.MessageToDict(position_from_json(document)),
              "record": json_format.MessageToDict(hand_record_from_json(document))}
    if position.game == "42":
        deal: dict[str, Any] = {"hands": document["hands"]}
        contract = first.data.get("contract")
        if isinstance(contract, dict) and contract.get("doubles") is not None:
            deal["doubles"] = document["contract"]["doubles"]  # as given, canonical
        answer["deal"] = json_format.MessageToDict(deal_from_json(deal))
    return answer


class _TooLarge(Exception):
    """A request body over `MAX_REQUEST_BYTES` (once decompressed)."""


def gunzip(body: bytes) -> bytes:
    """A gzip request body decompressed (every member), at most `MAX_REQUEST_BYTES` of it:
    `_TooLarge` beyond (a small body may inflate a thousandfold), ValueError for
    bytes that are not gzip."""
    out = bytearray()
    data = body
    while data:
        inflate = zlib.decompressobj(wbits=31)  # gzip header and trailer
        try:
            out += inflate.decompress(data, MAX_REQUEST_BYTES + 1 - len(out))
        except zlib.error as exc:
            raise ValueError(f"not a gzip body: {exc}") from None
        if len(out) > MAX_REQUEST_BYTES or inflate.unconsumed_tail:
            raise _TooLarge()
        if not inflate.eof:
            raise ValueError("not a gzip body: it ends before its gzip stream does")
        data = inflate.unused_data
    return bytes(out)


def _web_file(name: str) -> Optional[bytes]:
    """A file of the web page (package data in solver/show/web), or None."""
    if not re.fullmatch(r"[a-z0-9_-]+\.(html|css|js|json|svg)", name):
        return None  # no paths: only the page's own flat files
    resource = resources.files("solver.show.web").joinpath(name)
    return resource.read_bytes() if resource.is_file() else None


class HttpApp:
    """The ASGI application: Connect RPCs answered by ``servicer``, the web page and
    health; ``metrics`` (None: none) counts rejected requests."""

    def __init__(self, servicer: HintServicer, metrics: Optional[Metrics] = None) -> None:
        self.connect = hint_service_connect.HintServiceASGIApplication(
            ConnectHintService(servicer, metrics), read_max_bytes=MAX_REQUEST_BYTES)
        self.serving = True
        self.metrics = metrics
        self._inputs = {f"{self.connect.path}/{m.name}": GetMessageClass(m.input_type)
                        for m in _SERVICE.methods}

    async def _connect_call(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Hand a call to the Connect runtime, answering a body that is not a request
        message with ``invalid_argument`` (the runtime would call it ``unknown``; a JSON
        field the message does not have, or an enum name it does not know, is named
        as a field violation) and one over `MAX_REQUEST_BYTES` with
        ``resource_exhausted`` (HTTP 413), as the gRPC face does. A gzip body is
        decompressed here and judged the same; one that is not gzip is
        ``invalid_argument``, an encoding other than gzip ``unimplemented``: all counted
        and logged as refused. The body is read whole before the runtime gets it, so
        that a client that hangs up afterwards is seen (`_until_disconnect`)."""
        message_class = self._inputs.get(scope["path"])
        headers = dict(scope.get("headers", ()))
        content_type = headers.get(b"content-type", b"").split(b";")[0].strip()
        encoding = headers.get(b"content-encoding", b"identity").strip().lower()
        if scope["method"] != "POST" or \
                content_type not in (b"application/json", b"application/proto"):
            # Not decoded here: the runtime answers it (unknown method, GET, other
            # content types); its body is still bounded and a hang-up still seen.
            message_class = None
        start = time.monotonic()
        method = scope["path"]
        if message_class is not None and encoding not in (b"identity", b"gzip"):
            shown = encoding.decode("latin-1")
            await self._refuse(scope, send, method, start, "unsupported_encoding", 501, {
                "code": "unimplemented",
                "message": f"unknown compression {quoted(shown)}: supported encodings are "
                           "gzip, identity"})
            return
        body = await _read_body(receive)
        if body is None:  # the client hung up before its request was whole: no answer
            self._count(scope, method, start, "CANCELLED", rejected="disconnected")
            return
        try:
            if len(body) > MAX_REQUEST_BYTES:
                raise _TooLarge()
            if message_class is not None and encoding == b"gzip":
                body = gunzip(body)
                # The runtime gets the body as sent without compression.
                scope = {**scope, "headers": [(k, v) for k, v in scope.get("headers", ())
                                              if k.lower() != b"content-encoding"]}
        except _TooLarge:
            await self._refuse_too_large(scope, send, method, start)
            return
        except ValueError as exc:
            rich = status.undecodable_request(str(exc))
            await self._refuse(scope, send, method, start, "undecodable", 400,
                               _connect_error(rich))
            return
        if message_class is not None:
            try:
                if content_type == b"application/json":
                    json_format.Parse(body, message_class())
                else:
                    message_class.FromString(body)
            except (json_format.ParseError, DecodeError, UnicodeDecodeError) as exc:
                # The gRPC face's status: a short quotation of the parser's message, and the
                # UNDECODABLE_REQUEST reason (protobuf's message can hold a whole bad value);
                # a JSON field protobuf would not take is named instead.
                violation = None
                if content_type == b"application/json":
                    try:
                        violation = json_violation(json.loads(body), message_class.DESCRIPTOR)
                    except Exception:  # not JSON (protobuf's message says so), too deep, ...
                        violation = None
                rich = status.invalid_argument(*violation) if violation else \
                    status.undecodable_request(str(exc))
                await self._refuse(scope, send, method, start, "undecodable", 400,
                                   _connect_error(rich))
                return
        await self._until_disconnect(scope, body, receive, send)

    async def _until_disconnect(self, scope: Scope, body: bytes, receive: Receive,
                                send: Send) -> None:
        """Run the Connect runtime on a request whose ``body`` has been read, until it has
        answered or the client has hung up, whichever comes first.

        Nothing else reads the connection while a handler runs, so without this a client
        that gave up would leave its search running to the end, holding a worker, and
        be logged OK. Cancelled, the handler's search stops (its token is cancelled) and
        the call is logged and counted CANCELLED, as a gRPC cancel is.
        """
        left = asyncio.Event()

        async def replay() -> dict[str, Any]:
            nonlocal body
            if body is not None:
                event = {"type": "http.request", "body": body, "more_body": False}
                body = None
                return event
            await left.wait()  # the runtime reads no further; if it did: the client left
            return {"type": "http.disconnect"}

        async def watch() -> None:
            # After the body, uvicorn's next event is the disconnect: the client closed the
            # connection (or the answer is complete, and this watch is over anyway).
            while (await receive())["type"] != "http.disconnect":
                pass
            left.set()

        call = asyncio.ensure_future(self.connect(scope, replay, send))
        watcher = asyncio.ensure_future(watch())
        try:
            await asyncio.wait((call, watcher), return_when=asyncio.FIRST_COMPLETED)
        finally:
            watcher.cancel()
            if not call.done():
                # The client hung up, or this task was cancelled (the server stops).
                call.cancel()
                await asyncio.wait((call,))
        if not call.cancelled():
            call.result()  # the runtime's own failure, if any, as before

    def _count(self, scope: Scope, method: str, start: float, code: str, *,
               rejected: str, transport: str = "connect") -> None:
        """Log and count a call that never reached its handler, ``rejected`` for that
        reason (only a method of the service is counted: an unknown path makes no new
        metric series)."""
        latency = time.monotonic() - start
        if self.metrics and (method in self._inputs or method == DOCUMENT_PATH):
            self.metrics.calls.labels(method, code).inc()
            self.metrics.latency.labels(method).observe(latency)
        client = scope.get("client")
        log_rpc(method, code, latency, f"{client[0]}:{client[1]}" if client else "",
                rejected=rejected, transport=transport)

    async def _refuse(self, scope: Scope, send: Send, method: str, start: float, reason: str,
                      http_status: int, error: dict[str, Any]) -> None:
        """Answer a request refused before its handler ran (a Connect error), counted and
        logged as the gRPC face counts and logs its own (before the answer is sent)."""
        if self.metrics and (method in self._inputs or method == DOCUMENT_PATH):
            self.metrics.rejected.labels(method, reason).inc()
        self._count(scope, method, start, error["code"].upper(), rejected=reason)
        await _respond(send, http_status, json.dumps(error).encode(), "application/json")

    async def _refuse_too_large(self, scope: Scope, send: Send, method: str,
                                start: float) -> None:
        """HTTP 413 for a body over `MAX_REQUEST_BYTES`, with the Connect error the gRPC
        face answers (RESOURCE_EXHAUSTED)."""
        await self._refuse(scope, send, method, start, "too_large", TOO_LARGE_STATUS, {
            "code": "resource_exhausted",
            "message": f"request over the {MAX_REQUEST_BYTES} byte limit"})

    async def _document(self, scope: Scope, receive: Receive, send: Send) -> None:
        """``POST /document``: `read_document` of the body; 200 with its answer, or 400
        with the Connect error of the field at fault (as an RPC's bad input)."""
        start = time.monotonic()
        received = await _read_body(receive)
        if received is None:  # the client hung up before its request was whole
            self._count(scope, DOCUMENT_PATH, start, "CANCELLED", rejected="disconnected",
                        transport="http")
            return
        if len(received) > MAX_REQUEST_BYTES:
            await self._refuse_too_large(scope, send, DOCUMENT_PATH, start)
            return
        try:
            # Off the event loop: a large document takes a while to read.
            answer = await asyncio.to_thread(read_document, received)
        except PositionError as exc:
            code, http_status = "INVALID_ARGUMENT", 400
            body = _connect_error(status.invalid_argument(exc.field, exc.reason, exc.code))
        else:
            code, http_status, body = "OK", 200, answer
        latency = time.monotonic() - start
        if self.metrics:
            self.metrics.calls.labels(DOCUMENT_PATH, code).inc()
            self.metrics.latency.labels(DOCUMENT_PATH).observe(latency)
        client = scope.get("client")
        log_rpc(DOCUMENT_PATH, code, latency, f"{client[0]}:{client[1]}" if client else "",
                transport="http")
        await _respond(send, http_status, json.dumps(body).encode(), "application/json")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        send = _with_security_headers(send)
        path: str = scope["path"]
        if path.startswith(self.connect.path + "/"):
            await self._connect_call(scope, receive, send)
        elif path == DOCUMENT_PATH and scope["method"] == "POST":
            await self._document(scope, receive, send)
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


async def _read_body(receive: Receive) -> Optional[bytes]:
    """A request's body, read until its end or until it is over `MAX_REQUEST_BYTES` (the
    caller refuses it then); None if the client hung up before its end."""
    received = bytearray()
    while True:
        event = await receive()
        if event["type"] == "http.disconnect":
            return None
        received += event.get("body", b"")
        if not event.get("more_body") or len(received) > MAX_REQUEST_BYTES:
            return bytes(received)


def _with_security_headers(send: Send) -> Send:
    """``send``, adding `SECURITY_HEADERS` to the answer's headers."""
    async def secured(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *SECURITY_HEADERS]}
        await send(message)
    return secured


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
    """The HTTP listener of ``app`` on ``host``:``port``; `start` binds (port 0: a free
    one), `stop` drains."""

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
        # A server restarted on its port binds while the old connections linger in
        # TIME_WAIT (a port another process listens on is still refused).
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
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
    """Start the HTTP listener for `t42 serve --http-port` on ``host``:``port``, its RPCs
    answered by ``servicer`` and counted in ``metrics`` (raises `ServerError`)."""
    http = HttpServer(HttpApp(servicer, metrics), host, port)
    try:
        await http.start()
    except OSError as exc:
        raise ServerError(f"cannot listen on {host}:{port} (HTTP): {exc.strerror or exc}") \
            from None
    return http
