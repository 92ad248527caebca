"""Per-call telemetry: one structured (JSON) log line and Prometheus metrics.

A server interceptor wraps every method (the hint service, health and
reflection alike) and records its method, final status code and latency,
including calls whose request could not be decoded or was too large.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import json
import logging
import threading
import time
from typing import Any, Awaitable, Callable, NoReturn, Optional, TextIO

import grpc
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

from . import status
from .deadlines import CallDeadline

log = logging.getLogger("t42.server")

#: Largest request message the server accepts (gRPC's default receive limit, 4 MiB).
MAX_REQUEST_BYTES = 4 * 1024 * 1024

#: Latency buckets (seconds): solves run from well under 1 ms to seconds.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
                   30.0)


class _LineSink:
    """Where log lines go: the ``t42.server`` logger, or straight to a stream.

    `t42 serve` owns its stderr, so it writes each line itself (a preformatted
    string and one write): going through `logging` (a LogRecord, handler
    lookup, formatting) cost about 12 us a line, a fifth of a small call's
    Python. An application that configured the logger keeps getting records.
    """

    def __init__(self) -> None:
        self.stream: Optional[TextIO] = None
        self.lock = threading.Lock()  # lines also come from worker threads

    def write(self, line: str) -> None:
        stream = self.stream
        if stream is None:
            log.info(line)
            return
        with self.lock:
            stream.write(line + "\n")
            stream.flush()


_sink = _LineSink()


def write_lines_to(stream: Optional[TextIO]) -> None:
    """Write log lines straight to ``stream`` (None: through the ``t42.server`` logger)."""
    _sink.stream = stream


def log_event(event: str, **fields: Any) -> None:
    """Write one JSON log line (``{"event": ..., **fields}``) to the server log."""
    _sink.write(json.dumps({"ts": round(time.time(), 3), "event": event, **fields}))


@functools.lru_cache(maxsize=4096)
def _json_string(text: str) -> str:
    """A JSON string literal; methods and peers repeat from call to call."""
    return json.dumps(text)


def log_rpc(method: str, code: str, latency_s: float, peer: str,
            rejected: Optional[str] = None, transport: Optional[str] = None) -> None:
    """The ``rpc`` log line of one call (as `log_event` would write it, built by hand):
    its ``method``, status ``code``, ``latency_s``, ``peer``, why it was ``rejected``
    (None: it was not) and its ``transport`` (None: gRPC)."""
    line = (f'{{"ts": {time.time():.3f}, "event": "rpc", "method": {_json_string(method)}, '
            f'"code": "{code}", "latency_ms": {latency_s * 1000:.3f}, '
            f'"peer": {_json_string(peer)}')
    if rejected:
        line += f', "rejected": "{rejected}"'
    if transport:
        line += f', "transport": "{transport}"'
    _sink.write(line + "}")


class Metrics:
    """The service's Prometheus metrics, in a registry of their own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.calls = Counter("t42_rpc_calls", "Finished calls by method and status code.",
                             ["method", "code"], registry=self.registry)
        self.latency = Histogram("t42_rpc_latency_seconds", "Call latency by method.",
                                 ["method"], buckets=LATENCY_BUCKETS, registry=self.registry)
        self.in_flight = Gauge("t42_rpc_in_flight", "Calls in progress by method.", ["method"],
                               registry=self.registry)
        self.busy_workers = Gauge("t42_solver_busy_workers", "Worker threads running a job.",
                                  registry=self.registry)
        self.jobs = Counter("t42_solver_jobs", "Finished worker jobs (one position, hand or "
                            "deal each) by outcome: ok, bad_input, cancelled (deadline or "
                            "cancel), error.",
                            ["outcome"], registry=self.registry)
        self.rejected = Counter("t42_rpc_rejected_requests", "Requests refused before their "
                                "handler ran, by method and reason: undecodable (INVALID_ARGUMENT; "
                                "also a body that is not gzip), too_large (over 4 MiB, "
                                "decompressed: RESOURCE_EXHAUSTED), unsupported_encoding "
                                "(HTTP: not gzip or identity, UNIMPLEMENTED).",
                                ["method", "reason"], registry=self.registry)
        # Series looked up once: ``labels()`` takes a lock and builds a key at every call.
        self._jobs_of = {outcome: self.jobs.labels(outcome)
                         for outcome in ("ok", "bad_input", "cancelled", "error")}

    def job_started(self) -> None:
        """A worker thread took a job (called from the worker)."""
        self.busy_workers.inc()

    def job_finished(self, outcome: str) -> None:
        """A worker thread finished a job with ``outcome`` (called from the worker)."""
        self.busy_workers.dec()
        self._jobs_of[outcome].inc()

    def serve_http(self, host: str, port: int) -> int:
        """Expose ``/metrics`` over HTTP on a daemon thread; returns the bound port."""
        httpd, _thread = start_http_server(port, addr=host, registry=self.registry)
        return int(httpd.server_port)


def _status_after(context: grpc.aio.ServicerContext, error: Optional[BaseException],
                  deadline: CallDeadline) -> str:
    """The status code name a call ended with.

    Reads only Python-side state of the context: once a call has ended, its
    C-level parts (peer, time remaining) may already be gone.
    """
    if isinstance(error, asyncio.CancelledError):
        return "DEADLINE_EXCEEDED" if deadline.expired() else "CANCELLED"
    code = context.code()
    if code is None:
        return "OK" if error is None else "UNKNOWN"
    if isinstance(code, grpc.StatusCode):
        return code.name
    return _CODE_NAMES.get(code, "UNKNOWN")


_CODE_NAMES = {c.value[0]: c.name for c in grpc.StatusCode}


class _Call:
    """One call as the interceptor sees it: known from its start, completed by its handler."""

    __slots__ = ("method", "start", "peer", "deadline", "rejected", "reached_handler")

    def __init__(self, method: str) -> None:
        self.method = method
        self.start = time.monotonic()
        self.peer = ""
        self.deadline: Optional[CallDeadline] = None
        self.rejected: Optional[str] = None  # why the request was refused before any handler ran
        self.reached_handler = False

    def attach(self, context: grpc.aio.ServicerContext) -> None:
        """Read what the context knows (while the call is alive: its C-level parts go at the end)."""
        self.reached_handler = True
        self.peer = context.peer()
        self.deadline = CallDeadline.of(context)


class _Undecodable:
    """What a request deserializer gives for bytes that are not a request message."""

    __slots__ = ("detail",)

    def __init__(self, detail: str) -> None:
        self.detail = detail


def _safe_decoder(decode: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    """``decode`` that returns an `_Undecodable` instead of raising (gRPC would say UNKNOWN)."""
    def safe_decode(raw: bytes) -> Any:
        try:
            return decode(raw)
        except Exception as exc:  # DecodeError, or whatever a deserializer raises
            return _Undecodable(f"{exc}")
    return safe_decode


class TelemetryInterceptor(grpc.aio.ServerInterceptor):
    """Logs and measures every call, whatever its streaming shape, into ``metrics``
    (None: logs only).

    Requests that cannot be decoded, or that are over the size limit, are
    logged and counted like any other call (gRPC would otherwise refuse them
    before any handler or interceptor code runs):

    - unary-unary methods (every RPC of the hint service: the hot path) keep
      their shape, with a deserializer that returns an `_Undecodable` marker
      instead of raising; a request over `MAX_REQUEST_BYTES` never reaches the
      handler at all, so the call's task, which this interceptor runs in, is
      watched: a call that ends without reaching its handler was refused by
      the transport (RESOURCE_EXHAUSTED).
    - the other shapes (health's Watch, reflection) read their requests as a
      stream of raw bytes and decode them here; no message on a live call
      means the transport refused it as too large.

    A message that does not decode gets INVALID_ARGUMENT with the ErrorInfo
    reason ``UNDECODABLE_REQUEST``.
    """

    def __init__(self, metrics: Optional[Metrics]) -> None:
        self.metrics = metrics
        # method -> (handler as registered, handler served, whether it is unary-unary)
        self._wrapped: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler, bool]] = {}
        self._series_of: dict[tuple[int, tuple[str, ...]], Any] = {}

    async def intercept_service(
        self, continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        method = handler_call_details.method
        cached = self._wrapped.get(method)
        if cached is None or cached[0] is not handler:
            cached = self._wrapped[method] = (handler, *self._wrap_handler(method, handler))
        if cached[2]:
            # This coroutine runs in the call's own task (grpc.aio runs the interceptors and
            # then the handler in it): its end tells whether the handler was ever reached.
            call = _Call(method)
            _CURRENT_CALL.set(call)
            task = asyncio.current_task()
            if task is not None:
                task.add_done_callback(functools.partial(self._after_task, call))
        return cached[1]

    def _wrap_handler(self, method: str,
                      handler: grpc.RpcMethodHandler) -> tuple[grpc.RpcMethodHandler, bool]:
        """The handler served for ``method`` (fixed per method), and whether it is unary-unary."""
        decode = handler.request_deserializer or _identity
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._wrap_unary(method, handler.unary_unary),
                request_deserializer=_safe_decoder(decode),
                response_serializer=handler.response_serializer), True
        for kind in ("unary_stream", "stream_unary", "stream_stream"):
            behavior = getattr(handler, kind)
            if behavior is None:
                continue
            if kind.startswith("unary_"):
                behavior = self._read_one(method, behavior, decode)
            else:
                behavior = self._read_each(method, behavior, decode)
            # Requests arrive as a stream of raw bytes, decoded above.
            factory = grpc.stream_stream_rpc_method_handler if kind.endswith("_stream") \
                else grpc.stream_unary_rpc_method_handler
            return factory(self._wrap(method, behavior), request_deserializer=None,
                           response_serializer=handler.response_serializer), False
        return handler, False

    # ------------------------------- calls whose behavior is a coroutine (not a generator)

    def _wrap_unary(self, method: str, behavior: Callable[..., Any]) -> Callable[..., Any]:
        async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
            call = _CURRENT_CALL.get()
            if call is None or call.method != method:  # not through intercept_service
                call = _Call(method)
                _CURRENT_CALL.set(call)
            self._begin(call, context)
            error = None
            try:
                if type(request) is _Undecodable:
                    await self._reject(method, context, "undecodable", request.detail)
                return await behavior(request, context)
            except BaseException as exc:
                error = exc
                raise
            finally:
                self._end(call, context, error)
        return unary

    def _after_task(self, call: _Call, _task: "asyncio.Task[Any]") -> None:
        """The call's task ended: if its handler never ran, the transport refused the request."""
        if call.reached_handler:
            return
        call.rejected = "too_large"
        if self.metrics:
            self.metrics.rejected.labels(call.method, "too_large").inc()
        self._record(call, "RESOURCE_EXHAUSTED", time.monotonic() - call.start)

    # ------------------------------------------- request decoding (other shapes)

    def _read_one(self, method: str, behavior: Callable[..., Any],
                  decode: Callable[[bytes], Any]) -> Callable[..., Any]:
        """A unary-request behavior as a stream-request one: read and decode one message."""
        async def request_of(requests: Any, context: grpc.aio.ServicerContext) -> Any:
            raw = await anext(aiter(requests), None)
            if raw is None:
                if context.cancelled():
                    raise asyncio.CancelledError()
                await self._reject(method, context, "too_large")
            return await self._decode(method, context, decode, raw)

        if inspect.isasyncgenfunction(behavior):
            async def streaming(requests: Any, context: grpc.aio.ServicerContext) -> Any:
                request = await request_of(requests, context)
                async for response in behavior(request, context):
                    yield response
            return streaming

        async def unary(requests: Any, context: grpc.aio.ServicerContext) -> Any:
            return await behavior(await request_of(requests, context), context)
        return unary

    def _read_each(self, method: str, behavior: Callable[..., Any],
                   decode: Callable[[bytes], Any]) -> Callable[..., Any]:
        """A stream-request behavior fed decoded messages."""
        def with_decoded(requests: Any, context: grpc.aio.ServicerContext) -> Any:
            async def decoded() -> Any:
                async for raw in requests:
                    yield await self._decode(method, context, decode, raw)
            return behavior(decoded(), context)

        if inspect.isasyncgenfunction(behavior):
            async def streaming(requests: Any, context: grpc.aio.ServicerContext) -> Any:
                async for response in with_decoded(requests, context):
                    yield response
            return streaming

        async def unary(requests: Any, context: grpc.aio.ServicerContext) -> Any:
            return await with_decoded(requests, context)
        return unary

    async def _decode(self, method: str, context: grpc.aio.ServicerContext,
                      decode: Callable[[bytes], Any], raw: bytes) -> Any:
        try:
            return decode(raw)
        except Exception as exc:  # DecodeError, or whatever a deserializer raises
            await self._reject(method, context, "undecodable", f"{exc}")

    async def _reject(self, method: str, context: grpc.aio.ServicerContext, reason: str,
                      detail: str = "") -> NoReturn:
        """Refuse a request that never reached its handler; counted by ``reason``."""
        if self.metrics:
            self.metrics.rejected.labels(method, reason).inc()
        call = _CURRENT_CALL.get()
        if call is not None:
            call.rejected = reason
        if reason == "too_large":
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"request over the {MAX_REQUEST_BYTES} byte limit")
        rich = status.undecodable_request(detail)
        await context.abort(rich.code, rich.details, rich.trailing_metadata)
        raise AssertionError("unreachable: abort raises")

    # -------------------------------------------------------------- telemetry

    def _wrap(self, method: str, behavior: Callable[..., Any]) -> Callable[..., Any]:
        # A streaming response comes from an async generator, or from context.write().
        if inspect.isasyncgenfunction(behavior):
            async def streaming(requests: Any, context: grpc.aio.ServicerContext) -> Any:
                call, error = _Call(method), None
                _CURRENT_CALL.set(call)  # each call runs in a task of its own: a context of its own
                self._begin(call, context)
                try:
                    async for response in behavior(requests, context):
                        yield response
                except BaseException as exc:
                    error = exc
                    raise
                finally:
                    self._end(call, context, error)
            return streaming
        # A coroutine (one response, or responses written with context.write()): timed
        # as a unary-unary call is (its requests are never an undecodable message, and
        # no interceptor has made its _Call).
        return self._wrap_unary(method, behavior)

    def _series(self, metric: Any, *labels: str) -> Any:
        """``metric.labels(*labels)``, looked up once: ``labels()`` takes a lock and builds
        a key at every call."""
        key = (id(metric), labels)
        series = self._series_of.get(key)
        if series is None:
            series = self._series_of[key] = metric.labels(*labels)
        return series

    def _begin(self, call: _Call, context: grpc.aio.ServicerContext) -> None:
        call.attach(context)
        if self.metrics:
            self._series(self.metrics.in_flight, call.method).inc()

    def _end(self, call: _Call, context: grpc.aio.ServicerContext,
             error: Optional[BaseException]) -> None:
        assert call.deadline is not None
        latency = time.monotonic() - call.start
        if self.metrics:
            self._series(self.metrics.in_flight, call.method).dec()
        self._record(call, _status_after(context, error, call.deadline), latency)

    def _record(self, call: _Call, code: str, latency: float) -> None:
        """Count and log a finished call."""
        if self.metrics:
            self._series(self.metrics.calls, call.method, code).inc()
            self._series(self.metrics.latency, call.method).observe(latency)
        log_rpc(call.method, code, latency, call.peer, rejected=call.rejected)


def _identity(raw: bytes) -> bytes:
    return raw


_CURRENT_CALL: contextvars.ContextVar[Optional[_Call]] = contextvars.ContextVar(
    "t42_current_call", default=None)
